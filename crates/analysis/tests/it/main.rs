//! The analyses on real files written to a temporary checkout.

mod dead;
mod deps;
mod docs;
mod functions;
mod load;
mod structure;
mod testing;

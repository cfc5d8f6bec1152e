//! The analyses on real files written to a temporary checkout.

mod docs;
mod load;
mod testing;

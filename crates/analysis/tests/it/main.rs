//! The analyses on real files written to a temporary checkout.

mod deps;
mod load;

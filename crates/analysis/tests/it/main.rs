//! The analyses on real files written to a temporary checkout.

mod dead;
mod load;

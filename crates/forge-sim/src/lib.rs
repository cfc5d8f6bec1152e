//! A simulated forge (placeholder until written).

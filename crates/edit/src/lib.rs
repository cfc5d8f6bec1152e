//! The only code that writes into a user's checkout.

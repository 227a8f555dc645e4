//! `lint`: check descriptions against the description contract.

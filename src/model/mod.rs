//! The model: the types the stages hand each other and the outputs cite, with no I/O and no
//! policy: findings and the one registry of their codes.

pub mod codes;
pub mod finding;

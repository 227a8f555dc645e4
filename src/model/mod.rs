//! The model: the types the sources produce and the outputs cite, with no I/O and no policy:
//! where each action is written, its edits and their status, the hints beside its effects,
//! what an OpenAPI document gains, and findings with the one registry of their codes.

pub mod codes;
pub mod edit;
pub mod finding;
pub mod hints;
pub mod openapi;
pub mod silence;
pub mod site;

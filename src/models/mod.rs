//! Request and response types of the endpoints the client models.

pub mod common;

//! The C ABI's sources (bindings/c/src) as an rlib for the fuzz targets,
//! without the client, the operation table and `iiko_client_call_operation`
//! (`client`, `organizations`, `op_table`, `operations`): they need the
//! core's `operations` feature, whose generated models were most of the fuzz
//! build's compile time, and no fuzz target calls them. A module added to
//! bindings/c/src/lib.rs is added here too (the build fails when another
//! module names it).
// The C ABI's unsafe code, as in bindings/c/src/lib.rs.
#![allow(unsafe_code)]
// Helpers only the left-out modules call.
#![allow(dead_code)]

#[path = "../../../bindings/c/src/deduplicator.rs"]
pub mod deduplicator;
#[path = "../../../bindings/c/src/error.rs"]
pub mod error;
#[path = "../../../bindings/c/src/event_fields.rs"]
pub mod event_fields;
#[path = "../../../bindings/c/src/event_kinds.rs"]
pub mod event_kinds;
#[path = "../../../bindings/c/src/events.rs"]
pub mod events;
#[path = "../../../bindings/c/src/failure.rs"]
mod failure;
#[path = "../../../bindings/c/src/ffi.rs"]
mod ffi;
#[path = "../../../bindings/c/src/inbox.rs"]
pub mod inbox;
#[path = "../../../bindings/c/src/limits.rs"]
pub mod limits;
#[path = "../../../bindings/c/src/memory.rs"]
mod memory;
#[path = "../../../bindings/c/src/ordering_guard.rs"]
pub mod ordering_guard;
#[path = "../../../bindings/c/src/panic.rs"]
mod panic;
#[path = "../../../bindings/c/src/status.rs"]
pub mod status;
#[path = "../../../bindings/c/src/webhook.rs"]
pub mod webhook;

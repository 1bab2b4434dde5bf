//! The panic boundary of infallible exports (accessors, `_free` functions).
//!
//! Fallible exports use `error::guard`, which also builds the `iiko_error`.
//! This one depends on nothing else in the crate, so that `status` (whose
//! `iiko_status_str` needs it) stays at the bottom of the module graph.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs an infallible export body (an accessor, a free function) behind the
/// panic boundary, returning `on_panic` if it panics.
pub(crate) fn guard_value<T>(on_panic: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(on_panic)
}

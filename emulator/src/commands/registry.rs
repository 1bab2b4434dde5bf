//! The table of commands by `correlationId`, and what a stop-list command
//! changes: plain data that the emulator's state holds, apart from the
//! handlers (commands/mod.rs) that reach the whole state.

use std::collections::HashMap;

use crate::fixtures::StopListItem;

pub(crate) enum StopListChange {
    Add(Vec<StopListItem>),
    Remove(Vec<(String, Option<String>)>),
    Clear,
}

pub(crate) struct Command {
    pub(super) organization_id: String,
    /// `None` while in progress; then the error code of a failure, or empty.
    pub(super) finished: Option<Result<(), String>>,
}

/// Commands by correlationId.
#[derive(Default)]
pub(crate) struct Commands {
    pub(super) by_id: HashMap<String, Command>,
}

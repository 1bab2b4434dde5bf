//! Errors of the in-process API.

/// Why an in-process trigger could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmulatorError {
    /// No organization with this id in the fixtures.
    #[error("unknown organization {0}")]
    UnknownOrganization(String),
    /// No delivery order with this id was created by this emulator.
    #[error("unknown delivery order {0}")]
    UnknownOrder(String),
    /// The organization has no terminal group with this id.
    #[error("unknown terminal group {0}")]
    UnknownTerminalGroup(String),
    /// The organization has no terminal groups at all.
    #[error("organization {0} has no terminal groups")]
    NoTerminalGroups(String),
    /// An argument was not acceptable.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

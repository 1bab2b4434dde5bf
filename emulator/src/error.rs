//! Errors of the in-process API.

use std::fmt;

/// Why an in-process trigger could not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmulatorError {
    /// No organization with this id in the fixtures.
    UnknownOrganization(String),
    /// No delivery order with this id was created by this emulator.
    UnknownOrder(String),
    /// The organization has no terminal group with this id.
    UnknownTerminalGroup(String),
    /// The organization has no terminal groups at all.
    NoTerminalGroups(String),
    /// An argument was not acceptable.
    InvalidArgument(String),
}

impl fmt::Display for EmulatorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmulatorError::UnknownOrganization(id) => write!(f, "unknown organization {id}"),
            EmulatorError::UnknownOrder(id) => write!(f, "unknown delivery order {id}"),
            EmulatorError::UnknownTerminalGroup(id) => write!(f, "unknown terminal group {id}"),
            EmulatorError::NoTerminalGroups(id) => {
                write!(f, "organization {id} has no terminal groups")
            }
            EmulatorError::InvalidArgument(msg) => write!(f, "invalid argument: {msg}"),
        }
    }
}

impl std::error::Error for EmulatorError {}

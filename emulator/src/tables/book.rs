//! Table orders and reserves by id: the data the emulator's state holds,
//! apart from the handlers (tables/mod.rs) that reach the whole state.

use std::collections::HashMap;

use serde_json::Value;

pub(super) struct TableOrder {
    pub(super) organization_id: String,
    pub(super) pos_id: String,
    pub(super) timestamp: i64,
    /// `InProgress` until the creation command finishes.
    pub(super) creation_status: &'static str,
    pub(super) order: Value,
}

pub(super) struct Reserve {
    pub(super) organization_id: String,
    pub(super) external_number: Option<String>,
    pub(super) timestamp: i64,
    pub(super) creation_status: &'static str,
    pub(super) is_deleted: bool,
    pub(super) reserve: Value,
}

/// Table orders and reserves by id (lower case).
#[derive(Default)]
pub(crate) struct Tables {
    pub(super) orders: HashMap<String, TableOrder>,
    pub(super) reserves: HashMap<String, Reserve>,
}

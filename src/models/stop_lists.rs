//! `POST /api/1/stop_lists`: out-of-stock items.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::common::lenient;
use crate::Money;

/// Request of [`Client::stop_lists`](crate::Client::stop_lists).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StopListsRequest {
    /// Organizations (UUIDs); at least one.
    pub organization_ids: Vec<String>,
    /// Return the sizes of the dishes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub return_size: Option<bool>,
    /// Only these terminal groups (the service's spelling, `terminalGroupsIds`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal_groups_ids: Option<Vec<String>>,
}

impl StopListsRequest {
    /// Stop lists of these organizations.
    pub fn new<I, S>(organization_ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        StopListsRequest {
            organization_ids: organization_ids.into_iter().map(Into::into).collect(),
            ..Default::default()
        }
    }
}

/// Answer of [`Client::stop_lists`](crate::Client::stop_lists): organization,
/// then terminal group, then item.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StopListsResponse {
    /// The request's `correlationId`.
    #[serde(default)]
    pub correlation_id: Option<String>,
    /// One entry per organization.
    #[serde(default, deserialize_with = "lenient::null_as_default")]
    pub terminal_group_stop_lists: Vec<OrganizationStopLists>,
    /// Fields this SDK version does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Stop lists of one organization.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrganizationStopLists {
    /// Organization UUID.
    #[serde(default)]
    pub organization_id: Option<String>,
    /// One entry per terminal group.
    #[serde(default, deserialize_with = "lenient::null_as_default")]
    pub items: Vec<TerminalGroupStopList>,
}

/// Stop list of one terminal group.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TerminalGroupStopList {
    /// Terminal group UUID.
    #[serde(default)]
    pub terminal_group_id: Option<String>,
    /// Out-of-stock items.
    #[serde(default, deserialize_with = "lenient::null_as_default")]
    pub items: Vec<StopListItem>,
}

/// One out-of-stock item.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StopListItem {
    /// Remaining balance (exact).
    #[serde(default, deserialize_with = "lenient::option")]
    pub balance: Option<Money>,
    /// Product UUID.
    #[serde(default)]
    pub product_id: Option<String>,
    /// Size UUID.
    #[serde(default)]
    pub size_id: Option<String>,
    /// Product SKU.
    #[serde(default)]
    pub sku: Option<String>,
    /// When the item was added (UTC, `yyyy-MM-dd HH:mm:ss.fff`).
    #[serde(default)]
    pub date_add: Option<String>,
    /// Fields this SDK version does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

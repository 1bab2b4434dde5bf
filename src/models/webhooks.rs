//! `POST /api/1/webhooks/settings` and `POST /api/1/webhooks/update_settings`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::common::lenient;
use crate::webhook::model::{DeliveryStatus, OrderItemStatus, OrderStatus};
use crate::Secret;

/// Which events the service sends to the webhook (`webHooksFilter`).
///
/// Every member is optional. What an absent filter means is not documented
/// by the service; the emulator treats it as "all events".
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WebHooksFilter {
    /// Delivery orders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery_order_filter: Option<DeliveryOrderFilter>,
    /// Table orders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_order_filter: Option<TableOrderFilter>,
    /// Reserves and banquets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserve_filter: Option<ReserveFilter>,
    /// Stop-list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_list_update_filter: Option<UpdatesFilter>,
    /// Personal shifts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub personal_shift_filter: Option<UpdatesFilter>,
    /// Nomenclature changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nomenclature_update_filter: Option<UpdatesFilter>,
    /// Business hours and mapping changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub business_hours_and_mapping_update_filter: Option<UpdatesFilter>,
    /// Members this SDK version does not model, kept and sent back as they were.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `deliveryOrderFilter`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryOrderFilter {
    /// Order statuses whose changes are sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_statuses: Option<Vec<DeliveryStatus>>,
    /// Item statuses whose changes are sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_statuses: Option<Vec<OrderItemStatus>>,
    /// Send order-saving errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<bool>,
    /// External data keys to include in notifications.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returned_external_data_keys: Option<Vec<String>>,
}

/// `tableOrderFilter`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TableOrderFilter {
    /// Order statuses whose changes are sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_statuses: Option<Vec<OrderStatus>>,
    /// Item statuses whose changes are sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_statuses: Option<Vec<OrderItemStatus>>,
    /// Send order-saving errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<bool>,
}

/// `reserveFilter`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub struct ReserveFilter {
    /// Send reserve changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updates: Option<bool>,
    /// Send reserve-saving errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<bool>,
}

/// A filter that only switches a kind of event on or off.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub struct UpdatesFilter {
    /// Send these events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updates: Option<bool>,
}

/// Request of [`Client::update_webhook_settings`](crate::Client::update_webhook_settings).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateWebhookSettingsRequest {
    /// Organization UUID.
    pub organization_id: String,
    /// Absolute http(s) URL of your receiver.
    pub web_hooks_uri: String,
    /// Token the service sends back in `Authorization`; choose a long random one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth_token: Option<Secret>,
    /// Which events to send.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web_hooks_filter: Option<WebHooksFilter>,
}

impl UpdateWebhookSettingsRequest {
    /// Settings with a URL and an auth token, no filter.
    pub fn new(
        organization_id: impl Into<String>,
        web_hooks_uri: impl Into<String>,
        auth_token: impl Into<Secret>,
    ) -> Self {
        UpdateWebhookSettingsRequest {
            organization_id: organization_id.into(),
            web_hooks_uri: web_hooks_uri.into(),
            auth_token: Some(auth_token.into()),
            web_hooks_filter: None,
        }
    }
}

/// Answer of [`Client::webhook_settings`](crate::Client::webhook_settings).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookSettings {
    /// The request's `correlationId`.
    #[serde(default)]
    pub correlation_id: Option<String>,
    /// Name of the API login the settings belong to.
    #[serde(default)]
    pub api_login_name: Option<String>,
    /// Receiver URL; `None` when nothing is configured.
    #[serde(default)]
    pub web_hooks_uri: Option<String>,
    /// The stored auth token (the service returns it in clear). Redacted in
    /// `Debug`; read it with [`Secret::expose`]. Serializing this answer
    /// writes it in clear (bindings hand the data on whole), so never
    /// serialize it into a log.
    #[serde(default)]
    pub auth_token: Option<Secret>,
    /// The event filter.
    #[serde(default, deserialize_with = "lenient::option")]
    pub web_hooks_filter: Option<WebHooksFilter>,
    /// Fields this SDK version does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An answer that carries only `correlationId`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CorrelationIdResponse {
    /// The request's `correlationId`.
    #[serde(default)]
    pub correlation_id: Option<String>,
    /// Fields this SDK version does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

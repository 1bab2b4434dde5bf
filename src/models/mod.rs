//! Request and response types of the endpoints the client models.
//!
//! Responses are read leniently: fields this version does not know are kept in
//! `extra`, unknown enum values are kept as `Unknown(String)`, and a `null`
//! where the spec says "required" becomes `None` or an empty list instead of
//! failing the whole answer. Requests are checked before sending.

pub mod common;
pub mod organizations;
pub mod stop_lists;
pub mod webhooks;

/// Enums shared with the webhook events, where they are defined.
pub use crate::webhook::model::{DeliveryStatus, OrderItemStatus, OrderStatus};
pub use organizations::{
    ExtendedOrganizationInfo, ExternalData, Organization, OrganizationResponseType,
    OrganizationsRequest, OrganizationsResponse,
};
pub use stop_lists::{
    OrganizationStopLists, StopListItem, StopListsRequest, StopListsResponse, TerminalGroupStopList,
};
pub use webhooks::{
    CorrelationIdResponse, DeliveryOrderFilter, ReserveFilter, TableOrderFilter,
    UpdateWebhookSettingsRequest, UpdatesFilter, WebHooksFilter, WebhookSettings,
};

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_read_from_json_refuse_unknown_fields() {
        let r: OrganizationsRequest =
            serde_json::from_str(r#"{"returnAdditionalInfo":true}"#).unwrap();
        assert_eq!(r.return_additional_info, Some(true));
        let e = serde_json::from_str::<OrganizationsRequest>(r#"{"includeDisabeld":true}"#)
            .unwrap_err();
        assert!(e.to_string().contains("includeDisabeld"), "{e}");
        assert!(serde_json::from_str::<StopListsRequest>("{}").is_err());
        let u: UpdateWebhookSettingsRequest = serde_json::from_str(
            r#"{"organizationId":"o","webHooksUri":"https://x/h","authToken":"t",
                "webHooksFilter":{"stopListUpdateFilter":{"updates":true}}}"#,
        )
        .unwrap();
        assert_eq!(u.auth_token.unwrap().expose(), "t");
        assert!(u
            .web_hooks_filter
            .unwrap()
            .stop_list_update_filter
            .is_some());
    }
}

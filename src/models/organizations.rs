//! `POST /api/1/organizations`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::common::lenient;

/// Request of [`Client::organizations`](crate::Client::organizations). Read from
/// JSON (as the bindings do), unknown fields are refused, so a typo does not
/// silently drop a filter.
///
/// `OrganizationsRequest::default()` (an empty object on the wire) returns every
/// organization the API key can see, in the Simple shape.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OrganizationsRequest {
    /// Only these organizations (UUIDs); `None` means all of the key's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub organization_ids: Option<Vec<String>>,
    /// `true` returns the Extended shape (address, currency, RMS version...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub return_additional_info: Option<bool>,
    /// Include disabled organizations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_disabled: Option<bool>,
    /// External data keys to return.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub return_external_data: Option<Vec<String>>,
}

/// Answer of [`Client::organizations`](crate::Client::organizations).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrganizationsResponse {
    /// The request's `correlationId`.
    #[serde(default)]
    pub correlation_id: Option<String>,
    /// The organizations; empty when the key is linked to none.
    #[serde(default, deserialize_with = "lenient::null_as_default")]
    pub organizations: Vec<Organization>,
    /// Fields this SDK version does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::open_enum! {
    /// Which shape an organization was returned in (`responseType`).
    pub enum OrganizationResponseType {
        /// Only the base fields.
        Simple = "Simple",
        /// The base fields plus [`ExtendedOrganizationInfo`].
        Extended = "Extended",
    }
}

/// A restaurant. The base fields are always here; `extended` is filled when
/// `responseType` is `Extended` (request `returnAdditionalInfo: true`).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Organization {
    /// `Simple` or `Extended` (or a newer value, kept as sent).
    #[serde(default, deserialize_with = "lenient::option")]
    pub response_type: Option<OrganizationResponseType>,
    /// Organization UUID, used by every other call.
    #[serde(default, deserialize_with = "lenient::null_as_default")]
    pub id: String,
    /// Restaurant name (the spec allows `null`).
    #[serde(default)]
    pub name: Option<String>,
    /// Organization code.
    #[serde(default)]
    pub code: Option<String>,
    /// External data requested with `returnExternalData`.
    #[serde(default)]
    pub external_data: Option<Vec<ExternalData>>,
    /// The Extended fields, when the organization came in that shape.
    #[serde(flatten)]
    pub extended: ExtendedOrganizationInfo,
    /// Fields this SDK version does not model, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Organization {
    /// Whether the organization came in the Extended shape.
    pub fn is_extended(&self) -> bool {
        self.response_type == Some(OrganizationResponseType::Extended)
    }
}

/// A key/value pair of external data.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct ExternalData {
    /// Key.
    #[serde(default, deserialize_with = "lenient::null_as_default")]
    pub key: String,
    /// Value.
    #[serde(default, deserialize_with = "lenient::null_as_default")]
    pub value: String,
}

crate::open_enum! {
    /// Delivery service type of an organization.
    pub enum DeliveryServiceType {
        /// Courier delivery only.
        CourierOnly = "CourierOnly",
        /// Pickup only.
        SelfServiceOnly = "SelfServiceOnly",
        /// Both.
        CourierAndSelfService = "CourierAndSelfService",
    }
}

crate::open_enum! {
    /// Address format of an organization.
    pub enum AddressFormatType {
        /// Legacy.
        Legacy = "Legacy",
        /// City.
        City = "City",
        /// International.
        International = "International",
        /// International without postcode.
        IntNoPostcode = "IntNoPostcode",
    }
}

/// Fields of the Extended organization shape. Every field is optional here:
/// real answers carry `null` where the spec says required.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // field names are the service's own; see the API reference
pub struct ExtendedOrganizationInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restaurant_address: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::option"
    )]
    pub latitude: Option<f64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::option"
    )]
    pub longitude: Option<f64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::option"
    )]
    pub use_uae_addressing_system: Option<bool>,
    /// RMS version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency_iso_name: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::option"
    )]
    pub currency_minimum_denomination: Option<crate::Money>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country_phone_code: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::option"
    )]
    pub marketing_source_required_in_delivery: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_delivery_city_id: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::option"
    )]
    pub delivery_city_ids: Option<Vec<String>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::option"
    )]
    pub delivery_service_type: Option<DeliveryServiceType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery_order_payment_settings: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_call_center_payment_type_id: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::option"
    )]
    pub order_item_comment_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inn: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::option"
    )]
    pub address_format_type: Option<AddressFormatType>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::option"
    )]
    pub is_confirmation_enabled: Option<bool>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::option"
    )]
    pub confirm_allowed_interval_in_minutes: Option<i64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::option"
    )]
    pub is_cloud: Option<bool>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::option"
    )]
    pub is_anonymous_guests_allowed: Option<bool>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::option"
    )]
    pub address_lookup: Option<Vec<String>>,
}

//! Typed `eventInfo` payloads of the documented event types.
//!
//! Shapes follow the official OpenAPI document (`x-webhooks`). Every field is
//! optional (or a list that may be empty) even where the spec marks it
//! required: a missing field, a `null` or a value of the wrong type reads as
//! `None` and never hides the rest of the event. Fields the SDK does not model
//! are still in [`Event::raw_json`](super::Event::raw_json).
//!
//! Ids are kept as the strings sent (normally UUIDs), amounts and quantities as
//! exact [`Money`], terminal-local times as [`LocalTime`].

use std::fmt;

use serde::de::Deserializer;
use serde::{Deserialize, Serialize, Serializer};

use super::lenient::{model, Lenient};
use super::time::LocalTime;
use crate::money::Money;

crate::open_enum! {
    /// `creationStatus` of an order or reserve event.
    pub enum CreationStatus {
        /// The order was created; `order` is filled.
        Success = "Success",
        /// Creation is still running; `order` is `null`.
        InProgress = "InProgress",
        /// Creation failed; see `errorInfo`.
        Error = "Error",
    }
}

crate::open_enum! {
    /// Status of a delivery order (`Deliveries.Common.DeliveryStatus`).
    ///
    /// The official enum has no `New`; a `"New"` sent anyway (as the service
    /// description claims) is kept as `Unknown("New")` and still counts as a new
    /// order for [`DeliveryOrder::is_new`].
    pub enum DeliveryStatus {
        /// Not yet confirmed by an operator.
        Unconfirmed = "Unconfirmed",
        /// Confirmed, waiting to be cooked.
        WaitCooking = "WaitCooking",
        /// Ready for cooking (deprecated since RMS 9.0.6).
        ReadyForCooking = "ReadyForCooking",
        /// Cooking has started.
        CookingStarted = "CookingStarted",
        /// Cooking is done.
        CookingCompleted = "CookingCompleted",
        /// Waiting for a courier.
        Waiting = "Waiting",
        /// On the way to the customer.
        OnWay = "OnWay",
        /// Delivered.
        Delivered = "Delivered",
        /// Closed.
        Closed = "Closed",
        /// Cancelled; see `cancelInfo`.
        Cancelled = "Cancelled",
    }
}

impl DeliveryStatus {
    /// Whether the status is one a freshly created delivery order has:
    /// `New` (service description), `Unconfirmed` or `WaitCooking` (the first
    /// values of the official enum).
    pub fn is_initial(&self) -> bool {
        match self {
            DeliveryStatus::Unconfirmed | DeliveryStatus::WaitCooking => true,
            DeliveryStatus::Unknown(s) => s == "New",
            _ => false,
        }
    }
}

crate::open_enum! {
    /// Status of a table order (`OrderStatus`).
    pub enum OrderStatus {
        /// Open.
        New = "New",
        /// The bill is printed.
        Bill = "Bill",
        /// Closed.
        Closed = "Closed",
        /// Deleted.
        Deleted = "Deleted",
    }
}

crate::open_enum! {
    /// Status of a reserve or banquet (`ReserveStatus`).
    pub enum ReserveStatus {
        /// Booked, guests not yet arrived.
        New = "New",
        /// Guests arrived.
        Started = "Started",
        /// Closed.
        Closed = "Closed",
    }
}

crate::open_enum! {
    /// Why a reserve was cancelled (`ReserveCancelReason`).
    pub enum ReserveCancelReason {
        /// The guests did not come.
        ClientNotAppeared = "ClientNotAppeared",
        /// The guests cancelled.
        ClientRefused = "ClientRefused",
        /// Another reason.
        Other = "Other",
    }
}

crate::open_enum! {
    /// Kitchen status of an order item (`OrderItemStatus`).
    pub enum OrderItemStatus {
        /// Added, not yet sent to the kitchen.
        Added = "Added",
        /// Printed, not cooking.
        PrintedNotCooking = "PrintedNotCooking",
        /// Cooking.
        CookingStarted = "CookingStarted",
        /// Cooked.
        CookingCompleted = "CookingCompleted",
        /// Served.
        Served = "Served",
    }
}

crate::open_enum! {
    /// Discriminator `type` of an order item.
    pub enum OrderItemType {
        /// A product (dish, drink) with modifiers.
        Product = "Product",
        /// A compound item (e.g. a half-and-half pizza).
        Compound = "Compound",
        /// A service (e.g. a service charge).
        Service = "Service",
    }
}

crate::open_enum! {
    /// Discriminator `type` of a customer.
    pub enum CustomerType {
        /// A registered customer with an id.
        Regular = "regular",
        /// A one-time customer with a name only.
        OneTime = "one-time",
    }
}

crate::open_enum! {
    /// Gender of a regular customer.
    pub enum Gender {
        /// Not specified.
        NotSpecified = "NotSpecified",
        /// Male.
        Male = "Male",
        /// Female.
        Female = "Female",
    }
}

crate::open_enum! {
    /// `kind` of a payment type (`PaymentTypeKind`).
    pub enum PaymentTypeKind {
        /// The official value `"Unknown"` (not to be confused with the
        /// `Unknown(String)` variant, which holds values this SDK does not know).
        UnknownKind = "Unknown",
        /// Cash.
        Cash = "Cash",
        /// Bank card.
        Card = "Card",
        /// Credit.
        Credit = "Credit",
        /// Write-off.
        Writeoff = "Writeoff",
        /// Voucher.
        Voucher = "Voucher",
        /// External (e.g. paid on a web site).
        External = "External",
        /// SmartSale.
        SmartSale = "SmartSale",
        /// Sberbank.
        Sberbank = "Sberbank",
        /// Trpos.
        Trpos = "Trpos",
    }
}

crate::open_enum! {
    /// Service type of an order type (`OrderServiceType`).
    pub enum OrderServiceType {
        /// An ordinary (hall) order.
        Common = "Common",
        /// Delivered by a courier.
        DeliveryByCourier = "DeliveryByCourier",
        /// Picked up by the customer.
        DeliveryByClient = "DeliveryByClient",
    }
}

crate::open_enum! {
    /// `splitOrderBetweenCashRegisters` of a table order.
    pub enum SplitOrderBetweenCashRegisters {
        /// Splitting is disabled.
        Disabled = "Disabled",
        /// Splitting is allowed.
        Allowed = "Allowed",
        /// Splitting is required.
        Required = "Required",
    }
}

crate::open_enum! {
    /// `errorInfo.code` (`Errors.ErrorCode`; the spelling
    /// `NonUnqiueOrderItemPosition` is the service's).
    pub enum ErrorCode {
        /// `Common`.
        Common = "Common",
        /// `IllegalDeliveryStatus`.
        IllegalDeliveryStatus = "IllegalDeliveryStatus",
        /// `CustomerNameNotSpecified`.
        CustomerNameNotSpecified = "CustomerNameNotSpecified",
        /// `ProductNotFound`.
        ProductNotFound = "ProductNotFound",
        /// `MarketingSourceNotFound`.
        MarketingSourceNotFound = "MarketingSourceNotFound",
        /// `PaymentTypeNotFound`.
        PaymentTypeNotFound = "PaymentTypeNotFound",
        /// `ProductSizeNotFound`.
        ProductSizeNotFound = "ProductSizeNotFound",
        /// `ProductGroupNotFound`.
        ProductGroupNotFound = "ProductGroupNotFound",
        /// `OrderNotFound`.
        OrderNotFound = "OrderNotFound",
        /// `ConceptionNotFound`.
        ConceptionNotFound = "ConceptionNotFound",
        /// `DuplicatedOrderId`.
        DuplicatedOrderId = "DuplicatedOrderId",
        /// `TerminalGroupIdNotDetermined`.
        TerminalGroupIdNotDetermined = "TerminalGroupIdNotDetermined",
        /// `TerminalGroupUnregistered`.
        TerminalGroupUnregistered = "TerminalGroupUnregistered",
        /// `InvalidPhone`.
        InvalidPhone = "InvalidPhone",
        /// `ModifierDuplicated`.
        ModifierDuplicated = "ModifierDuplicated",
        /// `ProductCanBuyFromCashdesk`.
        ProductCanBuyFromCashdesk = "ProductCanBuyFromCashdesk",
        /// `DeliveryOpinionMarkInvalid`.
        DeliveryOpinionMarkInvalid = "DeliveryOpinionMarkInvalid",
        /// `WrongDeliveryStatusForOpinion`.
        WrongDeliveryStatusForOpinion = "WrongDeliveryStatusForOpinion",
        /// `OpinionCommentTooLong`.
        OpinionCommentTooLong = "OpinionCommentTooLong",
        /// `SurveyItemNotFound`.
        SurveyItemNotFound = "SurveyItemNotFound",
        /// `PaymentTypeCanNotBeUsedAsExternal`.
        PaymentTypeCanNotBeUsedAsExternal = "PaymentTypeCanNotBeUsedAsExternal",
        /// `AddressNotFound`.
        AddressNotFound = "AddressNotFound",
        /// `HomeNotFound`.
        HomeNotFound = "HomeNotFound",
        /// `IikonetPaymentAdditionalDataCanNotBeParsed`.
        IikonetPaymentAdditionalDataCanNotBeParsed = "IikonetPaymentAdditionalDataCanNotBeParsed",
        /// `IikonetPaymentExternalIdNotFound`.
        IikonetPaymentExternalIdNotFound = "IikonetPaymentExternalIdNotFound",
        /// `IikonetPaymentSumLessThanMarketingDiscount`.
        IikonetPaymentSumLessThanMarketingDiscount = "IikonetPaymentSumLessThanMarketingDiscount",
        /// `DiscountCardNotFound`.
        DiscountCardNotFound = "DiscountCardNotFound",
        /// `DiscountCardTypeModeForbidden`.
        DiscountCardTypeModeForbidden = "DiscountCardTypeModeForbidden",
        /// `Iikocard5PaymentAdditionalDataCanNotBeParsed`.
        Iikocard5PaymentAdditionalDataCanNotBeParsed = "Iikocard5PaymentAdditionalDataCanNotBeParsed",
        /// `Iikocard5PaymentExternalIdNotFound`.
        Iikocard5PaymentExternalIdNotFound = "Iikocard5PaymentExternalIdNotFound",
        /// `Iikocard5PaymentSumLessThanMarketingDiscount`.
        Iikocard5PaymentSumLessThanMarketingDiscount = "Iikocard5PaymentSumLessThanMarketingDiscount",
        /// `Iikocard5PaymentCanNotCreateCustomData`.
        Iikocard5PaymentCanNotCreateCustomData = "Iikocard5PaymentCanNotCreateCustomData",
        /// `CourierIdDoesNotExist`.
        CourierIdDoesNotExist = "CourierIdDoesNotExist",
        /// `CourierDoesNotOwnOrder`.
        CourierDoesNotOwnOrder = "CourierDoesNotOwnOrder",
        /// `WrongDeliveryStatus`.
        WrongDeliveryStatus = "WrongDeliveryStatus",
        /// `CanNotAssignCourierToOrder`.
        CanNotAssignCourierToOrder = "CanNotAssignCourierToOrder",
        /// `UserNotFoundByExternalPassword`.
        UserNotFoundByExternalPassword = "UserNotFoundByExternalPassword",
        /// `UserNotFound`.
        UserNotFound = "UserNotFound",
        /// `Iikocard51PaymentAdditionalDataCanNotBeParsed`.
        Iikocard51PaymentAdditionalDataCanNotBeParsed = "Iikocard51PaymentAdditionalDataCanNotBeParsed",
        /// `Iikocard51PaymentCredentialNotFound`.
        Iikocard51PaymentCredentialNotFound = "Iikocard51PaymentCredentialNotFound",
        /// `Iikocard51PaymentSearchScopeNotFound`.
        Iikocard51PaymentSearchScopeNotFound = "Iikocard51PaymentSearchScopeNotFound",
        /// `ComboDuplicated`.
        ComboDuplicated = "ComboDuplicated",
        /// `InvalidReferenceToCombo`.
        InvalidReferenceToCombo = "InvalidReferenceToCombo",
        /// `InvalidComboItemsAmount`.
        InvalidComboItemsAmount = "InvalidComboItemsAmount",
        /// `InvalidComboItemsGuest`.
        InvalidComboItemsGuest = "InvalidComboItemsGuest",
        /// `InvalidReferenceToGuest`.
        InvalidReferenceToGuest = "InvalidReferenceToGuest",
        /// `GuestDuplicated`.
        GuestDuplicated = "GuestDuplicated",
        /// `GuestNameNotSpecified`.
        GuestNameNotSpecified = "GuestNameNotSpecified",
        /// `OrderTypeNotFound`.
        OrderTypeNotFound = "OrderTypeNotFound",
        /// `OrderServiceTypeDoesNotMatchSelfServiceMode`.
        OrderServiceTypeDoesNotMatchSelfServiceMode = "OrderServiceTypeDoesNotMatchSelfServiceMode",
        /// `DeliveryDateNotSpecified`.
        DeliveryDateNotSpecified = "DeliveryDateNotSpecified",
        /// `OrderStatusChangedInIikoFront`.
        OrderStatusChangedInIikoFront = "OrderStatusChangedInIikoFront",
        /// `PaymentAdditionalDataTooLong`.
        PaymentAdditionalDataTooLong = "PaymentAdditionalDataTooLong",
        /// `PaymentSumShouldBePositive`.
        PaymentSumShouldBePositive = "PaymentSumShouldBePositive",
        /// `DiscountSumNotSpecified`.
        DiscountSumNotSpecified = "DiscountSumNotSpecified",
        /// `InvalidDiscountItem`.
        InvalidDiscountItem = "InvalidDiscountItem",
        /// `RequestProductPriceIsNotEqualToFrontPrice`.
        RequestProductPriceIsNotEqualToFrontPrice = "RequestProductPriceIsNotEqualToFrontPrice",
        /// `OrderItemsNotExists`.
        OrderItemsNotExists = "OrderItemsNotExists",
        /// `EntityAlreadyInUse`.
        EntityAlreadyInUse = "EntityAlreadyInUse",
        /// `DiscountItemPositionNotFound`.
        DiscountItemPositionNotFound = "DiscountItemPositionNotFound",
        /// `DiscountItemDuplicatePositions`.
        DiscountItemDuplicatePositions = "DiscountItemDuplicatePositions",
        /// `NonUnqiueOrderItemPosition`.
        NonUnqiueOrderItemPosition = "NonUnqiueOrderItemPosition",
        /// `EmptyOrderItemPosition`.
        EmptyOrderItemPosition = "EmptyOrderItemPosition",
        /// `IncorrectOrderType`.
        IncorrectOrderType = "IncorrectOrderType",
        /// `Incorrect`.
        Incorrect = "Incorrect",
        /// `TerminalGroupDisabled`.
        TerminalGroupDisabled = "TerminalGroupDisabled",
        /// `OrganizationUnregistered`.
        OrganizationUnregistered = "OrganizationUnregistered",
        /// `OrganizationDisabled`.
        OrganizationDisabled = "OrganizationDisabled",
        /// `TooSmallDeliveryDate`.
        TooSmallDeliveryDate = "TooSmallDeliveryDate",
        /// `IikoFrontTooOldVersion`.
        IikoFrontTooOldVersion = "IikoFrontTooOldVersion",
        /// `DuplicatedReserveId`.
        DuplicatedReserveId = "DuplicatedReserveId",
        /// `TipsTypeNotApplicable`.
        TipsTypeNotApplicable = "TipsTypeNotApplicable",
        /// `AnonymousCustomerDisabled`.
        AnonymousCustomerDisabled = "AnonymousCustomerDisabled",
        /// `MayBeInconsistentUpdates`.
        MayBeInconsistentUpdates = "MayBeInconsistentUpdates",
        /// `InconsistentUpdates`.
        InconsistentUpdates = "InconsistentUpdates",
        /// `Line1Disabled`.
        Line1Disabled = "Line1Disabled",
        /// `InternalServerError`.
        InternalServerError = "InternalServerError",
        /// `UnknownError`.
        UnknownError = "UnknownError",
    }
}

/// Untyped JSON kept verbatim (e.g. `errorInfo.additionalData`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawJson(String);

impl RawJson {
    pub(crate) fn from_text(text: &str) -> RawJson {
        RawJson(text.to_owned())
    }

    /// The JSON text as sent.
    pub fn get(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match serde_json::value::RawValue::from_string(self.0.clone()) {
            Ok(raw) => raw.serialize(s),
            Err(_) => s.serialize_str(&self.0),
        }
    }
}

impl Lenient for RawJson {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
        // Works because the value deserializer is always serde_json's, also
        // inside a lenient object.
        let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
        Ok(match raw.get() {
            "null" => None,
            text => Some(RawJson(text.to_owned())),
        })
    }
}

model! {
    /// A reference with an id and a name (product, size, group, city,
    /// marketing source, discount type…).
    pub struct IdName {
        /// Id (normally a UUID).
        pub id: Option<String>,
        /// Name.
        pub name: Option<String>,
    }
}

model! {
    /// An employee: operator, courier or waiter.
    pub struct Employee {
        /// Employee id.
        pub id: Option<String>,
        /// Name.
        pub name: Option<String>,
        /// Phone.
        pub phone: Option<String>,
    }
}

model! {
    /// `errorInfo` of a failed order or reserve.
    pub struct ErrorInfo {
        /// Error code.
        pub code: Option<ErrorCode>,
        /// Human-readable message.
        pub message: Option<String>,
        /// Deprecated duplicate of `message`.
        pub description: Option<String>,
        /// Untyped additional data, as sent.
        pub additional_data: Option<RawJson>,
        /// Reason text.
        pub error_reason: Option<String>,
    }
}

model! {
    /// A customer: `regular` (with an id) or `one-time` (name only).
    pub struct Customer {
        /// `regular` or `one-time`.
        #[serde(rename = "type")]
        pub customer_type: Option<CustomerType>,
        /// Customer id (regular customers).
        pub id: Option<String>,
        /// Name.
        pub name: Option<String>,
        /// Surname.
        pub surname: Option<String>,
        /// Comment about the customer.
        pub comment: Option<String>,
        /// Gender.
        pub gender: Option<Gender>,
        /// Whether the customer is blacklisted.
        pub in_blacklist: Option<bool>,
        /// Why the customer is blacklisted.
        pub blacklist_reason: Option<String>,
        /// Birth date.
        pub birthdate: Option<LocalTime>,
    }
}

model! {
    /// Geographic coordinates of a delivery point.
    pub struct Coordinates {
        /// Latitude.
        pub latitude: Option<f64>,
        /// Longitude.
        pub longitude: Option<f64>,
    }
}

model! {
    /// A street with its city.
    pub struct Street {
        /// Street id.
        pub id: Option<String>,
        /// Street name.
        pub name: Option<String>,
        /// City.
        pub city: Option<IdName>,
    }
}

model! {
    /// A delivery address.
    pub struct Address {
        /// Street and city.
        pub street: Option<Street>,
        /// Postal index.
        pub index: Option<String>,
        /// House.
        pub house: Option<String>,
        /// Building.
        pub building: Option<String>,
        /// Flat.
        pub flat: Option<String>,
        /// Entrance.
        pub entrance: Option<String>,
        /// Floor.
        pub floor: Option<String>,
        /// Door phone code.
        pub doorphone: Option<String>,
        /// Region.
        pub region: Option<IdName>,
        /// Free-form address line (international addresses).
        pub line1: Option<String>,
    }
}

model! {
    /// Where a delivery goes.
    pub struct DeliveryPoint {
        /// Coordinates.
        pub coordinates: Option<Coordinates>,
        /// Address.
        pub address: Option<Address>,
        /// Id in an external cartography system.
        pub external_cartography_id: Option<String>,
        /// Comment for the courier.
        pub comment: Option<String>,
    }
}

model! {
    /// Why and when a delivery was cancelled.
    pub struct CancelInfo {
        /// When it was cancelled (terminal-local).
        pub when_cancelled: Option<LocalTime>,
        /// Cancel cause.
        pub cause: Option<IdName>,
        /// Comment.
        pub comment: Option<String>,
    }
}

model! {
    /// The courier of a delivery.
    pub struct CourierInfo {
        /// The courier.
        pub courier: Option<Employee>,
        /// Whether the courier was chosen by hand.
        pub is_courier_selected_manually: Option<bool>,
    }
}

model! {
    /// A problem flagged on a delivery.
    pub struct OrderProblem {
        /// Whether the order has a problem.
        pub has_problem: Option<bool>,
        /// Description.
        pub description: Option<String>,
    }
}

model! {
    /// A conception (brand) of an order.
    pub struct Conception {
        /// Id.
        pub id: Option<String>,
        /// Name.
        pub name: Option<String>,
        /// Code.
        pub code: Option<String>,
    }
}

model! {
    /// Guests of an order.
    pub struct GuestsInfo {
        /// Number of guests.
        pub count: Option<i64>,
        /// Whether the order is split between guests.
        pub split_between_persons: Option<bool>,
    }
}

model! {
    /// Order type.
    pub struct OrderType {
        /// Id.
        pub id: Option<String>,
        /// Name.
        pub name: Option<String>,
        /// Service type.
        pub order_service_type: Option<OrderServiceType>,
    }
}

model! {
    /// Payment type of a payment.
    pub struct PaymentType {
        /// Id.
        pub id: Option<String>,
        /// Name.
        pub name: Option<String>,
        /// Kind.
        pub kind: Option<PaymentTypeKind>,
    }
}

model! {
    /// A payment of an order.
    pub struct Payment {
        /// Payment type.
        pub payment_type: Option<PaymentType>,
        /// Amount.
        pub sum: Option<Money>,
        /// Whether it is a preliminary payment.
        pub is_preliminary: Option<bool>,
        /// Whether it is external.
        pub is_external: Option<bool>,
        /// Whether it was processed externally.
        pub is_processed_externally: Option<bool>,
        /// Whether it was fiscalized externally.
        pub is_fiscalized_externally: Option<bool>,
        /// Whether it is a prepayment.
        pub is_prepay: Option<bool>,
    }
}

model! {
    /// A tips payment of an order.
    pub struct TipsPayment {
        /// Tips type.
        pub tips_type: Option<IdName>,
        /// Payment type.
        pub payment_type: Option<PaymentType>,
        /// Amount.
        pub sum: Option<Money>,
        /// Whether it is a preliminary payment.
        pub is_preliminary: Option<bool>,
        /// Whether it is external.
        pub is_external: Option<bool>,
        /// Whether it was processed externally.
        pub is_processed_externally: Option<bool>,
        /// Whether it was fiscalized externally.
        pub is_fiscalized_externally: Option<bool>,
        /// Whether it is a prepayment.
        pub is_prepay: Option<bool>,
    }
}

model! {
    /// An amount applied to one order position.
    pub struct PositionSum {
        /// Position id.
        pub position_id: Option<String>,
        /// Amount.
        pub sum: Option<Money>,
    }
}

model! {
    /// A discount or surcharge of an order.
    pub struct Discount {
        /// Discount type.
        pub discount_type: Option<IdName>,
        /// Amount (negative for a discount in some setups).
        pub sum: Option<Money>,
        /// Positions it applies to.
        pub selective_positions: Vec<String>,
        /// Positions it applies to, with amounts.
        pub selective_positions_with_sum: Vec<PositionSum>,
    }
}

model! {
    /// A dynamic loyalty discount.
    pub struct DynamicDiscount {
        /// Manual condition id.
        pub manual_condition_id: Option<String>,
        /// Amount.
        pub sum: Option<Money>,
    }
}

model! {
    /// Loyalty data of an order.
    pub struct LoyaltyInfo {
        /// Coupon.
        pub coupon: Option<String>,
        /// Applied manual condition ids.
        pub applied_manual_conditions: Vec<String>,
        /// Dynamic discounts.
        pub dynamic_discounts: Vec<DynamicDiscount>,
    }
}

model! {
    /// A key/value pair attached to an order by an integration.
    pub struct ExternalData {
        /// Key.
        pub key: Option<String>,
        /// Value.
        pub value: Option<String>,
    }
}

model! {
    /// A combo of an order.
    pub struct OrderCombo {
        /// Combo id.
        pub id: Option<String>,
        /// Name.
        pub name: Option<String>,
        /// Quantity.
        pub amount: Option<Money>,
        /// Price.
        pub price: Option<Money>,
        /// Combo source (specification) id.
        pub source_id: Option<String>,
        /// Size.
        pub size: Option<IdName>,
    }
}

model! {
    /// Which combo an item belongs to.
    pub struct ComboInformation {
        /// Combo id.
        pub combo_id: Option<String>,
        /// Combo source id.
        pub combo_source_id: Option<String>,
        /// Combo group id.
        pub group_id: Option<String>,
        /// Combo group name.
        pub group_name: Option<String>,
    }
}

model! {
    /// How an item was deleted.
    pub struct DeletionMethod {
        /// Id.
        pub id: Option<String>,
        /// Comment.
        pub comment: Option<String>,
        /// Removal type.
        pub removal_type: Option<IdName>,
    }
}

model! {
    /// Set when an item or modifier was deleted.
    pub struct ItemDeleted {
        /// How it was deleted.
        pub deletion_method: Option<DeletionMethod>,
    }
}

model! {
    /// A modifier of an item.
    pub struct Modifier {
        /// The modifier product.
        pub product: Option<IdName>,
        /// Quantity.
        pub amount: Option<Money>,
        /// Whether the quantity does not scale with the parent's.
        pub amount_independent_of_parent_amount: Option<bool>,
        /// Modifier group.
        pub product_group: Option<IdName>,
        /// Unit price.
        pub price: Option<Money>,
        /// Whether the price was set by the caller.
        pub price_predefined: Option<bool>,
        /// Total after discounts.
        pub result_sum: Option<Money>,
        /// Set when deleted.
        pub deleted: Option<Box<ItemDeleted>>,
        /// Position id.
        pub position_id: Option<String>,
        /// Default quantity.
        pub default_amount: Option<i64>,
        /// Whether it is hidden at the default quantity.
        pub hide_if_default_amount: Option<bool>,
        /// VAT percent.
        pub tax_percent: Option<Money>,
        /// Quantity given free of charge.
        pub free_of_charge_amount: Option<i64>,
    }
}

model! {
    /// One half (or the whole) of a compound item.
    pub struct CompoundComponent {
        /// The product.
        pub product: Option<IdName>,
        /// Modifiers of this component.
        pub modifiers: Vec<Modifier>,
        /// Unit price.
        pub price: Option<Money>,
        /// Cost.
        pub cost: Option<Money>,
        /// Whether the price was set by the caller.
        pub price_predefined: Option<bool>,
        /// Position id.
        pub position_id: Option<String>,
        /// VAT percent.
        pub tax_percent: Option<Money>,
        /// Total after discounts.
        pub result_sum: Option<Money>,
    }
}

model! {
    /// An order item: a `Product`, a `Compound` or a `Service`.
    ///
    /// One struct for the three kinds (the fields of the other kinds are
    /// `None`), so that an unknown `type` still reads. Rarely present parts are
    /// boxed to keep large orders compact.
    pub struct OrderItem {
        /// `Product`, `Compound` or `Service`.
        #[serde(rename = "type")]
        pub item_type: Option<OrderItemType>,
        /// Kitchen status.
        pub status: Option<OrderItemStatus>,
        /// Set when the item was deleted.
        pub deleted: Option<Box<ItemDeleted>>,
        /// Quantity.
        pub amount: Option<Money>,
        /// Comment.
        pub comment: Option<String>,
        /// When it was printed (terminal-local).
        pub when_printed: Option<LocalTime>,
        /// Size.
        pub size: Option<IdName>,
        /// Combo membership.
        pub combo_information: Option<Box<ComboInformation>>,
        /// Product (`Product` items).
        pub product: Option<IdName>,
        /// Modifiers (`Product` items).
        pub modifiers: Vec<Modifier>,
        /// Unit price (`Product` items).
        pub price: Option<Money>,
        /// Cost (`Product` and `Service` items).
        pub cost: Option<Money>,
        /// Whether the price was set by the caller (`Product` items).
        pub price_predefined: Option<bool>,
        /// Position id (`Product` items).
        pub position_id: Option<String>,
        /// VAT percent (`Product` items).
        pub tax_percent: Option<Money>,
        /// Total after discounts (`Product` items).
        pub result_sum: Option<Money>,
        /// First component (`Compound` items).
        pub primary_component: Option<Box<CompoundComponent>>,
        /// Second component (`Compound` items).
        pub secondary_component: Option<Box<CompoundComponent>>,
        /// Modifiers of the whole compound (`Compound` items).
        pub common_modifiers: Vec<Modifier>,
        /// Compound template (`Compound` items).
        pub template: Option<IdName>,
        /// The service (`Service` items).
        pub service: Option<IdName>,
    }
}

impl OrderItem {
    /// The display name: the product's, the service's, or the compound
    /// template's (falling back to the primary component's product).
    pub fn name(&self) -> Option<&str> {
        name_of(&self.product)
            .or_else(|| name_of(&self.service))
            .or_else(|| name_of(&self.template))
            .or_else(|| {
                self.primary_component
                    .as_ref()
                    .and_then(|c| name_of(&c.product))
            })
    }
}

fn name_of(r: &Option<IdName>) -> Option<&str> {
    r.as_ref().and_then(|r| r.name.as_deref())
}

model! {
    /// A delivery order (`Deliveries.Response.Order.Order`).
    pub struct DeliveryOrder {
        /// Parent delivery id.
        pub parent_delivery_id: Option<String>,
        /// Customer.
        pub customer: Option<Customer>,
        /// Customer phone.
        pub phone: Option<String>,
        /// Phone extension.
        pub phone_extension: Option<String>,
        /// Delivery point.
        pub delivery_point: Option<DeliveryPoint>,
        /// Delivery status.
        pub status: Option<DeliveryStatus>,
        /// Set when cancelled.
        pub cancel_info: Option<CancelInfo>,
        /// Courier.
        pub courier_info: Option<CourierInfo>,
        /// Deadline (terminal-local).
        pub complete_before: Option<LocalTime>,
        /// Creation time (terminal-local).
        pub when_created: Option<LocalTime>,
        /// Confirmation time.
        pub when_confirmed: Option<LocalTime>,
        /// Print time.
        pub when_printed: Option<LocalTime>,
        /// Cooking completion time.
        pub when_cooking_completed: Option<LocalTime>,
        /// Time the courier left.
        pub when_sended: Option<LocalTime>,
        /// Delivery time.
        pub when_delivered: Option<LocalTime>,
        /// Comment.
        pub comment: Option<String>,
        /// Problem flag.
        pub problem: Option<OrderProblem>,
        /// Operator who took the order.
        pub operator: Option<Employee>,
        /// Marketing source.
        pub marketing_source: Option<IdName>,
        /// Delivery duration, minutes.
        pub delivery_duration: Option<i64>,
        /// Index in the courier's route.
        pub index_in_courier_route: Option<i64>,
        /// Cooking start time.
        pub cooking_start_time: Option<LocalTime>,
        /// Deprecated deletion flag.
        pub is_deleted: Option<bool>,
        /// Deprecated: when the API received it (UTC).
        pub when_received_by_api: Option<LocalTime>,
        /// Deprecated: when it came from the terminal (UTC).
        pub when_received_from_front: Option<LocalTime>,
        /// Moved from this delivery.
        pub moved_from_delivery_id: Option<String>,
        /// Moved from this terminal group.
        pub moved_from_terminal_group_id: Option<String>,
        /// Moved from this organization.
        pub moved_from_organization_id: Option<String>,
        /// External courier service.
        pub external_courier_service: Option<IdName>,
        /// Moved to this delivery.
        pub moved_to_delivery_id: Option<String>,
        /// Moved to this terminal group.
        pub moved_to_terminal_group_id: Option<String>,
        /// Moved to this organization.
        pub moved_to_organization_id: Option<String>,
        /// External menu id.
        pub menu_id: Option<String>,
        /// Delivery zone.
        pub delivery_zone: Option<String>,
        /// Locked at.
        pub locked_at: Option<LocalTime>,
        /// Estimated time.
        pub estimated_time: Option<LocalTime>,
        /// "As soon as possible" flag.
        pub is_asap: Option<bool>,
        /// Packing time.
        pub when_packed: Option<LocalTime>,
        /// Price category.
        pub price_category: Option<IdName>,
        /// Tracking link.
        pub tracking_link: Option<String>,
        /// Order total.
        pub sum: Option<Money>,
        /// Order number.
        pub number: Option<i64>,
        /// Source key.
        pub source_key: Option<String>,
        /// Bill print time.
        pub when_bill_printed: Option<LocalTime>,
        /// Close time.
        pub when_closed: Option<LocalTime>,
        /// Conception.
        pub conception: Option<Conception>,
        /// Guests.
        pub guests_info: Option<GuestsInfo>,
        /// Items.
        pub items: Vec<OrderItem>,
        /// Combos.
        pub combos: Vec<OrderCombo>,
        /// Payments.
        pub payments: Vec<Payment>,
        /// Tips.
        pub tips: Vec<TipsPayment>,
        /// Discounts.
        pub discounts: Vec<Discount>,
        /// Order type.
        pub order_type: Option<OrderType>,
        /// Terminal group.
        pub terminal_group_id: Option<String>,
        /// Sum of processed payments.
        pub processed_payments_sum: Option<Money>,
        /// Loyalty data.
        pub loyalty_info: Option<LoyaltyInfo>,
        /// Integration key/value pairs.
        pub external_data: Vec<ExternalData>,
    }
}

impl DeliveryOrder {
    /// Whether the order's status marks a new order: see
    /// [`DeliveryStatus::is_initial`].
    pub fn is_new(&self) -> bool {
        self.status.as_ref().is_some_and(DeliveryStatus::is_initial)
    }
}

model! {
    /// `eventInfo` of `DeliveryOrderUpdate` and `DeliveryOrderError`
    /// (`Deliveries.Response.Order.OrderInfo`).
    pub struct DeliveryOrderInfo {
        /// Delivery order id; every event of one order carries the same id.
        pub id: Option<String>,
        /// Id in the POS.
        pub pos_id: Option<String>,
        /// External number.
        pub external_number: Option<String>,
        /// Organization.
        pub organization_id: Option<String>,
        /// Version of the order: increases with every change (unit not
        /// documented; compare, never interpret).
        pub timestamp: Option<i64>,
        /// Creation status.
        pub creation_status: Option<CreationStatus>,
        /// Set when `creation_status` is `Error`.
        pub error_info: Option<ErrorInfo>,
        /// Set when `creation_status` is `Success`.
        pub order: Option<Box<DeliveryOrder>>,
    }
}

model! {
    /// A table (hall) order (`TableOrders.Response.TableOrder`).
    pub struct TableOrder {
        /// Tables.
        pub table_ids: Vec<String>,
        /// Customer (regular only).
        pub customer: Option<Customer>,
        /// Phone.
        pub phone: Option<String>,
        /// Status.
        pub status: Option<OrderStatus>,
        /// Creation time (terminal-local).
        pub when_created: Option<LocalTime>,
        /// Waiter.
        pub waiter: Option<Employee>,
        /// Tab name (fast-food tab mode).
        pub tab_name: Option<String>,
        /// Cash register split mode.
        pub split_order_between_cash_registers: Option<SplitOrderBetweenCashRegisters>,
        /// External menu id.
        pub menu_id: Option<String>,
        /// Price category.
        pub price_category: Option<IdName>,
        /// Order total.
        pub sum: Option<Money>,
        /// Order number.
        pub number: Option<i64>,
        /// Source key.
        pub source_key: Option<String>,
        /// Bill print time.
        pub when_bill_printed: Option<LocalTime>,
        /// Close time.
        pub when_closed: Option<LocalTime>,
        /// Conception.
        pub conception: Option<Conception>,
        /// Guests.
        pub guests_info: Option<GuestsInfo>,
        /// Items.
        pub items: Vec<OrderItem>,
        /// Combos.
        pub combos: Vec<OrderCombo>,
        /// Payments.
        pub payments: Vec<Payment>,
        /// Tips.
        pub tips: Vec<TipsPayment>,
        /// Discounts.
        pub discounts: Vec<Discount>,
        /// Order type.
        pub order_type: Option<OrderType>,
        /// Terminal group.
        pub terminal_group_id: Option<String>,
        /// Sum of processed payments.
        pub processed_payments_sum: Option<Money>,
        /// Loyalty data.
        pub loyalty_info: Option<LoyaltyInfo>,
        /// Integration key/value pairs.
        pub external_data: Vec<ExternalData>,
    }
}

model! {
    /// `eventInfo` of `TableOrderUpdate` and `TableOrderError`
    /// (`TableOrders.Response.TableOrderInfo`).
    pub struct TableOrderInfo {
        /// Table order id.
        pub id: Option<String>,
        /// Id in the POS.
        pub pos_id: Option<String>,
        /// External number.
        pub external_number: Option<String>,
        /// Organization.
        pub organization_id: Option<String>,
        /// Version of the order (see [`DeliveryOrderInfo::timestamp`]).
        pub timestamp: Option<i64>,
        /// Creation status.
        pub creation_status: Option<CreationStatus>,
        /// Set when `creation_status` is `Error`.
        pub error_info: Option<ErrorInfo>,
        /// Set when `creation_status` is `Success`.
        pub order: Option<Box<TableOrder>>,
    }
}

model! {
    /// The order of a banquet (`Reserves.Response.ReserveOrder`).
    pub struct ReserveOrder {
        /// External menu id.
        pub menu_id: Option<String>,
        /// Order total.
        pub sum: Option<Money>,
        /// Order number.
        pub number: Option<i64>,
        /// Source key.
        pub source_key: Option<String>,
        /// Bill print time.
        pub when_bill_printed: Option<LocalTime>,
        /// Close time.
        pub when_closed: Option<LocalTime>,
        /// Conception.
        pub conception: Option<Conception>,
        /// Guests.
        pub guests_info: Option<GuestsInfo>,
        /// Items.
        pub items: Vec<OrderItem>,
        /// Combos.
        pub combos: Vec<OrderCombo>,
        /// Payments.
        pub payments: Vec<Payment>,
        /// Tips.
        pub tips: Vec<TipsPayment>,
        /// Discounts.
        pub discounts: Vec<Discount>,
        /// Order type.
        pub order_type: Option<OrderType>,
        /// Terminal group.
        pub terminal_group_id: Option<String>,
        /// Sum of processed payments.
        pub processed_payments_sum: Option<Money>,
        /// Loyalty data.
        pub loyalty_info: Option<LoyaltyInfo>,
        /// Integration key/value pairs.
        pub external_data: Vec<ExternalData>,
    }
}

model! {
    /// A table reservation or banquet (`Reserves.Reserve`).
    pub struct Reserve {
        /// Customer.
        pub customer: Option<Customer>,
        /// Number of guests.
        pub guests_count: Option<i64>,
        /// Comment.
        pub comment: Option<String>,
        /// Duration, minutes.
        pub duration_in_minutes: Option<i64>,
        /// Whether to remind the staff.
        pub should_remind: Option<bool>,
        /// Status.
        pub status: Option<ReserveStatus>,
        /// Set when cancelled.
        pub cancel_reason: Option<ReserveCancelReason>,
        /// Tables.
        pub table_ids: Vec<String>,
        /// Planned start (terminal-local).
        pub estimated_start_time: Option<LocalTime>,
        /// When the guests came.
        pub guests_coming_time: Option<LocalTime>,
        /// Phone.
        pub phone: Option<String>,
        /// Free-form occasion ("birthday"); not the envelope's `eventType`.
        pub event_type: Option<String>,
        /// Banquet order (banquets only).
        pub order: Option<ReserveOrder>,
    }
}

model! {
    /// `eventInfo` of `ReserveUpdate` and `ReserveError` (`Reserves.ReserveInfo`).
    pub struct ReserveInfo {
        /// Reserve id.
        pub id: Option<String>,
        /// External number.
        pub external_number: Option<String>,
        /// Organization.
        pub organization_id: Option<String>,
        /// Version of the reserve (see [`DeliveryOrderInfo::timestamp`]).
        pub timestamp: Option<i64>,
        /// Creation status.
        pub creation_status: Option<CreationStatus>,
        /// Set when `creation_status` is `Error`.
        pub error_info: Option<ErrorInfo>,
        /// Whether the reserve was deleted.
        pub is_deleted: Option<bool>,
        /// The reserve.
        pub reserve: Option<Box<Reserve>>,
    }
}

model! {
    /// One terminal group whose stop list changed.
    pub struct TerminalGroupStopListUpdate {
        /// Terminal group id.
        pub id: Option<String>,
        /// Whether the whole stop list was replaced.
        pub is_full: Option<bool>,
    }
}

model! {
    /// `eventInfo` of `StopListUpdate`. It carries no stop-list items: fetch
    /// them with `/api/1/stop_lists`.
    pub struct StopListUpdate {
        /// Terminal groups whose stop lists changed.
        pub terminal_groups_stop_lists_updates: Vec<TerminalGroupStopListUpdate>,
    }
}

model! {
    /// `eventInfo` of `PersonalShift`: an employee opened or closed a shift.
    /// There is no time field; use the envelope's `eventTime`.
    pub struct PersonalShift {
        /// Employee id.
        pub id: Option<String>,
        /// Role id.
        pub role_id: Option<String>,
        /// `true` when the shift was opened, `false` when closed.
        pub opened: Option<bool>,
        /// Terminal group.
        pub terminal_group_id: Option<String>,
    }
}

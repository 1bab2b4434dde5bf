//! The few `eventInfo` values the flat accessors of [`Event`](super::Event)
//! give (ids, version, statuses, number, sum, phone, error code), read from
//! where the parse saw them, without the typed read of the whole `eventInfo`.
//!
//! Each value is read with the same lenient reader the typed model uses, on
//! the same JSON text, so an accessor gives the same answer before and after
//! [`Event::payload`](super::Event::payload); a test and the fuzz target
//! check it.

use super::{CreationStatus, DeliveryStatus, ErrorCode, OrderStatus, ReserveStatus};
use crate::lenient::Lenient;
use crate::money::Money;

/// Declares [`Spot`] and its count from one list, so the count cannot drift.
macro_rules! spots {
    ($($spot:ident,)*) => {
        /// A value the summary reads, by its place in `eventInfo`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Spot {
            $($spot,)*
        }

        impl Spot {
            /// How many spots there are: the length of [`Spans`].
            pub(crate) const COUNT: usize = [$(Spot::$spot),*].len();
        }
    };
}

spots! {
    Id,
    Timestamp,
    CreationStatus,
    ExternalNumber,
    PosId,
    IsDeleted,
    Order,
    OrderStatus,
    OrderNumber,
    OrderSum,
    OrderPhone,
    Reserve,
    ReserveStatus,
    ReservePhone,
    ReserveOrder,
    ReserveOrderNumber,
    ReserveOrderSum,
    ErrorCode,
    ErrorMessage,
    ErrorDescription,
}

/// An object inside `eventInfo` whose members may be spots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Info,
    Order,
    Reserve,
    ReserveOrder,
    ErrorInfo,
    /// Anywhere else: nothing is noted.
    Elsewhere,
}

impl Place {
    /// The spot a member `key` of an object at this place is, and the place
    /// of its own members.
    pub(crate) fn member(self, key: &[u8]) -> (Option<Spot>, Place) {
        let leaf = |spot| (Some(spot), Place::Elsewhere);
        match (self, key) {
            (Place::Info, b"id") => leaf(Spot::Id),
            (Place::Info, b"timestamp") => leaf(Spot::Timestamp),
            (Place::Info, b"creationStatus") => leaf(Spot::CreationStatus),
            (Place::Info, b"externalNumber") => leaf(Spot::ExternalNumber),
            (Place::Info, b"posId") => leaf(Spot::PosId),
            (Place::Info, b"isDeleted") => leaf(Spot::IsDeleted),
            (Place::Info, b"order") => (Some(Spot::Order), Place::Order),
            (Place::Info, b"reserve") => (Some(Spot::Reserve), Place::Reserve),
            (Place::Info, b"errorInfo") => (None, Place::ErrorInfo),
            (Place::Order, b"status") => leaf(Spot::OrderStatus),
            (Place::Order, b"number") => leaf(Spot::OrderNumber),
            (Place::Order, b"sum") => leaf(Spot::OrderSum),
            (Place::Order, b"phone") => leaf(Spot::OrderPhone),
            (Place::Reserve, b"status") => leaf(Spot::ReserveStatus),
            (Place::Reserve, b"phone") => leaf(Spot::ReservePhone),
            (Place::Reserve, b"order") => (Some(Spot::ReserveOrder), Place::ReserveOrder),
            (Place::ReserveOrder, b"number") => leaf(Spot::ReserveOrderNumber),
            (Place::ReserveOrder, b"sum") => leaf(Spot::ReserveOrderSum),
            (Place::ErrorInfo, b"code") => leaf(Spot::ErrorCode),
            (Place::ErrorInfo, b"message") => leaf(Spot::ErrorMessage),
            (Place::ErrorInfo, b"description") => leaf(Spot::ErrorDescription),
            _ => (None, Place::Elsewhere),
        }
    }
}

/// Where each spot's value lies in the event's JSON: `(from, to)`, with
/// `to == 0` for a spot the event does not have.
pub(crate) type Spans = [(u32, u32); Spot::COUNT];

/// The spot values, read once on first use.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Summary {
    pub(crate) id: Option<String>,
    pub(crate) timestamp: Option<i64>,
    pub(crate) creation_status: Option<CreationStatus>,
    pub(crate) external_number: Option<String>,
    pub(crate) pos_id: Option<String>,
    pub(crate) is_deleted: Option<bool>,
    /// Whether `order` (`reserve` for reserves) is an object: the typed
    /// model has it then.
    pub(crate) has_order: bool,
    /// As sent, whichever status type the event kind reads it as.
    pub(crate) status: Option<String>,
    /// `order.status` of a delivery: a new order when initial.
    pub(crate) delivery_status: Option<DeliveryStatus>,
    pub(crate) number: Option<i64>,
    pub(crate) sum: Option<Money>,
    pub(crate) phone: Option<String>,
    pub(crate) error_code: Option<ErrorCode>,
    pub(crate) error_message: Option<String>,
    pub(crate) error_description: Option<String>,
}

/// Which payload shape an event kind has.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Delivery,
    Table,
    Reserve,
}

/// The summary of an event kind without an order or reserve: every value
/// absent, known without reading anything.
pub(crate) static NO_ENTITY: Summary = Summary {
    id: None,
    timestamp: None,
    creation_status: None,
    external_number: None,
    pos_id: None,
    is_deleted: None,
    has_order: false,
    status: None,
    delivery_status: None,
    number: None,
    sum: None,
    phone: None,
    error_code: None,
    error_message: None,
    error_description: None,
};

impl Summary {
    /// Reads the spots of an event of `shape` from its JSON.
    pub(crate) fn read(shape: Shape, json: &str, spans: &Spans) -> Summary {
        let text = |spot: Spot| {
            let (from, to) = spans[spot as usize];
            (to != 0)
                .then(|| json.get(from as usize..to as usize))
                .flatten()
        };
        fn lenient<T: Lenient>(text: Option<&str>) -> Option<T> {
            let mut de = serde_json::Deserializer::from_str(text?);
            T::read(&mut de).ok().flatten()
        }
        let object = |spot| text(spot).is_some_and(|t| t.starts_with('{'));
        let mut s = Summary {
            id: lenient(text(Spot::Id)),
            timestamp: lenient(text(Spot::Timestamp)),
            creation_status: lenient(text(Spot::CreationStatus)),
            external_number: lenient(text(Spot::ExternalNumber)),
            error_code: lenient(text(Spot::ErrorCode)),
            error_message: lenient(text(Spot::ErrorMessage)),
            error_description: lenient(text(Spot::ErrorDescription)),
            ..Summary::default()
        };
        match shape {
            Shape::Delivery | Shape::Table => {
                s.pos_id = lenient(text(Spot::PosId));
                s.has_order = object(Spot::Order);
                if s.has_order {
                    let status = text(Spot::OrderStatus);
                    if shape == Shape::Delivery {
                        s.delivery_status = lenient::<DeliveryStatus>(status);
                        s.status = s.delivery_status.as_ref().map(|x| x.as_str().to_owned());
                    } else {
                        s.status = lenient::<OrderStatus>(status).map(|x| x.as_str().to_owned());
                    }
                    s.number = lenient(text(Spot::OrderNumber));
                    s.sum = lenient(text(Spot::OrderSum));
                    s.phone = lenient(text(Spot::OrderPhone));
                }
            }
            Shape::Reserve => {
                s.is_deleted = lenient(text(Spot::IsDeleted));
                s.has_order = object(Spot::Reserve);
                if s.has_order {
                    s.status = lenient::<ReserveStatus>(text(Spot::ReserveStatus))
                        .map(|x| x.as_str().to_owned());
                    s.phone = lenient(text(Spot::ReservePhone));
                    if object(Spot::ReserveOrder) {
                        s.number = lenient(text(Spot::ReserveOrderNumber));
                        s.sum = lenient(text(Spot::ReserveOrderSum));
                    }
                }
            }
        }
        s
    }
}

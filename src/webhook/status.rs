//! Which HTTP status a webhook receiver answers: the one rule every binding,
//! the C ABI and the CLI read from here.
//!
//! The service counts anything but a prompt `200` as a failed delivery,
//! resends the body, and blocks a webhook that keeps failing, which stops
//! every event of the organization. So a status other than `200` is answered
//! only when a resend can bring a different outcome: a request that is not
//! authentic, a receiver that is misconfigured or failing, events that could
//! not be stored.

use super::parse::ParseErrorKind;
use super::verify::VerifyError;

/// The request was accepted: events read (and stored, for an inbox), or an
/// authentic body that cannot be read, since a resend would bring the very
/// same bytes.
pub const STATUS_ACCEPTED: u16 = 200;
/// The request failed verification (a missing, malformed or wrong token).
pub const STATUS_UNAUTHORIZED: u16 = 401;
/// The receiver is at fault: its expected token is empty (misconfigured), or
/// it failed before reaching a verdict (a bad argument, a bug). The service
/// keeps the events and retries once it is fixed, instead of them being
/// acknowledged and lost.
pub const STATUS_RECEIVER_FAULT: u16 = 500;
/// The events were not stored (an inbox or store could not be written, or the
/// receiver is stopping); the service sends the body again.
pub const STATUS_RETRY_LATER: u16 = 503;
/// The request body did not arrive whole (the connection broke); the service
/// sends it again.
pub const STATUS_BROKEN_REQUEST: u16 = 400;
/// The request was not a `POST`, the only method the service uses.
pub const STATUS_WRONG_METHOD: u16 = 405;

/// Every status [`Receiver::receive`](super::Receiver::receive) can lead to
/// ([`http_status`](super::http_status)).
pub const RECEIVE_STATUSES: [u16; 3] =
    [STATUS_ACCEPTED, STATUS_UNAUTHORIZED, STATUS_RECEIVER_FAULT];

/// The status to answer for a failed verification: `401`, or `500` when the
/// expected token is empty (the receiver's configuration is at fault).
pub fn status_for_verify(error: VerifyError) -> u16 {
    match error {
        VerifyError::EmptyExpectedToken => STATUS_RECEIVER_FAULT,
        VerifyError::MissingHeader | VerifyError::MalformedHeader | VerifyError::Mismatch => {
            STATUS_UNAUTHORIZED
        }
    }
}

/// The status to answer for an authentic body that cannot be read, whatever
/// the reason (too large, not UTF-8, too deep, not JSON, not an array): `200`,
/// since the service would resend the same bytes until the webhook is
/// blocked. Log the error and keep the body instead.
pub fn status_for_parse(kind: ParseErrorKind) -> u16 {
    match kind {
        ParseErrorKind::TooLarge
        | ParseErrorKind::InvalidUtf8
        | ParseErrorKind::TooDeep
        | ParseErrorKind::InvalidJson
        | ParseErrorKind::NotAnArray => STATUS_ACCEPTED,
    }
}

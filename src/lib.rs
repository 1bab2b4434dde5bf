//! Blocking client and webhook toolkit for the iikoCloud (iikoTransport) API.
//!
//! * [`Client`]: a thread-safe, blocking HTTP client with a shared token cache,
//!   typed endpoints and a raw call for everything else.
//! * [`webhook`]: parse, verify and de-duplicate the events the service posts to
//!   your webhook URL.
//!
//! The crate's only `unsafe` code is in the webhook byte classifier
//! (`webhook/blocks.rs`): the call of its SSE2 (x86_64) or NEON (aarch64)
//! function, baseline features of those targets, and NEON's 16-byte loads
//! from slices of that length. The C ABI lives in `bindings/c`.

#[cfg(feature = "operations")]
pub mod api;
/// Without the `operations` feature: the generated models webhook events are
/// read into (the `WebHooks.*WebHookEventInfo` schemas and what they reach),
/// at the same paths as with it.
#[cfg(not(feature = "operations"))]
pub mod api {
    pub mod models;
    pub mod support;
}
pub mod client;
pub mod clock;
pub mod error;
#[doc(hidden)]
pub mod hashing;
pub mod inbox;
// The reading rules of a payload field (lenient values, local times): used
// by the generated models and by the webhook parser alike.
pub(crate) mod lenient;
pub mod limits;
pub mod money;
pub mod network;
mod open_enum;
mod owner_only;
pub mod secret;
pub mod store;
pub mod telemetry;
mod time;
pub mod token;
mod token_file;
pub mod webhook;

pub use client::{CallOptions, Client, ClientBuilder, Credentials, TextAnswer};
pub use clock::{Clock, ManualClock, SystemClock};
pub use error::{
    ApiError, ApiErrorKind, CommandError, CommandErrorKind, Error, Result, TransportErrorKind,
};
pub use money::Money;
pub use network::TrustRoots;
pub use secret::Secret;
pub use token::AccessToken;

/// The Redis server of scripts/test.sh, for the tests that need one (they
/// are `#[ignore]`d unless asked for; asked for without it, they fail).
#[cfg(test)]
pub(crate) fn test_redis_url() -> String {
    std::env::var("IIKO_TEST_REDIS_URL").unwrap_or_else(|_| {
        panic!("IIKO_TEST_REDIS_URL is not set: this test needs a redis-server (scripts/test.sh starts one)")
    })
}

// Compiles the README's Rust samples as doctests, so the README cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

// The same for the inbox guide.
#[cfg(doctest)]
#[doc = include_str!("../docs/inbox.md")]
struct InboxGuideDoctests;

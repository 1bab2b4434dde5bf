//! Blocking client and webhook toolkit for the iikoCloud (iikoTransport) API.
//!
//! * [`Client`]: a thread-safe, blocking HTTP client with a shared token cache,
//!   typed endpoints and a raw call for everything else.
//! * [`webhook`]: parse, verify and de-duplicate the events the service posts to
//!   your webhook URL.
//!
//! The crate contains no `unsafe` code; the C ABI lives in `bindings/c`.

pub mod api;
pub mod client;
pub mod clock;
pub mod error;
pub mod inbox;
pub mod limits;
pub mod models;
pub mod money;
pub mod network;
mod owner_only;
pub mod secret;
pub mod store;
pub mod token;
mod token_file;
pub mod webhook;

pub use client::{CallOptions, Client, ClientBuilder, Credentials};
pub use clock::{Clock, ManualClock, SystemClock};
pub use error::{
    ApiError, ApiErrorKind, CommandError, CommandErrorKind, Error, Result, TransportErrorKind,
};
pub use money::Money;
pub use network::TrustRoots;
pub use secret::Secret;
pub use token::AccessToken;

// Compiles the README's Rust samples as doctests, so the README cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

// The same for the inbox guide.
#[cfg(doctest)]
#[doc = include_str!("../docs/inbox.md")]
struct InboxGuideDoctests;

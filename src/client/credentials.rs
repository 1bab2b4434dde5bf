//! Credentials, and fetching a token with them.

use std::fmt;

use serde_json::Value;

use super::answers::{decode, error_fields};
use super::transport::Call;
use super::Client;
use crate::error::{Error, Result};
use crate::token_file::credential_key;
use crate::Secret;

/// Credentials for `POST /api/v2/access_token` or the legacy `/api/1/access_token`.
#[derive(Clone, PartialEq, Eq)]
pub enum Credentials {
    /// Application credentials from the developer portal plus an API key.
    V2 {
        /// Application id (not secret).
        app_id: String,
        /// Application secret.
        client_secret: Secret,
        /// API key from iikoWeb; decides which organizations the token sees.
        api_key: Secret,
    },
    /// The legacy API login (deprecated by the service, still served).
    ApiLogin(Secret),
}

impl Credentials {
    /// v2 credentials.
    pub fn v2(
        app_id: impl Into<String>,
        client_secret: impl Into<Secret>,
        api_key: impl Into<Secret>,
    ) -> Credentials {
        Credentials::V2 {
            app_id: app_id.into(),
            client_secret: client_secret.into(),
            api_key: api_key.into(),
        }
    }

    /// Legacy `apiLogin` credentials.
    pub fn api_login(api_login: impl Into<Secret>) -> Credentials {
        Credentials::ApiLogin(api_login.into())
    }

    pub(super) fn check(&self) -> Result<()> {
        match self {
            Credentials::V2 {
                app_id,
                client_secret,
                api_key,
            } => {
                if app_id.trim().is_empty() {
                    return Err(Error::Config("appId is empty".into()));
                }
                if client_secret.is_blank() {
                    return Err(Error::Config("clientSecret is empty".into()));
                }
                if api_key.is_blank() {
                    return Err(Error::Config("apiKey is empty".into()));
                }
            }
            Credentials::ApiLogin(login) => {
                if login.is_blank() {
                    return Err(Error::Config("apiLogin is empty".into()));
                }
            }
        }
        Ok(())
    }

    pub(super) fn token_path(&self) -> &'static str {
        match self {
            Credentials::V2 { .. } => "/api/v2/access_token",
            Credentials::ApiLogin(_) => "/api/1/access_token",
        }
    }

    pub(super) fn token_body(&self) -> Value {
        match self {
            Credentials::V2 {
                app_id,
                client_secret,
                api_key,
            } => serde_json::json!({
                "appId": app_id,
                "clientSecret": client_secret.expose(),
                "apiKey": api_key.expose(),
            }),
            Credentials::ApiLogin(login) => serde_json::json!({ "apiLogin": login.expose() }),
        }
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Credentials::V2 { app_id, .. } => f
                .debug_struct("V2")
                .field("app_id", app_id)
                .field("client_secret", &"[redacted]")
                .field("api_key", &"[redacted]")
                .finish(),
            Credentials::ApiLogin(_) => f.debug_tuple("ApiLogin").field(&"[redacted]").finish(),
        }
    }
}

impl Client {
    pub(super) fn fetch_token(&self) -> Result<Secret> {
        #[derive(serde::Deserialize)]
        struct TokenAnswer {
            token: Option<String>,
        }
        let credentials = &self.inner.credentials;
        let path = credentials.token_path();
        let answer = self.execute(&Call {
            path,
            body: credentials.token_body().to_string().into_bytes(),
            idempotent: true,
            authorized: false,
            server_timeout: self.server_timeout,
        })?;
        // A token answer's body is the token: an error must not carry it.
        let parsed: TokenAnswer = decode(path, &answer).map_err(|e| match e {
            Error::Decode {
                path,
                status,
                message,
                correlation_id,
                ..
            } => Error::Decode {
                path,
                status,
                message,
                correlation_id,
                body: String::new(),
            },
            other => other,
        })?;
        match parsed.token {
            Some(t) if !t.trim().is_empty() => Ok(Secret::new(t)),
            _ => Err(Error::Decode {
                path: path.to_owned(),
                status: answer.status,
                message: "the answer has no token".into(),
                correlation_id: error_fields(&answer.body).correlation_id,
                body: String::new(),
            }),
        }
    }
}

/// The hash that identifies a client's tokens in a file or store.
pub(super) fn token_key(base_url: &str, credentials: &Credentials) -> String {
    match credentials {
        Credentials::V2 {
            app_id,
            client_secret,
            api_key,
        } => credential_key(
            base_url,
            &["v2", app_id, client_secret.expose(), api_key.expose()],
        ),
        Credentials::ApiLogin(login) => credential_key(base_url, &["v1", login.expose()]),
    }
}

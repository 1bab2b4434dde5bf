//! Checks of request fields, made before anything is sent.

use crate::error::{Error, Result};

/// Whether `s` is a UUID in the usual hyphenated form.
pub fn is_uuid(s: &str) -> bool {
    s.len() == 36 && uuid::Uuid::try_parse(s).is_ok()
}

pub(super) fn check_uuid(field: &str, value: &str) -> Result<()> {
    if is_uuid(value) {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "{field} must be a UUID like 7f2c6b2e-0000-4000-8000-000000000000, got {value:?}"
        )))
    }
}

pub(super) fn check_uuids(field: &str, values: &[String]) -> Result<()> {
    values.iter().try_for_each(|v| check_uuid(field, v))
}

/// Whether `uri` is an absolute `http://` or `https://` URL with a host and
/// no surrounding spaces or control characters.
pub fn is_http_url(uri: &str) -> bool {
    if uri.trim() != uri || uri.chars().any(char::is_control) {
        return false;
    }
    let Ok(parsed) = uri.parse::<ureq::http::Uri>() else {
        return false;
    };
    let scheme_ok = parsed
        .scheme_str()
        .is_some_and(|s| s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https"));
    scheme_ok && parsed.host().is_some_and(|h| !h.is_empty())
}

pub(super) fn check_webhook_uri(uri: &str) -> Result<()> {
    if is_http_url(uri) {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "webHooksUri must be an absolute http:// or https:// URL, got {uri:?}"
        )))
    }
}

pub(super) fn check_path(path: &str) -> Result<()> {
    let ok = path.starts_with('/')
        && !path.starts_with("//")
        && !path.split('/').any(|seg| seg == "..")
        && path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/-_.~".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "path must look like /api/1/endpoint (letters, digits, - _ . ~ and /), got {path:?}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_checks() {
        assert!(is_uuid("0ae7e972-848d-53c5-8a8f-3a120fa115ba"));
        assert!(!is_uuid("0ae7e972848d53c58a8f3a120fa115ba"));
        assert!(!is_uuid("{0ae7e972-848d-53c5-8a8f-3a120fa115b}"));
        assert!(check_webhook_uri("https://pos.example.com/iiko/hook?x=1").is_ok());
        assert!(check_webhook_uri("http://127.0.0.1:9000/h").is_ok());
        for bad in [
            "",
            "/relative",
            "ftp://x/y",
            "https://",
            " https://x.y",
            "https://x.y/\n",
        ] {
            assert!(check_webhook_uri(bad).is_err(), "{bad:?}");
        }
        assert!(check_path("/api/1/deliveries/by_id").is_ok());
        for bad in [
            "api/1/x",
            "//evil.com/x",
            "/api/../x",
            "/api/1/x?y=1",
            "/a b",
            "http://x/y",
        ] {
            assert!(check_path(bad).is_err(), "{bad:?}");
        }
    }
}

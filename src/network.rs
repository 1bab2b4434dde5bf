//! How the client reaches the service: which roots verify its certificate,
//! which proxy carries the connection, and what a failure of either means in
//! words.
//!
//! # Why `rustls-native-certs` and not ureq's `platform-verifier`
//!
//! ureq 3.5's `RootCerts::PlatformVerifier` calls
//! `rustls_platform_verifier::Verifier::new` with no way to pass extra roots,
//! so `ca_file` could not be added to it. It also builds that verifier inside
//! ureq's per-connection TLS setup: the client sets a per-request config (the
//! `Timeout`-dependent deadline), and ureq caches its rustls config only for
//! agent-level requests, so every new connection would read the system store
//! again. Loading the store once per process with `rustls-native-certs` (which
//! reads the Windows certificate store, and honours `SSL_CERT_FILE` and
//! `SSL_CERT_DIR` as OpenSSL does) into a
//! shared `RootCerts::Specific(Arc<..>)` adds roots freely, and clients with
//! the same trust share one list (and ureq pools compare it by pointer).

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use sha2::{Digest, Sha256};
use ureq::tls::{Certificate, PemItem, RootCerts};
use ureq::Proxy;

use crate::error::{Error, Result};
use crate::Secret;

/// Which roots verify the service's certificate. Verification itself is
/// always on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TrustRoots {
    /// The operating system's trust store (on Linux the distribution's bundle,
    /// on Windows the certificate store's trusted roots; on every system
    /// `SSL_CERT_FILE` / `SSL_CERT_DIR` instead when set), so a root installed
    /// by the IT department (`update-ca-certificates`, a group policy) is
    /// trusted. Where the
    /// system has no usable store (a scratch container), the bundled Mozilla
    /// roots are used instead, and a debug line says so once. The default.
    #[default]
    System,
    /// Only the Mozilla roots compiled into the library, whatever the system
    /// trusts.
    Bundled,
}

type CertList = Arc<Vec<Certificate<'static>>>;
/// Merged lists by trust mode and SHA-256 of the `ca_file` content.
type MergedLists = Mutex<HashMap<(TrustRoots, [u8; 32]), CertList>>;

/// The system store, read once per process: a PHP-FPM worker or a CLI run
/// building many clients reads `/etc/ssl/certs` once.
fn system_roots() -> CertList {
    static SYSTEM: OnceLock<CertList> = OnceLock::new();
    SYSTEM
        .get_or_init(|| {
            let loaded = rustls_native_certs::load_native_certs();
            for e in &loaded.errors {
                log::debug!("system trust store: {e}");
            }
            let certs: Vec<Certificate<'static>> = loaded
                .certs
                .iter()
                .map(|c| Certificate::from_der(c.as_ref()).to_owned())
                .collect();
            if certs.is_empty() {
                log::debug!(
                    "no usable system trust store (no certificates found); \
                     using the bundled Mozilla roots"
                );
                return bundled_roots();
            }
            log::debug!("system trust store: {} roots", certs.len());
            Arc::new(certs)
        })
        .clone()
}

/// The bundled Mozilla roots as certificates, for merging with `ca_file`.
fn bundled_roots() -> CertList {
    static BUNDLED: OnceLock<CertList> = OnceLock::new();
    BUNDLED
        .get_or_init(|| {
            Arc::new(
                webpki_root_certs::TLS_SERVER_ROOT_CERTS
                    .iter()
                    .map(|c| Certificate::from_der(c.as_ref()).to_owned())
                    .collect(),
            )
        })
        .clone()
}

/// Reads and checks a `ca_file`: readable, PEM, at least one certificate,
/// every certificate usable as a root.
fn read_ca_file(path: &Path) -> Result<(Vec<Certificate<'static>>, [u8; 32])> {
    let shown = path.display();
    let pem = std::fs::read(path)
        .map_err(|e| Error::Config(format!("ca_file {shown} cannot be read: {e}")))?;
    let mut certs = Vec::new();
    for item in ureq::tls::parse_pem(&pem) {
        match item {
            Ok(PemItem::Certificate(c)) => certs.push(c),
            Ok(_) => {} // keys and other sections are not roots; skip them
            Err(e) => {
                return Err(Error::Config(format!(
                    "ca_file {shown} is not readable PEM: {e}"
                )))
            }
        }
    }
    if certs.is_empty() {
        return Err(Error::Config(format!(
            "ca_file {shown} holds no certificate (expected PEM blocks \
             -----BEGIN CERTIFICATE-----)"
        )));
    }
    // ureq skips roots it cannot parse without a word; refuse them here.
    let mut check = rustls::RootCertStore::empty();
    for (i, c) in certs.iter().enumerate() {
        check
            .add(rustls::pki_types::CertificateDer::from(c.der()))
            .map_err(|e| {
                Error::Config(format!(
                    "ca_file {shown}: certificate {} is not a usable root: {e}",
                    i + 1
                ))
            })?;
    }
    Ok((certs, Sha256::digest(&pem).into()))
}

/// The roots for a client: the base set of `mode`, plus `ca_file` when given.
/// Lists are shared between clients with the same trust.
pub(crate) fn root_certs(mode: TrustRoots, ca_file: Option<&Path>) -> Result<RootCerts> {
    let Some(path) = ca_file else {
        return Ok(match mode {
            TrustRoots::System => RootCerts::Specific(system_roots()),
            // ureq's own table: no conversion at all.
            TrustRoots::Bundled => RootCerts::WebPki,
        });
    };
    let (extra, digest) = read_ca_file(path)?;
    // The file is read on every build (it is small, and a changed file must
    // take effect); the merged list is reused when its content is the same.
    static MERGED: OnceLock<MergedLists> = OnceLock::new();
    let mut merged = MERGED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(list) = merged.get(&(mode, digest)) {
        return Ok(RootCerts::Specific(Arc::clone(list)));
    }
    let base = match mode {
        TrustRoots::System => system_roots(),
        TrustRoots::Bundled => bundled_roots(),
    };
    let mut all = Vec::with_capacity(base.len() + extra.len());
    all.extend(base.iter().cloned());
    all.extend(extra);
    let list = Arc::new(all);
    if merged.len() >= 16 {
        merged.clear(); // a process cycling through files must not grow without bound
    }
    merged.insert((mode, digest), Arc::clone(&list));
    Ok(RootCerts::Specific(list))
}

/// The proxy a client uses, as configured.
#[derive(Clone)]
pub(crate) struct ProxySetting {
    pub(crate) proxy: Option<Proxy>,
    /// `scheme://host:port`, never the credentials; `None` without a proxy.
    pub(crate) label: Option<String>,
}

impl fmt::Debug for ProxySetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label.as_deref().unwrap_or("none"))
    }
}

/// Builds the proxy from the explicit `proxy` URL, or else from the
/// environment (`HTTPS_PROXY`, `ALL_PROXY`, `HTTP_PROXY` and lowercase forms),
/// with `no_proxy` (comma-separated hosts, `.domain` suffixes or `*`) in place
/// of `NO_PROXY` when given.
pub(crate) fn proxy_setting(
    proxy: Option<&Secret>,
    no_proxy: Option<&str>,
) -> Result<ProxySetting> {
    let (base, from_env) = match proxy {
        Some(url) => (parse_proxy(url.expose())?, false),
        None => match Proxy::try_from_env() {
            Some(p) => (p, true),
            None => {
                return Ok(ProxySetting {
                    proxy: None,
                    label: None,
                })
            }
        },
    };
    let label = format!(
        "{}://{}:{}{}",
        base.uri().scheme_str().unwrap_or("http"),
        base.host(),
        base.port(),
        if from_env {
            " (from the environment)"
        } else {
            ""
        }
    );
    let proxy = match (no_proxy, from_env) {
        // The environment's proxy keeps the environment's NO_PROXY.
        (None, true) => base,
        _ => {
            let mut b = Proxy::builder(base.protocol())
                .host(base.host())
                .port(base.port());
            if let Some(user) = base.username() {
                b = b.username(user);
            }
            if let Some(password) = base.password() {
                b = b.password(password);
            }
            for entry in no_proxy.unwrap_or_default().split(',') {
                let entry = entry.trim();
                if !entry.is_empty() {
                    b = b.no_proxy(entry);
                }
            }
            b.build()
                .map_err(|_| Error::Config(format!("proxy {label} cannot be used")))?
        }
    };
    Ok(ProxySetting {
        proxy: Some(proxy),
        label: Some(label),
    })
}

/// Checks a proxy URL. Messages never quote it: it may hold a password.
fn parse_proxy(url: &str) -> Result<Proxy> {
    let url = url.trim();
    let bad = |why: &str| Error::Config(format!("proxy URL is not usable: {why}"));
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| bad("it must start with http:// or https://"))?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(bad("only http:// and https:// proxies are supported"));
    }
    let authority = rest.strip_suffix('/').unwrap_or(rest);
    if authority.contains(['/', '?', '#']) {
        return Err(bad(
            "it must be scheme://[user:password@]host:port with no path",
        ));
    }
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host_port.is_empty() || host_port.starts_with(':') {
        return Err(bad("it has no host"));
    }
    Proxy::new(url).map_err(|_| bad("it is not a valid URL (percent-encode @ : / in the password)"))
}

/// Whether `setting` sends requests for `base_url` through the proxy.
pub(crate) fn proxied(setting: &ProxySetting, base_url: &str) -> bool {
    match (&setting.proxy, base_url.parse::<ureq::http::Uri>()) {
        (Some(p), Ok(uri)) => !p.is_no_proxy(&uri),
        _ => false,
    }
}

/// A path shown in messages and `Debug`.
pub(crate) fn show_path(p: &Option<PathBuf>) -> String {
    p.as_ref()
        .map_or_else(|| "none".to_owned(), |p| p.display().to_string())
}

/// What a TLS failure means, in words, with what to do about it.
pub(crate) fn tls_words(host: &str, e: &rustls::Error) -> String {
    use rustls::CertificateError as C;
    let what = match e {
        rustls::Error::InvalidCertificate(c) => match c {
            C::UnknownIssuer => "certificate issued by an unknown authority: give its root with \
                 ca_file, or install it in the system store"
                .to_owned(),
            C::Expired | C::ExpiredContext { .. } => {
                "the certificate has expired: the server must \
                 renew it (or this machine's clock is wrong)"
                    .to_owned()
            }
            C::NotValidYet | C::NotValidYetContext { .. } => {
                "the certificate is not valid yet: check this machine's clock".to_owned()
            }
            C::NotValidForName => format!(
                "the certificate is not valid for the name {host}: check the base URL's host"
            ),
            C::NotValidForNameContext { presented, .. } => format!(
                "the certificate is not valid for the name {host} (it names {}): check the base \
                 URL's host",
                if presented.is_empty() {
                    "no host".to_owned()
                } else {
                    presented.join(", ")
                }
            ),
            C::Revoked => "the certificate has been revoked".to_owned(),
            C::InvalidPurpose | C::InvalidPurposeContext { .. } => {
                "the certificate is not meant for TLS servers".to_owned()
            }
            C::BadSignature | C::BadEncoding => {
                "the certificate is damaged or its signature is wrong".to_owned()
            }
            other => format!("the certificate was refused ({other:?})"),
        },
        rustls::Error::InvalidMessage(_) | rustls::Error::InappropriateMessage { .. } => {
            "the server did not speak TLS (is it a plain http:// address?)".to_owned()
        }
        rustls::Error::AlertReceived(alert) => {
            format!("the server refused the TLS handshake (alert {alert:?})")
        }
        rustls::Error::PeerIncompatible(_) => {
            "the server offers no TLS version or cipher this client accepts".to_owned()
        }
        other => format!("TLS handshake failed: {other}"),
    };
    format!("{host}: {what}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_urls_are_checked_without_quoting_them() {
        for bad in [
            "proxy.example:3128",
            "socks5://u:hunter2@p:1080",
            "http://u:hunter2@p:3128/path",
            "http://u:hunter2@",
        ] {
            let e = parse_proxy(bad).unwrap_err().to_string();
            assert!(!e.contains("hunter2") && e.contains("proxy URL"), "{e}");
        }
        let s = proxy_setting(Some(&Secret::new("http://u:hunter2@127.0.0.1:3128")), None).unwrap();
        assert_eq!(s.label.as_deref(), Some("http://127.0.0.1:3128"));
        assert!(!format!("{s:?}").contains("hunter2"));
        assert!(proxied(&s, "https://api-ru.iiko.services"));
        let s = proxy_setting(
            Some(&Secret::new("http://127.0.0.1:3128")),
            Some("localhost, .iiko.services"),
        )
        .unwrap();
        assert!(!proxied(&s, "https://api-ru.iiko.services"));
        assert!(!proxied(&s, "http://localhost:8787"));
        assert!(proxied(&s, "http://127.0.0.1:8787"));
    }

    #[test]
    fn bad_ca_files_are_configuration_errors() {
        let dir = std::env::temp_dir().join(format!("iiko-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = dir.join("missing.pem");
        let e = root_certs(TrustRoots::System, Some(&missing)).unwrap_err();
        assert!(
            matches!(&e, Error::Config(m) if m.contains("cannot be read")),
            "{e}"
        );
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "just text\n").unwrap();
        let e = root_certs(TrustRoots::System, Some(&empty)).unwrap_err();
        assert!(e.to_string().contains("holds no certificate"), "{e}");
        let junk = dir.join("junk.pem");
        std::fs::write(
            &junk,
            "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
        )
        .unwrap();
        let e = root_certs(TrustRoots::Bundled, Some(&junk)).unwrap_err();
        assert!(e.to_string().contains("not a usable root"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn system_roots_are_read_once() {
        let a = system_roots();
        let b = system_roots();
        assert!(Arc::ptr_eq(&a, &b) && !a.is_empty());
    }
}

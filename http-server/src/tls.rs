//! HTTPS: a certificate chain and key from PEM, served with rustls (the ring
//! provider, as the SDK's client uses).

use std::path::Path;
use std::sync::Arc;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls;

/// Why a certificate or key cannot be served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The certificate PEM holds no certificate, or is not PEM.
    #[error("{0}: no PEM certificate (-----BEGIN CERTIFICATE-----) found")]
    NoCertificate(String),
    /// The key PEM holds no private key, or is not PEM.
    #[error("{0}: no PEM private key (PKCS#8, PKCS#1 or SEC1) found")]
    NoKey(String),
    /// rustls refused the pair (e.g. the key does not match the certificate).
    #[error("the certificate and key cannot be used: {0}")]
    Refused(String),
}

/// A certificate chain and its private key, ready to serve HTTPS. Cheap to
/// clone. `Debug` never shows the key.
#[derive(Clone)]
pub struct TlsIdentity {
    pub(crate) config: Arc<rustls::ServerConfig>,
}

impl std::fmt::Debug for TlsIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TlsIdentity([key redacted])")
    }
}

impl TlsIdentity {
    /// Reads a PEM certificate chain (leaf first) and a PEM private key.
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<TlsIdentity, TlsError> {
        let read = |p: &Path| {
            std::fs::read(p).map_err(|source| TlsError::Read {
                path: p.display().to_string(),
                source,
            })
        };
        Self::build(
            &read(cert)?,
            &read(key)?,
            &cert.display().to_string(),
            &key.display().to_string(),
        )
    }

    /// A PEM certificate chain (leaf first) and a PEM private key, in memory.
    pub fn from_pem(cert_pem: &[u8], key_pem: &[u8]) -> Result<TlsIdentity, TlsError> {
        Self::build(cert_pem, key_pem, "certificate", "key")
    }

    fn build(
        cert_pem: &[u8],
        key_pem: &[u8],
        cert_name: &str,
        key_name: &str,
    ) -> Result<TlsIdentity, TlsError> {
        let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert_pem)
            .collect::<Result<_, _>>()
            .map_err(|_| TlsError::NoCertificate(cert_name.to_owned()))?;
        if chain.is_empty() {
            return Err(TlsError::NoCertificate(cert_name.to_owned()));
        }
        let key = PrivateKeyDer::from_pem_slice(key_pem)
            .map_err(|_| TlsError::NoKey(key_name.to_owned()))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| TlsError::Refused(e.to_string()))?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(|e| TlsError::Refused(e.to_string()))?;
        let mut config = config;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(TlsIdentity {
            config: Arc::new(config),
        })
    }
}

//! The emulator's settings as command-line options, shared by the
//! `iikocloud-emulator` binary and the CLI's `iikocloud emulator`, so both
//! take the same flags with the same defaults and checks.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use crate::{DeliveryConfig, EmulatorConfig, Fixtures, TlsIdentity, DEFAULT_PORT};

/// How to run the emulator from a command line.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1", value_name = "HOST")]
    pub host: String,
    /// Port to listen on; 0 picks a free port.
    #[arg(long, default_value_t = DEFAULT_PORT, value_name = "N")]
    pub port: u16,
    /// Fixture file (JSON); the built-in data is used when absent.
    #[arg(long, value_name = "FILE")]
    pub fixtures: Option<PathBuf>,
    /// Token lifetime in seconds (fractions allowed).
    #[arg(long, value_name = "SECS", default_value_t = 3600.0, value_parser = positive_seconds)]
    pub token_ttl: f64,
    /// Time allowed for one webhook delivery attempt, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, value_parser = seconds)]
    pub webhook_timeout: f64,
    /// Pauses before webhook retries, comma-separated seconds ("none" for no retries).
    #[arg(long, value_name = "SECS,...", default_value = "1,5,30", value_parser = delays)]
    pub webhook_retry_delays: Delays,
    /// Consecutive failed delivery attempts that block a webhook (0 = never).
    #[arg(long, value_name = "N", default_value_t = 12)]
    pub webhook_block_after: u32,
    /// Serve HTTPS with this PEM certificate chain (leaf first), to test your TLS and proxy setup.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
}

/// The pauses before webhook retries, as `--webhook-retry-delays` reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delays(pub Vec<Duration>);

/// Why [`ServeArgs::config`] failed.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// An option that cannot be used (an address that does not resolve, an
    /// unreadable TLS key).
    #[error("{0}")]
    Usage(String),
    /// The fixture file cannot be read or does not fit.
    #[error("{0}")]
    Fixtures(String),
}

impl ServeArgs {
    /// The emulator's configuration these options describe.
    pub fn config(&self) -> Result<EmulatorConfig, ServeError> {
        let bind: SocketAddr = (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map_err(|e| ServeError::Usage(format!("bad --host {:?}: {e}", self.host)))?
            .next()
            .ok_or_else(|| {
                ServeError::Usage(format!("--host {:?} resolves to no address", self.host))
            })?;
        let fixtures = match &self.fixtures {
            Some(path) => Fixtures::from_file(path).map_err(ServeError::Fixtures)?,
            None => Fixtures::default_data(),
        };
        let mut config = EmulatorConfig::default()
            .bind(bind)
            .fixtures(fixtures)
            .token_ttl(Duration::from_secs_f64(self.token_ttl))
            .delivery(DeliveryConfig {
                timeout: Duration::from_secs_f64(self.webhook_timeout),
                retry_delays: self.webhook_retry_delays.0.clone(),
                block_after_failures: self.webhook_block_after,
            });
        if let (Some(cert), Some(key)) = (&self.tls_cert, &self.tls_key) {
            config.tls = Some(
                TlsIdentity::from_pem_files(cert, key)
                    .map_err(|e| ServeError::Usage(format!("--tls-cert/--tls-key: {e}")))?,
            );
        }
        Ok(config)
    }
}

/// A non-negative, finite number of seconds.
fn seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|e| format!("{s:?}: {e}"))?;
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(format!("{s:?} is not a non-negative number of seconds"))
    }
}

/// A positive, finite number of seconds (a token that lives 0 s is no token).
fn positive_seconds(s: &str) -> Result<f64, String> {
    match seconds(s)? {
        v if v > 0.0 => Ok(v),
        _ => Err(format!("{s:?}: must be positive")),
    }
}

/// Comma-separated seconds, or `none`.
fn delays(s: &str) -> Result<Delays, String> {
    let s = s.trim();
    if s.is_empty() || s.eq_ignore_ascii_case("none") {
        return Ok(Delays(Vec::new()));
    }
    s.split(',')
        .map(|part| seconds(part).map(Duration::from_secs_f64))
        .collect::<Result<_, _>>()
        .map(Delays)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_retry_delays() {
        assert_eq!(
            delays("0.1, 2").unwrap().0,
            vec![Duration::from_millis(100), Duration::from_secs(2)]
        );
        assert!(delays("none").unwrap().0.is_empty());
        assert!(delays("1,x").is_err());
        assert!(delays("-1").is_err());
        assert!(positive_seconds("0").is_err());
        assert!(positive_seconds("0.5").is_ok());
    }
}

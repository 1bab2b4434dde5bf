//! `emulator`: the `iikocloud-emulator` binary's behaviour, in this tool.

use std::io::Write;
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use iikocloud_emulator::{
    DeliveryConfig, Emulator, EmulatorConfig, Fixtures, DEFAULT_API_KEY, DEFAULT_APP_ID,
    DEFAULT_CLIENT_SECRET,
};

use crate::args::{seconds, EmulatorArgs, GlobalOpts};
use crate::exit::Failure;

/// Comma-separated seconds, or `none`.
fn delays(s: &str) -> Result<Vec<Duration>, Failure> {
    let s = s.trim();
    if s.is_empty() || s.eq_ignore_ascii_case("none") {
        return Ok(Vec::new());
    }
    s.split(',')
        .map(|part| {
            seconds(part)
                .map(Duration::from_secs_f64)
                .map_err(|e| Failure::usage(format!("--webhook-retry-delays: {e}")))
        })
        .collect()
}

/// Starts the emulator, prints its address on stdout (one line, like the
/// emulator binary, so scripts can read it) and serves until killed.
pub fn run(_g: &GlobalOpts, a: &EmulatorArgs) -> Result<(), Failure> {
    let bind: SocketAddr = (a.host.as_str(), a.port)
        .to_socket_addrs()
        .map_err(|e| Failure::usage(format!("bad --host {:?}: {e}", a.host)))?
        .next()
        .ok_or_else(|| Failure::usage(format!("--host {:?} resolves to no address", a.host)))?;
    let fixtures = match &a.fixtures {
        Some(path) => Fixtures::from_file(path).map_err(Failure::input)?,
        None => Fixtures::default_data(),
    };
    if a.token_ttl <= 0.0 {
        return Err(Failure::usage("--token-ttl must be positive"));
    }
    let config = EmulatorConfig::default()
        .bind(bind)
        .fixtures(fixtures)
        .token_ttl(Duration::from_secs_f64(a.token_ttl))
        .delivery(DeliveryConfig {
            timeout: Duration::from_secs_f64(a.webhook_timeout),
            retry_delays: delays(&a.webhook_retry_delays)?,
            block_after_failures: a.webhook_block_after,
        });
    let mut config = config;
    if let (Some(cert), Some(key)) = (&a.tls_cert, &a.tls_key) {
        config.tls = Some(
            iikocloud_emulator::TlsIdentity::from_pem_files(cert, key)
                .map_err(|e| Failure::usage(format!("--tls-cert/--tls-key: {e}")))?,
        );
    }
    let emu = Emulator::start(config)
        .map_err(|e| Failure::failed(format!("cannot start the emulator on {bind}: {e}")))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "iikocloud emulator listening on {}", emu.url())
        .and_then(|()| out.flush())
        .map_err(|e| Failure::failed(format!("cannot write to stdout: {e}")))?;
    drop(out);
    if a.fixtures.is_none() {
        // The built-in test credentials are public fixture data, not anyone's
        // secrets; showing them saves a newcomer a trip to the README.
        eprintln!(
            "built-in test data; to use it from another shell:\n  \
             export IIKO_BASE_URL={} IIKO_APP_ID={DEFAULT_APP_ID} \
             IIKO_CLIENT_SECRET={DEFAULT_CLIENT_SECRET} IIKO_API_KEY={DEFAULT_API_KEY}\n  \
             iikocloud organizations",
            emu.url()
        );
    }
    eprintln!("serving until Ctrl-C");
    loop {
        std::thread::park();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_retry_delays() {
        assert_eq!(
            delays("0.1, 2").unwrap(),
            vec![Duration::from_millis(100), Duration::from_secs(2)]
        );
        assert!(delays("none").unwrap().is_empty());
        assert!(delays("1,x").is_err());
    }
}

//! `iikocloud-emulator` binary: runs the emulator until killed.
//!
//! Prints exactly one line to stdout, `iikocloud emulator listening on
//! http://HOST:PORT` (`https://` with `--tls-cert`), so scripts can read the address; everything else goes to
//! stderr. Tokens and secrets are never printed.

use std::io::Write;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use iikocloud_emulator::{DeliveryConfig, Emulator, EmulatorConfig, Fixtures, DEFAULT_PORT};

#[derive(Parser, Debug)]
#[command(
    name = "iikocloud-emulator",
    version,
    about = "Local emulator of the iikoCloud API (tokens, organizations, webhooks, stop lists, faults)"
)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Port to listen on; 0 picks a free port.
    #[arg(long, default_value_t = DEFAULT_PORT)]
    port: u16,
    /// Fixture file (JSON); the built-in defaults are used when absent.
    #[arg(long, value_name = "FILE")]
    fixtures: Option<PathBuf>,
    /// Token lifetime in seconds (fractions allowed).
    #[arg(long, value_name = "SECS", default_value_t = 3600.0, value_parser = parse_secs)]
    token_ttl: f64,
    /// Timeout of one webhook delivery attempt, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, value_parser = parse_secs)]
    webhook_timeout: f64,
    /// Pauses before webhook retries, comma-separated seconds ("none" for no retries).
    #[arg(long, value_name = "SECS,...", default_value = "1,5,30")]
    webhook_retry_delays: String,
    /// Consecutive failed delivery attempts that block a webhook (0 = never).
    #[arg(long, value_name = "N", default_value_t = 12)]
    webhook_block_after: u32,
    /// Serve HTTPS with this PEM certificate chain (leaf first); needs --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Log every request and delivery to stderr.
    #[arg(short, long)]
    verbose: bool,
}

fn parse_secs(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|e| format!("{s:?}: {e}"))?;
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(format!("{s:?} is not a non-negative number of seconds"))
    }
}

fn parse_delays(s: &str) -> Result<Vec<Duration>, String> {
    let s = s.trim();
    if s.is_empty() || s.eq_ignore_ascii_case("none") {
        return Ok(Vec::new());
    }
    s.split(',')
        .map(|part| parse_secs(part).map(Duration::from_secs_f64))
        .collect()
}

/// Minimal stderr logger: the emulator logs little, and no dependency is needed for it.
struct StderrLogger;

impl log::Log for StderrLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.target().starts_with("iikocloud_emulator")
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            eprintln!("[{}] {}", record.level(), record.args());
        }
    }

    fn flush(&self) {}
}

static LOGGER: StderrLogger = StderrLogger;

fn run(args: Args) -> Result<(), String> {
    let _ = log::set_logger(&LOGGER);
    log::set_max_level(if args.verbose {
        log::LevelFilter::Debug
    } else {
        log::LevelFilter::Warn
    });
    let bind: SocketAddr = (args.host.as_str(), args.port)
        .to_socket_addrs()
        .map_err(|e| format!("bad --host {:?}: {e}", args.host))?
        .next()
        .ok_or_else(|| format!("--host {:?} resolves to no address", args.host))?;
    let fixtures = match &args.fixtures {
        Some(path) => Fixtures::from_file(path)?,
        None => Fixtures::default_data(),
    };
    if args.token_ttl <= 0.0 {
        return Err("--token-ttl must be positive".into());
    }
    let config = EmulatorConfig::default()
        .bind(bind)
        .fixtures(fixtures)
        .token_ttl(Duration::from_secs_f64(args.token_ttl))
        .delivery(DeliveryConfig {
            timeout: Duration::from_secs_f64(args.webhook_timeout),
            retry_delays: parse_delays(&args.webhook_retry_delays)?,
            block_after_failures: args.webhook_block_after,
        });
    let mut config = config;
    if let (Some(cert), Some(key)) = (&args.tls_cert, &args.tls_key) {
        config.tls = Some(
            iikocloud_emulator::TlsIdentity::from_pem_files(cert, key)
                .map_err(|e| format!("--tls-cert/--tls-key: {e}"))?,
        );
    }
    let emu = Emulator::start(config).map_err(|e| format!("cannot start: {e}"))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "iikocloud emulator listening on {}", emu.url())
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write to stdout: {e}"))?;
    drop(out);
    // Serve until the process is killed.
    loop {
        std::thread::park();
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("iikocloud-emulator: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays() {
        assert_eq!(
            parse_delays("0.1, 2").unwrap(),
            vec![Duration::from_millis(100), Duration::from_secs(2)]
        );
        assert!(parse_delays("none").unwrap().is_empty());
        assert!(parse_delays("1,x").is_err());
        assert!(parse_delays("-1").is_err());
    }
}

//! `iikocloud-emulator` binary: runs the emulator until killed.
//!
//! Prints exactly one line to stdout, `iikocloud emulator listening on
//! http://HOST:PORT` (`https://` with `--tls-cert`), so scripts can read the address; everything else goes to
//! stderr. Tokens and secrets are never printed.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use iikocloud_emulator::cli::ServeArgs;
use iikocloud_emulator::Emulator;

#[derive(Parser, Debug)]
#[command(
    name = "iikocloud-emulator",
    version,
    about = "Local emulator of the iikoCloud API (tokens, organizations, webhooks, stop lists, faults)"
)]
struct Args {
    #[command(flatten)]
    serve: ServeArgs,
    /// Log every request and delivery to stderr.
    #[arg(short, long)]
    verbose: bool,
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
    let config = args.serve.config().map_err(|e| e.to_string())?;
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

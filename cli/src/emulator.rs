//! `emulator`: the `iikocloud-emulator` binary's behaviour, in this tool.

use std::io::Write;

use iikocloud_emulator::cli::ServeError;
use iikocloud_emulator::{Emulator, DEFAULT_API_KEY, DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET};

use crate::args::{EmulatorArgs, GlobalOpts};
use crate::exit::Failure;

/// Starts the emulator, prints its address on stdout (one line, like the
/// emulator binary, so scripts can read it) and serves until killed.
pub fn run(_g: &GlobalOpts, a: &EmulatorArgs) -> Result<(), Failure> {
    let config = a.serve.config().map_err(|e| match e {
        ServeError::Usage(m) => Failure::usage(m),
        ServeError::Fixtures(m) => Failure::input(m),
    })?;
    let bind = config.bind;
    let emu = Emulator::start(config)
        .map_err(|e| Failure::failed(format!("cannot start the emulator on {bind}: {e}")))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "iikocloud emulator listening on {}", emu.url())
        .and_then(|()| out.flush())
        .map_err(|e| Failure::failed(format!("cannot write to stdout: {e}")))?;
    drop(out);
    if a.serve.fixtures.is_none() {
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

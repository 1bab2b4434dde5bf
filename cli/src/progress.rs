//! A spinner on stderr while a call waits on the network.
//!
//! Drawn only when stderr is a terminal, so pipes, logs and tests see nothing,
//! and only after a short delay, so fast calls do not flicker.

use std::io::{IsTerminal, Write};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

const FRAMES: [char; 4] = ['|', '/', '-', '\\'];
const FIRST_FRAME_AFTER: Duration = Duration::from_millis(150);
const FRAME_EVERY: Duration = Duration::from_millis(100);

/// Runs `f` with a spinner labelled `label` on stderr, if stderr is a terminal.
pub fn with_spinner<T>(label: &str, f: impl FnOnce() -> T) -> T {
    let spinner = Spinner::start(label);
    let result = f();
    drop(spinner);
    result
}

/// A running spinner; stops and clears its line when dropped.
struct Spinner {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Spinner {
    fn start(label: &str) -> Spinner {
        if !std::io::stderr().is_terminal() {
            return Spinner {
                stop: None,
                thread: None,
            };
        }
        let (tx, rx) = mpsc::channel::<()>();
        let label = label.to_owned();
        let thread = std::thread::Builder::new()
            .name("spinner".into())
            .spawn(move || {
                let mut wait = FIRST_FRAME_AFTER;
                let mut drawn = false;
                for frame in FRAMES.iter().cycle() {
                    match rx.recv_timeout(wait) {
                        Err(RecvTimeoutError::Timeout) => {
                            eprint!("\r{frame} {label}...");
                            let _ = std::io::stderr().flush();
                            drawn = true;
                            wait = FRAME_EVERY;
                        }
                        // Stop asked, or the owner is gone.
                        _ => break,
                    }
                }
                if drawn {
                    // Erase the line so the command's own output starts
                    // clean: with spaces, which every console understands
                    // (the Windows console shows an escape sequence as text
                    // unless the program turns on its VT mode).
                    let blank = " ".repeat(label.chars().count() + 5);
                    eprint!("\r{blank}\r");
                    let _ = std::io::stderr().flush();
                }
            })
            .ok();
        Spinner {
            stop: Some(tx),
            thread,
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

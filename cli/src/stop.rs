//! How `webhook serve` and `webhook consume` are asked to stop. Either way
//! they finish the request or event in hand, then exit 0.
//!
//! * Unix: SIGTERM (systemd, `docker stop`, `kill`) and SIGINT (Ctrl-C).
//! * Windows console: Ctrl-C, Ctrl-Break, the console window closing, the
//!   user logging off and the machine shutting down (a console control
//!   handler; Windows sends no SIGTERM).
//! * Windows service (`--service NAME`, see `service.rs`): the service
//!   control manager's stop and shutdown.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::exit::Failure;

/// A flag set when the console or the system asks the process to stop.
pub fn console_flag() -> Result<Arc<AtomicBool>, Failure> {
    let flag = Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(sig, flag.clone())
            .map_err(|e| Failure::failed(format!("cannot handle signals: {e}")))?;
    }
    #[cfg(windows)]
    console::register(flag.clone())?;
    Ok(flag)
}

#[cfg(windows)]
#[allow(unsafe_code)] // SetConsoleCtrlHandler: windows-sys has only the raw binding.
mod console {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, OnceLock};
    use std::time::Duration;

    use windows_sys::core::BOOL;
    use windows_sys::Win32::System::Console::{
        SetConsoleCtrlHandler, CTRL_BREAK_EVENT, CTRL_C_EVENT,
    };

    use crate::exit::Failure;

    /// The flags the handler sets (one per command run, so one in practice).
    static FLAGS: OnceLock<std::sync::Mutex<Vec<Arc<AtomicBool>>>> = OnceLock::new();

    /// Windows ends the process as soon as the handler returns from a
    /// close, logoff or shutdown event (after 5 s at most for a closing
    /// window); waiting here gives the loop that time to finish, and the
    /// process ends earlier when `main` returns.
    const GRACE: Duration = Duration::from_millis(4500);

    unsafe extern "system" fn on_control(kind: u32) -> BOOL {
        if let Some(flags) = FLAGS.get() {
            for f in flags.lock().unwrap_or_else(|e| e.into_inner()).iter() {
                f.store(true, Ordering::SeqCst);
            }
        }
        if kind != CTRL_C_EVENT && kind != CTRL_BREAK_EVENT {
            std::thread::sleep(GRACE);
        }
        1 // handled: the default handler would end the process at once
    }

    pub(super) fn register(flag: Arc<AtomicBool>) -> Result<(), Failure> {
        let first = FLAGS.get().is_none();
        FLAGS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(flag);
        // SAFETY: a handler with the signature Windows calls, valid for the
        // whole process; registered once.
        if first && unsafe { SetConsoleCtrlHandler(Some(on_control), 1) } == 0 {
            return Err(Failure::failed(format!(
                "cannot handle Ctrl-C: {}",
                std::io::Error::last_os_error()
            )));
        }
        Ok(())
    }
}

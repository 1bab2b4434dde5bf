//! `--service NAME` (Windows): `webhook serve` and `webhook consume` run by
//! the service control manager, which starts them at boot, restarts them
//! (with the recovery actions of `sc.exe failure`) and stops them with
//! `sc.exe stop` or at shutdown. Installed as cli/README.md shows:
//!
//! ```text
//! sc.exe create iiko-inbox start= auto binPath= "\"C:\Program Files\iikocloud\bin\iikocloud.exe\" webhook serve --listen 0.0.0.0:8080 --inbox sqlite:///C:/ProgramData/iikocloud/inbox.db --service iiko-inbox"
//! ```
//!
//! A service has no console, so its stdout and stderr (the JSON log lines)
//! go to `--log-file`, by default `%ProgramData%\iikocloud\NAME.log`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use windows_service::service::{
    ServiceControl, ServiceControlAccept, ServiceExitCode, ServiceState, ServiceStatus, ServiceType,
};
use windows_service::service_control_handler::{self, ServiceControlHandlerResult};
use windows_service::{define_windows_service, service_dispatcher};

use crate::exit::Failure;

/// What the service runs until the flag is set.
type Work = Box<dyn FnOnce(Arc<AtomicBool>) -> Result<(), Failure> + Send>;

/// Handed from `run` to the service's thread, and the result back.
struct Job {
    name: String,
    log_file: PathBuf,
    work: Option<Work>,
    result: Option<Result<(), Failure>>,
}

static JOB: Mutex<Option<Job>> = Mutex::new(None);

/// `StartServiceCtrlDispatcherW` fails so when the process was not started
/// by the service control manager.
const ERROR_FAILED_SERVICE_CONTROLLER_CONNECT: i32 = 1063;

define_windows_service!(ffi_service_main, service_main);

/// The default log file of service `name`.
pub fn default_log_file(name: &str) -> PathBuf {
    let data = std::env::var_os("ProgramData").unwrap_or_else(|| OsString::from(r"C:\ProgramData"));
    Path::new(&data)
        .join("iikocloud")
        .join(format!("{name}.log"))
}

/// Runs `work` as the service `name`: returns when the service stopped.
pub fn run(
    name: &str,
    log_file: Option<PathBuf>,
    work: impl FnOnce(Arc<AtomicBool>) -> Result<(), Failure> + Send + 'static,
) -> Result<(), Failure> {
    *JOB.lock().unwrap_or_else(PoisonError::into_inner) = Some(Job {
        name: name.to_owned(),
        log_file: log_file.unwrap_or_else(|| default_log_file(name)),
        work: Some(Box::new(work)),
        result: None,
    });
    let started = service_dispatcher::start(name, ffi_service_main);
    let job = JOB.lock().unwrap_or_else(PoisonError::into_inner).take();
    match started {
        Ok(()) => job.and_then(|j| j.result).unwrap_or_else(|| {
            Err(Failure::failed(format!(
                "--service {name}: the service control manager did not start it"
            )))
        }),
        Err(windows_service::Error::Winapi(e))
            if e.raw_os_error() == Some(ERROR_FAILED_SERVICE_CONTROLLER_CONNECT) =>
        {
            Err(Failure::usage(format!(
                "--service {name}: only the service control manager starts a service; \
                 install it with sc.exe create (cli/README.md), then sc.exe start {name}"
            )))
        }
        Err(e) => Err(Failure::failed(format!("--service {name}: {e}"))),
    }
}

fn status(state: ServiceState, exit_code: ServiceExitCode) -> ServiceStatus {
    ServiceStatus {
        service_type: ServiceType::OWN_PROCESS,
        current_state: state,
        controls_accepted: if state == ServiceState::Running {
            ServiceControlAccept::STOP | ServiceControlAccept::SHUTDOWN
        } else {
            ServiceControlAccept::empty()
        },
        exit_code,
        checkpoint: 0,
        wait_hint: Duration::ZERO,
        process_id: None,
    }
}

fn finish(result: Result<(), Failure>) {
    if let Some(job) = JOB.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
        job.result = Some(result);
    }
}

/// The service's thread (the dispatcher calls it).
fn service_main(_arguments: Vec<OsString>) {
    let taken = JOB
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_mut()
        .and_then(|j| Some((j.name.clone(), j.log_file.clone(), j.work.take()?)));
    let Some((name, log_file, work)) = taken else {
        return;
    };
    let stop = Arc::new(AtomicBool::new(false));
    let on_stop = stop.clone();
    let handler = move |control| match control {
        ServiceControl::Stop | ServiceControl::Shutdown | ServiceControl::Preshutdown => {
            on_stop.store(true, Ordering::SeqCst);
            ServiceControlHandlerResult::NoError
        }
        ServiceControl::Interrogate => ServiceControlHandlerResult::NoError,
        _ => ServiceControlHandlerResult::NotImplemented,
    };
    let handle = match service_control_handler::register(&name, handler) {
        Ok(h) => h,
        Err(e) => return finish(Err(Failure::failed(format!("--service {name}: {e}")))),
    };
    if let Err(e) = output::to_file(&log_file) {
        let failure = Failure::failed(format!("--log-file {}: {e}", log_file.display()));
        finish(Err(failure));
        let code = ServiceExitCode::Win32(e.raw_os_error().unwrap_or(1) as u32);
        let _ = handle.set_service_status(status(ServiceState::Stopped, code));
        return;
    }
    let _ = handle.set_service_status(status(ServiceState::Running, ServiceExitCode::NO_ERROR));
    let result = work(stop);
    let code = match &result {
        Ok(()) => ServiceExitCode::NO_ERROR,
        Err(f) => ServiceExitCode::ServiceSpecific(f.code as u32),
    };
    // Before reporting Stopped: then the dispatcher returns to `run`.
    finish(result);
    let _ = handle.set_service_status(status(ServiceState::Stopped, code));
}

#[allow(unsafe_code)] // SetStdHandle: windows-sys has only the raw binding.
mod output {
    use std::io;
    use std::os::windows::io::IntoRawHandle;
    use std::path::Path;

    use windows_sys::Win32::System::Console::{SetStdHandle, STD_ERROR_HANDLE, STD_OUTPUT_HANDLE};

    /// Points stdout and stderr at `path` (appending): std looks the handles
    /// up on each write, so every later line goes there.
    pub(super) fn to_file(path: &Path) -> io::Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        // Kept open for the rest of the process.
        let handle = file.into_raw_handle();
        for which in [STD_OUTPUT_HANDLE, STD_ERROR_HANDLE] {
            // SAFETY: a valid file handle that is never closed.
            if unsafe { SetStdHandle(which, handle) } == 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

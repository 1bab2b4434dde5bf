//! Forwards the Rust `log` records of the SDK to Python's `logging`.
//!
//! Records of the core (`iikocloud::…`) go to the logger `iikocloud`, those of
//! the emulator to `iikocloud.emulator`; other crates' records (the HTTP
//! stack) are dropped, so nothing below the SDK can leak a header.
//!
//! Deadlock rule: a record is formatted first, then the thread attaches to
//! Python; no Rust lock is held by this code while it waits for the GIL.
//! Whether a level is wanted is read from a cached threshold, refreshed from
//! Python whenever a native call starts, so a disabled `debug` costs no GIL.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyAny;

/// Python level at or above which records are forwarded (`logging.WARNING`
/// until Python says otherwise).
static THRESHOLD: AtomicU32 = AtomicU32::new(30);
/// Whether the bridge is the process's `log` logger (then it also sets the
/// `log` crate's max level, so unwanted records are not even built).
static INSTALLED: AtomicBool = AtomicBool::new(false);

static CORE_LOGGER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static EMULATOR_LOGGER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn python_level(level: log::Level) -> u32 {
    match level {
        log::Level::Error => 40,
        log::Level::Warn => 30,
        log::Level::Info => 20,
        log::Level::Debug => 10,
        log::Level::Trace => 5,
    }
}

fn logger<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    name: &str,
) -> PyResult<&'py Bound<'py, PyAny>> {
    cell.get_or_try_init(py, || {
        Ok::<_, PyErr>(
            py.import("logging")?
                .getattr("getLogger")?
                .call1((name,))?
                .unbind(),
        )
    })
    .map(|l| l.bind(py))
}

/// Re-reads the effective levels of the Python loggers.
pub fn refresh(py: Python<'_>) {
    let read = |cell, name| -> PyResult<u32> {
        logger(py, cell, name)?
            .call_method0("getEffectiveLevel")?
            .extract()
    };
    let core = read(&CORE_LOGGER, "iikocloud").unwrap_or(30);
    let emulator = read(&EMULATOR_LOGGER, "iikocloud.emulator").unwrap_or(30);
    // Level 0 (NOTSET all the way up) means "everything" in Python.
    let threshold = core.min(emulator).max(1);
    THRESHOLD.store(threshold, Ordering::Relaxed);
    if INSTALLED.load(Ordering::Relaxed) {
        log::set_max_level(match threshold {
            0..=5 => log::LevelFilter::Trace,
            6..=10 => log::LevelFilter::Debug,
            11..=20 => log::LevelFilter::Info,
            21..=30 => log::LevelFilter::Warn,
            31..=40 => log::LevelFilter::Error,
            _ => log::LevelFilter::Off,
        });
    }
}

struct Bridge;

impl Bridge {
    fn route(target: &str) -> Option<bool> {
        if target == "iikocloud_emulator" || target.starts_with("iikocloud_emulator::") {
            Some(true)
        } else if target == "iikocloud" || target.starts_with("iikocloud::") {
            Some(false)
        } else {
            None
        }
    }
}

impl log::Log for Bridge {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        Bridge::route(metadata.target()).is_some()
            && python_level(metadata.level()) >= THRESHOLD.load(Ordering::Relaxed)
    }

    fn log(&self, record: &log::Record<'_>) {
        let Some(emulator) = Bridge::route(record.target()) else {
            return;
        };
        if python_level(record.level()) < THRESHOLD.load(Ordering::Relaxed) {
            return;
        }
        let message = record.args().to_string();
        let level = python_level(record.level());
        // try_attach: during interpreter shutdown the record is dropped
        // instead of panicking in a background thread.
        let _ = Python::try_attach(|py| {
            let (cell, name) = if emulator {
                (&EMULATOR_LOGGER, "iikocloud.emulator")
            } else {
                (&CORE_LOGGER, "iikocloud")
            };
            // "%s" so that a '%' in the message is never read as a format.
            if let Err(e) =
                logger(py, cell, name).and_then(|l| l.call_method1("log", (level, "%s", message)))
            {
                e.write_unraisable(py, None);
            }
        });
    }

    fn flush(&self) {}
}

static BRIDGE: Bridge = Bridge;

/// Installs the bridge as the process's `log` logger. If another logger is
/// already installed (an embedding application's), it is left alone.
pub fn install(py: Python<'_>) {
    if log::set_logger(&BRIDGE).is_ok() {
        INSTALLED.store(true, Ordering::Relaxed);
    }
    refresh(py);
}

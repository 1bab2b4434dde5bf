//! Following a command to its end with `commands/status`.

use std::time::{Duration, Instant};

use super::models::commands::{GetCommandStatusRequest, GetCommandStatusResponse};
use crate::error::{CommandError, CommandErrorKind};
use crate::telemetry::WaitTrace;
use crate::{Client, Error, Result};

// Defined with the limits they bound (which the core reads without the
// operations feature), and named here as before.
pub use crate::limits::{
    DEFAULT_FIRST_PAUSE, DEFAULT_MAX_PAUSE, DEFAULT_WAIT_TIMEOUT, MAX_WAIT_TIMEOUT, PAUSE_GROWTH,
};

/// How [`Client::wait_command`] polls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaitOptions {
    /// Give up after this long (default 60 s).
    pub timeout: Duration,
    /// Pause before the second poll (default 250 ms); each pause is
    /// [`PAUSE_GROWTH`] times the one before, up to `max_pause`.
    pub first_pause: Duration,
    /// Longest pause between polls (default 5 s).
    pub max_pause: Duration,
}

impl Default for WaitOptions {
    fn default() -> Self {
        WaitOptions {
            timeout: DEFAULT_WAIT_TIMEOUT,
            first_pause: DEFAULT_FIRST_PAUSE,
            max_pause: DEFAULT_MAX_PAUSE,
        }
    }
}

impl Client {
    /// Polls `commands/status` for a command's `correlation_id` until it
    /// succeeds, fails or `options.timeout` passes.
    ///
    /// A failed command is [`Error::Command`] with
    /// [`CommandErrorKind::Failed`] and the service's reason; running out of
    /// time is [`CommandErrorKind::TimedOut`] (the command may still finish:
    /// look the order up by its id before creating it again); a
    /// `correlationId` the service no longer knows (HTTP 410) is
    /// [`CommandErrorKind::Expired`].
    pub fn wait_command(
        &self,
        organization_id: &str,
        correlation_id: &str,
        options: &WaitOptions,
    ) -> Result<()> {
        let mut trace = WaitTrace::start(organization_id, correlation_id);
        let span = trace.span().clone();
        let result =
            span.in_scope(|| self.wait_polls(organization_id, correlation_id, options, &mut trace));
        match &result {
            Ok(()) => trace.finish("Success", None, None),
            Err(e @ Error::Command(c)) => {
                let outcome = match c.kind {
                    CommandErrorKind::Failed => "Error",
                    CommandErrorKind::TimedOut => "TimedOut",
                    CommandErrorKind::Expired => "Expired",
                };
                trace.finish(outcome, c.reason.as_deref(), Some(e))
            }
            Err(e) => trace.finish("Failed", None, Some(e)),
        }
        result
    }

    fn wait_polls(
        &self,
        organization_id: &str,
        correlation_id: &str,
        options: &WaitOptions,
        trace: &mut WaitTrace,
    ) -> Result<()> {
        let started = Instant::now();
        let deadline = started + options.timeout;
        let mut pause = options.first_pause.max(Duration::from_millis(10));
        let request = GetCommandStatusRequest {
            organization_id: Some(organization_id.to_string()),
            correlation_id: Some(correlation_id.to_string()),
            ..Default::default()
        };
        let command_error = |kind, reason: Option<String>, exception| {
            Error::Command(Box::new(CommandError {
                kind,
                correlation_id: correlation_id.to_string(),
                reason,
                exception,
                waited: started.elapsed(),
            }))
        };
        loop {
            trace.polled();
            match self.api().commands().status(&request) {
                Ok(GetCommandStatusResponse::Success(_)) => return Ok(()),
                Ok(GetCommandStatusResponse::Error(e)) => {
                    return Err(command_error(
                        CommandErrorKind::Failed,
                        e.error_reason,
                        e.exception,
                    ))
                }
                // InProgress, or a state this version does not know: keep waiting.
                Ok(_) => {}
                Err(e) if e.http_status() == Some(410) => {
                    return Err(command_error(CommandErrorKind::Expired, None, None))
                }
                Err(e) => return Err(e),
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(command_error(CommandErrorKind::TimedOut, None, None));
            }
            std::thread::sleep(pause.min(deadline - now));
            pause = (pause.mul_f64(PAUSE_GROWTH)).min(options.max_pause.max(pause));
        }
    }
}

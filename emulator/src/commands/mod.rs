//! Commands: what a command does when it finishes, the table of commands by
//! `correlationId`, and `commands/status`. Each command finishes a moment
//! after it is answered (as on a real terminal), on a thread of its own.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::dictionaries::CreationFailure;
use crate::reply::Reply;
use crate::state::Shared;
use crate::util::lock;

pub(crate) mod registry;

use registry::Command;
pub(crate) use registry::StopListChange;

/// How long a command stays `InProgress`.
pub(crate) const COMMAND_DELAY: Duration = Duration::from_millis(150);

/// A command's work, run when it finishes; `Err` is its failure reason.
pub(crate) type Apply = Box<dyn FnOnce(&Shared) -> Result<(), String> + Send>;

/// What a command does when it finishes.
pub(crate) enum Effect {
    /// Nothing beyond `Success`.
    None,
    /// A delivery order created; it fails when it names a product, size,
    /// modifier, payment or order type outside the organization's dictionaries.
    CreateDelivery {
        order_id: String,
        failure: Option<CreationFailure>,
    },
    /// A delivery order moves to a status.
    DeliveryStatus { order_id: String, status: String },
    /// Stop-list positions added, removed or cleared on a terminal group.
    StopList {
        terminal_group_id: String,
        change: StopListChange,
    },
    /// Anything else, done by a closure (table orders, reserves).
    Apply(Apply),
}

/// Registers a command answered with `cid` and finishes it after
/// [`COMMAND_DELAY`] on a thread of its own.
pub(crate) fn start(shared: &Arc<Shared>, org: &str, cid: &str, effect: Effect) {
    lock(&shared.commands).by_id.insert(
        cid.to_string(),
        Command {
            organization_id: org.to_ascii_lowercase(),
            finished: None,
        },
    );
    let (shared, cid, org) = (Arc::clone(shared), cid.to_string(), org.to_string());
    let spawned = std::thread::Builder::new()
        .name("emu-command".into())
        .spawn(move || {
            std::thread::sleep(COMMAND_DELAY);
            let outcome = finish(&shared, &org, effect);
            if let Some(c) = lock(&shared.commands).by_id.get_mut(&cid) {
                c.finished = Some(outcome);
            }
        });
    if let Err(e) = spawned {
        log::warn!("cannot start a command thread: {e}");
    }
}

fn finish(shared: &Shared, org: &str, effect: Effect) -> Result<(), String> {
    match effect {
        Effect::None => Ok(()),
        Effect::CreateDelivery { order_id, failure } => {
            shared.finish_delivery_creation(&order_id, failure.as_ref());
            match failure {
                Some(f) => Err(f.code.into()),
                None => Ok(()),
            }
        }
        Effect::DeliveryStatus { order_id, status } => shared
            .set_delivery_status(&order_id, &status)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Effect::StopList {
            terminal_group_id,
            change,
        } => shared
            .apply_stop_list_change(org, &terminal_group_id, change)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Effect::Apply(apply) => apply(shared),
    }
}

/// The `commands/status` answer for a command of this organization.
pub(crate) fn status(shared: &Shared, body: &Map<String, Value>, cid: &str) -> Reply {
    let asked = text(body, "correlationId").to_ascii_lowercase();
    let org = text(body, "organizationId").to_ascii_lowercase();
    let commands = lock(&shared.commands);
    let Some(c) = commands
        .by_id
        .get(&asked)
        .filter(|c| c.organization_id == org)
    else {
        return Reply::error(
            410,
            "CORRELATION_ID_NOT_FOUND",
            format!("No command {asked} for this organization (unknown or expired)"),
            cid,
        );
    };
    match &c.finished {
        None => Reply::json(200, json!({"state": "InProgress"})),
        Some(Ok(())) => Reply::json(200, json!({"state": "Success"})),
        Some(Err(code)) => Reply::json(
            200,
            json!({"state": "Error", "exception": null, "errorReason": code}),
        ),
    }
}

fn text<'a>(body: &'a Map<String, Value>, key: &str) -> &'a str {
    body.get(key).and_then(Value::as_str).unwrap_or_default()
}

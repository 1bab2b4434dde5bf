//! `NativeEvent`, the native part of each parsed webhook event (the base
//! class of the Python event classes), and what the readers take from it.
//! Its Python methods are in `webhook.rs`; the readers (`readers.rs`) use it
//! without reaching into the webhook functions, which use the readers.

use iikocloud::webhook::Event;
use pyo3::prelude::*;

/// One parsed event. Read-only; shared freely between threads. The base
/// class of `iikocloud.webhooks.Event`: each event is one object, this
/// value and the Python class's slots (`webhook::wrap_event`). Its getters
/// have private names (`_event_type`): the Python classes' properties are
/// the public ones.
#[pyclass(frozen, subclass, module = "iikocloud._native")]
pub struct NativeEvent {
    pub(crate) event: Event,
}

impl NativeEvent {
    /// The event's JSON, for the model reader (`readers::load_model`).
    pub(crate) fn raw_json_text(&self) -> &str {
        self.event.raw_json()
    }

    /// The event's member `member` (or the whole event) as plain Python
    /// values (`readers::load_plain`), read from where the parse found
    /// `eventInfo` when that is the member asked for.
    pub(crate) fn plain<'py>(
        &self,
        py: Python<'py>,
        member: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::models::plain_member(
            py,
            self.event.raw_json(),
            self.event.event_info_json(),
            self.event.event_info_absent() == Some(true),
            member,
        )
    }

    /// The JSON text of the `eventInfo` object of a readable event, when the
    /// parse noted where it lies: the model reader starts there instead of
    /// looking for it among the envelope's members.
    pub(crate) fn event_info_object_text(&self) -> Option<&str> {
        if self.event.problem().is_some() {
            return None;
        }
        self.event
            .event_info_json()
            .filter(|info| info.starts_with('{'))
    }
}

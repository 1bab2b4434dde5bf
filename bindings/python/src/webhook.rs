//! Webhook parsing, verification, de-duplication and ordering for
//! `iikocloud.webhooks`.
//!
//! Parsing is lazy on the Python side: `parse` builds the core's typed events
//! in Rust (without the GIL for large bodies) and hands Python one object
//! per event: an instance of the event's `iikocloud.webhooks` class, which
//! subclasses `NativeEvent`; attributes are converted only when read. That
//! keeps a webhook parse near `json.loads` of the same body.

use iikocloud::limits::{
    DEDUP_CAPACITY, DEDUP_MAX_AGE, ORDERING_CAPACITY, ORDERING_STORE_TTL, WEBHOOK_MAX_BODY_BYTES,
    WEBHOOK_MAX_DEPTH,
};
use iikocloud::webhook::{
    parse_body_with, status_for_parse, status_for_verify, verify_authorization, Deduplicator,
    Event, EventKind, OrderingDecision, OrderingGuard, ParseError, ParseOptions, ParsedBody,
    Verifier, VerifyError, STATUS_ACCEPTED,
};
use pyo3::exceptions::{PyArithmeticError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyAny, PyBytes, PyList, PyString, PyTuple, PyType};

use crate::convert::decimal;
use crate::errors::{guard, invalid_input, simple, Class};
use crate::models::ModelRef;
use crate::native_event::NativeEvent;
use crate::objects::{datetime_parts, DateTimes, SubclassMaker};
use std::sync::Arc;

/// `(employee id, role id, opened, terminal group id)`.
type ShiftParts = (Option<String>, Option<String>, Option<bool>, Option<String>);

fn verification_error(py: Python<'_>, e: VerifyError) -> PyErr {
    let err = simple(py, Class::WebhookVerification, &e.to_string());
    let value = err.value(py);
    let _ = value.setattr("reason", e.as_str());
    // The status to answer is the core's rule, not this binding's.
    let _ = value.setattr("status", status_for_verify(e));
    err
}

fn parse_error(py: Python<'_>, e: &ParseError) -> PyErr {
    let err = simple(py, Class::WebhookParse, &e.to_string());
    let _ = err.value(py).setattr("reason", e.kind().as_str());
    let _ = err.value(py).setattr("status", status_for_parse(e.kind()));
    err
}

/// The body as bytes: `bytes`, `bytearray`, `memoryview` or `str` (UTF-8).
pub(crate) fn body_bytes(body: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = body.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(s) = body.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned().into_bytes());
    }
    body.extract::<Vec<u8>>().map_err(|_| {
        invalid_input(
            body.py(),
            "the webhook body must be bytes or str (the raw request body)",
        )
    })
}

/// Bodies up to this size are parsed without releasing the GIL: they take
/// a few microseconds, less than handing the GIL over and taking it back
/// (about half of a 351-byte body's parse was that hand-over). Larger ones
/// release it so other threads run meanwhile.
const PARSE_WITH_GIL_BYTES: usize = 16 * 1024;

fn parse_with(py: Python<'_>, bytes: &[u8], opts: &ParseOptions) -> Result<ParsedBody, ParseError> {
    if bytes.len() <= PARSE_WITH_GIL_BYTES {
        parse_body_with(bytes, opts)
    } else {
        py.detach(|| parse_body_with(bytes, opts))
    }
}

/// The parse options, each limit as the core reads it (`webhook.*`).
fn options(
    py: Python<'_>,
    max_body_bytes: Option<i128>,
    max_depth: Option<i128>,
    accept_single_object: bool,
) -> PyResult<ParseOptions> {
    let read = |limit, value: Option<i128>| {
        crate::limits::whole(py, limit, value)
            .map(|v| usize::try_from(v.unwrap_or_default()).unwrap_or(usize::MAX))
    };
    // A limit not given is its default, which `ParseOptions::new` holds (the
    // limit's default is the same constant of the core): nothing to read.
    let mut opts = ParseOptions::new().with_accept_single_object(accept_single_object);
    if max_body_bytes.is_some() {
        opts = opts.with_max_body_bytes(read(&WEBHOOK_MAX_BODY_BYTES, max_body_bytes)?);
    }
    if max_depth.is_some() {
        opts = opts.with_max_depth(read(&WEBHOOK_MAX_DEPTH, max_depth)?);
    }
    Ok(opts)
}

/// The classes `iikocloud.webhooks` hands events out as, which it registers
/// at import (`set_event_classes`).
#[pyclass(frozen)]
struct EventClasses {
    /// For events that could not be read.
    invalid: SubclassMaker<NativeEvent, { EVENT_SLOTS.len() }>,
    /// By kind code.
    by_kind: Vec<SubclassMaker<NativeEvent, { EVENT_SLOTS.len() }>>,
    /// `webhooks._MISSING`: what the slots `Event` fills on first use hold
    /// until then.
    missing: Py<PyAny>,
    /// By kind code: the name of the model of its `eventInfo` (`None`: read
    /// plain), and the model, looked up on first use (not at import: that
    /// would import every generated model).
    models: Vec<(Option<String>, PyOnceLock<Arc<ModelRef>>)>,
}

impl EventClasses {
    /// The maker of the class an event is handed out as: the one for events
    /// that could not be read, or the one of its kind.
    fn maker_of(
        &self,
        event: &Event,
    ) -> Option<&SubclassMaker<NativeEvent, { EVENT_SLOTS.len() }>> {
        if event.problem().is_some() {
            Some(&self.invalid)
        } else {
            self.by_kind.get(event.kind().code() as usize)
        }
    }

    /// The `eventInfo` model of events of kind `code`; `None` for a kind
    /// read plain.
    fn model(&self, py: Python<'_>, code: usize) -> PyResult<Option<&Arc<ModelRef>>> {
        let Some((Some(name), model)) = self.models.get(code) else {
            return Ok(None);
        };
        model
            .get_or_try_init(py, || {
                let cls = py
                    .import("iikocloud._model")?
                    .getattr("model_class")?
                    .call1((name.as_str(),))?
                    .cast_into::<PyType>()?;
                Ok::<_, PyErr>(crate::models::model_ref(&cls))
            })
            .map(Some)
    }
}

/// The slots of `webhooks.Event` (a subclass of `NativeEvent`) a new event
/// gets, in this order.
const EVENT_SLOTS: [&str; 2] = ["_info", "_typed"];
/// Where in `EVENT_SLOTS` the plain `eventInfo` is kept.
const INFO_SLOT: usize = 0;
/// Where in `EVENT_SLOTS` the typed `eventInfo` is kept.
const TYPED_SLOT: usize = 1;

/// The registered classes: a list holding one `EventClasses`, replaced when
/// the module is reloaded (a value set once could not be).
static EVENT_CLASSES: PyOnceLock<Py<PyList>> = PyOnceLock::new();

fn class_list(py: Python<'_>) -> &Py<PyList> {
    EVENT_CLASSES.get_or_init(py, || PyList::empty(py).unbind())
}

/// Registers the event classes: `invalid` for events that could not be read,
/// `by_kind[code]` for the others; `missing` is the value of a slot not read
/// yet; `models[code]` names the `eventInfo` model of kind `code` (`None`:
/// read plain), for `NativeEvent.typed_event_info`.
#[pyfunction]
pub fn set_event_classes(
    py: Python<'_>,
    invalid: Bound<'_, PyType>,
    by_kind: Vec<Bound<'_, PyType>>,
    missing: Py<PyAny>,
    models: Vec<Option<String>>,
) -> PyResult<()> {
    for (what, count) in [("class", by_kind.len()), ("model name", models.len())] {
        if count != EventKind::ALL.len() {
            return Err(invalid_input(
                py,
                &format!(
                    "set_event_classes needs one {what} per event kind ({}), got {count}",
                    EventKind::ALL.len(),
                ),
            ));
        }
    }
    let classes = EventClasses {
        invalid: SubclassMaker::new(&invalid, &EVENT_SLOTS)?,
        by_kind: by_kind
            .iter()
            .map(|class| SubclassMaker::new(class, &EVENT_SLOTS))
            .collect::<PyResult<_>>()?,
        missing,
        models: models
            .into_iter()
            .map(|name| (name, PyOnceLock::new()))
            .collect(),
    };
    let list = class_list(py).bind(py);
    let classes = PyList::new(py, [Bound::new(py, classes)?])?;
    list.set_slice(0, usize::MAX, &classes)
}

/// The registered classes, importing `iikocloud.webhooks` (which registers
/// them) on first use from elsewhere.
fn event_classes(py: Python<'_>) -> PyResult<Bound<'_, EventClasses>> {
    let list = class_list(py).bind(py);
    if list.is_empty() {
        py.import("iikocloud.webhooks")?;
    }
    match list.get_item(0) {
        Ok(classes) => Ok(classes.cast_into::<EventClasses>()?),
        Err(_) => Err(simple(
            py,
            Class::Iiko,
            "iikocloud.webhooks did not register its event classes",
        )),
    }
}

/// One event as an instance of its `iikocloud.webhooks` class (a subclass of
/// `NativeEvent`), its slots written directly: for a sub-kilobyte body,
/// wrapping each event in Python cost a third of the whole parse.
fn wrap_event<'py>(
    classes: &Bound<'py, EventClasses>,
    event: Event,
) -> PyResult<Bound<'py, PyAny>> {
    let py = classes.py();
    let classes = classes.get();
    let maker = classes
        .maker_of(&event)
        .ok_or_else(|| simple(py, Class::Iiko, "no class for this event kind"))?;
    // An event the parse saw without eventInfo reads as None in both readers
    // (typed and plain): its slots hold that already, so the first
    // event_info is a slot read instead of a call into a reader.
    let unread = if event.event_info_absent() == Some(true) {
        py.None().into_bound(py)
    } else {
        classes.missing.bind(py).clone()
    };
    maker.make(py, NativeEvent { event }.into(), [unread.clone(), unread])
}

/// The value a read of `event` kept in its slot `index`, or else `read`'s,
/// then kept there. Only an event of the class it was made as has its slots
/// known (`SubclassMaker::slot_value`): any other one is read each time.
fn kept_or_read<'py>(
    event: &Bound<'py, NativeEvent>,
    index: usize,
    read: impl FnOnce(&EventClasses) -> PyResult<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = event.py();
    guard(py, || {
        let classes = event_classes(py)?;
        let classes = classes.get();
        let maker = classes.maker_of(&event.get().event);
        let kept = maker.and_then(|m| m.slot_value(event.as_any(), index));
        // Neither empty nor `missing`, what the parse puts in slots not read yet.
        if let Some(kept) = kept.filter(|v| !v.is(classes.missing.bind(py))) {
            return Ok(kept);
        }
        let value = read(classes)?;
        if let Some(maker) = maker {
            maker.set_slot(event.as_any(), index, value.clone());
        }
        Ok(value)
    })
}

fn wrap_events<'py>(py: Python<'py>, events: Vec<Event>) -> PyResult<Bound<'py, PyList>> {
    let classes = event_classes(py)?;
    // Made at its length and filled in place (no list of the wrapped events
    // in between, no growth by appending).
    PyList::new(py, events.into_iter().map(|event| Wrapped(&classes, event)))
}

/// An event to hand out as an instance of its class, for `PyList::new`
/// (which stops at the first error, as `wrap_event` can make).
struct Wrapped<'a, 'py>(&'a Bound<'py, EventClasses>, Event);

impl<'py> IntoPyObject<'py> for Wrapped<'_, 'py> {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, _py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        wrap_event(self.0, self.1)
    }
}

/// Parses a webhook body (the raw request bytes, or text) into events.
///
/// Raises :class:`WebhookParseError` (its ``reason``: ``too_large``,
/// ``invalid_utf8``, ``too_deep``, ``invalid_json``, ``not_an_array``) when
/// the body as a whole cannot be read. ``max_body_bytes`` (default 16 MiB)
/// and ``max_depth`` (default 64 levels; a larger one is lowered to 128
/// levels) are read by the core: 0 and negative values raise
/// :class:`InvalidInputError`. A single object instead of the array
/// (off-spec) is read as one event unless ``accept_single_object=False``.
/// Does not verify anything: use :func:`receive` for requests.
///
/// `iikocloud.webhooks.parse` is this function (no Python frame in between).
#[pyfunction]
#[pyo3(name = "parse", signature = (body, *, max_body_bytes=None, max_depth=None, accept_single_object=true))]
pub fn parse_body<'py>(
    py: Python<'py>,
    body: &Bound<'py, PyAny>,
    max_body_bytes: Option<i128>,
    max_depth: Option<i128>,
    accept_single_object: bool,
) -> PyResult<Bound<'py, PyList>> {
    guard(py, || {
        let opts = options(py, max_body_bytes, max_depth, accept_single_object)?;
        let parsed = if let Ok(b) = body.cast::<PyBytes>() {
            // Borrow the bytes while detached: a bytes object is immutable.
            parse_with(py, b.as_bytes(), &opts)
        } else {
            parse_with(py, &body_bytes(body)?, &opts)
        };
        match parsed {
            Ok(p) => wrap_events(py, p.events),
            Err(e) => Err(parse_error(py, &e)),
        }
    })
}

/// Parses one event's JSON, e.g. a stored :attr:`Event.raw_json`. Never
/// raises: unreadable input gives an :class:`InvalidEvent`.
///
/// `iikocloud.webhooks.parse_event` is this function.
#[pyfunction]
pub fn parse_event<'py>(py: Python<'py>, json: &str) -> PyResult<Bound<'py, PyAny>> {
    guard(py, || {
        let classes = event_classes(py)?;
        wrap_event(&classes, iikocloud::webhook::parse_event(json))
    })
}

/// Checks an `Authorization` header value (`None` when absent) against the
/// expected token in constant time. Raises `WebhookVerificationError`.
#[pyfunction]
pub fn verify(
    py: Python<'_>,
    authorization: Option<&Bound<'_, PyAny>>,
    token: &str,
) -> PyResult<()> {
    guard(py, || {
        let value = match authorization {
            Some(a) if !a.is_none() => Some(
                body_bytes(a)
                    .map_err(|_| invalid_input(py, "authorization must be str, bytes or None"))?,
            ),
            _ => None,
        };
        verify_authorization(value.as_deref(), token).map_err(|e| verification_error(py, e))
    })
}

/// Finds the single `Authorization` value among `(name, value)` pairs (case
/// insensitive) and verifies it, by the core's rules and in their order.
/// Raises `WebhookVerificationError`.
#[pyfunction]
pub fn verify_headers(py: Python<'_>, headers: &Bound<'_, PyAny>, token: &str) -> PyResult<()> {
    guard(py, || {
        let pairs = header_pairs(headers)?;
        Verifier::new(token)
            .verify_headers(pairs.iter().map(|(n, v)| (n.as_bytes(), v.as_slice())))
            .map_err(|e| verification_error(py, e))
    })
}

/// Headers as `(name, value)` pairs from a mapping (its `items()`, which for
/// Flask, Starlette and Django headers yields repeated headers too) or an
/// iterable of pairs.
pub(crate) fn header_pairs(headers: &Bound<'_, PyAny>) -> PyResult<Vec<(String, Vec<u8>)>> {
    let py = headers.py();
    let bad = || invalid_input(py, "headers must be a mapping or (name, value) pairs");
    let iterable = if headers.hasattr("items")? {
        headers.call_method0("items")?
    } else {
        headers.clone()
    };
    let mut out = Vec::new();
    for item in iterable.try_iter().map_err(|_| bad())? {
        let item = item?;
        let pair = item.cast::<PyTuple>().map_err(|_| bad())?;
        if pair.len() != 2 {
            return Err(bad());
        }
        let name = pair.get_item(0)?;
        let name = match name.cast::<PyBytes>() {
            Ok(b) => String::from_utf8_lossy(b.as_bytes()).into_owned(),
            Err(_) => name.str()?.to_cow()?.into_owned(),
        };
        let value = body_bytes(&pair.get_item(1)?).map_err(|_| bad())?;
        out.push((name, value));
    }
    Ok(out)
}

/// Verifies, then parses. Returns `(status, events, error)`: the HTTP status
/// to answer, the events (empty unless verified and readable) and the
/// exception describing a failure (not raised).
#[pyfunction]
#[pyo3(signature = (headers, body, token, *, max_body_bytes=None, max_depth=None,
    accept_single_object=true))]
#[allow(clippy::too_many_arguments)]
pub fn receive<'py>(
    py: Python<'py>,
    headers: &Bound<'py, PyAny>,
    body: &Bound<'py, PyAny>,
    token: &str,
    max_body_bytes: Option<i128>,
    max_depth: Option<i128>,
    accept_single_object: bool,
) -> PyResult<(u16, Bound<'py, PyList>, Option<Py<PyAny>>)> {
    guard(py, || {
        let opts = options(py, max_body_bytes, max_depth, accept_single_object)?;
        let failure = |err: PyErr, status: u16| -> PyResult<_> {
            Ok((
                status,
                PyList::empty(py),
                Some(err.into_value(py).into_any()),
            ))
        };
        // Every status below is the core's receive rule (webhook::status).
        let pairs = header_pairs(headers)?;
        let verified = Verifier::new(token)
            .verify_headers(pairs.iter().map(|(n, v)| (n.as_bytes(), v.as_slice())));
        if let Err(e) = verified {
            return failure(verification_error(py, e), status_for_verify(e));
        }
        let bytes = body_bytes(body)?;
        match parse_with(py, &bytes, &opts) {
            Ok(p) => Ok((STATUS_ACCEPTED, wrap_events(py, p.events)?, None)),
            Err(e) => failure(parse_error(py, &e), status_for_parse(e.kind())),
        }
    })
}

fn opt_decimal<'py>(
    py: Python<'py>,
    m: Option<iikocloud::Money>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    m.map(|m| decimal(py, &m.to_string())).transpose()
}

#[pymethods]
impl NativeEvent {
    #[getter(_event_type)]
    fn event_type(&self) -> Option<&str> {
        self.event.event_type()
    }
    #[getter(_event_time_raw)]
    fn event_time_raw(&self) -> Option<&str> {
        self.event.event_time().map(|t| t.raw.as_str())
    }
    /// ``eventTime`` as an aware UTC datetime (None if absent or unreadable;
    /// the text is in :attr:`event_time_raw`).
    //
    // `Event.event_time` is this getter itself (webhooks.py): the datetime
    // made through the `datetime` module's C table, where a Python property
    // that called `datetime(*parts, tzinfo=utc)` cost 0.34 µs a read.
    #[getter(_event_time)]
    fn event_time<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(t) = self.event.event_time().and_then(|t| t.utc) else {
            return Ok(None);
        };
        let parts = datetime_parts(&t)
            .ok_or_else(|| PyValueError::new_err("eventTime is past what datetime holds"))?;
        DateTimes::get(py)?.utc(py, parts).map(Some)
    }
    #[getter(_organization_id)]
    fn organization_id(&self) -> Option<&str> {
        self.event.organization_id()
    }
    #[getter(_correlation_id)]
    fn correlation_id(&self) -> Option<&str> {
        self.event.correlation_id()
    }
    #[getter(_raw_json)]
    fn raw_json(&self) -> &str {
        self.event.raw_json()
    }
    #[getter(_problem)]
    fn problem(&self) -> Option<&str> {
        self.event.problem()
    }
    #[getter(_entity_id)]
    fn entity_id(&self) -> Option<&str> {
        self.event.entity_id()
    }
    #[getter(_timestamp)]
    fn timestamp(&self) -> Option<i64> {
        self.event.timestamp()
    }
    #[getter(_creation_status)]
    fn creation_status(&self) -> Option<&str> {
        self.event.creation_status().map(|s| s.as_str())
    }
    #[getter(_error_code)]
    fn error_code(&self) -> Option<&str> {
        self.event.error_code()
    }
    #[getter(_error_message)]
    fn error_message(&self) -> Option<&str> {
        self.event.error_message()
    }
    #[getter(_status)]
    fn status(&self) -> Option<&str> {
        self.event.status()
    }
    #[getter(_order_number)]
    fn order_number(&self) -> Option<i64> {
        self.event.order_number()
    }
    #[getter(_sum)]
    fn sum<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        opt_decimal(py, self.event.sum())
    }
    #[getter(_phone)]
    fn phone(&self) -> Option<&str> {
        self.event.phone()
    }
    #[getter(_is_new_delivery_order)]
    fn is_new_delivery_order(&self) -> bool {
        self.event.is_new_delivery_order()
    }
    #[getter(_dedup_key)]
    fn dedup_key(&self) -> String {
        self.event.dedup_key().as_str().to_owned()
    }
    #[getter(_external_number)]
    fn external_number(&self) -> Option<&str> {
        self.event.external_number()
    }
    #[getter(_pos_id)]
    fn pos_id(&self) -> Option<&str> {
        self.event.pos_id()
    }
    #[getter(_reserve_is_deleted)]
    fn reserve_is_deleted(&self) -> Option<bool> {
        self.event.reserve_is_deleted()
    }
    /// `[(terminal group id, is_full)]` of a `StopListUpdate`.
    #[getter(_stop_list_updates)]
    fn stop_list_updates(&self) -> Vec<(Option<String>, Option<bool>)> {
        self.event
            .stop_list()
            .map(|s| {
                s.terminal_groups_stop_lists_updates
                    .iter()
                    .flatten()
                    .map(|u| (u.id.clone(), u.is_full))
                    .collect()
            })
            .unwrap_or_default()
    }
    /// `(employee id, role id, opened, terminal group id)` of a `PersonalShift`.
    #[getter(_personal_shift)]
    fn personal_shift(&self) -> Option<ShiftParts> {
        self.event.personal_shift().map(|s| {
            (
                s.id.clone(),
                s.role_id.clone(),
                s.opened,
                s.terminal_group_id.clone(),
            )
        })
    }
    /// The ``eventInfo`` as sent (a dict, None when absent, or the value of
    /// another type an unreadable event carries), fractional numbers as
    /// ``Decimal``. Read on first access and kept.
    #[getter(_raw_event_info)]
    fn raw_event_info<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        // `raw_event_info`, and the `event_info` of unknown and unreadable
        // events, which is this getter itself (no Python frame): the native
        // plain reading, or the reference reading (`_reference_info`) of what
        // the native reader leaves to `json.loads` (NaN, nesting past its
        // limit) or cannot make (an integer past Python's digits limit, a
        // `Decimal` exponent past its own), which then raises the error a
        // receiver answers; the first read is kept in the event's `_info` slot.
        kept_or_read(slf, INFO_SLOT, |_| {
            let py = slf.py();
            let event = slf.get();
            match event.plain(py, Some("eventInfo")) {
                Ok(info) => Ok(info),
                Err(refused)
                    if refused.is_instance_of::<PyValueError>(py)
                        || refused.is_instance_of::<PyArithmeticError>(py) =>
                {
                    py.import("iikocloud.webhooks")?
                        .getattr("_reference_info")?
                        .call1((event.raw_json_text(),))
                }
                Err(other) => Err(other),
            }
        })
    }
    /// The ``eventInfo`` as the generated model of this event type (see
    /// :mod:`iikocloud.api_models`), fractional numbers as ``Decimal``;
    /// None when absent or not an object. Read on first access and kept.
    //
    // The typed classes' `event_info` is this getter itself (webhooks.py).
    // It knows the model: what `load_model(cls, event, "eventInfo")` does
    // without the call's arguments to unpack and the model to look up by
    // class; `ValueError` for a kind read plain. The first read is kept in
    // the event's `_typed` slot and handed out again.
    #[getter(_typed_event_info)]
    fn typed_event_info<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        kept_or_read(slf, TYPED_SLOT, |classes| {
            let py = slf.py();
            let kind = slf.get().event.kind();
            let Some(model) = classes.model(py, kind.code() as usize)? else {
                return Err(invalid_input(
                    py,
                    &format!(
                        "{} events have no eventInfo model: read raw_event_info",
                        kind.as_str()
                    ),
                ));
            };
            crate::readers::read_model(model, slf.as_any(), Some("eventInfo"), true)
        })
    }
}

/// Names of the event kinds by code, for the Python class table.
#[pyfunction]
pub fn event_kinds() -> Vec<(u32, &'static str)> {
    EventKind::ALL
        .iter()
        .map(|k| (k.code(), k.as_str()))
        .collect()
}

/// Runs `f` without the GIL when it may wait on a shared store (a file lock,
/// the network); the in-memory guards take a hash-map step, cheaper than
/// releasing and taking the GIL back, so they keep it.
fn off_gil<T: Send>(py: Python<'_>, shared: bool, f: impl FnOnce() -> T + Send) -> T {
    if shared {
        py.detach(f)
    } else {
        f()
    }
}

/// Opens the store a URL names, without holding the GIL (it may connect).
fn open_store(py: Python<'_>, url: &str) -> PyResult<iikocloud::store::Store> {
    py.detach(|| iikocloud::store::Store::open(url))
        .map_err(|e| crate::errors::store_error(py, &e))
}

/// What the de-duplicator and the ordering guard share: the core object, and
/// whether it lives in a store (a file or a server), in which case calls leave
/// the GIL.
struct Remembering<T> {
    inner: T,
    shared: bool,
}

impl<T: Sync> Remembering<T> {
    /// Builds the core object in memory, or over the store `store` names
    /// (opened without the GIL).
    fn open(
        py: Python<'_>,
        store: Option<String>,
        in_memory: impl FnOnce() -> T,
        with_store: impl FnOnce(iikocloud::store::Store) -> T,
    ) -> PyResult<Self> {
        let shared = store.is_some();
        let inner = match store {
            None => in_memory(),
            Some(url) => with_store(open_store(py, &url)?),
        };
        Ok(Remembering { inner, shared })
    }

    /// One call on the core object, behind the panic guard and off the GIL
    /// when it may wait on the store.
    fn call<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&T) -> R + Send) -> PyResult<R> {
        guard(py, || Ok(off_gil(py, self.shared, || f(&self.inner))))
    }
}

/// Drops repeated deliveries; see `iikocloud.webhooks.Deduplicator`.
///
/// Its lock is held only for a hash-map step and never around Python or
/// logging, so it is used with the GIL held.
#[pyclass(frozen, module = "iikocloud._native", name = "NativeDeduplicator")]
pub struct NativeDeduplicator(Remembering<Deduplicator>);

#[pymethods]
impl NativeDeduplicator {
    /// `capacity` and `max_age` as the core reads them (`dedup.*`; None is
    /// the core's default).
    #[new]
    #[pyo3(signature = (capacity=None, max_age=None, store=None))]
    fn new(
        py: Python<'_>,
        capacity: Option<i128>,
        max_age: Option<f64>,
        store: Option<String>,
    ) -> PyResult<Self> {
        let capacity = crate::limits::whole(py, &DEDUP_CAPACITY, capacity)?.unwrap_or_default();
        let capacity = usize::try_from(capacity).unwrap_or(usize::MAX);
        let max_age = crate::limits::seconds_or_default(py, &DEDUP_MAX_AGE, max_age)?;
        Remembering::open(
            py,
            store,
            || Deduplicator::new(capacity, max_age),
            |s| Deduplicator::with_store(s, max_age),
        )
        .map(NativeDeduplicator)
    }
    fn first_seen(&self, py: Python<'_>, event: PyRef<'_, NativeEvent>) -> PyResult<bool> {
        let event = &event.event;
        self.0.call(py, |d| d.first_seen(event))
    }
    fn first_new_order(&self, py: Python<'_>, event: PyRef<'_, NativeEvent>) -> PyResult<bool> {
        let event = &event.event;
        self.0.call(py, |d| d.first_new_order(event))
    }
    #[getter]
    fn store_url(&self) -> Option<String> {
        self.0.inner.store().map(|s| s.url().to_string())
    }
    fn forget(&self, py: Python<'_>, event: PyRef<'_, NativeEvent>) -> PyResult<()> {
        let event = &event.event;
        self.0.call(py, |d| d.forget(event))
    }
    fn __len__(&self) -> usize {
        self.0.inner.len()
    }
    fn clear(&self) {
        self.0.inner.clear()
    }
}

/// Flags stale order and reserve events; see `iikocloud.webhooks.OrderingGuard`.
#[pyclass(frozen, module = "iikocloud._native", name = "NativeOrderingGuard")]
pub struct NativeOrderingGuard(Remembering<OrderingGuard>);

#[pymethods]
impl NativeOrderingGuard {
    /// `capacity` and `ttl` as the core reads them (`ordering.*`; None is
    /// the core's default); `capacity` applies in memory, `ttl` in a store.
    #[new]
    #[pyo3(signature = (capacity=None, store=None, ttl=None))]
    fn new(
        py: Python<'_>,
        capacity: Option<i128>,
        store: Option<String>,
        ttl: Option<f64>,
    ) -> PyResult<Self> {
        let capacity = crate::limits::whole(py, &ORDERING_CAPACITY, capacity)?.unwrap_or_default();
        let capacity = usize::try_from(capacity).unwrap_or(usize::MAX);
        let ttl = crate::limits::seconds_or_default(py, &ORDERING_STORE_TTL, ttl)?;
        Remembering::open(
            py,
            store,
            || OrderingGuard::new(capacity),
            |s| OrderingGuard::with_store(s, ttl),
        )
        .map(NativeOrderingGuard)
    }
    /// `("apply" | "stale" | "untracked", last applied timestamp or None)`.
    fn observe(
        &self,
        py: Python<'_>,
        event: PyRef<'_, NativeEvent>,
    ) -> PyResult<(&'static str, Option<i64>)> {
        let event = &event.event;
        Ok(match self.0.call(py, |g| g.observe(event))? {
            OrderingDecision::Apply => ("apply", None),
            OrderingDecision::Stale { last_applied } => ("stale", Some(last_applied)),
            OrderingDecision::Untracked => ("untracked", None),
        })
    }
    fn is_newer(&self, py: Python<'_>, event: PyRef<'_, NativeEvent>) -> PyResult<bool> {
        let event = &event.event;
        self.0.call(py, |g| g.is_newer(event))
    }
    fn forget(&self, py: Python<'_>, event: PyRef<'_, NativeEvent>) -> PyResult<()> {
        let event = &event.event;
        self.0.call(py, |g| g.forget(event))
    }
    fn __len__(&self) -> usize {
        self.0.inner.len()
    }
    fn clear(&self) {
        self.0.inner.clear()
    }
}

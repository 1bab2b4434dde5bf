//! Where the parse leaves `eventInfo` for the plain readers of the bindings
//! (Python's `event_info` of unknown types and unreadable events): its text
//! for every event that has one, and a mark on the events that have none, on
//! the fast path and on the careful one. Without them those readers read the
//! whole event again (issue 35).

use iikocloud::webhook::{parse_body, parse_event, Event};

fn events(body: &str) -> Vec<Event> {
    parse_body(body.as_bytes()).expect("a body").events
}

/// `info`: the text every path notes; `fast_info`: the one the scanner (a
/// compact body) notes, where the careful path may leave it to the reader.
fn check(element: &str, info: Option<&str>, fast_info: Option<&str>, absent: bool) {
    let fast = events(&format!("[{element}]"));
    for event in &fast {
        if let Some(info) = info.or(fast_info) {
            assert_eq!(event.event_info_json(), Some(info), "{element}");
        }
    }
    // Spaced out and on its own, the careful path reads it too.
    let spaced = format!("[\n {element} ,\n {element} ]");
    let all = fast
        .into_iter()
        .chain(events(&spaced))
        .chain([parse_event(element)]);
    for event in all {
        if let Some(info) = info {
            assert_eq!(event.event_info_json(), Some(info), "{element}");
        }
        // Absent: said on every path. Present: said where its text is known.
        let said = if absent {
            Some(true)
        } else {
            event.event_info_json().map(|_| false)
        };
        assert_eq!(event.event_info_absent(), said, "{element}");
    }
}

#[test]
fn unknown_types_keep_the_place_of_their_event_info() {
    check(
        r#"{"eventType":"NomenclatureUpdate","eventInfo":{"price":249.9}}"#,
        Some(r#"{"price":249.9}"#),
        None,
        false,
    );
    check(
        r#"{"eventType":"KitchenOrderUpdate","eventInfo":[1,2]}"#,
        Some("[1,2]"),
        None,
        false,
    );
    check(r#"{"eventType":"NomenclatureUpdate"}"#, None, None, true);
}

#[test]
fn unreadable_events_keep_the_place_of_their_event_info_or_say_it_is_absent() {
    check(
        r#"{"eventType":"StopListUpdate","eventInfo":"terminal group list unavailable"}"#,
        None,
        Some(r#""terminal group list unavailable""#),
        false,
    );
    check(
        r#"{"eventType":"ReserveUpdate","eventInfo":12.50}"#,
        None,
        Some("12.50"),
        false,
    );
    check(r#"{"eventType":"DeliveryOrderError"}"#, None, None, true);
    // Not an object, or a repeated eventInfo: nothing is said.
    check(
        r#"{"eventType":"DeliveryOrderUpdate","eventInfo":{"a":1},"eventInfo":{"b":2}}"#,
        None,
        None,
        false,
    );
}

//! Property tests: no input makes the parser, the verifier or the receive
//! helper panic, and what they return stays consistent.

use std::str::FromStr;

use iikocloud::webhook::{
    http_status, parse_body, parse_body_with, parse_event, verify_authorization, EventKind,
    ParseOptions, Receiver, VerifyError,
};
use iikocloud::Money;
use proptest::prelude::*;
use serde_json::{json, Value};

const PAYLOADS: [&str; 14] = [
    include_str!("vectors/payloads/delivery_order_error.json"),
    include_str!("vectors/payloads/delivery_order_update.json"),
    include_str!("vectors/payloads/delivery_order_update_cancelled.json"),
    include_str!("vectors/payloads/delivery_order_update_in_progress.json"),
    include_str!("vectors/payloads/edge_empty_array.json"),
    include_str!("vectors/payloads/edge_single_object_not_array.json"),
    include_str!("vectors/payloads/multi_all_types.json"),
    include_str!("vectors/payloads/personal_shift.json"),
    include_str!("vectors/payloads/reserve_error.json"),
    include_str!("vectors/payloads/reserve_update.json"),
    include_str!("vectors/payloads/reserve_update_banquet.json"),
    include_str!("vectors/payloads/stop_list_update.json"),
    include_str!("vectors/payloads/table_order_error.json"),
    include_str!("vectors/payloads/table_order_update.json"),
];

/// Checks the invariants of a parse result.
fn check_parse(body: &[u8]) {
    let Ok(parsed) = parse_body(body) else {
        return;
    };
    let text = String::from_utf8_lossy(body);
    for event in &parsed {
        // The raw JSON is a verbatim slice of the body.
        assert!(text.contains(event.raw_json()));
        // Parsing the stored raw JSON again gives the same event.
        assert_eq!(&parse_event(event.raw_json()), event);
        assert_eq!(
            event.kind(),
            event
                .event_type()
                .map_or(EventKind::Unknown, EventKind::from_event_type)
        );
        // Accessors and keys never panic.
        let _ = (
            event.dedup_key(),
            event.is_new_delivery_order(),
            event.sum(),
            event.status(),
            event.error_message(),
            event.order_number(),
            event.phone(),
        );
    }
}

/// One edit of a valid body.
#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Truncate(usize),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    // Bytes that matter to JSON structure, and any byte.
    let byte = prop_oneof![
        prop::sample::select(b"{}[]\",:\\ 0-1.enutfl".to_vec()),
        any::<u8>()
    ];
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), byte).prop_map(|(i, b)| Mutation::Insert(i, b)),
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 1..64usize).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
    ]
}

fn apply(mut body: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        let len = body.len();
        let at = |i: usize| if len == 0 { 0 } else { i % len };
        match *m {
            Mutation::Flip(i, b) if len > 0 => body[at(i)] = b,
            Mutation::Insert(i, b) => body.insert(at(i), b),
            Mutation::Delete(i) if len > 0 => {
                body.remove(at(i));
            }
            Mutation::Truncate(i) => body.truncate(at(i)),
            Mutation::Duplicate(i, n) if len > 0 => {
                let start = at(i);
                let end = (start + n).min(len);
                let copy = body[start..end].to_vec();
                body.splice(start..start, copy);
            }
            _ => {}
        }
    }
    body
}

/// Any JSON value, a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
        prop::sample::select(vec![
            "New",
            "Unconfirmed",
            "Success",
            "2025-09-16 16:02:11.877",
            "DeliveryOrderUpdate",
            "regular",
            "Product",
        ])
        .prop_map(|s| Value::String(s.to_owned())),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "id",
                        "timestamp",
                        "order",
                        "status",
                        "sum",
                        "items",
                        "number",
                        "customer",
                        "name",
                        "type",
                        "amount",
                        "price",
                        "errorInfo",
                        "code",
                        "eventInfo",
                        "reserve",
                        "x",
                    ]),
                    inner
                ),
                0..6
            )
            .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        ]
    })
}

fn event_type() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(EventKind::ALL.to_vec()).prop_map(|k| json!(k.as_str())),
        json_value(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic(body in prop::collection::vec(any::<u8>(), 0..2048)) {
        check_parse(&body);
        let _ = parse_body_with(&body, &ParseOptions::new().with_max_depth(3).with_accept_single_object(false));
    }

    #[test]
    fn json_ish_bytes_never_panic(body in prop::collection::vec(prop::sample::select(b"{}[]\",:\\ 0-1.enutflaE\xd0\x90".to_vec()), 0..512)) {
        check_parse(&body);
    }

    #[test]
    fn mutated_payloads_never_panic(
        file in 0..PAYLOADS.len(),
        mutations in prop::collection::vec(mutation(), 1..8),
    ) {
        let body = apply(PAYLOADS[file].as_bytes().to_vec(), &mutations);
        check_parse(&body);
    }

    #[test]
    fn random_event_shapes_are_isolated(
        events in prop::collection::vec((event_type(), json_value(), any::<bool>()), 0..6),
    ) {
        // Arbitrary JSON in the envelope and eventInfo: every element becomes
        // exactly one event, and a good event after them is read intact.
        let mut array: Vec<Value> = events
            .into_iter()
            .map(|(ty, info, with_time)| {
                let mut e = json!({"eventType": ty, "eventInfo": info});
                if with_time {
                    e["eventTime"] = json!("2025-09-16 16:02:11.877");
                }
                e
            })
            .collect();
        let good: Value = serde_json::from_str(PAYLOADS[7]).expect("payload");
        array.push(good[0].clone());
        let body = serde_json::to_vec(&array).expect("serializes");
        let parsed = parse_body(&body).expect("valid JSON array parses");
        prop_assert_eq!(parsed.len(), array.len());
        let last = parsed.events.last().expect("good event");
        prop_assert_eq!(last.kind(), EventKind::PersonalShift);
        prop_assert!(last.problem().is_none());
        check_parse(&body);
    }

    #[test]
    fn sums_match_the_general_money_conversion(v in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
        // A sum is the amount its text holds, digit for digit (the one
        // rule, `Money::from_json`), and that amount is the double the text
        // means. Not `Money::from_f64` of it: serde_json's float writer and
        // Rust's `{:e}` may pick different shortest digits of one double
        // (`-866758783026730.2` and `.3`), and the text is what was sent.
        let text = serde_json::to_string(&v).expect("number");
        let read: f64 = serde_json::from_str(&text).expect("number");
        let body = format!(
            r#"[{{"eventType":"TableOrderUpdate","eventInfo":{{"id":"t","order":{{"sum":{text}}}}}}}]"#
        );
        let parsed = parse_body(body.as_bytes()).expect("parses");
        let sum = parsed.events[0].sum();
        prop_assert_eq!(sum, Money::from_json(&text));
        if let Some(sum) = sum {
            let back: f64 = sum.to_string().parse().expect("an amount is a number");
            prop_assert_eq!(back, read);
        }
    }

    #[test]
    fn short_decimals_keep_their_digits(mantissa in -999_999_999_999_999i64..=999_999_999_999_999, scale in 0u32..=6) {
        // Up to 15 significant digits: exactly the digits sent.
        let expected = Money(rust_decimal::Decimal::new(mantissa, scale).normalize());
        let body = format!(
            r#"[{{"eventType":"TableOrderUpdate","eventInfo":{{"id":"t","order":{{"sum":{expected}}}}}}}]"#
        );
        let parsed = parse_body(body.as_bytes()).expect("parses");
        prop_assert_eq!(parsed.events[0].sum(), Some(expected));
    }

    #[test]
    fn cents_keep_their_digits(cents in -10_000_000_000i64..10_000_000_000i64) {
        let text = format!("{}.{:02}", cents / 100, (cents % 100).abs());
        let text = if cents < 0 && cents > -100 { format!("-{text}") } else { text };
        let body = format!(
            r#"[{{"eventType":"DeliveryOrderUpdate","eventInfo":{{"id":"o","order":{{"sum":{text}}}}}}}]"#
        );
        let parsed = parse_body(body.as_bytes()).expect("parses");
        prop_assert_eq!(parsed.events[0].sum(), Some(Money::from_str(&text).expect("decimal")));
    }

    #[test]
    fn verifier_never_panics_and_accepts_only_the_token(
        header in prop::option::of(prop::collection::vec(any::<u8>(), 0..64)),
        token in ".{0,16}",
    ) {
        let result = verify_authorization(header.as_deref(), &token);
        if result.is_ok() {
            let header = header.expect("accepted with a header");
            let bare = header == token.as_bytes();
            let bearer = header.len() == token.len() + 7
                && header[..7].eq_ignore_ascii_case(b"bearer ")
                && &header[7..] == token.as_bytes();
            prop_assert!(bare || bearer);
        }
        if token.trim().is_empty() {
            prop_assert_eq!(result, Err(VerifyError::EmptyExpectedToken));
        }
    }

    #[test]
    fn verifier_accepts_both_forms_of_any_clean_token(token in "[!-~]([ -~]{0,30}[!-~])?") {
        prop_assert_eq!(verify_authorization(Some(token.as_bytes()), &token), Ok(()));
        let bearer = format!("Bearer {token}");
        prop_assert_eq!(verify_authorization(Some(bearer.as_bytes()), &token), Ok(()));
        // Any strict prefix is refused.
        let prefix = &token.as_bytes()[..token.len() - 1];
        prop_assert!(verify_authorization(Some(prefix), &token).is_err());
    }

    #[test]
    fn receive_answers_a_known_status(
        headers in prop::collection::vec((".{0,16}", prop::collection::vec(any::<u8>(), 0..24)), 0..4),
        body in prop::collection::vec(any::<u8>(), 0..256),
        token in ".{0,8}",
    ) {
        let result = Receiver::new(token.as_str()).receive(headers, &body);
        prop_assert!([200, 401, 500].contains(&http_status(&result)));
    }
}

/// The case that found the old property's fault: serde_json writes this
/// double as `-866758783026730.2`, Rust's `{:e}` as `-8.667587830267303e14`;
/// the sum is what the text says.
#[test]
fn a_sum_is_the_digits_sent_not_another_shortest_form() {
    let body = r#"[{"eventType":"TableOrderUpdate","eventInfo":{"id":"t","order":{"sum":-866758783026730.2}}}]"#;
    let parsed = parse_body(body.as_bytes()).expect("parses");
    assert_eq!(
        parsed.events[0].sum(),
        Some(Money::from_str("-866758783026730.2").expect("amount"))
    );
}

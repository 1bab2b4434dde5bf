//! De-duplication and ordering of events.

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use iikocloud::webhook::{
    parse_body, parse_event, Deduplicator, Event, ManualClock, OrderingDecision, OrderingGuard,
};
use serde_json::json;

fn order_event(kind: &str, id: &str, timestamp: i64) -> Event {
    parse_event(
        &json!({
            "eventType": kind, "eventTime": "2025-09-16 16:02:11.877",
            "organizationId": "org", "correlationId": format!("c-{timestamp}"),
            "eventInfo": {"id": id, "timestamp": timestamp, "creationStatus": "Success",
                          "order": {"status": "OnWay"}}
        })
        .to_string(),
    )
}

fn payload_events(name: &str) -> Vec<Event> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vectors/payloads")
        .join(name);
    parse_body(&std::fs::read(path).expect("payload"))
        .expect("parses")
        .events
}

#[test]
fn keys_follow_the_documented_rules() {
    let e = order_event("DeliveryOrderUpdate", "o1", 17);
    assert_eq!(e.dedup_key().as_str(), "DeliveryOrderUpdate|org|o1|17");
    let shift = &payload_events("personal_shift.json")[0];
    assert_eq!(
        shift.dedup_key().to_string(),
        "PersonalShift|0ae7e972-848d-53c5-8a8f-3a120fa115ba|2fd49818-0d05-5212-991c-d754d9d9d8de|\
         f21f3e37-950f-5459-bf35-6d75d7764c44|1|8d6bc30d-6951-5da4-99e6-6ff6ae14d870"
    );
    let unknown =
        parse_event(r#"{"eventType":"NomenclatureUpdate","correlationId":"c","eventInfo":{}}"#);
    assert_eq!(
        unknown.dedup_key().as_str(),
        format!("NomenclatureUpdate||c|#{}", fnv("{}"))
    );
    let invalid = parse_event("42");
    assert_eq!(invalid.dedup_key().as_str(), format!("|||#{}", fnv("42")));
}

fn fnv(text: &str) -> String {
    let h = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{h:016x}")
}

#[test]
fn repeats_are_reported_until_they_age_out() {
    let clock = Arc::new(ManualClock::new());
    let dedup = Deduplicator::with_clock(100, Duration::from_secs(60), clock.clone());
    let a = order_event("DeliveryOrderUpdate", "o1", 1);
    let a_again = order_event("DeliveryOrderUpdate", "o1", 1);
    let error_same_version = order_event("DeliveryOrderError", "o1", 1);
    let b = order_event("DeliveryOrderUpdate", "o1", 2);

    assert!(dedup.first_seen(&a));
    assert!(!dedup.first_seen(&a_again));
    assert!(dedup.first_seen(&error_same_version));
    assert!(dedup.first_seen(&b));
    assert_eq!(dedup.len(), 3);

    clock.advance(Duration::from_secs(59));
    assert!(!dedup.first_seen(&a));
    clock.advance(Duration::from_secs(1));
    assert!(dedup.first_seen(&a), "aged out after max_age");
    assert_eq!(dedup.len(), 1);

    dedup.forget(&a);
    assert!(dedup.first_seen(&a), "forgotten");
    dedup.clear();
    assert!(dedup.is_empty());
}

#[test]
fn whole_bodies_delivered_twice_are_dropped() {
    let dedup = Deduplicator::new(1000, Duration::from_secs(3600));
    let first = payload_events("multi_all_types.json");
    let again = payload_events("multi_all_types.json");
    assert!(first.iter().all(|e| dedup.first_seen(e)));
    assert!(again.iter().all(|e| !dedup.first_seen(e)));
    // The single files repeat events of the multi body.
    assert!(!dedup.first_seen(&payload_events("stop_list_update.json")[0]));
    assert!(dedup.first_seen(&payload_events("delivery_order_update_cancelled.json")[0]));
}

#[test]
fn memory_is_bounded_by_capacity() {
    let dedup = Deduplicator::new(3, Duration::from_secs(3600));
    let evs: Vec<Event> = (0..5)
        .map(|i| order_event("DeliveryOrderUpdate", "o", i))
        .collect();
    for e in &evs {
        assert!(dedup.first_seen(e));
    }
    assert_eq!(dedup.len(), 3);
    assert!(dedup.first_seen(&evs[0]), "the oldest was evicted");
    assert!(!dedup.first_seen(&evs[4]), "the newest is kept");
    // Forget/re-insert cycles do not grow it.
    for _ in 0..100 {
        dedup.forget(&evs[4]);
        assert!(dedup.first_seen(&evs[4]));
    }
    assert!(dedup.len() <= 3);
}

#[test]
fn dedup_is_thread_safe() {
    let dedup = Arc::new(Deduplicator::new(10_000, Duration::from_secs(3600)));
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let dedup = dedup.clone();
            thread::spawn(move || {
                (0..500)
                    .filter(|&i| dedup.first_seen(&order_event("DeliveryOrderUpdate", "o", i)))
                    .count()
            })
        })
        .collect();
    let total: usize = handles.into_iter().map(|h| h.join().expect("thread")).sum();
    assert_eq!(total, 500, "each event is new exactly once");
}

#[test]
fn ordering_guard_skips_stale_events() {
    let guard = OrderingGuard::new(100);
    let v1 = order_event("DeliveryOrderUpdate", "o1", 100);
    let v2 = order_event("DeliveryOrderUpdate", "o1", 200);
    let err_v2 = order_event("DeliveryOrderError", "o1", 200);
    let err_v3 = order_event("DeliveryOrderError", "o1", 300);
    let other = order_event("DeliveryOrderUpdate", "o2", 50);
    let table_same_id = order_event("TableOrderUpdate", "o1", 150);

    assert_eq!(guard.observe(&v2), OrderingDecision::Apply);
    assert!(!guard.is_newer(&v1));
    assert_eq!(
        guard.observe(&v1),
        OrderingDecision::Stale { last_applied: 200 }
    );
    assert_eq!(
        guard.observe(&v2),
        OrderingDecision::Stale { last_applied: 200 }
    );
    assert_eq!(
        guard.observe(&err_v2),
        OrderingDecision::Stale { last_applied: 200 }
    );
    assert!(guard.is_newer(&err_v3));
    assert_eq!(guard.observe(&err_v3), OrderingDecision::Apply);
    assert_eq!(guard.observe(&other), OrderingDecision::Apply);
    assert_eq!(
        guard.observe(&table_same_id),
        OrderingDecision::Apply,
        "another family"
    );
    assert_eq!(guard.len(), 3);

    let shift = &payload_events("personal_shift.json")[0];
    assert_eq!(guard.observe(shift), OrderingDecision::Untracked);
    assert!(guard.is_newer(shift));
    let no_timestamp = parse_event(r#"{"eventType":"ReserveUpdate","eventInfo":{"id":"r"}}"#);
    assert_eq!(guard.observe(&no_timestamp), OrderingDecision::Untracked);

    guard.forget(&v1);
    assert_eq!(guard.observe(&v1), OrderingDecision::Apply);
    guard.clear();
    assert!(guard.is_empty());
}

#[test]
fn ordering_guard_evicts_the_least_recently_observed() {
    let guard = OrderingGuard::new(2);
    assert_eq!(
        guard.observe_entity("delivery", "a", 10),
        OrderingDecision::Apply
    );
    assert_eq!(
        guard.observe_entity("delivery", "b", 10),
        OrderingDecision::Apply
    );
    // Touch "a" so that "b" is the least recent.
    assert_eq!(
        guard.observe_entity("delivery", "a", 5),
        OrderingDecision::Stale { last_applied: 10 }
    );
    assert_eq!(
        guard.observe_entity("delivery", "c", 10),
        OrderingDecision::Apply
    );
    assert_eq!(guard.len(), 2);
    assert_eq!(
        guard.observe_entity("delivery", "a", 9),
        OrderingDecision::Stale { last_applied: 10 }
    );
    assert_eq!(
        guard.observe_entity("delivery", "b", 1),
        OrderingDecision::Apply,
        "b was forgotten"
    );
}

#[test]
fn ordering_guard_is_thread_safe() {
    let guard = Arc::new(OrderingGuard::new(1000));
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let guard = guard.clone();
            thread::spawn(move || {
                (0..1000)
                    .filter(|i| {
                        guard.observe_entity("delivery", "o", i * 4 + t) == OrderingDecision::Apply
                    })
                    .count()
            })
        })
        .collect();
    let applied: usize = handles.into_iter().map(|h| h.join().expect("thread")).sum();
    assert!(applied >= 1);
    assert_eq!(
        guard.observe_entity("delivery", "o", 3999),
        OrderingDecision::Stale { last_applied: 3999 }
    );
}

#[test]
fn shared_types_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Deduplicator>();
    assert_send_sync::<OrderingGuard>();
    assert_send_sync::<iikocloud::webhook::Receiver>();
    assert_send_sync::<iikocloud::webhook::Verifier>();
    assert_send_sync::<iikocloud::webhook::ParsedBody>();
    assert_send_sync::<Event>();
}

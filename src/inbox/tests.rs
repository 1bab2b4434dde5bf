use super::*;
use std::time::Duration;

fn body(n: u32, status: &str) -> String {
    format!(
        r#"[{{"eventType":"DeliveryOrderUpdate","eventTime":"2025-09-16 16:02:11.877",
        "organizationId":"0ae7e972-848d-53c5-8a8f-3a120fa115ba",
        "correlationId":"0885102e-6dcc-5fbd-bf84-0b17c24bce32",
        "eventInfo":{{"id":"order-{n}","timestamp":{ts},"creationStatus":"Success",
        "order":{{"number":{n},"status":"{status}","sum":1.0}}}}}}]"#,
        ts = 1_758_038_531_877u64 + u64::from(n)
    )
}

fn options() -> InboxOptions {
    InboxOptions {
        visibility_timeout: Duration::from_millis(150),
        max_attempts: 2,
        dedup_ttl: Duration::from_secs(60),
    }
}

/// Receive, repeat, take, ack, time out, fail, dead letters.
fn exercise(url: &str) {
    let inbox = Inbox::open_with(url, options()).unwrap();
    let start = inbox.counts().unwrap();
    // Drain leftovers of an earlier run on a shared Redis.
    while let Some(d) = inbox.take().unwrap() {
        inbox.ack(&d).unwrap();
    }
    let receiver = Receiver::new("tok");
    let tag = fastrand::u32(..);
    let ok = inbox.receive(
        &receiver,
        None,
        [("Authorization", "tok")],
        body(tag, "Unconfirmed").as_bytes(),
    );
    assert_eq!((ok.status, ok.stored, ok.repeats), (200, 1, 0), "{ok:?}");
    let again = inbox.receive(
        &receiver,
        None,
        [("Authorization", "tok")],
        body(tag, "Unconfirmed").as_bytes(),
    );
    assert_eq!((again.status, again.stored, again.repeats), (200, 0, 1));
    let bad = inbox.receive(
        &receiver,
        None,
        [("Authorization", "nope")],
        body(tag, "x").as_bytes(),
    );
    assert_eq!((bad.status, bad.stored), (401, 0));
    let junk = inbox.receive(&receiver, None, [("Authorization", "tok")], b"{not json");
    assert_eq!(
        junk.status, 200,
        "authentic but unreadable: kept aside, answered 200"
    );

    let d = inbox.take().unwrap().expect("one event");
    assert_eq!(d.attempt(), 1);
    assert!(d.event_json().contains(&format!("order-{tag}")));
    assert!(inbox.take().unwrap().is_none(), "invisible while taken");
    assert!(inbox.ack(&d).unwrap());
    assert!(!inbox.ack(&d).unwrap(), "second ack is a no-op");

    // Not acknowledged: comes back after the visibility timeout.
    inbox
        .push(&[(format!("k{tag}"), "{\"e\":1}".into())])
        .unwrap();
    let first = inbox.take().unwrap().unwrap();
    std::thread::sleep(Duration::from_millis(250));
    let second = inbox.take().unwrap().expect("visible again");
    assert_eq!((second.id(), second.attempt()), (first.id(), 2));
    assert!(!inbox.ack(&first).unwrap(), "a stale delivery cannot ack");
    inbox.release(&second, "handler said no").unwrap();
    // Two attempts used: the next take buries it with the reason.
    assert!(inbox.take().unwrap().is_none());
    let dead = inbox.dead_letters(1000).unwrap();
    let buried = dead
        .iter()
        .find(|d| d.key == format!("k{tag}"))
        .expect("buried");
    assert!(buried.reason.contains("handler said no"), "{buried:?}");
    assert!(
        dead.iter()
            .any(|d| d.body == "{not json" && d.reason.contains("JSON")),
        "{dead:?}"
    );
    let end = inbox.counts().unwrap();
    assert_eq!(end.pending, 0);
    assert!(end.dead >= start.dead + 2);
}

#[test]
fn sqlite_inbox() {
    let dir = std::env::temp_dir().join(format!("iiko-inbox-{}", fastrand::u64(..)));
    std::fs::create_dir_all(&dir).unwrap();
    exercise(&format!("sqlite://{}/inbox.db", dir.display()));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
#[ignore = "needs a redis-server at IIKO_TEST_REDIS_URL; scripts/test.sh starts one and runs these with --ignored"]
fn redis_inbox() {
    exercise(&crate::test_redis_url());
}

#[test]
fn memory_is_no_inbox() {
    let e = Inbox::open("memory:").unwrap_err().to_string();
    assert!(e.contains("outlive"), "{e}");
}

#[test]
fn options_outside_their_limits_are_named_as_options_not_as_the_url() {
    for (options, limit) in [
        (
            InboxOptions {
                max_attempts: 0,
                ..InboxOptions::default()
            },
            "inbox.max_attempts",
        ),
        (
            InboxOptions {
                visibility_timeout: Duration::ZERO,
                ..InboxOptions::default()
            },
            "inbox.visibility_timeout",
        ),
    ] {
        let e = Inbox::open_with("sqlite:///tmp/never-opened.db", options).unwrap_err();
        assert!(matches!(e, StoreError::BadOption(_)), "{e:?}");
        let text = e.to_string();
        assert!(
            text.contains(limit) && !text.contains("store URL"),
            "{text}"
        );
    }
}

#[test]
fn shared_store_claims_each_event_once() {
    let dir = std::env::temp_dir().join(format!("iiko-inbox-{}", fastrand::u64(..)));
    std::fs::create_dir_all(&dir).unwrap();
    let store = Store::open(&format!("sqlite://{}/store.db", dir.display())).unwrap();
    let a = Inbox::open(&format!("sqlite://{}/a.db", dir.display())).unwrap();
    let b = Inbox::open(&format!("sqlite://{}/b.db", dir.display())).unwrap();
    let receiver = Receiver::new("tok");
    let hdr = [("authorization", "Bearer tok")];
    let r1 = a.receive(
        &receiver,
        Some(&store),
        hdr,
        body(1, "Unconfirmed").as_bytes(),
    );
    let r2 = b.receive(
        &receiver,
        Some(&store),
        hdr,
        body(1, "Unconfirmed").as_bytes(),
    );
    assert_eq!((r1.stored, r2.stored, r2.repeats), (1, 0, 1));
    assert_eq!(a.counts().unwrap().pending + b.counts().unwrap().pending, 1);
    // Closed first: Windows does not delete files that are open.
    drop((a, b, store));
    std::fs::remove_dir_all(dir).unwrap();
}

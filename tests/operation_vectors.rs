//! Runs every case of `tests/vectors/operations.json` through
//! `iikocloud::api::call_operation` against the emulator over loopback, on
//! the JSON text a binding would get; the C and PHP bindings run the same
//! file. The format is in `tests/vectors/README.md`.

use std::path::Path;

use iikocloud::api::{call_operation, call_operation_and_wait, OperationCall, WaitOptions};
use iikocloud::{Client, CommandErrorKind, Error};
use iikocloud_emulator::{
    Emulator, EmulatorConfig, DEFAULT_API_KEY, DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET,
};
use serde_json::Value;

fn load() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/operations.json");
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("vectors")).expect("JSON");
    assert_eq!(doc["format"], "iikocloud-operation-vectors");
    assert_eq!(doc["version"], 1);
    doc["cases"].as_array().expect("cases").clone()
}

/// The value at a dotted path (`a.0.b`: numbers index arrays).
fn at<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(value, |v, key| match v {
        Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
        Value::Object(map) => map.get(key),
        _ => None,
    })
}

/// Checks an answer (the JSON text a binding gets) against a case.
fn check_answer(name: &str, text: &str, checks: &[Value], money_as_text: bool) {
    let answer: Value = serde_json::from_str(text).expect("the answer is JSON");
    for check in checks {
        let path = check["path"].as_str().expect("path");
        let found = at(&answer, path);
        if let Some(want) = check.get("equals") {
            assert_eq!(found, Some(want), "{name}: {path} in {text}");
        }
        if let Some(want) = check["money"].as_str() {
            // The digits as written in the JSON text: a number whose text is
            // exactly the decimal, or a string when asked for text.
            let shown = match found {
                Some(Value::Number(n)) if !money_as_text => n.to_string(),
                Some(Value::String(s)) if money_as_text => s.clone(),
                other => panic!("{name}: {path} is {other:?} (text amounts: {money_as_text})"),
            };
            assert_eq!(shown, want, "{name}: {path}");
            let raw = if money_as_text {
                format!("\"{want}\"")
            } else {
                want.to_string()
            };
            assert!(text.contains(&raw), "{name}: {raw} not in {text}");
        }
        if check["present"] == Value::Bool(true) {
            assert!(
                found.is_some_and(|v| !v.is_null()),
                "{name}: {path} missing"
            );
        }
    }
}

#[test]
fn every_operation_vector_passes_in_both_money_modes() {
    let emu = Emulator::start(EmulatorConfig::default()).expect("emulator");
    let client = Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .build()
        .expect("client");
    let cases = load();
    assert!(cases.len() >= 10);
    for money_as_text in [false, true] {
        for case in &cases {
            let name = case["name"].as_str().expect("name");
            let op = case["operation"].as_str().expect("operation");
            let options = OperationCall {
                money_as_text,
                ..Default::default()
            };
            let wait = WaitOptions::from_timeout_ms(20_000).expect("limit");
            let result = if case["wait"] == Value::Bool(true) {
                call_operation_and_wait(&client, op, &case["request"], &options, &wait)
            } else {
                call_operation(&client, op, &case["request"], &options)
            };
            let expect = &case["expect"];
            let contains = |message: &str| {
                for part in expect["error_contains"].as_array().into_iter().flatten() {
                    let part = part.as_str().expect("text");
                    assert!(
                        message.contains(part),
                        "{name}: {part:?} not in {message:?}"
                    );
                }
            };
            match (expect["outcome"].as_str().expect("outcome"), result) {
                ("ok", Ok(answer)) => {
                    let text = serde_json::to_string(&answer).expect("text");
                    let checks = expect["answer"].as_array().cloned().unwrap_or_default();
                    check_answer(name, &text, &checks, money_as_text);
                }
                ("invalid", Err(e @ Error::InvalidInput(_))) => contains(&e.to_string()),
                ("command_failed", Err(Error::Command(c))) => {
                    assert_eq!(c.kind, CommandErrorKind::Failed, "{name}");
                    contains(&Error::Command(c).to_string());
                }
                (want, got) => panic!("{name}: wanted {want}, got {got:?}"),
            }
        }
    }
}

#[test]
fn a_timeout_outside_its_limits_is_refused_before_sending() {
    // Nothing listens on port 1: any attempt to send would be a transport error.
    let client = Client::builder()
        .base_url("http://127.0.0.1:1")
        .api_login("x")
        .build()
        .expect("client");
    let request = serde_json::json!({"organizationIds": []});
    for ms in [1u64, 999, 3_600_001] {
        let e = OperationCall::default().timeout_ms(ms).unwrap_err();
        assert!(e.to_string().contains("timeout"), "{e}");
    }
    let options = OperationCall::default().timeout_ms(2000).expect("in range");
    let e = call_operation(&client, "terminal_groups", &request, &options).unwrap_err();
    assert!(matches!(e, Error::Transport { .. }), "{e:?}");
}

#[test]
fn reads_are_retried_and_commands_never_through_the_json_entry_point() {
    use iikocloud_emulator::{Fault, FaultKind};
    let emu = Emulator::start(EmulatorConfig::default()).expect("emulator");
    let client = Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .retries(2)
        .retry_base_delay(std::time::Duration::from_millis(10))
        .build()
        .expect("client");
    let count = |path: &str| emu.requests().iter().filter(|r| r.path == path).count();
    let options = OperationCall::default();

    let groups = "/api/1/terminal_groups";
    emu.inject(Fault::new(groups, FaultKind::Status(503), 1));
    let read =
        serde_json::json!({"organizationIds": [iikocloud_emulator::DEFAULT_ORGANIZATION_ID]});
    call_operation(&client, "terminal_groups", &read, &options)
        .expect("retried once, then answered");
    assert_eq!(count(groups), 2);
    // The operation's own Timeout, when given.
    let two_s = OperationCall::default().timeout_ms(2000).expect("in range");
    call_operation(&client, "terminal_groups", &read, &two_s).expect("answered");
    let last = emu
        .requests()
        .into_iter()
        .rev()
        .find(|r| r.path == groups)
        .expect("sent");
    assert_eq!(last.timeout_header.as_deref(), Some("2"));

    let create = "/api/1/deliveries/create";
    emu.inject(Fault::new(create, FaultKind::Status(503), 1));
    let order = serde_json::json!({
        "organizationId": iikocloud_emulator::DEFAULT_ORGANIZATION_ID,
        "terminalGroupId": iikocloud_emulator::DEFAULT_TERMINAL_GROUP_ID,
        "order": {"phone": "+79160000000", "items": [
            {"type": "Product", "productId": "b1e604c4-586f-4a06-b3d0-ff67e6c542a2", "amount": 1, "price": 590}
        ]}
    });
    let e = call_operation(&client, "deliveries.create", &order, &options).unwrap_err();
    assert_eq!(e.http_status(), Some(503), "{e}");
    assert_eq!(count(create), 1, "a command is sent once");
}

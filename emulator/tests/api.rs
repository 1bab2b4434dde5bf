//! The emulated service endpoints, over real HTTP on loopback.

mod common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{is_uuid, jwt_payload, Http};
use iikocloud_emulator::*;
use serde_json::{json, Value};

fn start() -> (Emulator, Http) {
    let emu = Emulator::start_default().expect("start");
    let http = Http::new(emu.url());
    (emu, http)
}

const ORGS: &str = "/api/1/organizations";

#[test]
fn url_and_addr() {
    let (emu, _) = start();
    assert!(emu.addr().ip().is_loopback());
    assert_eq!(emu.url(), format!("http://127.0.0.1:{}", emu.addr().port()));
    assert!(!emu.url().ends_with('/'));
}

#[test]
fn v2_token_is_jwt_with_exp_and_iat() {
    let (_emu, http) = start();
    let r = http.post(
        "/api/v2/access_token",
        None,
        &json!({"appId": DEFAULT_APP_ID, "clientSecret": DEFAULT_CLIENT_SECRET, "apiKey": DEFAULT_API_KEY}),
    );
    assert_eq!(r.status, 200);
    assert!(r
        .header("Content-Type")
        .unwrap()
        .starts_with("application/json"));
    let v = r.json();
    assert!(is_uuid(v["correlationId"].as_str().unwrap()));
    let token = v["token"].as_str().unwrap();
    let payload = jwt_payload(token);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let iat = payload["iat"].as_i64().unwrap();
    let exp = payload["exp"].as_i64().unwrap();
    assert!((iat - now).abs() <= 2, "iat {iat} vs now {now}");
    assert!(
        (3600..=3601).contains(&(exp - iat)),
        "exp - iat = {}",
        exp - iat
    );
    assert!(payload["jti"].is_string());
    // Two tokens are different.
    assert_ne!(token, http.token());
}

#[test]
fn legacy_token_with_api_login() {
    let (_emu, http) = start();
    let r = http.post(
        "/api/1/access_token",
        None,
        &json!({"apiLogin": DEFAULT_API_KEY}),
    );
    assert_eq!(r.status, 200);
    let token = r.json()["token"].as_str().unwrap().to_string();
    let orgs = http.post(ORGS, Some(&token), &json!({}));
    assert_eq!(orgs.status, 200);
    let r = http.post("/api/1/access_token", None, &json!({"apiLogin": "wrong"}));
    assert_eq!(r.status, 401);
    assert_eq!(r.error_code(), "INVALID_CREDENTIALS");
}

#[test]
fn wrong_credentials_are_401() {
    let (_emu, http) = start();
    for body in [
        json!({"appId": "x", "clientSecret": DEFAULT_CLIENT_SECRET, "apiKey": DEFAULT_API_KEY}),
        json!({"appId": DEFAULT_APP_ID, "clientSecret": "x", "apiKey": DEFAULT_API_KEY}),
        json!({"appId": DEFAULT_APP_ID, "clientSecret": DEFAULT_CLIENT_SECRET, "apiKey": "x"}),
        json!({"appId": DEFAULT_APP_ID, "clientSecret": DEFAULT_CLIENT_SECRET, "apiKey": ""}),
    ] {
        let r = http.post("/api/v2/access_token", None, &body);
        assert_eq!(r.status, 401, "{body}");
        assert_eq!(r.error_code(), "INVALID_CREDENTIALS");
    }
    // A missing field is a malformed request, not wrong credentials.
    let r = http.post(
        "/api/v2/access_token",
        None,
        &json!({"appId": DEFAULT_APP_ID}),
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.error_code(), "BAD_REQUEST");
}

#[test]
fn short_ttl_token_expires() {
    let emu =
        Emulator::start(EmulatorConfig::default().token_ttl(Duration::from_millis(600))).unwrap();
    let http = Http::new(emu.url());
    let token = http.token();
    let p = jwt_payload(&token);
    // exp is whole seconds, rounded up.
    let exp_delta = p["exp"].as_i64().unwrap() - p["iat"].as_i64().unwrap();
    assert!((1..=2).contains(&exp_delta), "{exp_delta}");
    assert_eq!(http.post(ORGS, Some(&token), &json!({})).status, 200);
    std::thread::sleep(Duration::from_millis(700));
    let r = http.post(ORGS, Some(&token), &json!({}));
    assert_eq!(r.status, 401);
    assert_eq!(r.error_code(), "TOKEN_EXPIRED");
    assert!(!emu.requests().last().unwrap().authorized);
}

#[test]
fn expire_tokens_and_change_ttl_at_runtime() {
    let (emu, http) = start();
    let old = http.token();
    emu.expire_tokens();
    assert_eq!(http.post(ORGS, Some(&old), &json!({})).status, 401);
    let fresh = http.token();
    assert_eq!(http.post(ORGS, Some(&fresh), &json!({})).status, 200);

    emu.set_token_ttl(Duration::from_millis(600));
    assert_eq!(emu.token_ttl(), Duration::from_millis(600));
    let short = http.token();
    assert_eq!(http.post(ORGS, Some(&short), &json!({})).status, 200);
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(http.post(ORGS, Some(&short), &json!({})).status, 401);
    // A token issued before the change keeps its original lifetime.
    assert_eq!(http.post(ORGS, Some(&fresh), &json!({})).status, 200);
}

#[test]
fn authorization_failures() {
    let (emu, http) = start();
    let token = http.token();
    let body = "{}";
    let ct = Some("application/json");
    // Missing header -> 401.
    let r = http.post_raw(ORGS, ct, None, body);
    assert_eq!((r.status, r.error_code().as_str()), (401, "UNAUTHORIZED"));
    // Unknown token -> 401.
    let r = http.post_raw(ORGS, ct, Some("Bearer not-a-token"), body);
    assert_eq!((r.status, r.error_code().as_str()), (401, "INVALID_TOKEN"));
    // Present but malformed -> 400.
    for bad in [token.as_str(), "Bearer", "Basic abc", "Bearer a b"] {
        let r = http.post_raw(ORGS, ct, Some(bad), body);
        assert_eq!(r.status, 400, "{bad:?}");
        assert_eq!(r.error_code(), "BAD_REQUEST");
    }
    // Scheme is case-insensitive.
    let r = http.post_raw(ORGS, ct, Some(&format!("bearer {token}")), body);
    assert_eq!(r.status, 200);
    assert_eq!(emu.requests().last().unwrap().status, 200);
}

#[test]
fn content_type_and_body_validation() {
    let (_emu, http) = start();
    let auth = format!("Bearer {}", http.token());
    let auth = Some(auth.as_str());
    let cases: [(Option<&str>, &str, u16); 8] = [
        (None, "{}", 400),
        (Some("text/plain"), "{}", 400),
        (Some("application/json; charset=latin1"), "{}", 400),
        (Some("application/json"), "{not json", 400),
        (Some("application/json"), "", 400),
        (Some("application/json"), "[1,2]", 400),
        (Some("application/json"), "\"text\"", 400),
        (Some("application/json; charset=utf-8"), "{}", 200),
    ];
    for (ct, body, status) in cases {
        let r = http.post_raw(ORGS, ct, auth, body);
        assert_eq!(r.status, status, "{ct:?} {body:?}: {}", r.body);
        if status == 400 {
            assert_eq!(r.error_code(), "BAD_REQUEST");
        }
    }
    // Field types are checked too.
    for body in [
        json!({"organizationIds": "x"}),
        json!({"organizationIds": ["not-a-uuid"]}),
        json!({"returnAdditionalInfo": "yes"}),
        json!({"includeDisabled": 1}),
        json!({"returnExternalData": [1]}),
    ] {
        let r = http.post_raw(ORGS, Some("application/json"), auth, &body.to_string());
        assert_eq!(r.status, 400, "{body}");
    }
}

#[test]
fn validation_order_is_content_type_then_auth_then_json() {
    let (_emu, http) = start();
    // Wrong content type wins over a missing token and bad JSON.
    let r = http.post_raw(ORGS, Some("text/plain"), None, "{bad");
    assert_eq!(r.status, 400);
    // Missing token wins over bad JSON.
    let r = http.post_raw(ORGS, Some("application/json"), None, "{bad");
    assert_eq!(r.status, 401);
    let r = http.post_raw(ORGS, Some("application/json"), Some("Bearer nope"), "{bad");
    assert_eq!(r.status, 401);
}

#[test]
fn unknown_path_and_wrong_method() {
    let (emu, http) = start();
    let token = http.token();
    let r = http.post("/api/1/nope", Some(&token), &json!({}));
    assert_eq!(r.status, 404);
    assert_eq!(r.error_code(), "NOT_FOUND");
    let r = http.get("/");
    assert_eq!(r.status, 404);
    assert!(is_uuid(r.json()["correlationId"].as_str().unwrap()));
    let r = http.get(ORGS);
    assert_eq!(r.status, 405);
    assert_eq!(r.error_code(), "METHOD_NOT_ALLOWED");
    assert_eq!(emu.request_count("/api/1/nope"), 1);
}

#[test]
fn organizations_per_key() {
    let (_emu, http) = start();
    let token = http.token();
    let r = http.post(ORGS, Some(&token), &json!({}));
    assert_eq!(r.status, 200);
    let v = r.json();
    assert!(is_uuid(v["correlationId"].as_str().unwrap()));
    let orgs = v["organizations"].as_array().unwrap();
    let ids: Vec<&str> = orgs.iter().map(|o| o["id"].as_str().unwrap()).collect();
    assert_eq!(ids, vec![DEFAULT_ORGANIZATION_ID, SECOND_ORGANIZATION_ID]);
    for o in orgs {
        assert_eq!(o["responseType"], "Simple");
        assert!(
            o.get("name").is_some() && o.get("code").is_some() && o.get("externalData").is_some()
        );
        assert!(
            o.get("isCloud").is_none(),
            "simple shape has no extended fields"
        );
    }
    // Unknown extra field is present on one organization.
    assert!(orgs[0]["futureField"].is_object());

    let empty = http.token_for(EMPTY_API_KEY);
    let r = http.post(ORGS, Some(&empty), &json!({"includeDisabled": true}));
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["organizations"], json!([]));
}

#[test]
fn organizations_extended_filter_and_disabled() {
    let (_emu, http) = start();
    let token = http.token();
    let r = http.post(
        ORGS,
        Some(&token),
        &json!({"returnAdditionalInfo": true, "includeDisabled": true}),
    );
    let orgs = r.json()["organizations"].as_array().unwrap().clone();
    assert_eq!(orgs.len(), 3);
    for o in &orgs {
        assert_eq!(o["responseType"], "Extended");
        for field in [
            "country",
            "restaurantAddress",
            "latitude",
            "longitude",
            "useUaeAddressingSystem",
            "version",
            "currencyIsoName",
            "currencyMinimumDenomination",
            "countryPhoneCode",
            "marketingSourceRequiredInDelivery",
            "defaultDeliveryCityId",
            "deliveryCityIds",
            "deliveryServiceType",
            "defaultCallCenterPaymentTypeId",
            "orderItemCommentEnabled",
            "inn",
            "addressFormatType",
            "isConfirmationEnabled",
            "confirmAllowedIntervalInMinutes",
            "isCloud",
            "addressLookup",
        ] {
            assert!(o.get(field).is_some(), "{} lacks {field}", o["id"]);
        }
    }
    // Unknown enum value somewhere in the fixture.
    assert_eq!(orgs[1]["deliveryServiceType"], "DroneOnly");

    let r = http.post(
        ORGS,
        Some(&token),
        &json!({"organizationIds": [SECOND_ORGANIZATION_ID, DISABLED_ORGANIZATION_ID]}),
    );
    let ids: Vec<Value> = r.json()["organizations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].clone())
        .collect();
    assert_eq!(ids, vec![json!(SECOND_ORGANIZATION_ID)]);
    let r = http.post(
        ORGS,
        Some(&token),
        &json!({"organizationIds": [DISABLED_ORGANIZATION_ID.to_uppercase()], "includeDisabled": true}),
    );
    assert_eq!(r.json()["organizations"][0]["id"], DISABLED_ORGANIZATION_ID);

    // externalData only when asked for, and only the keys asked for.
    let r = http.post(ORGS, Some(&token), &json!({}));
    assert_eq!(r.json()["organizations"][0]["externalData"], Value::Null);
    let r = http.post(
        ORGS,
        Some(&token),
        &json!({"returnExternalData": ["crmId"]}),
    );
    assert_eq!(
        r.json()["organizations"][0]["externalData"],
        json!([{"key": "crmId", "value": "crm-1001"}])
    );
}

#[test]
fn webhook_settings_round_trip_and_validation() {
    let (emu, http) = start();
    let token = http.token();
    let t = Some(token.as_str());
    let r = http.post(
        "/api/1/webhooks/settings",
        t,
        &json!({"organizationId": DEFAULT_ORGANIZATION_ID}),
    );
    assert_eq!(r.status, 200);
    let v = r.json();
    assert!(is_uuid(v["correlationId"].as_str().unwrap()));
    assert_eq!(v["webHooksUri"], Value::Null);
    assert_eq!(v["apiLoginName"], DEFAULT_API_LOGIN_NAME);

    let filter =
        json!({"deliveryOrderFilter": {"orderStatuses": ["CookingStarted"], "errors": true}});
    let r = http.post(
        "/api/1/webhooks/update_settings",
        t,
        &json!({"organizationId": DEFAULT_ORGANIZATION_ID, "webHooksUri": "http://127.0.0.1:9/hook", "authToken": "s3cret", "webHooksFilter": filter}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert!(is_uuid(v["correlationId"].as_str().unwrap()));
    assert_eq!(v.as_object().unwrap().len(), 1, "only correlationId: {v}");

    let v = http
        .post(
            "/api/1/webhooks/settings",
            t,
            &json!({"organizationId": DEFAULT_ORGANIZATION_ID}),
        )
        .json();
    assert_eq!(v["webHooksUri"], "http://127.0.0.1:9/hook");
    assert_eq!(v["authToken"], "s3cret");
    assert_eq!(v["webHooksFilter"], filter);
    let s = emu.webhook_settings(DEFAULT_ORGANIZATION_ID).unwrap();
    assert_eq!(s.uri, "http://127.0.0.1:9/hook");

    // One record per organization: the second update replaces the first.
    http.post(
        "/api/1/webhooks/update_settings",
        t,
        &json!({"organizationId": DEFAULT_ORGANIZATION_ID, "webHooksUri": "https://example.invalid/x"}),
    );
    let v = http
        .post(
            "/api/1/webhooks/settings",
            t,
            &json!({"organizationId": DEFAULT_ORGANIZATION_ID}),
        )
        .json();
    assert_eq!(v["webHooksUri"], "https://example.invalid/x");
    assert_eq!(v["authToken"], Value::Null);
    assert_eq!(v["webHooksFilter"], Value::Null);

    let bad = [
        json!({"webHooksUri": "http://127.0.0.1/x"}),
        json!({"organizationId": "nope", "webHooksUri": "http://127.0.0.1/x"}),
        json!({"organizationId": "00000000-0000-4000-8000-000000000000", "webHooksUri": "http://127.0.0.1/x"}),
        json!({"organizationId": DEFAULT_ORGANIZATION_ID}),
        json!({"organizationId": DEFAULT_ORGANIZATION_ID, "webHooksUri": "/relative"}),
        json!({"organizationId": DEFAULT_ORGANIZATION_ID, "webHooksUri": "ftp://x/y"}),
        json!({"organizationId": DEFAULT_ORGANIZATION_ID, "webHooksUri": "http://x/", "authToken": 5}),
        json!({"organizationId": DEFAULT_ORGANIZATION_ID, "webHooksUri": "http://x/", "authToken": "a\r\nX-Injected: 1"}),
        json!({"organizationId": DEFAULT_ORGANIZATION_ID, "webHooksUri": "http://x/", "webHooksFilter": []}),
    ];
    for body in bad {
        let r = http.post("/api/1/webhooks/update_settings", t, &body);
        assert_eq!(r.status, 400, "{body}");
        assert_eq!(r.error_code(), "BAD_REQUEST");
    }
    // An organization of another key is not visible.
    let empty = http.token_for(EMPTY_API_KEY);
    let r = http.post(
        "/api/1/webhooks/settings",
        Some(&empty),
        &json!({"organizationId": DEFAULT_ORGANIZATION_ID}),
    );
    assert_eq!(r.status, 400);
}

#[test]
fn stop_lists_with_exact_money() {
    let (_emu, http) = start();
    let token = http.token();
    let t = Some(token.as_str());
    let r = http.post(
        "/api/1/stop_lists",
        t,
        &json!({"organizationIds": [DEFAULT_ORGANIZATION_ID], "returnSize": true}),
    );
    assert_eq!(r.status, 200);
    // Exact decimal text on the wire.
    assert!(r.body.contains("\"balance\":0.1,"), "{}", r.body);
    assert!(r.body.contains("\"balance\":12.35,"), "{}", r.body);
    let v = r.json();
    assert!(is_uuid(v["correlationId"].as_str().unwrap()));
    let lists = v["terminalGroupStopLists"].as_array().unwrap();
    assert_eq!(lists.len(), 1);
    assert_eq!(lists[0]["organizationId"], DEFAULT_ORGANIZATION_ID);
    let groups = lists[0]["items"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0]["terminalGroupId"], DEFAULT_TERMINAL_GROUP_ID);
    let item = &groups[0]["items"][0];
    for key in ["balance", "productId", "sizeId", "sku", "dateAdd"] {
        assert!(item.get(key).is_some(), "{key}");
    }
    assert!(item["sizeId"].is_string());

    // Without returnSize, sizeId is null.
    let v = http
        .post(
            "/api/1/stop_lists",
            t,
            &json!({"organizationIds": [DEFAULT_ORGANIZATION_ID]}),
        )
        .json();
    assert_eq!(
        v["terminalGroupStopLists"][0]["items"][0]["items"][0]["sizeId"],
        Value::Null
    );

    // Filter by terminal group.
    let v = http
        .post(
            "/api/1/stop_lists",
            t,
            &json!({"organizationIds": [DEFAULT_ORGANIZATION_ID, SECOND_ORGANIZATION_ID], "terminalGroupsIds": [SECOND_TERMINAL_GROUP_ID]}),
        )
        .json();
    let lists = v["terminalGroupStopLists"].as_array().unwrap();
    assert_eq!(lists.len(), 2);
    assert_eq!(lists[0]["items"], json!([]));
    assert_eq!(
        lists[1]["items"][0]["terminalGroupId"],
        SECOND_TERMINAL_GROUP_ID
    );

    // organizationIds is required.
    assert_eq!(http.post("/api/1/stop_lists", t, &json!({})).status, 400);
    assert_eq!(
        http.post("/api/1/stop_lists", t, &json!({"organizationIds": ["x"]}))
            .status,
        400
    );
    // Organizations of other keys are left out.
    let empty = http.token_for(EMPTY_API_KEY);
    let v = http
        .post(
            "/api/1/stop_lists",
            Some(&empty),
            &json!({"organizationIds": [DEFAULT_ORGANIZATION_ID]}),
        )
        .json();
    assert_eq!(v["terminalGroupStopLists"], json!([]));
}

#[test]
fn request_log_records_every_request() {
    let (emu, http) = start();
    let token = http.token();
    let r = http.post_raw(
        ORGS,
        Some("application/json"),
        Some(&format!("Bearer {token}")),
        "{}",
    );
    let cid = r.json()["correlationId"].as_str().unwrap().to_string();
    let _ = http.post_raw(ORGS, Some("application/json"), None, "{}");
    let log = emu.requests();
    assert_eq!(log.len(), 3);
    assert_eq!(log[0].path, "/api/v2/access_token");
    assert!(!log[0].authorized);
    assert_eq!(log[1].method, "POST");
    assert_eq!(log[1].status, 200);
    assert!(log[1].authorized);
    assert_eq!(log[1].correlation_id.as_deref(), Some(cid.as_str()));
    assert!(log[1].user_agent.as_deref().unwrap_or("").contains("ureq"));
    assert_eq!(log[1].fault, None);
    assert_eq!(log[2].status, 401);
    assert_eq!(log[2].error.as_deref(), Some("UNAUTHORIZED"));
    assert!(log[2].correlation_id.is_some());
    assert!(log[0].at <= log[1].at && log[1].at <= log[2].at);
    assert_eq!(emu.request_count(ORGS), 2);
    emu.clear_requests();
    assert!(emu.requests().is_empty());
}

#[test]
fn timeout_header_is_recorded() {
    let (emu, http) = start();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let _ = agent
        .post(format!("{}/api/1/access_token", http.base))
        .header("Content-Type", "application/json")
        .header("Timeout", "15")
        .send(json!({"apiLogin": DEFAULT_API_KEY}).to_string().as_bytes())
        .unwrap();
    assert_eq!(emu.requests()[0].timeout_header.as_deref(), Some("15"));
}

#[test]
fn sixteen_concurrent_clients_with_a_slow_one() {
    let (emu, http) = start();
    let token = http.token();
    emu.inject(Fault::new(
        "/api/1/stop_lists",
        FaultKind::Delay(Duration::from_millis(3000)),
        1,
    ));
    let base = emu.url();
    let slow = {
        let (base, token) = (base.clone(), token.clone());
        std::thread::spawn(move || {
            Http::new(base)
                .post(
                    "/api/1/stop_lists",
                    Some(&token),
                    &json!({"organizationIds": [DEFAULT_ORGANIZATION_ID]}),
                )
                .status
        })
    };
    // Let the slow request arrive first.
    assert!(common::eventually(Duration::from_secs(5), || emu
        .request_count("/api/1/stop_lists")
        == 1));
    let workers: Vec<_> = (0..16)
        .map(|_| {
            let (base, token) = (base.clone(), token.clone());
            std::thread::spawn(move || {
                let http = Http::new(base);
                (0..10).all(|_| http.post(ORGS, Some(&token), &json!({})).status == 200)
            })
        })
        .collect();
    for w in workers {
        assert!(w.join().unwrap());
    }
    assert!(
        !slow.is_finished(),
        "the other clients stalled behind the delayed request"
    );
    assert_eq!(slow.join().unwrap(), 200);
    assert_eq!(emu.request_count(ORGS), 160);
}

#[test]
fn custom_fixtures() {
    let text = r#"{
        "apps": [{"appId": "a", "clientSecret": "b"}],
        "apiKeys": [{"apiKey": "k", "name": "n", "organizationIds": ["11111111-1111-4111-8111-111111111111"]}],
        "organizations": [{"id": "11111111-1111-4111-8111-111111111111", "name": null}]
    }"#;
    let emu =
        Emulator::start(EmulatorConfig::default().fixtures(Fixtures::from_json(text).unwrap()))
            .unwrap();
    let http = Http::new(emu.url());
    let r = http.post(
        "/api/v2/access_token",
        None,
        &json!({"appId": "a", "clientSecret": "b", "apiKey": "k"}),
    );
    let token = r.json()["token"].as_str().unwrap().to_string();
    let v = http.post(ORGS, Some(&token), &json!({})).json();
    assert_eq!(
        v["organizations"],
        json!([{"responseType": "Simple", "id": "11111111-1111-4111-8111-111111111111", "name": null, "code": null, "externalData": null}])
    );
    // The defaults do not work here.
    let r = http.post(
        "/api/v2/access_token",
        None,
        &json!({"appId": DEFAULT_APP_ID, "clientSecret": DEFAULT_CLIENT_SECRET, "apiKey": DEFAULT_API_KEY}),
    );
    assert_eq!(r.status, 401);
}

#[test]
fn oversized_body_is_413() {
    let (_emu, http) = start();
    let token = http.token();
    let big = format!("{{\"x\":\"{}\"}}", "a".repeat(1024 * 1024 + 10));
    let r = http.post_raw(
        ORGS,
        Some("application/json"),
        Some(&format!("Bearer {token}")),
        &big,
    );
    assert_eq!(r.status, 413);
    assert_eq!(r.error_code(), "PAYLOAD_TOO_LARGE");
}

#[test]
fn stop_and_drop_close_the_port() {
    let (emu, http) = start();
    let addr = emu.addr();
    assert_eq!(http.post(ORGS, None, &json!({})).status, 401);
    emu.stop();
    assert!(std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_err());
}

#[test]
fn an_answer_the_document_declares_without_content_has_no_body() {
    // deliveries/update_tracking_link: "200 Success" and no content.
    let (_emu, http) = start();
    let token = http.token();
    let r = http.post(
        "/api/1/deliveries/update_tracking_link",
        Some(&token),
        &json!({
            "organizationId": DEFAULT_ORGANIZATION_ID,
            "orderId": "7a0e1d2c-3b4a-4c5d-8e6f-708192a3b4c5",
            "trackingLink": "https://track.example/1",
        }),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.body, "");
    assert_eq!(r.header("Content-Length").as_deref(), Some("0"));
    assert_eq!(r.header("Content-Type"), None);
    // A request that does not fit is still refused with the usual body.
    let r = http.post(
        "/api/1/deliveries/update_tracking_link",
        Some(&token),
        &json!({"organizationId": "nope"}),
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.error_code(), "BAD_REQUEST");
}

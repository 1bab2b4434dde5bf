//! The fault matrix: every failure the emulator can inject (plus a few only a
//! raw socket can produce), each checked for the error class the caller gets,
//! the number of attempts the server saw, and how long the call took.
//!
//! Unless a row says otherwise the client runs the default retry policy (2
//! retries, backoff from 250 ms with jitter between half and the whole delay),
//! so the attempt counts and time bounds here are what a user gets out of the
//! box. docs/reliability.md has the same matrix as a table; keep them in step.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use iikocloud::{
    ApiErrorKind, CallOptions, Client, ClientBuilder, Error, Money, TransportErrorKind,
};
use iikocloud_emulator::{
    Emulator, Fault, FaultKind, DEFAULT_API_KEY, DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET,
};
use serde_json::{json, Value};

const TOKEN: &str = "/api/v2/access_token";
const ORGS: &str = "/api/1/organizations";

/// The smallest and largest sum of the two default backoff pauses: 250 ms and
/// 500 ms, each scaled by a jitter factor in [0.5, 1].
const BACKOFF_MIN: Duration = Duration::from_millis(375);
const BACKOFF_MAX: Duration = Duration::from_millis(750);
/// Allowance for a loaded 2-core machine on top of the expected time.
const SLACK: Duration = Duration::from_millis(1500);

fn builder(base_url: &str) -> ClientBuilder {
    Client::builder()
        .base_url(base_url)
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
}

/// What the caller must get.
#[derive(Debug, Clone, Copy)]
enum Want {
    Ok,
    Api(ApiErrorKind, u16),
    Transport(TransportErrorKind),
    Decode,
}

fn check_class(result: &Result<(), Error>, want: Want, path: &str) {
    match (want, result) {
        (Want::Ok, Ok(())) => {}
        (Want::Api(kind, status), Err(Error::Api(e))) => {
            assert_eq!((e.kind, e.status), (kind, status), "{e}");
            assert_eq!(e.path, path);
            assert!(e.correlation_id.is_some(), "no correlationId: {e}");
        }
        (
            Want::Transport(kind),
            Err(Error::Transport {
                kind: got, path: p, ..
            }),
        ) => {
            assert_eq!(*got, kind, "{result:?}");
            assert_eq!(p, path);
        }
        (
            Want::Decode,
            Err(Error::Decode {
                status, path: p, ..
            }),
        ) => {
            assert_eq!(*status, 200);
            assert_eq!(p, path);
        }
        (want, got) => panic!("wanted {want:?}, got {got:?}"),
    }
}

/// One row of the matrix against the emulator: `fault` on `fault_path`, then
/// one `organizations` call (safe to repeat, so retried) on a warm client, or
/// on a cold one when the fault is on the token endpoint.
struct Row {
    fault_path: &'static str,
    kind: FaultKind,
    times: u32,
    want: Want,
    /// Requests the emulator sees on `/api/1/organizations`.
    calls: usize,
    /// Requests it sees on the token endpoint during the call.
    tokens: usize,
    /// Bounds of the call's duration (the upper one gets `SLACK` added).
    min: Duration,
    max: Duration,
}

fn run_row(row: Row, client: impl FnOnce(&str) -> Client) -> Error {
    let emu = Emulator::start_default().unwrap();
    let client = client(&emu.url());
    let cold = row.fault_path == TOKEN;
    if !cold {
        client.access_token().unwrap();
        emu.clear_requests();
    }
    emu.inject(Fault::new(row.fault_path, row.kind.clone(), row.times));
    let started = Instant::now();
    let result = client.organizations(&Default::default()).map(|_| ());
    let took = started.elapsed();
    let error_path = if cold && !matches!(row.want, Want::Ok) {
        TOKEN
    } else {
        ORGS
    };
    check_class(&result, row.want, error_path);
    assert_eq!(
        emu.request_count(ORGS),
        row.calls,
        "calls for {:?}",
        row.kind
    );
    assert_eq!(
        emu.request_count(TOKEN),
        row.tokens,
        "token requests for {:?}",
        row.kind
    );
    assert!(
        took >= row.min && took < row.max + SLACK,
        "{:?} took {took:?}, wanted {:?}..{:?}",
        row.kind,
        row.min,
        row.max + SLACK
    );
    // Faults are consumed by the attempts made, and nothing else is left armed.
    emu.clear_faults();
    result
        .err()
        .unwrap_or(Error::InvalidInput("no error".into()))
}

fn default_client(url: &str) -> Client {
    builder(url).build().unwrap()
}

/// A non-idempotent raw call sees `fault` once: never retried.
fn raw_call_once(kind: FaultKind, want: Want) {
    let emu = Emulator::start_default().unwrap();
    let client = default_client(&emu.url());
    client.access_token().unwrap();
    emu.clear_requests();
    emu.inject(Fault::new(ORGS, kind.clone(), 10));
    let started = Instant::now();
    let result = client
        .call(ORGS, &json!({}), &CallOptions::default())
        .map(|_| ());
    check_class(&result, want, ORGS);
    assert_eq!(emu.request_count(ORGS), 1, "{kind:?} was retried");
    assert!(started.elapsed() < SLACK, "{:?}", started.elapsed());
}

#[test]
fn delay_past_the_client_timeout() {
    // Timeout header 1 s, client timeout 1.5 s: each attempt gives up at
    // 1.5 s, and a timeout is retried like any transport error.
    let attempt = Duration::from_millis(1500);
    let short = |url: &str| {
        builder(url)
            .timeout(Duration::from_secs(1))
            .client_timeout(attempt)
            .build()
            .unwrap()
    };
    let err = run_row(
        Row {
            fault_path: ORGS,
            kind: FaultKind::Delay(Duration::from_secs(4)),
            times: 3,
            want: Want::Transport(TransportErrorKind::Timeout),
            calls: 3,
            tokens: 0,
            min: attempt * 3 + BACKOFF_MIN,
            max: attempt * 3 + BACKOFF_MAX,
        },
        short,
    );
    assert!(err.is_timeout());

    // Not safe to repeat: one attempt, one timeout.
    let emu = Emulator::start_default().unwrap();
    let client = short(&emu.url());
    client.access_token().unwrap();
    emu.inject(Fault::new(
        ORGS,
        FaultKind::Delay(Duration::from_secs(4)),
        1,
    ));
    let started = Instant::now();
    let err = client
        .call(ORGS, &json!({}), &CallOptions::default())
        .unwrap_err();
    let took = started.elapsed();
    assert!(err.is_timeout(), "{err:?}");
    assert_eq!(emu.request_count(ORGS), 1);
    assert!(took >= attempt && took < attempt + SLACK, "{took:?}");
}

#[test]
fn server_errors_500_502_503_are_retried_twice_then_surface() {
    for status in [500, 502, 503] {
        run_row(
            Row {
                fault_path: ORGS,
                kind: FaultKind::Status(status),
                times: 10,
                want: Want::Api(ApiErrorKind::Server, status),
                calls: 3,
                tokens: 0,
                min: BACKOFF_MIN,
                max: BACKOFF_MAX,
            },
            default_client,
        );
        raw_call_once(
            FaultKind::Status(status),
            Want::Api(ApiErrorKind::Server, status),
        );
    }
}

#[test]
fn a_passing_outage_is_invisible() {
    // Two 503s, then the service is back: the third attempt succeeds.
    run_row(
        Row {
            fault_path: ORGS,
            kind: FaultKind::Status(503),
            times: 2,
            want: Want::Ok,
            calls: 3,
            tokens: 0,
            min: BACKOFF_MIN,
            max: BACKOFF_MAX,
        },
        default_client,
    );
}

#[test]
fn rate_limit_429_is_surfaced_at_once_with_retry_after() {
    let err = run_row(
        Row {
            fault_path: ORGS,
            kind: FaultKind::RateLimited {
                retry_after_secs: 7,
            },
            times: 10,
            want: Want::Api(ApiErrorKind::RateLimited, 429),
            calls: 1,
            tokens: 0,
            min: Duration::ZERO,
            max: Duration::ZERO,
        },
        default_client,
    );
    assert_eq!(err.api().unwrap().retry_after, Some(Duration::from_secs(7)));
}

#[test]
fn connection_reset_is_a_retried_transport_error() {
    run_row(
        Row {
            fault_path: ORGS,
            kind: FaultKind::ConnectionReset,
            times: 10,
            want: Want::Transport(TransportErrorKind::Io),
            calls: 3,
            tokens: 0,
            min: BACKOFF_MIN,
            max: BACKOFF_MAX,
        },
        default_client,
    );
    raw_call_once(
        FaultKind::ConnectionReset,
        Want::Transport(TransportErrorKind::Io),
    );
}

#[test]
fn truncated_json_body_is_a_decode_error_not_retried() {
    // A complete HTTP answer whose JSON stops mid-value: the request was
    // served, so repeating it would not help.
    let err = run_row(
        Row {
            fault_path: ORGS,
            kind: FaultKind::MalformedBody,
            times: 10,
            want: Want::Decode,
            calls: 1,
            tokens: 0,
            min: Duration::ZERO,
            max: Duration::ZERO,
        },
        default_client,
    );
    assert!(
        err.correlation_id().is_none(),
        "the truncated body has none"
    );
    assert!(err.to_string().contains("unreadable body"), "{err}");
}

#[test]
fn wrong_content_type_is_a_decode_error_naming_it() {
    let err = run_row(
        Row {
            fault_path: ORGS,
            kind: FaultKind::WrongContentType,
            times: 10,
            want: Want::Decode,
            calls: 1,
            tokens: 0,
            min: Duration::ZERO,
            max: Duration::ZERO,
        },
        default_client,
    );
    assert!(err.to_string().contains("Content-Type"), "{err}");
}

#[test]
fn a_401_on_a_valid_token_is_healed_by_one_new_token() {
    run_row(
        Row {
            fault_path: ORGS,
            kind: FaultKind::Unauthorized,
            times: 1,
            want: Want::Ok,
            calls: 2,
            tokens: 1,
            min: Duration::ZERO,
            max: Duration::ZERO,
        },
        default_client,
    );
    // Twice in a row: one new token, one retry, then the error.
    run_row(
        Row {
            fault_path: ORGS,
            kind: FaultKind::Unauthorized,
            times: 10,
            want: Want::Api(ApiErrorKind::Unauthorized, 401),
            calls: 2,
            tokens: 1,
            min: Duration::ZERO,
            max: Duration::ZERO,
        },
        default_client,
    );
    // The token refresh applies to calls that are not safe to repeat too: a
    // 401 means the service did not act on the request.
    let emu = Emulator::start_default().unwrap();
    let client = default_client(&emu.url());
    client.access_token().unwrap();
    emu.inject(Fault::new(ORGS, FaultKind::Unauthorized, 1));
    client
        .call(ORGS, &json!({}), &CallOptions::default())
        .unwrap();
    assert_eq!(emu.request_count(ORGS), 2);
    assert_eq!(emu.request_count(TOKEN), 2);
}

#[test]
fn token_endpoint_down_503_is_retried_twice_then_surfaces() {
    run_row(
        Row {
            fault_path: TOKEN,
            kind: FaultKind::Status(503),
            times: 10,
            want: Want::Api(ApiErrorKind::Server, 503),
            calls: 0,
            tokens: 3,
            min: BACKOFF_MIN,
            max: BACKOFF_MAX,
        },
        default_client,
    );
}

#[test]
fn token_endpoint_connection_reset_is_retried_twice_then_surfaces() {
    run_row(
        Row {
            fault_path: TOKEN,
            kind: FaultKind::ConnectionReset,
            times: 10,
            want: Want::Transport(TransportErrorKind::Io),
            calls: 0,
            tokens: 3,
            min: BACKOFF_MIN,
            max: BACKOFF_MAX,
        },
        default_client,
    );
}

#[test]
fn token_endpoint_rate_limited_is_never_retried() {
    // iiko may block an API login that keeps asking for tokens.
    run_row(
        Row {
            fault_path: TOKEN,
            kind: FaultKind::RateLimited {
                retry_after_secs: 3,
            },
            times: 10,
            want: Want::Api(ApiErrorKind::RateLimited, 429),
            calls: 0,
            tokens: 1,
            min: Duration::ZERO,
            max: Duration::ZERO,
        },
        default_client,
    );
}

#[test]
fn token_endpoint_coming_back_is_invisible() {
    run_row(
        Row {
            fault_path: TOKEN,
            kind: FaultKind::Status(503),
            times: 2,
            want: Want::Ok,
            calls: 1,
            tokens: 3,
            min: BACKOFF_MIN,
            max: BACKOFF_MAX,
        },
        default_client,
    );
}

#[test]
fn retries_zero_means_one_attempt() {
    // The policy is the builder's: with retries(0) a 503 is final at once.
    run_row(
        Row {
            fault_path: ORGS,
            kind: FaultKind::Status(503),
            times: 10,
            want: Want::Api(ApiErrorKind::Server, 503),
            calls: 1,
            tokens: 0,
            min: Duration::ZERO,
            max: Duration::ZERO,
        },
        |url| builder(url).retries(0).build().unwrap(),
    );
}

// ---- answers the emulator cannot give: a raw loopback stub --------------

/// A loopback HTTP/1.1 server answering every request to the token endpoint
/// with a token, and every other request with `answer` (raw bytes, written
/// as is, then the connection is closed). Records each request's path and body.
/// Bounded: it stops accepting after 30 s or 32 connections.
struct Stub {
    url: String,
    paths: Arc<RequestLog>,
}

/// Each request's path and body, in order.
type RequestLog = Mutex<Vec<(String, Vec<u8>)>>;

impl Stub {
    fn start(answer: Vec<u8>) -> Stub {
        let answer: &'static [u8] = answer.leak();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let paths = Arc::new(Mutex::new(Vec::new()));
        let log = paths.clone();
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(30);
            let mut served = 0;
            while Instant::now() < deadline && served < 32 {
                match listener.accept() {
                    Ok((stream, _)) => {
                        served += 1;
                        let log = log.clone();
                        std::thread::spawn(move || serve(stream, answer, &log));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Stub { url, paths }
    }

    fn count(&self, path: &str) -> usize {
        self.paths
            .lock()
            .unwrap()
            .iter()
            .filter(|(p, _)| p == path)
            .count()
    }

    fn bodies(&self, path: &str) -> Vec<Vec<u8>> {
        let log = self.paths.lock().unwrap();
        log.iter()
            .filter(|(p, _)| p == path)
            .map(|(_, b)| b.clone())
            .collect()
    }
}

/// Serves the requests of one connection (keep-alive) until the client closes
/// it, or until an `answer` closes it.
fn serve(mut stream: TcpStream, answer: &[u8], log: &RequestLog) {
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut buf = Vec::new();
    for _ in 0..16 {
        // Read the head, then Content-Length bytes of body.
        let head_end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            let mut chunk = [0u8; 4096];
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
        let length: usize = head
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().ok())?
            })
            .unwrap_or(0);
        while buf.len() < head_end + length {
            let mut chunk = [0u8; 4096];
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        let body: Vec<u8> = buf.drain(..head_end + length).skip(head_end).collect();
        let path = head.split_whitespace().nth(1).unwrap_or("").to_owned();
        log.lock().unwrap().push((path.clone(), body));
        if path == TOKEN {
            let body =
                br#"{"correlationId":"00000000-0000-4000-8000-000000000001","token":"stub-token"}"#;
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            if stream.write_all(reply.as_bytes()).is_err() || stream.write_all(body).is_err() {
                return;
            }
        } else {
            let _ = stream.write_all(answer);
            return;
        }
    }
}

/// A complete `200` answer with this JSON body.
fn json_200(body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// One `organizations` call against a stub answer; the outcome, the attempts
/// the stub saw, and the time taken.
fn against_stub(answer: Vec<u8>) -> (Result<(), Error>, usize, Duration) {
    let stub = Stub::start(answer);
    let client = default_client(&stub.url);
    client.access_token().unwrap();
    let started = Instant::now();
    let result = client.organizations(&Default::default()).map(|_| ());
    let took = started.elapsed();
    assert_eq!(stub.count(TOKEN), 1, "one token for the whole row");
    (result, stub.count(ORGS), took)
}

#[test]
fn malformed_json_is_a_decode_error_not_retried() {
    // Complete, well-framed, and not JSON: a broken array.
    let (result, attempts, took) =
        against_stub(json_200(r#"{"correlationId":"c","organizations":[}"#));
    match &result {
        Err(Error::Decode { status: 200, .. }) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(attempts, 1);
    assert!(took < SLACK, "{took:?}");
}

#[test]
fn json_of_the_wrong_shape_is_a_decode_error_not_retried() {
    let (result, attempts, took) = against_stub(json_200(r#"{"organizations":"x"}"#));
    match &result {
        Err(Error::Decode { status: 200, .. }) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(attempts, 1);
    assert!(took < SLACK, "{took:?}");
}

#[test]
fn a_body_cut_short_of_its_content_length_is_a_retried_transport_error() {
    // The connection closes 20 bytes into a 200-byte body.
    let (result, attempts, took) = against_stub(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"organizations\":[{"
            .to_vec(),
    );
    match &result {
        Err(Error::Transport { kind, .. }) => assert_eq!(*kind, TransportErrorKind::Io),
        other => panic!("{other:?}"),
    }
    assert_eq!(attempts, 3, "retried like a reset connection");
    assert!(
        took >= BACKOFF_MIN && took < BACKOFF_MAX + SLACK,
        "{took:?}"
    );
}

#[test]
fn raw_text_call_keeps_every_digit_both_ways() {
    let answer = br#"{"sum":12345678901234567.891,"price":0.30000000000000004441}"#;
    let reply = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        answer.len()
    );
    let stub = Stub::start([reply.as_bytes(), answer].concat());
    let client = builder(&stub.url).build().unwrap();
    let body = r#"{"amount":98765432109876543.21}"#;
    let text = client
        .call_text("/api/1/anything", body, &CallOptions::default())
        .unwrap();
    assert_eq!(text.as_bytes(), answer);
    assert_eq!(
        stub.bodies("/api/1/anything"),
        vec![body.as_bytes().to_vec()]
    );
    // What the Value call makes of the same answer: the digits a float drops.
    let value = client
        .call("/api/1/anything", &json!({}), &CallOptions::default())
        .unwrap();
    assert_ne!(value["sum"].to_string(), "12345678901234567.891");

    for (bad, why) in [("[1]", "JSON object"), ("{", "not JSON"), ("", "not JSON")] {
        let err = client
            .call_text("/api/1/anything", bad, &CallOptions::default())
            .unwrap_err();
        assert!(err.to_string().contains(why), "{bad:?}: {err}");
    }
}

#[test]
fn raw_call_into_types_keeps_amounts_exact_decimals() {
    #[derive(serde::Deserialize)]
    struct Amounts {
        sum: Money,
        price: Money,
        items: Vec<Money>,
    }
    let answer = br#"{"sum":1250.50,"price":0.30000000000000004,"items":[0.1,0.2,99999999999.99]}"#;
    let reply = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        answer.len()
    );
    let stub = Stub::start([reply.as_bytes(), answer].concat());
    let client = builder(&stub.url).build().unwrap();
    let body = json!({"organizationId": "441e1320-3f58-4702-9f9e-aa34cdef9c04"});
    let amounts: Amounts = client
        .call_as("/api/1/anything", &body, &CallOptions::default())
        .unwrap();
    assert_eq!(amounts.sum.to_string(), "1250.5");
    assert_eq!(amounts.price.to_string(), "0.30000000000000004");
    let total = amounts
        .items
        .iter()
        .fold(rust_decimal::Decimal::ZERO, |t, m| t + m.as_decimal());
    // In f64 the same sum is 100000000000.29001.
    assert_eq!(total.to_string(), "100000000000.29");
    assert_eq!(
        stub.bodies("/api/1/anything"),
        vec![serde_json::to_vec(&body).unwrap()]
    );
    let err = client
        .call_as::<Value>("/api/1/anything", &json!([1]), &CallOptions::default())
        .unwrap_err();
    assert!(err.to_string().contains("JSON object"), "{err}");
}

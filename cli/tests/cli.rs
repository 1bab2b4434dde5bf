//! End-to-end tests of the `iikocloud` binary against an in-process emulator.
//!
//! The emulator's fixtures get distinctive credentials, so that a test can
//! assert they never appear in anything the tool prints.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use iikocloud_emulator::{
    DeliveryConfig, DeliveryOutcome, Emulator, EmulatorConfig, Fixtures, DEFAULT_FIXTURES_JSON,
    DEFAULT_ORGANIZATION_ID, DEFAULT_TERMINAL_GROUP_ID,
};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_iikocloud");
const APP_ID: &str = "cli-test-app";
const SECRET: &str = "cli-test-secret-5b2f9e01";
const API_KEY: &str = "cli-test-apikey-8c41d0aa";
const HOOK_TOKEN: &str = "cli-test-hooktoken-77aa31f";
/// Every JWT starts with the base64url of `{"`; no output may hold a token
/// unless `--reveal` asked for it.
const JWT_PREFIX: &str = "eyJ";
const ENV_VARS: [&str; 6] = [
    "IIKO_BASE_URL",
    "IIKO_APP_ID",
    "IIKO_CLIENT_SECRET",
    "IIKO_API_KEY",
    "IIKO_API_LOGIN",
    "IIKO_WEBHOOK_TOKEN",
];
const PAYLOADS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/payloads");

fn emulator() -> Emulator {
    let json = DEFAULT_FIXTURES_JSON
        .replace("emulator-secret", SECRET)
        .replace("\"emulator-api-key\"", &format!("\"{API_KEY}\""))
        .replace("emulator-app", APP_ID);
    let fixtures = Fixtures::from_json(&json).expect("fixtures");
    Emulator::start(
        EmulatorConfig::default()
            .fixtures(fixtures)
            .delivery(DeliveryConfig::fast()),
    )
    .expect("emulator starts")
}

/// The binary with none of our variables inherited from the test's shell.
fn bare() -> Command {
    let mut c = Command::new(BIN);
    for v in ENV_VARS {
        c.env_remove(v);
    }
    c.stdin(Stdio::null());
    c
}

/// The binary with v2 credentials of `emu` in the environment.
fn with_env(emu: &Emulator) -> Command {
    let mut c = bare();
    c.env("IIKO_BASE_URL", emu.url())
        .env("IIKO_APP_ID", APP_ID)
        .env("IIKO_CLIENT_SECRET", SECRET)
        .env("IIKO_API_KEY", API_KEY);
    c
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Out {
    fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }

    fn stderr_json(&self) -> Value {
        serde_json::from_str(self.stderr.trim())
            .unwrap_or_else(|e| panic!("stderr is not JSON ({e}):\n{}", self.stderr))
    }
}

fn out(o: Output) -> Out {
    Out {
        code: o.status.code().expect("exited normally"),
        stdout: String::from_utf8(o.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(o.stderr).expect("utf-8 stderr"),
    }
}

fn run(c: &mut Command, args: &[&str]) -> Out {
    out(c.args(args).output().expect("runs"))
}

fn run_stdin(c: &mut Command, args: &[&str], input: &[u8]) -> Out {
    let mut child = c
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    child.stdin.take().unwrap().write_all(input).unwrap();
    out(child.wait_with_output().unwrap())
}

#[track_caller]
fn assert_code(o: &Out, code: i32) {
    assert_eq!(
        o.code, code,
        "exit code\nstdout:\n{}\nstderr:\n{}",
        o.stdout, o.stderr
    );
}

/// No credential, webhook token or access token in anything printed.
#[track_caller]
fn assert_no_secrets(o: &Out) {
    let all = o.all();
    for s in [SECRET, API_KEY, HOOK_TOKEN, JWT_PREFIX] {
        assert!(!all.contains(s), "{s:?} printed:\n{all}");
    }
}

/// A spawned binary that is killed if the test ends early.
struct Spawned {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Spawned {
    fn start(mut c: Command) -> Spawned {
        let mut child = c
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawns");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Spawned { child, lines: rx }
    }

    fn line(&self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(10))
            .expect("a line within 10 s")
    }

    /// Lines until `pred` holds for one of them (that one included).
    fn lines_until(&self, pred: impl Fn(&str) -> bool) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let l = self.line();
            let done = pred(&l);
            seen.push(l);
            if done {
                return seen;
            }
        }
    }

    fn wait(&mut self, timeout: Duration) -> i32 {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().unwrap_or(-1);
            }
            assert!(Instant::now() < deadline, "the process did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// POSTs `body` with `authorization` and returns the status answered.
fn post(addr: &str, authorization: &str, body: &str) -> u16 {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(
        s,
        "POST /hook HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Authorization: {authorization}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    answer.split_whitespace().nth(1).unwrap().parse().unwrap()
}

// ---------------------------------------------------------------- help, usage

#[test]
fn every_command_has_help() {
    let commands: [&[&str]; 15] = [
        &[],
        &["ops"],
        &["schema"],
        &["token"],
        &["organizations"],
        &["stop-lists"],
        &["call"],
        &["webhook"],
        &["webhook", "get"],
        &["webhook", "set"],
        &["webhook", "parse"],
        &["webhook", "verify"],
        &["webhook", "listen"],
        &["emulator"],
        &["demo"],
    ];
    for args in commands {
        let mut all = args.to_vec();
        all.push("--help");
        let o = run(&mut bare(), &all);
        assert_code(&o, 0);
        assert!(
            o.stdout.contains("Usage: iikocloud"),
            "{args:?}: {}",
            o.stdout
        );
    }
    let o = run(&mut bare(), &["--version"]);
    assert_code(&o, 0);
}

#[test]
fn help_never_shows_values_from_the_environment() {
    let emu = emulator();
    for args in [
        &["token", "--help"][..],
        &["webhook", "set", "--help"],
        &["webhook", "listen", "--help"],
        &["webhook", "verify", "--help"],
    ] {
        let o = run(with_env(&emu).env("IIKO_WEBHOOK_TOKEN", HOOK_TOKEN), args);
        assert_code(&o, 0);
        assert!(o.stdout.contains("IIKO_"), "{}", o.stdout);
        assert_no_secrets(&o);
        assert!(!o.stdout.contains(&emu.url()), "{}", o.stdout);
    }
}

#[test]
fn usage_and_configuration_errors_exit_2() {
    let o = run(&mut bare(), &["no-such-command"]);
    assert_code(&o, 2);
    let o = run(&mut bare(), &[]);
    assert_code(&o, 2);

    let o = run(&mut bare(), &["organizations"]);
    assert_code(&o, 2);
    assert!(o.stderr.contains("IIKO_APP_ID"), "{}", o.stderr);

    let o = run(&mut bare(), &["token", "--client-secret", SECRET]);
    assert_code(&o, 2);
    assert!(o.stderr.contains("--app-id"), "{}", o.stderr);
    assert_no_secrets(&o);

    // A secret starting with '-' is a value, not an unknown flag to quote.
    let o = run(&mut bare(), &["token", "--client-secret", "-cli-test-dash"]);
    assert_code(&o, 2);
    assert!(!o.all().contains("cli-test-dash"), "{}", o.all());

    let emu = emulator();
    let o = run(
        with_env(&emu).env("IIKO_BASE_URL", "ftp://example.com"),
        &["organizations"],
    );
    assert_code(&o, 2);
    assert!(o.stderr.contains("base URL"), "{}", o.stderr);
    assert_no_secrets(&o);

    let o = run(&mut bare(), &["webhook", "listen", "--port", "0"]);
    assert_code(&o, 2);
    let o = run(
        &mut bare(),
        &["webhook", "listen", "--port", "0", "--token", " "],
    );
    assert_code(&o, 2);
}

// ---------------------------------------------------------------- API commands

#[test]
fn token_with_credentials_from_the_environment() {
    let emu = emulator();
    let o = run(&mut with_env(&emu), &["token"]);
    assert_code(&o, 0);
    assert!(o.stdout.contains("access token obtained"), "{}", o.stdout);
    // No spinner: stderr is not a terminal here.
    assert_eq!(o.stderr, "");
    assert_no_secrets(&o);

    let o = run(&mut with_env(&emu), &["token", "--json"]);
    assert_code(&o, 0);
    let v = o.json();
    assert!(v["length"].as_u64().unwrap() > 20);
    assert!(v["expiresInSecs"].as_u64().unwrap() > 3000);
    assert!(v.get("token").is_none());
    assert_no_secrets(&o);

    let o = run(&mut with_env(&emu), &["token", "--reveal"]);
    assert_code(&o, 0);
    let token = o.stdout.trim();
    assert!(token.starts_with(JWT_PREFIX) && token.split('.').count() == 3);
    let o = run(&mut with_env(&emu), &["--json", "token", "--reveal"]);
    assert!(o.json()["token"].as_str().unwrap().starts_with(JWT_PREFIX));
    assert_eq!(emu.request_count("/api/v2/access_token"), 4);
}

#[test]
fn credentials_from_flags_and_the_legacy_login() {
    let emu = emulator();
    let url = emu.url();
    let flags = [
        "organizations",
        "--base-url",
        &url,
        "--app-id",
        APP_ID,
        "--client-secret",
        SECRET,
        "--api-key",
        API_KEY,
    ];
    let o = run(&mut bare(), &flags);
    assert_code(&o, 0);
    assert!(
        o.stdout.contains("Emulator Pizza (Central)"),
        "{}",
        o.stdout
    );
    assert_no_secrets(&o);

    // The legacy apiLogin is the API key of the emulator.
    let o = run(
        bare()
            .env("IIKO_BASE_URL", &url)
            .env("IIKO_API_LOGIN", API_KEY),
        &["organizations"],
    );
    assert_code(&o, 0);
    assert_eq!(emu.request_count("/api/1/access_token"), 1);
    assert_no_secrets(&o);
}

#[test]
fn organizations_as_a_table_and_as_json() {
    let emu = emulator();
    let o = run(&mut with_env(&emu), &["organizations"]);
    assert_code(&o, 0);
    assert!(o.stdout.contains("2 organization(s)"), "{}", o.stdout);
    assert!(o.stdout.contains(DEFAULT_ORGANIZATION_ID), "{}", o.stdout);

    let o = run(
        &mut with_env(&emu),
        &[
            "organizations",
            "--json",
            "--include-disabled",
            "--extended",
        ],
    );
    assert_code(&o, 0);
    let v = o.json();
    assert_eq!(v["organizations"].as_array().unwrap().len(), 3);
    assert!(v["correlationId"].is_string());

    let o = run(
        &mut with_env(&emu),
        &["organizations", "--json", "--id", DEFAULT_ORGANIZATION_ID],
    );
    assert_eq!(o.json()["organizations"].as_array().unwrap().len(), 1);

    // A bad UUID is refused before sending: invalid input.
    let o = run(&mut with_env(&emu), &["organizations", "--id", "nope"]);
    assert_code(&o, 3);
    assert_no_secrets(&o);
}

#[test]
fn stop_lists_of_every_organization_or_one() {
    let emu = emulator();
    let o = run(&mut with_env(&emu), &["stop-lists"]);
    assert_code(&o, 0);
    assert!(o.stdout.contains(DEFAULT_TERMINAL_GROUP_ID), "{}", o.stdout);
    assert!(o.stdout.contains("12.35"), "{}", o.stdout);

    let o = run(&mut with_env(&emu), &["stop-lists", "--json"]);
    assert_code(&o, 0);
    assert_eq!(
        o.json()["terminalGroupStopLists"].as_array().unwrap().len(),
        2
    );

    let o = run(
        &mut with_env(&emu),
        &["--json", "stop-lists", "--org", DEFAULT_ORGANIZATION_ID],
    );
    assert_code(&o, 0);
    let v = o.json();
    assert_eq!(v["terminalGroupStopLists"].as_array().unwrap().len(), 1);
    // Money stays exact on the way through.
    assert!(o.stdout.contains("12.35"));
    assert_no_secrets(&o);
}

#[test]
fn webhook_set_then_get_never_shows_the_auth_token() {
    let emu = emulator();
    let hook = "http://127.0.0.1:9/hook";
    let set = |extra: &[&str]| {
        let mut args = vec![
            "webhook",
            "set",
            "--org",
            DEFAULT_ORGANIZATION_ID,
            "--url",
            hook,
        ];
        args.extend_from_slice(extra);
        run(with_env(&emu).env("IIKO_WEBHOOK_TOKEN", HOOK_TOKEN), &args)
    };
    let o = set(&[]);
    assert_code(&o, 0);
    assert_no_secrets(&o);
    let stored = emu.webhook_settings(DEFAULT_ORGANIZATION_ID).unwrap();
    assert_eq!(stored.uri, hook);

    let o = set(&[
        "--filter",
        r#"{"deliveryOrderFilter":{"errors":true}}"#,
        "--json",
    ]);
    assert_code(&o, 0);
    assert!(o.json()["correlationId"].is_string());

    let o = set(&["--filter", "[1]"]);
    assert_code(&o, 3);

    let o = run(
        &mut with_env(&emu),
        &[
            "webhook",
            "set",
            "--org",
            DEFAULT_ORGANIZATION_ID,
            "--url",
            hook,
        ],
    );
    assert_code(&o, 2);
    assert!(o.stderr.contains("IIKO_WEBHOOK_TOKEN"), "{}", o.stderr);

    let get = ["webhook", "get", "--org", DEFAULT_ORGANIZATION_ID];
    let o = run(&mut with_env(&emu), &get);
    assert_code(&o, 0);
    assert!(o.stdout.contains(hook), "{}", o.stdout);
    assert!(o.stdout.contains("deliveryOrderFilter"), "{}", o.stdout);
    assert_no_secrets(&o);

    let o = run(&mut with_env(&emu), &[&get[..], &["--json"]].concat());
    assert_code(&o, 0);
    let v = o.json();
    assert_eq!(v["webHooksUri"], hook);
    assert_eq!(v["authToken"], "[redacted]");
    assert_no_secrets(&o);

    let o = run(&mut with_env(&emu), &[&get[..], &["--reveal"]].concat());
    assert!(o.stdout.contains(HOOK_TOKEN), "{}", o.stdout);
}

#[test]
fn call_sends_any_body_and_hides_tokens_in_the_answer() {
    let emu = emulator();
    let body = format!(r#"{{"organizationId":"{DEFAULT_ORGANIZATION_ID}"}}"#);
    let o = run(
        with_env(&emu).env("IIKO_WEBHOOK_TOKEN", HOOK_TOKEN),
        &[
            "webhook",
            "set",
            "--org",
            DEFAULT_ORGANIZATION_ID,
            "--url",
            "http://127.0.0.1:9/h",
        ],
    );
    assert_code(&o, 0);

    let o = run(
        &mut with_env(&emu),
        &["call", "/api/1/webhooks/settings", &body, "--json"],
    );
    assert_code(&o, 0);
    let v = o.json();
    assert_eq!(v["authToken"], "[redacted]");
    assert_no_secrets(&o);

    let o = run_stdin(
        &mut with_env(&emu),
        &["call", "/api/1/stop_lists", "-", "--idempotent"],
        format!(r#"{{"organizationIds":["{DEFAULT_ORGANIZATION_ID}"]}}"#).as_bytes(),
    );
    assert_code(&o, 0);
    assert!(o.json()["terminalGroupStopLists"].is_array());

    // Invalid JSON and a non-object body are refused before any request.
    let before = emu.requests().len();
    let o = run(&mut with_env(&emu), &["call", "/api/1/stop_lists", "{oops"]);
    assert_code(&o, 3);
    assert!(o.stderr.contains("not valid JSON"), "{}", o.stderr);
    let o = run(&mut with_env(&emu), &["call", "/api/1/stop_lists", "[1]"]);
    assert_code(&o, 3);
    assert_eq!(emu.requests().len(), before);
}

#[test]
fn api_errors_exit_1_with_the_correlation_id_and_no_secret() {
    let emu = emulator();
    let o = run(
        with_env(&emu).env("IIKO_CLIENT_SECRET", "cli-test-wrong-secret"),
        &["organizations"],
    );
    assert_code(&o, 1);
    assert!(o.stderr.contains("INVALID_CREDENTIALS"), "{}", o.stderr);
    assert!(o.stderr.contains("correlationId"), "{}", o.stderr);
    assert!(!o.all().contains("cli-test-wrong-secret"));
    assert_no_secrets(&o);

    let o = run(&mut with_env(&emu), &["--json", "call", "/api/1/nope"]);
    assert_code(&o, 1);
    assert_eq!(o.stdout, "");
    let e = &o.stderr_json()["error"];
    assert_eq!(e["exitCode"], 1);
    assert_eq!(e["status"], 404);
    assert_eq!(e["kind"], "api");
    let cid = e["correlationId"].as_str().unwrap();
    assert_eq!(
        emu.requests().last().unwrap().correlation_id.as_deref(),
        Some(cid)
    );
    assert_no_secrets(&o);
}

#[test]
fn network_errors_exit_1() {
    // A port that was free a moment ago: connection refused.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let o = run(
        bare()
            .env("IIKO_BASE_URL", format!("http://127.0.0.1:{port}"))
            .env("IIKO_API_LOGIN", API_KEY),
        &["token"],
    );
    assert_code(&o, 1);
    assert!(o.stderr.contains("could not connect"), "{}", o.stderr);
    assert_no_secrets(&o);
}

// ---------------------------------------------------------------- webhooks

#[test]
fn webhook_parse_reads_files_and_stdin() {
    let file = format!("{PAYLOADS}/multi_all_types.json");
    let o = run(&mut bare(), &["webhook", "parse", &file]);
    assert_code(&o, 0);
    assert!(o.stdout.starts_with("8 event(s)"), "{}", o.stdout);
    for ty in [
        "DeliveryOrderUpdate",
        "ReserveError",
        "StopListUpdate",
        "PersonalShift",
    ] {
        assert!(o.stdout.contains(ty), "{ty}: {}", o.stdout);
    }
    assert!(o.stdout.contains("#10452"), "{}", o.stdout);

    let body = std::fs::read(&file).unwrap();
    let o = run_stdin(&mut bare(), &["webhook", "parse", "--json"], &body);
    assert_code(&o, 0);
    let v = o.json();
    assert_eq!(v["count"], 8);
    assert_eq!(v["invalid"], 0);
    assert_eq!(v["events"][0]["kind"], "DeliveryOrderUpdate");
    assert!(v["events"][0]["dedupKey"].is_string());

    let o = run_stdin(
        &mut bare(),
        &["webhook", "parse"],
        br#"[1, {"eventType":"Future","eventInfo":{}}]"#,
    );
    assert_code(&o, 0);
    assert!(o.stdout.contains("UNREADABLE"), "{}", o.stdout);
    let o = run_stdin(&mut bare(), &["webhook", "parse", "--strict"], b"[1]");
    assert_code(&o, 3);
}

#[test]
fn webhook_parse_fails_with_exit_3_on_a_malformed_body() {
    for body in [&b"{\"a\":"[..], b"\"text\"", b"", b"\xff[]"] {
        let o = run_stdin(&mut bare(), &["webhook", "parse"], body);
        assert_code(&o, 3);
        assert!(o.stderr.contains("malformed webhook body"), "{}", o.stderr);
        assert_eq!(o.stdout, "");
    }
    let o = run_stdin(&mut bare(), &["webhook", "parse", "--json"], b"{\"a\":");
    assert_code(&o, 3);
    let e = &o.stderr_json()["error"];
    assert_eq!(e["parseError"], "invalid_json");
    assert_eq!(e["exitCode"], 3);

    let o = run(&mut bare(), &["webhook", "parse", "/no/such/file.json"]);
    assert_code(&o, 3);
}

#[test]
fn webhook_verify_answers_with_its_exit_code() {
    let verify = |header: &str, token: &str| {
        run(
            &mut bare(),
            &["webhook", "verify", "--header", header, "--token", token],
        )
    };
    let o = verify(HOOK_TOKEN, HOOK_TOKEN);
    assert_code(&o, 0);
    assert_no_secrets(&o);
    assert_code(&verify(&format!("Bearer {HOOK_TOKEN}"), HOOK_TOKEN), 0);

    let o = verify("cli-test-other", HOOK_TOKEN);
    assert_code(&o, 4);
    assert!(o.stdout.contains("mismatch"), "{}", o.stdout);
    assert_no_secrets(&o);
    assert!(!o.all().contains("cli-test-other"));

    assert_code(&verify(&format!(" {HOOK_TOKEN}"), HOOK_TOKEN), 4);
    assert_code(&verify("", HOOK_TOKEN), 4);
    assert_code(&verify(HOOK_TOKEN, " "), 2);

    let o = run(
        bare().env("IIKO_WEBHOOK_TOKEN", HOOK_TOKEN),
        &["--json", "webhook", "verify", "--header", "Bearer"],
    );
    assert_code(&o, 4);
    let v = o.json();
    assert_eq!(v["authentic"], false);
    assert_eq!(v["reason"], "malformed_header");
}

#[test]
fn webhook_listen_prints_deliveries_from_the_emulator() {
    let emu = emulator();
    let mut c = bare();
    c.args(["webhook", "listen", "--port", "0", "--count", "4"])
        .env("IIKO_WEBHOOK_TOKEN", HOOK_TOKEN);
    let mut listener = Spawned::start(c);
    let first = listener.line();
    let url = first
        .strip_prefix("listening on ")
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("first line: {first}"))
        .to_owned();
    let addr = url.strip_prefix("http://").unwrap().to_owned();

    let o = run(
        with_env(&emu).env("IIKO_WEBHOOK_TOKEN", HOOK_TOKEN),
        &[
            "webhook",
            "set",
            "--org",
            DEFAULT_ORGANIZATION_ID,
            "--url",
            &format!("{url}/hook"),
        ],
    );
    assert_code(&o, 0);

    let order = emu.create_delivery_order(DEFAULT_ORGANIZATION_ID).unwrap();
    let lines = listener.lines_until(|l| l.contains("DeliveryOrderUpdate"));
    let event_line = lines.last().unwrap();
    assert!(event_line.contains(&order.id[..8]), "{event_line}");
    assert!(
        event_line.contains("Unconfirmed") && event_line.contains("new"),
        "{event_line}"
    );
    assert!(emu.wait_for_successful_deliveries(1, Duration::from_secs(5)));
    let delivered = emu.deliveries();
    assert_eq!(delivered[0].status, Some(200));

    // The same body again is a duplicate; a wrong token is 401; an authentic
    // but broken body is acknowledged with 200 so the service stops resending.
    emu.send_raw(DEFAULT_ORGANIZATION_ID, delivered[0].body_json())
        .unwrap();
    let lines = listener.lines_until(|l| l.contains("=>"));
    assert!(lines.last().unwrap().contains("duplicate"), "{lines:?}");
    assert_eq!(post(&addr, "Bearer cli-test-forged", "[]"), 401);
    let lines = listener.lines_until(|l| l.contains("-> 401"));
    assert!(lines.last().unwrap().contains("rejected"), "{lines:?}");
    assert_eq!(post(&addr, HOOK_TOKEN, "[1,"), 200);
    let lines = listener.lines_until(|l| l.contains("unreadable body"));
    assert!(lines.last().unwrap().contains("-> 200"), "{lines:?}");

    // --count 4 reached: the listener exits by itself.
    assert_eq!(listener.wait(Duration::from_secs(5)), 0);
    assert!(emu
        .deliveries()
        .iter()
        .all(|r| r.outcome == DeliveryOutcome::Delivered));
}

#[test]
fn webhook_listen_json_lines() {
    let emu = emulator();
    let mut c = bare();
    c.args([
        "--json", "webhook", "listen", "--port", "0", "--count", "1", "--token", HOOK_TOKEN,
    ]);
    let mut listener = Spawned::start(c);
    let first: Value = serde_json::from_str(&listener.line()).unwrap();
    let url = first["listening"].as_str().unwrap().to_owned();
    let o = run(
        &mut with_env(&emu),
        &[
            "webhook",
            "set",
            "--org",
            DEFAULT_ORGANIZATION_ID,
            "--url",
            &url,
            "--token",
            HOOK_TOKEN,
        ],
    );
    assert_code(&o, 0);
    assert_no_secrets(&o);
    emu.trigger_stop_list_change(DEFAULT_ORGANIZATION_ID)
        .unwrap();
    let line: Value = serde_json::from_str(&listener.line()).unwrap();
    assert_eq!(line["status"], 200);
    assert_eq!(line["outcome"], "accepted");
    assert_eq!(line["events"][0]["kind"], "StopListUpdate");
    assert_eq!(line["events"][0]["verdict"], "new");
    assert_eq!(listener.wait(Duration::from_secs(5)), 0);
}

// ---------------------------------------------------------------- emulator, demo

#[test]
fn emulator_command_serves_the_api() {
    let mut c = bare();
    c.args(["emulator", "--port", "0", "--token-ttl", "30"]);
    let emu = Spawned::start(c);
    let first = emu.line();
    let url = first
        .strip_prefix("iikocloud emulator listening on ")
        .unwrap_or_else(|| panic!("first line: {first}"))
        .to_owned();
    let addr: SocketAddr = url.strip_prefix("http://").unwrap().parse().unwrap();
    assert!(addr.ip().is_loopback());

    let o = run(
        bare()
            .env("IIKO_BASE_URL", &url)
            .env("IIKO_APP_ID", iikocloud_emulator::DEFAULT_APP_ID)
            .env(
                "IIKO_CLIENT_SECRET",
                iikocloud_emulator::DEFAULT_CLIENT_SECRET,
            )
            .env("IIKO_API_KEY", iikocloud_emulator::DEFAULT_API_KEY),
        &["--json", "token"],
    );
    assert_code(&o, 0);
    // The TTL option reached the emulator.
    assert!(o.json()["expiresInSecs"].as_u64().unwrap() <= 30);
    drop(emu);

    let o = run(
        &mut bare(),
        &["emulator", "--port", "0", "--webhook-retry-delays", "1,x"],
    );
    assert_code(&o, 2);
    let o = run(
        &mut bare(),
        &[
            "emulator",
            "--port",
            "0",
            "--fixtures",
            "/no/such/fixtures.json",
        ],
    );
    assert_code(&o, 3);
}

#[test]
fn demo_runs_every_step_and_prints_no_secret() {
    let started = Instant::now();
    let o = run(&mut bare(), &["demo"]);
    let took = started.elapsed();
    assert_code(&o, 0);
    for heading in [
        "1. Start the emulator",
        "2. Get an access token",
        "3. List the organizations",
        "4. Point the webhook at a local receiver",
        "5. Create a delivery order through the API and follow it to Closed",
        "6. Create an order with a product the menu lacks: the command fails",
        "7. Put a product on the stop list, then fetch the stop lists",
        "8. Keep out repeats, late versions and forgeries",
        "9. Let a token expire: the client refreshes it unnoticed",
        "All 9 steps passed",
    ] {
        assert!(
            o.stdout.contains(heading),
            "{heading:?} missing:\n{}",
            o.stdout
        );
    }
    for seen in [
        "deliveries.create: order",
        "commands/status: Success",
        "deliveries.by_id reads it back: Closed",
        "the command fails (ProductNotFound)",
        "stop_lists.add:",
        "duplicate -> dropped",
        "stale",
        "<- 401",
        "token requests 1 -> 2",
    ] {
        assert!(o.stdout.contains(seen), "{seen:?} missing:\n{}", o.stdout);
    }
    assert_eq!(o.stdout.matches("DeliveryOrderUpdate").count(), 10);
    let all = o.all();
    for secret in [
        iikocloud_emulator::DEFAULT_CLIENT_SECRET,
        iikocloud_emulator::DEFAULT_API_KEY,
        JWT_PREFIX,
    ] {
        assert!(!all.contains(secret), "{secret:?} printed");
    }
    assert!(took < Duration::from_secs(15), "the demo took {took:?}");
}

#[test]
fn ops_lists_every_operation_with_its_kind_and_group() {
    let o = run(&mut bare(), &["ops", "--json"]);
    assert_code(&o, 0);
    let list = o.json();
    let list = list.as_array().expect("a list");
    assert_eq!(list.len(), iikocloud::api::OPERATIONS.len());
    let create = list
        .iter()
        .find(|o| o["name"] == "deliveries.create")
        .expect("deliveries.create");
    assert_eq!(create["path"], "/api/1/deliveries/create");
    assert_eq!(create["kind"], "command");
    assert_eq!(create["restrictionGroup"], "Orders: creating");
    let create_summary = iikocloud::api::operation("deliveries.create")
        .expect("deliveries.create")
        .summary;
    assert_eq!(create["summary"], create_summary);
    for op in list {
        let summary = op["summary"].as_str().unwrap_or_default();
        assert!(!summary.trim().is_empty(), "{} has no summary", op["name"]);
    }
    let o = run(&mut bare(), &["ops", "terminal_groups"]);
    assert_code(&o, 0);
    assert!(o.stdout.starts_with("NAME"), "{}", o.stdout);
    assert!(o.stdout.contains("/api/1/terminal_groups/is_alive"));
    assert!(!o.stdout.contains("deliveries"));
    // The plain table keeps its four columns; --long adds the summary last.
    let alive = iikocloud::api::operation("terminal_groups.is_alive")
        .expect("terminal_groups.is_alive")
        .summary;
    assert!(!o.stdout.contains("SUMMARY") && !o.stdout.contains(alive));
    let o = run(&mut bare(), &["ops", "--long", "terminal_groups.is_alive"]);
    assert_code(&o, 0);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", o.stdout);
    assert!(lines[0].starts_with("NAME") && lines[0].ends_with("SUMMARY"));
    assert!(lines[1].starts_with("terminal_groups.is_alive"));
    assert!(lines[1].ends_with(alive), "{}", o.stdout);
}

#[test]
fn schema_prints_the_request_shape() {
    let o = run(&mut bare(), &["schema", "deliveries.create"]);
    assert_code(&o, 0);
    let summary = iikocloud::api::operation("deliveries.create")
        .expect("deliveries.create")
        .summary;
    assert_eq!(o.stdout.lines().next(), Some(summary), "{}", o.stdout);
    for part in [
        "POST /api/1/deliveries/create",
        "organizationId: uuid, required",
        "phone: string (length 8..40), required",
        "when type = \"Product\"",
    ] {
        assert!(o.stdout.contains(part), "{part} not in {}", o.stdout);
    }
    let o = run(&mut bare(), &["schema", "deliveries.create", "--json"]);
    assert_code(&o, 0);
    let v = o.json();
    assert_eq!(v["operation"]["name"], "deliveries.create");
    assert_eq!(v["operation"]["summary"], summary);
    assert!(v["schemas"]["Deliveries.Request.CreateOrderRequest"].is_object());
    let o = run(&mut bare(), &["schema", "deliveries.creat"]);
    assert_code(&o, 2);
    assert!(o.stderr.contains("deliveries.create"), "{}", o.stderr);
}

#[test]
fn call_by_name_checks_sends_and_waits() {
    let emu = emulator();
    let dir = std::env::temp_dir().join(format!("iiko-cli-ops-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let order = dir.join("order.json");
    std::fs::write(
        &order,
        format!(
            r#"{{"organizationId":"{DEFAULT_ORGANIZATION_ID}","terminalGroupId":"{DEFAULT_TERMINAL_GROUP_ID}",
               "order":{{"phone":"+79160000000","items":[{{"type":"Product",
               "productId":"b1e604c4-586f-4a06-b3d0-ff67e6c542a2","amount":2,"price":0.1}}]}}}}"#
        ),
    )
    .expect("write");
    let at = format!("@{}", order.display());

    // Checked before sending: nothing reaches the emulator.
    let before = emu.requests().len();
    let o = run(
        &mut with_env(&emu),
        &[
            "call",
            "deliveries.by_id",
            r#"{"organizationId":"x","orderIds":[]}"#,
        ],
    );
    assert_code(&o, 3);
    assert!(o.stderr.contains("organizationId"), "{}", o.stderr);
    let o = run(&mut with_env(&emu), &["call", "deliveries.nope", "{}"]);
    assert_code(&o, 2);
    let o = run(&mut with_env(&emu), &["call", "deliveries.create", "{oops"]);
    assert_code(&o, 3);
    let o = run(
        &mut with_env(&emu),
        &["call", "terminal_groups", "--wait", "{}"],
    );
    assert_code(&o, 3);
    // A misspelt key in the file: refused with its path and the right name.
    let misspelt = dir.join("misspelt.json");
    let text = std::fs::read_to_string(&order).expect("read");
    std::fs::write(
        &misspelt,
        text.replace("\"amount\":2", "\"amount\":2,\"coment\":\"no onions\""),
    )
    .expect("write");
    let misspelt_at = format!("@{}", misspelt.display());
    let o = run(
        &mut with_env(&emu),
        &["call", "deliveries.create", &misspelt_at],
    );
    assert_code(&o, 3);
    assert!(
        o.stderr.contains(
            "order.items[0].coment: not a field of ProductOrderItem; did you mean comment?"
        ),
        "{}",
        o.stderr
    );
    let o = run(
        &mut with_env(&emu),
        &[
            "call",
            "/api/1/terminal_groups",
            "{}",
            "--allow-unknown-fields",
        ],
    );
    assert_code(&o, 2);
    assert_eq!(emu.requests().len(), before);
    // Sent on purpose: the emulator itself refuses the key.
    let o = run(
        &mut with_env(&emu),
        &[
            "call",
            "deliveries.create",
            &misspelt_at,
            "--allow-unknown-fields",
        ],
    );
    assert_code(&o, 1);
    assert!(o.stderr.contains("coment"), "{}", o.stderr);
    assert!(emu.requests().len() > before);

    // Sent and answered; the same request by @file and by a bare path.
    let o = run(
        &mut with_env(&emu),
        &["call", "deliveries.create", &at, "--json"],
    );
    assert_code(&o, 0);
    let v = o.json();
    assert_eq!(v["orderInfo"]["creationStatus"], "InProgress");
    assert!(v["correlationId"].is_string());

    let o = run(
        &mut with_env(&emu),
        &[
            "call",
            "deliveries.create",
            order.to_str().expect("utf-8"),
            "--wait",
            "--json",
        ],
    );
    assert_code(&o, 0);
    let v = o.json();
    assert_eq!(v["orderInfo"]["creationStatus"], "Success");
    // The amount exactly as sent.
    assert!(o.stdout.contains(r#""price":0.1"#), "{}", o.stdout);

    // A failing command exits 1 with the service's reason.
    let bad = std::fs::read_to_string(&order).expect("read").replace(
        "b1e604c4-586f-4a06-b3d0-ff67e6c542a2",
        "00000000-0000-4000-8000-000000000003",
    );
    let o = run_stdin(
        &mut with_env(&emu),
        &[
            "call",
            "deliveries.create",
            "-",
            "--wait",
            "--wait-timeout",
            "20",
        ],
        bad.as_bytes(),
    );
    assert_code(&o, 1);
    assert!(o.stderr.contains("ProductNotFound"), "{}", o.stderr);
    assert_no_secrets(&o);
    std::fs::remove_dir_all(&dir).expect("clean up");
}

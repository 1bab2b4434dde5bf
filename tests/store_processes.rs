//! Eight processes racing on one store (a SQLite file, then a Redis server):
//! each key is first seen by exactly one of them, positions never go back,
//! and they make one token request per token lifetime between them.
//!
//! The processes are this test binary run again with `IIKO_STORE_CHILD` set
//! (see `child`), so no extra binary is built.

use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use iikocloud::store::{Advance, Store};
use iikocloud::Client;
use iikocloud_emulator::{
    Emulator, EmulatorConfig, DEFAULT_API_KEY, DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET,
};

const PROCESSES: usize = 8;
const KEYS: usize = 300;
const V2_TOKEN: &str = "/api/v2/access_token";

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The Redis server of scripts/test.sh, database `db`. The tests that call
/// it are ignored unless asked for; asked for, unset or unreachable fails.
fn redis_url(db: u32) -> String {
    let url = std::env::var("IIKO_TEST_REDIS_URL").unwrap_or_else(|_| {
        panic!("IIKO_TEST_REDIS_URL is not set: this test needs a redis-server (scripts/test.sh starts one)")
    });
    let base = url
        .rsplit_once('/')
        .map_or(url.as_str(), |(b, _)| b)
        .to_owned();
    let url = format!("{base}/{db}");
    Store::open(&url).unwrap_or_else(|e| panic!("IIKO_TEST_REDIS_URL is set but: {e}"));
    url
}

/// One racing process: prints `first N` for each key it saw first, `bad ...`
/// for any position that went back, `tried MAX` and `token-ok`.
#[test]
fn child() {
    let Ok(url) = std::env::var("IIKO_STORE_CHILD") else {
        return; // Not a child: nothing to do.
    };
    let prefix = std::env::var("IIKO_STORE_PREFIX").unwrap();
    let emu_url = std::env::var("IIKO_STORE_EMULATOR").unwrap();
    let start: u64 = std::env::var("IIKO_STORE_START").unwrap().parse().unwrap();
    let run_ms: u64 = std::env::var("IIKO_STORE_RUN_MS").unwrap().parse().unwrap();
    let store = Store::open(&url).unwrap();
    let client = Client::builder()
        .base_url(&emu_url)
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .token_store(store.clone())
        .build()
        .unwrap();
    while now_ms() < start {
        std::thread::sleep(Duration::from_millis(1));
    }
    let ttl = Duration::from_secs(600);
    let mut out = String::new();
    let mut tried_max = i64::MIN;
    let mut seen_max = i64::MIN;
    for i in 0..KEYS {
        if store.first_seen(&format!("{prefix}:k{i}"), ttl).unwrap() {
            out.push_str(&format!("first {i}\n"));
        }
        let v = fastrand::i64(0..1_000_000);
        tried_max = tried_max.max(v);
        let decision = store.advance(&format!("{prefix}:pos"), v, ttl).unwrap();
        let now = store.position(&format!("{prefix}:pos")).unwrap().unwrap();
        match decision {
            Advance::Moved if now < v => out.push_str(&format!("bad moved {v} but reads {now}\n")),
            Advance::Stale { current } if current < v => {
                out.push_str(&format!("bad stale {v} against lower {current}\n"))
            }
            _ => {}
        }
        if now < seen_max {
            out.push_str(&format!("bad went back from {seen_max} to {now}\n"));
        }
        seen_max = seen_max.max(now);
    }
    out.push_str(&format!("tried {tried_max}\n"));
    // Keep asking for the token across several expiries (at least once, even
    // when this process started late on a busy machine).
    loop {
        client.access_token().unwrap();
        if now_ms() >= start + run_ms {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    out.push_str(&format!("token-ok {}\n", now_ms()));
    print!("{out}");
}

fn race(url: &str) {
    let emu = Emulator::start(EmulatorConfig::default().token_ttl(Duration::from_secs(2))).unwrap();
    let prefix = format!("race{}", fastrand::u64(..));
    let start = now_ms() + 1500; // all processes loaded before it
    let run_ms = 3200;
    let children: Vec<_> = (0..PROCESSES)
        .map(|_| {
            Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "child", "--nocapture", "--test-threads=1", "-q"])
                .env("IIKO_STORE_CHILD", url)
                .env("IIKO_STORE_PREFIX", &prefix)
                .env("IIKO_STORE_EMULATOR", emu.url())
                .env("IIKO_STORE_START", start.to_string())
                .env("IIKO_STORE_RUN_MS", run_ms.to_string())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut firsts = vec![0usize; KEYS];
    let mut tried = i64::MIN;
    let mut last_end = start;
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "a child failed: {out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("token-ok"), "{text}");
        for line in text.lines() {
            if let Some(i) = line.strip_prefix("first ") {
                firsts[i.parse::<usize>().unwrap()] += 1;
            }
            if let Some(t) = line.strip_prefix("token-ok ") {
                last_end = last_end.max(t.parse().unwrap());
            }
            if let Some(v) = line.strip_prefix("tried ") {
                tried = tried.max(v.parse().unwrap());
            }
            assert!(!line.starts_with("bad"), "{line}");
        }
    }
    assert!(
        firsts.iter().all(|n| *n == 1),
        "first-seen counts: {firsts:?}"
    );
    let store = Store::open(url).unwrap();
    assert_eq!(
        store.position(&format!("{prefix}:pos")).unwrap(),
        Some(tried)
    );
    // Tokens of 2 s are used for at least 0.9 s (a second comes off for the
    // JWT's whole seconds, a tenth for the refresh margin): one request per
    // lifetime for all eight processes, where each alone would make as many.
    let tokens = emu.request_count(V2_TOKEN);
    let lifetimes = (last_end - start) / 900 + 1;
    eprintln!(
        "{tokens} token requests for {PROCESSES} processes in {} ms",
        last_end - start
    );
    assert!(
        tokens >= 1 && tokens as u64 <= lifetimes,
        "{tokens} token requests in {} ms",
        last_end - start
    );
}

#[test]
fn eight_processes_on_one_sqlite_file() {
    let dir = std::env::temp_dir().join(format!("iiko-race-{}", fastrand::u64(..)));
    std::fs::create_dir_all(&dir).unwrap();
    race(&format!("sqlite://{}/store.db", dir.display()));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
#[ignore = "needs a redis-server at IIKO_TEST_REDIS_URL; scripts/test.sh starts one and runs these with --ignored"]
fn eight_processes_on_one_redis() {
    race(&redis_url(3));
}

#[test]
fn a_refused_token_is_dropped_for_every_process_sharing_the_store() {
    let dir = std::env::temp_dir().join(format!("iiko-401-{}", fastrand::u64(..)));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}/store.db", dir.display());
    let emu = Emulator::start_default().unwrap();
    let make = || {
        Client::builder()
            .base_url(emu.url())
            .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
            .token_store(Store::open(&url).unwrap())
            .build()
            .unwrap()
    };
    let (a, b) = (make(), make());
    let first = a.access_token().unwrap();
    assert_eq!(
        b.access_token().unwrap().expose(),
        first.expose(),
        "shared through the file"
    );
    assert_eq!(emu.request_count(V2_TOKEN), 1);
    // The store holds the token under a hash, never the credentials.
    let raw = std::fs::read(dir.join("store.db")).unwrap();
    let text = String::from_utf8_lossy(&raw);
    assert!(!text.contains(DEFAULT_CLIENT_SECRET) && !text.contains(DEFAULT_API_KEY));
    emu.expire_tokens();
    // a's call gets 401, drops the token for everyone and fetches a new one.
    a.organizations(&iikocloud::api::models::organizations::GetOrganizationsRequest::default())
        .unwrap();
    assert_eq!(emu.request_count(V2_TOKEN), 2);
    // A new process takes the new token from the store; b, whose copy is
    // refused, takes it too instead of asking for a third.
    let c = make();
    assert_ne!(c.access_token().unwrap().expose(), first.expose());
    b.organizations(&iikocloud::api::models::organizations::GetOrganizationsRequest::default())
        .unwrap();
    assert_eq!(
        b.access_token().unwrap().expose(),
        c.access_token().unwrap().expose()
    );
    assert_eq!(emu.request_count(V2_TOKEN), 2);
    std::fs::remove_dir_all(dir).unwrap();
}

//! Soak of `iikocloud webhook listen`: the emulator delivers events from 32
//! organizations at once while other clients keep idle keep-alive
//! connections open and bursts of new connections arrive, for a bounded time
//! (`SOAK_SECONDS`, default 4). Every delivery must succeed on its first
//! attempt within the emulator's 1 s attempt timeout (a stalled receiver
//! shows as a timed-out attempt), and the listener's memory must stay flat.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use iikocloud::api::models::web_hooks::UpdateWebHookSettingsRequest;
use iikocloud::Client;
use iikocloud_emulator::{
    DeliveryConfig, DeliveryOutcome, Emulator, EmulatorConfig, Fixtures, DEFAULT_API_KEY,
    DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET,
};

const BIN: &str = env!("CARGO_BIN_EXE_iikocloud");
const HOOK_TOKEN: &str = "listen-soak-hooktoken-1f2e3d";
const ORGANIZATIONS: usize = 32;
const IDLE_CONNECTIONS: usize = 32;

fn soak_time() -> Duration {
    let secs = std::env::var("SOAK_SECONDS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(4.0);
    Duration::from_secs_f64(secs.clamp(1.0, 3600.0))
}

/// The default fixtures plus enough organizations for the API key.
fn fixtures() -> (Fixtures, Vec<String>) {
    let mut f = Fixtures::default_data();
    let template = f.organizations[0].clone();
    let mut ids = Vec::new();
    for i in 0..ORGANIZATIONS {
        let mut org = template.clone();
        org.id = format!("5a0c0000-0000-4000-8000-{i:012x}");
        org.name = Some(format!("Soak {i}"));
        ids.push(org.id.clone());
        f.organizations.push(org);
    }
    let key = f
        .api_keys
        .iter_mut()
        .find(|k| k.api_key == DEFAULT_API_KEY)
        .expect("default key");
    key.organization_ids.extend(ids.iter().cloned());
    (f, ids)
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

struct Listener {
    child: Child,
    addr: SocketAddr,
}

impl Listener {
    fn start() -> Listener {
        let mut child = Command::new(BIN)
            .args(["webhook", "listen", "--port", "0", "--token", HOOK_TOKEN])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("listener spawns");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let first = lines.next().expect("a first line").expect("text");
        let addr = first
            .strip_prefix("listening on http://")
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_else(|| panic!("first line: {first}"))
            .parse()
            .expect("an address");
        // Keep reading: a full pipe would block the listener's printing.
        thread::spawn(move || for _ in lines {});
        Listener { child, addr }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// POSTs `[]` with the right token on `s`, keeping the connection open.
fn post_empty(s: &mut TcpStream, addr: SocketAddr) -> Option<u16> {
    write!(
        s,
        "POST /hook HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Authorization: {HOOK_TOKEN}\r\nContent-Length: 2\r\n\r\n[]"
    )
    .ok()?;
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if s.read(&mut b).ok()? != 1 {
            return None;
        }
        head.push(b[0]);
    }
    String::from_utf8_lossy(&head)
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[test]
fn listen_keeps_up_with_many_organizations_idle_connections_and_bursts() {
    let (fixtures, orgs) = fixtures();
    let emu = Emulator::start(
        EmulatorConfig::default()
            .fixtures(fixtures)
            .delivery(DeliveryConfig::fast()),
    )
    .expect("emulator starts");
    let listener = Listener::start();
    let addr = listener.addr;
    let client = Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .build()
        .expect("client");
    for org in &orgs {
        client
            .api()
            .webhooks()
            .update_settings(&UpdateWebHookSettingsRequest {
                organization_id: Some(org.to_string()),
                web_hooks_uri: Some(format!("http://{addr}/hook")),
                auth_token: Some(HOOK_TOKEN.into()),
                ..Default::default()
            })
            .expect("webhook settings");
    }

    // Idle keep-alive connections, each used once.
    let mut idle: Vec<TcpStream> = (0..IDLE_CONNECTIONS)
        .map(|_| TcpStream::connect(addr).expect("connect"))
        .collect();
    for s in &mut idle {
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        assert_eq!(post_empty(s, addr), Some(200));
    }

    let stop = Arc::new(AtomicBool::new(false));
    let burst_slowest_ms = Arc::new(AtomicUsize::new(0));
    let bursts = {
        let (stop, slowest) = (stop.clone(), burst_slowest_ms.clone());
        thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let wave: Vec<_> = (0..8)
                    .map(|_| {
                        let slowest = slowest.clone();
                        thread::spawn(move || {
                            let t = Instant::now();
                            let mut s = TcpStream::connect(addr).expect("connect");
                            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                            assert_eq!(post_empty(&mut s, addr), Some(200));
                            let ms = t.elapsed().as_millis() as usize;
                            slowest.fetch_max(ms, Ordering::Relaxed);
                        })
                    })
                    .collect();
                for w in wave {
                    w.join().expect("burst post");
                }
                thread::sleep(Duration::from_millis(50));
            }
        })
    };
    let total = soak_time();
    let warm_up = (total / 4).max(Duration::from_millis(500));
    let mut rss_start = 0;
    // Every organization produces events on its own thread, all at once.
    thread::scope(|scope| {
        for (i, org) in orgs.iter().enumerate() {
            let (emu, stop) = (&emu, &stop);
            scope.spawn(move || {
                let mut opened = false;
                while !stop.load(Ordering::Relaxed) {
                    if i % 2 == 0 {
                        emu.create_delivery_order(org).expect("order");
                    } else {
                        opened = !opened;
                        emu.trigger_personal_shift(org, opened).expect("shift");
                    }
                    thread::sleep(Duration::from_millis(20));
                }
            });
        }
        thread::sleep(warm_up);
        rss_start = rss_kib(listener.child.id());
        thread::sleep(total - warm_up);
        stop.store(true, Ordering::Relaxed);
    });
    bursts.join().expect("bursts");
    assert!(
        emu.wait_for_delivery_idle(Duration::from_secs(30)),
        "deliveries did not drain"
    );
    let rss_end = rss_kib(listener.child.id());

    let records = emu.deliveries();
    let delivered = records
        .iter()
        .filter(|r| r.outcome == DeliveryOutcome::Delivered)
        .count();
    let failed: Vec<_> = records
        .iter()
        .filter(|r| r.outcome != DeliveryOutcome::Delivered || r.attempt != 1)
        .take(5)
        .map(|r| {
            (
                r.organization_id.clone(),
                r.attempt,
                r.status,
                r.error.clone(),
            )
        })
        .collect();
    let burst_slowest = burst_slowest_ms.load(Ordering::Relaxed);
    eprintln!(
        "listen soak: {delivered} deliveries from {ORGANIZATIONS} organizations in {total:?}, \
         slowest burst post {burst_slowest} ms, listener RSS {rss_start} -> {rss_end} KiB"
    );
    assert!(
        failed.is_empty(),
        "attempts that failed or were retried: {failed:?}"
    );
    assert!(
        delivered >= ORGANIZATIONS * 5,
        "only {delivered} deliveries"
    );
    assert!(burst_slowest < 1000, "a burst post took {burst_slowest} ms");
    assert!(
        rss_end < rss_start + 16 * 1024,
        "listener RSS grew from {rss_start} to {rss_end} KiB"
    );
    for s in &mut idle {
        assert_eq!(
            post_empty(s, addr),
            Some(200),
            "idle connection still served"
        );
    }
}

//! Trust and proxies over real loopback sockets: the emulator serving HTTPS
//! with a certificate from a root CA made here, and a real CONNECT proxy.
//! (`SSL_CERT_FILE` and the system store are read once per process, so the
//! CLI's tests check them in fresh processes.)

mod support;

use std::time::{Duration, Instant};

use iikocloud::{Client, ClientBuilder, Error, TransportErrorKind, TrustRoots};
use iikocloud_emulator::{
    Emulator, EmulatorConfig, TlsIdentity, DEFAULT_API_KEY, DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET,
};
use support::{ConnectProxy, Leaf, TempDir, TestCa};

fn tls_emulator(leaf: &Leaf) -> Emulator {
    let identity = TlsIdentity::from_pem(leaf.cert_pem.as_bytes(), leaf.key_pem.as_bytes())
        .expect("test leaf");
    Emulator::start(EmulatorConfig::default().tls(identity)).expect("emulator")
}

fn builder(url: &str) -> ClientBuilder {
    Client::builder()
        .base_url(url)
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .retry_base_delay(Duration::from_millis(10))
}

fn transport(e: &Error) -> (TransportErrorKind, String) {
    match e {
        Error::Transport { kind, .. } => (*kind, e.to_string()),
        other => panic!("expected a transport error, got {other:?}"),
    }
}

#[test]
fn unknown_root_is_refused_in_words_and_accepted_with_ca_file() {
    let ca = TestCa::new("iikocloud test root");
    let emu = tls_emulator(&ca.leaf());
    assert!(emu.url().starts_with("https://127.0.0.1:"), "{}", emu.url());
    let dir = TempDir::new("ca");
    let ca_file = ca.write(&dir.0, "root.pem");

    // Without the root: a TLS error naming the host, the reason and the fix,
    // given at once (a certificate does not change on a retry).
    let started = Instant::now();
    let e = builder(&emu.url())
        .build()
        .unwrap()
        .access_token()
        .unwrap_err();
    let (kind, message) = transport(&e);
    assert_eq!(kind, TransportErrorKind::Tls, "{message}");
    assert!(
        message.contains("127.0.0.1: certificate issued by an unknown authority")
            && message.contains("ca_file")
            && message.contains("system store"),
        "{message}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(emu.request_count("/api/v2/access_token"), 0);

    // Bundled roots only: refused the same way.
    let e = builder(&emu.url())
        .trust_roots(TrustRoots::Bundled)
        .build()
        .unwrap()
        .access_token()
        .unwrap_err();
    assert_eq!(transport(&e).0, TransportErrorKind::Tls);

    // With the root, over the system store and over the bundled roots.
    for trust in [TrustRoots::System, TrustRoots::Bundled] {
        let client = builder(&emu.url())
            .trust_roots(trust)
            .ca_file(&ca_file)
            .build()
            .unwrap();
        let orgs = client.organizations(&Default::default()).unwrap();
        assert!(!orgs.organizations.unwrap_or_default().is_empty());
        assert!(format!("{client:?}").contains("root.pem"));
    }
    assert_eq!(emu.request_count("/api/v2/access_token"), 2);

    // Another CA's root does not help.
    let other = TestCa::new("another root");
    let other_file = other.write(&dir.0, "other.pem");
    let e = builder(&emu.url())
        .ca_file(&other_file)
        .build()
        .unwrap()
        .access_token()
        .unwrap_err();
    assert!(transport(&e).1.contains("unknown authority"));
}

#[test]
fn expired_and_misnamed_certificates_have_their_own_words() {
    let ca = TestCa::new("iikocloud test root");
    let dir = TempDir::new("ca-words");
    let ca_file = ca.write(&dir.0, "root.pem");

    let expired = tls_emulator(&ca.leaf_with(&["localhost"], true, true));
    let e = builder(&expired.url())
        .ca_file(&ca_file)
        .build()
        .unwrap()
        .access_token()
        .unwrap_err();
    let (kind, message) = transport(&e);
    assert_eq!(kind, TransportErrorKind::Tls);
    assert!(
        message.contains("127.0.0.1: the certificate has expired"),
        "{message}"
    );

    let misnamed = tls_emulator(&ca.leaf_with(&["pos.example.com"], false, false));
    let e = builder(&misnamed.url())
        .ca_file(&ca_file)
        .build()
        .unwrap()
        .access_token()
        .unwrap_err();
    let (kind, message) = transport(&e);
    assert_eq!(kind, TransportErrorKind::Tls);
    assert!(
        message.contains("not valid for the name 127.0.0.1") && message.contains("pos.example.com"),
        "{message}"
    );

    // The name is checked by host: the same leaf over `localhost` is fine.
    let good = tls_emulator(&ca.leaf());
    let url = good.url().replace("127.0.0.1", "localhost");
    builder(&url)
        .ca_file(&ca_file)
        .build()
        .unwrap()
        .access_token()
        .unwrap();

    // Plain HTTP spoken to an HTTPS port, and HTTPS to a plain port.
    let plain = Emulator::start_default().unwrap();
    let e = builder(&plain.url().replace("http://", "https://"))
        .retries(0)
        .build()
        .unwrap()
        .access_token()
        .unwrap_err();
    assert_eq!(transport(&e).0, TransportErrorKind::Tls, "{e}");
}

#[test]
fn bad_ca_file_fails_at_build() {
    let dir = TempDir::new("ca-bad");
    let err = |b: ClientBuilder| b.build().unwrap_err();
    let missing = err(builder("https://127.0.0.1:1").ca_file(dir.0.join("nope.pem")));
    assert!(
        matches!(&missing, Error::Config(m) if m.contains("cannot be read")),
        "{missing}"
    );
    let key_only = dir.0.join("key.pem");
    std::fs::write(&key_only, TestCa::new("x").leaf().key_pem).unwrap();
    let e = err(builder("https://127.0.0.1:1").ca_file(&key_only));
    assert!(
        matches!(&e, Error::Config(m) if m.contains("holds no certificate")),
        "{e}"
    );
}

#[test]
fn calls_go_through_an_explicit_proxy_with_credentials() {
    let ca = TestCa::new("iikocloud test root");
    let emu = tls_emulator(&ca.leaf());
    let dir = TempDir::new("ca-proxy");
    let ca_file = ca.write(&dir.0, "root.pem");
    let password = "pr0xy-pa55-Zq81";
    let proxy = ConnectProxy::start("till7", password);

    let client = builder(&emu.url())
        .ca_file(&ca_file)
        .proxy(proxy.url("till7", password))
        .build()
        .unwrap();
    let debug = format!("{client:?}");
    assert!(
        debug.contains(&proxy.addr.to_string()) && !debug.contains(password),
        "{debug}"
    );
    client.organizations(&Default::default()).unwrap();
    assert!(proxy.tunnels() >= 1, "no tunnel through the proxy");
    assert_eq!(emu.request_count("/api/1/organizations"), 1);

    // no_proxy covering the host: straight to the emulator.
    let before = proxy.tunnels();
    let direct = builder(&emu.url())
        .ca_file(&ca_file)
        .proxy(proxy.url("till7", password))
        .no_proxy("localhost,127.0.0.1")
        .build()
        .unwrap();
    direct.access_token().unwrap();
    assert_eq!(proxy.tunnels(), before);

    // Plain http:// targets are tunnelled too.
    let plain = Emulator::start_default().unwrap();
    builder(&plain.url())
        .proxy(proxy.url("till7", password))
        .build()
        .unwrap()
        .access_token()
        .unwrap();
    assert_eq!(proxy.tunnels(), before + 1);
}

#[test]
fn proxy_refusals_say_it_was_the_proxy_and_never_show_the_password() {
    let emu = Emulator::start_default().unwrap();
    let proxy = ConnectProxy::start("till7", "right-pass-77");
    let wrong = "wr0ng-pa55-Kx42";

    let client = builder(&emu.url())
        .proxy(proxy.url("till7", wrong))
        .build()
        .unwrap();
    let e = client.access_token().unwrap_err();
    let (kind, message) = transport(&e);
    assert_eq!(kind, TransportErrorKind::Proxy, "{message}");
    assert!(
        message.contains("proxy http://127.0.0.1:") && message.contains("407"),
        "{message}"
    );
    // A refusal is not retried (it would not change).
    assert_eq!(proxy.refused(), 1);
    for shown in [message, format!("{e:?}"), format!("{client:?}")] {
        assert!(!shown.contains(wrong), "{shown}");
    }
    assert_eq!(emu.request_count("/api/v2/access_token"), 0);

    // A proxy that is not there.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = closed.local_addr().unwrap();
    drop(closed);
    let e = builder(&emu.url())
        .retries(0)
        .proxy(format!("http://till7:{wrong}@{addr}"))
        .build()
        .unwrap()
        .access_token()
        .unwrap_err();
    let (kind, message) = transport(&e);
    assert_eq!(kind, TransportErrorKind::Proxy, "{message}");
    assert!(
        message.contains("could not be reached") && !message.contains(wrong),
        "{message}"
    );

    // Bad proxy URLs are configuration errors that do not quote the URL.
    let e = builder(&emu.url())
        .proxy(format!("socks5://u:{wrong}@127.0.0.1:1080"))
        .build()
        .unwrap_err();
    assert!(
        matches!(&e, Error::Config(_)) && !e.to_string().contains(wrong),
        "{e}"
    );
}

//! Test networks: a root CA and leaves made at test time (rcgen), and a real
//! CONNECT proxy with Basic credentials on loopback.

#![allow(dead_code)] // each test binary uses a part

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, SanType};

/// A test root CA; its key never leaves memory.
pub struct TestCa {
    issuer: Issuer<'static, KeyPair>,
    pub pem: String,
}

/// A leaf certificate (PEM chain) and its key (PEM).
pub struct Leaf {
    pub cert_pem: String,
    pub key_pem: String,
}

impl TestCa {
    pub fn new(name: &str) -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let key = KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        TestCa {
            pem: cert.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// A leaf for `localhost` and `127.0.0.1`, valid now.
    pub fn leaf(&self) -> Leaf {
        self.leaf_with(&["localhost"], true, false)
    }

    /// A leaf with these DNS names (and 127.0.0.1 when `loopback_ip`);
    /// `expired` makes it valid only in 2001.
    pub fn leaf_with(&self, names: &[&str], loopback_ip: bool, expired: bool) -> Leaf {
        let mut params =
            CertificateParams::new(names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .unwrap();
        if loopback_ip {
            params
                .subject_alt_names
                .push(SanType::IpAddress([127, 0, 0, 1].into()));
        }
        params
            .distinguished_name
            .push(DnType::CommonName, "iikocloud test leaf");
        if expired {
            params.not_before = rcgen::date_time_ymd(2001, 1, 1);
            params.not_after = rcgen::date_time_ymd(2001, 12, 31);
        }
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        Leaf {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        }
    }

    /// Writes the root to `dir/name` and returns the path.
    pub fn write(&self, dir: &Path, name: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, &self.pem).unwrap();
        p
    }
}

/// A private temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!(
            "iikocloud-{tag}-{}-{}",
            std::process::id(),
            fastrand::u64(..)
        ));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A CONNECT proxy on 127.0.0.1 that wants `user:password` (Basic), tunnels
/// only to loopback, and counts the tunnels it opened and the refusals.
pub struct ConnectProxy {
    pub addr: SocketAddr,
    pub tunnels: Arc<AtomicUsize>,
    pub refused: Arc<AtomicUsize>,
}

impl ConnectProxy {
    pub fn start(user: &str, password: &str) -> ConnectProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let expected = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
        );
        let tunnels = Arc::new(AtomicUsize::new(0));
        let refused = Arc::new(AtomicUsize::new(0));
        let (t, r) = (Arc::clone(&tunnels), Arc::clone(&refused));
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let (expected, t, r) = (expected.clone(), Arc::clone(&t), Arc::clone(&r));
                std::thread::spawn(move || {
                    let _ = tunnel(conn, &expected, &t, &r);
                });
            }
        });
        ConnectProxy {
            addr,
            tunnels,
            refused,
        }
    }

    pub fn url(&self, user: &str, password: &str) -> String {
        format!("http://{user}:{password}@{}", self.addr)
    }

    pub fn tunnels(&self) -> usize {
        self.tunnels.load(Ordering::SeqCst)
    }

    pub fn refused(&self) -> usize {
        self.refused.load(Ordering::SeqCst)
    }
}

fn tunnel(
    client: TcpStream,
    expected: &str,
    tunnels: &AtomicUsize,
    refused: &AtomicUsize,
) -> std::io::Result<()> {
    client.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(client.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let mut auth = None;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h == "\r\n" {
            break;
        }
        if let Some((name, value)) = h.split_once(':') {
            if name.eq_ignore_ascii_case("proxy-authorization") {
                auth = Some(value.trim().to_owned());
            }
        }
    }
    let mut client_w = client.try_clone()?;
    if method != "CONNECT" {
        client_w.write_all(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")?;
        return Ok(());
    }
    if auth.as_deref() != Some(expected) {
        refused.fetch_add(1, Ordering::SeqCst);
        client_w.write_all(
            b"HTTP/1.1 407 Proxy Authentication Required\r\n\
              Proxy-Authenticate: Basic realm=\"test\"\r\nContent-Length: 0\r\n\r\n",
        )?;
        return Ok(());
    }
    let upstream = match target.parse::<SocketAddr>() {
        Ok(a) if a.ip().is_loopback() => TcpStream::connect(a),
        _ => Err(std::io::Error::other("only loopback targets")),
    };
    let Ok(upstream) = upstream else {
        client_w.write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")?;
        return Ok(());
    };
    tunnels.fetch_add(1, Ordering::SeqCst);
    client_w.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")?;
    client.set_read_timeout(None)?;
    // Bytes the reader buffered past the head belong to the tunnel.
    let buffered = reader.buffer().to_vec();
    let mut up_w = upstream.try_clone()?;
    up_w.write_all(&buffered)?;
    let mut up_r = upstream;
    let mut client_r = reader.into_inner();
    let to_client = std::thread::spawn(move || {
        let _ = std::io::copy(&mut up_r, &mut client_w);
        let _ = client_w.shutdown(Shutdown::Write);
    });
    let mut buf = [0u8; 16 * 1024];
    loop {
        match client_r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if up_w.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        }
    }
    let _ = up_w.shutdown(Shutdown::Write);
    let _ = to_client.join();
    Ok(())
}

//! Host name resolution for the client's HTTP agent.
//!
//! ureq (3.5) resolves the host before every request, also when a pooled
//! connection will carry it, and with a timeout set it does so on a new
//! thread each time. Every call paid a thread start and a `getaddrinfo`
//! (a DNS query, where the system does not cache): about half of a call's
//! time against a local emulator (Python went from 2,700 to 5,300 calls/s
//! without them). This resolver answers an
//! IP-literal host at once and keeps a name's addresses for
//! [`NAME_TTL`]; only a miss goes to ureq's resolver, with its timeout.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

/// How long a name's addresses are reused. Short next to DNS TTLs and to
/// how long a pooled connection stays on one address anyway, so a moved
/// service is followed within seconds.
const NAME_TTL: Duration = Duration::from_secs(30);

/// Most names one client keeps (it talks to one host, or its proxy).
const MAX_NAMES: usize = 16;

#[derive(Debug, Default)]
pub(super) struct CachingResolver {
    system: DefaultResolver,
    names: Mutex<HashMap<String, (Instant, Vec<SocketAddr>)>>,
}

impl CachingResolver {
    /// ureq's address list, as many of `addrs` as it holds.
    fn filled(&self, addrs: &[SocketAddr]) -> ResolvedSocketAddrs {
        let mut out = self.empty();
        for addr in addrs {
            if out.try_push(*addr).is_err() {
                break;
            }
        }
        out
    }
}

/// The host and port a request connects to, or `None` when the URI lacks
/// them (ureq's own resolver then reports the error).
fn host_port(uri: &Uri) -> Option<(&str, u16)> {
    let host = uri.host()?;
    let port = uri.port_u16().or(match uri.scheme_str()? {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    })?;
    Some((host, port))
}

impl Resolver for CachingResolver {
    fn resolve(
        &self,
        uri: &Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let Some((host, port)) = host_port(uri) else {
            return self.system.resolve(uri, config, timeout);
        };
        // `[::1]` in a URI is the address ::1.
        let literal = host.strip_prefix('[').and_then(|h| h.strip_suffix(']'));
        if let Ok(ip) = literal.unwrap_or(host).parse::<IpAddr>() {
            return Ok(self.filled(&[SocketAddr::new(ip, port)]));
        }
        let key = format!("{host}:{port}");
        let now = Instant::now();
        // A poisoned lock only means another call panicked mid-insert; the
        // map is still a valid cache.
        let cached = {
            let names = self.names.lock().unwrap_or_else(|e| e.into_inner());
            names
                .get(&key)
                .filter(|(at, _)| now.duration_since(*at) < NAME_TTL)
                .map(|(_, addrs)| self.filled(addrs))
        };
        if let Some(addrs) = cached {
            return Ok(addrs);
        }
        let addrs = self.system.resolve(uri, config, timeout)?;
        let mut names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        if names.len() >= MAX_NAMES {
            names.retain(|_, (at, _)| now.duration_since(*at) < NAME_TTL);
            if names.len() >= MAX_NAMES {
                names.clear();
            }
        }
        names.insert(key, (now, addrs.iter().copied().collect()));
        Ok(addrs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ureq::unversioned::transport::time::Duration as UreqDuration;
    use ureq::Timeout;

    fn resolve(r: &CachingResolver, url: &str) -> Vec<SocketAddr> {
        let uri: Uri = url.parse().expect("test URI");
        let config = ureq::Agent::config_builder().build();
        let timeout = NextTimeout {
            after: UreqDuration::from(Duration::from_secs(5)),
            reason: Timeout::Resolve,
            per_read: None,
            per_write: None,
        };
        r.resolve(&uri, &config, timeout)
            .expect("resolves")
            .iter()
            .copied()
            .collect()
    }

    #[test]
    fn ip_literals_are_answered_without_a_lookup() {
        let r = CachingResolver::default();
        assert_eq!(
            resolve(&r, "http://127.0.0.1:8080/api"),
            ["127.0.0.1:8080".parse::<SocketAddr>().unwrap()]
        );
        assert_eq!(
            resolve(&r, "https://[::1]/api"),
            ["[::1]:443".parse::<SocketAddr>().unwrap()]
        );
        assert_eq!(
            resolve(&r, "http://10.1.2.3/"),
            ["10.1.2.3:80".parse::<SocketAddr>().unwrap()]
        );
        assert!(
            r.names.lock().unwrap().is_empty(),
            "literals are not cached"
        );
    }

    #[test]
    fn more_addresses_than_ureq_holds_are_cut_not_a_panic() {
        let r = CachingResolver::default();
        let many: Vec<SocketAddr> = (0..40u8)
            .map(|i| SocketAddr::from(([192, 0, 2, i], 443)))
            .collect();
        let kept = r.filled(&many);
        assert!(!kept.is_empty() && kept.len() < many.len());
        assert_eq!(kept[..], many[..kept.len()]);
    }

    #[test]
    fn a_name_is_looked_up_once_within_its_lifetime() {
        let r = CachingResolver::default();
        let first = resolve(&r, "http://localhost:9/");
        assert!(first.iter().all(|a| a.ip().is_loopback() && a.port() == 9));
        // Age the entry by hand: a fresh entry is served from the map, an
        // expired one is looked up again and replaced.
        let marker: SocketAddr = "192.0.2.1:9".parse().unwrap();
        r.names
            .lock()
            .unwrap()
            .insert("localhost:9".into(), (Instant::now(), vec![marker]));
        assert_eq!(resolve(&r, "http://localhost:9/x"), [marker]);
        let old = Instant::now().checked_sub(NAME_TTL * 2).expect("uptime");
        r.names
            .lock()
            .unwrap()
            .insert("localhost:9".into(), (old, vec![marker]));
        assert_eq!(resolve(&r, "http://localhost:9/x"), first);
    }
}

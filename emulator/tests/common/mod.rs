//! Helpers shared by the integration tests: a small HTTP client over ureq and a
//! webhook receiver (the emulator's `WebhookSink`).
#![allow(dead_code)] // each test binary uses a different subset

use std::collections::VecDeque;
use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use iikocloud_emulator::{WebhookSink, DEFAULT_API_KEY, DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET};
use serde_json::{json, Value};

/// An HTTP answer.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    }

    /// Asserts the error body shape and returns its `error` code.
    pub fn error_code(&self) -> String {
        let v = self.json();
        assert!(is_uuid(v["correlationId"].as_str().unwrap_or("")), "{v}");
        assert!(v["errorDescription"].is_string(), "{v}");
        v["error"].as_str().expect("error code").to_string()
    }
}

pub fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.chars().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// A test client for one emulator.
pub struct Http {
    pub base: String,
    agent: ureq::Agent,
}

impl Http {
    pub fn new(base: impl Into<String>) -> Http {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .proxy(None)
            .timeout_global(Some(Duration::from_secs(20)))
            .build()
            .into();
        Http {
            base: base.into(),
            agent,
        }
    }

    fn finish(
        result: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<Resp, ureq::Error> {
        let mut r = result?;
        let status = r.status().as_u16();
        let headers = r
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
            .collect();
        let mut body = String::new();
        r.body_mut().as_reader().read_to_string(&mut body)?;
        Ok(Resp {
            status,
            headers,
            body,
        })
    }

    /// POST with full control over the headers; `Err` for transport errors.
    pub fn try_post(
        &self,
        path: &str,
        content_type: Option<&str>,
        authorization: Option<&str>,
        body: &str,
    ) -> Result<Resp, ureq::Error> {
        let mut rq = self.agent.post(format!("{}{}", self.base, path));
        if let Some(ct) = content_type {
            rq = rq.header("Content-Type", ct);
        }
        if let Some(a) = authorization {
            rq = rq.header("Authorization", a);
        }
        Self::finish(rq.send(body.as_bytes()))
    }

    pub fn post_raw(
        &self,
        path: &str,
        content_type: Option<&str>,
        authorization: Option<&str>,
        body: &str,
    ) -> Resp {
        self.try_post(path, content_type, authorization, body)
            .unwrap_or_else(|e| panic!("POST {path}: {e}"))
    }

    /// POST a JSON body with `Content-Type: application/json` and an optional bearer token.
    pub fn post(&self, path: &str, token: Option<&str>, body: &Value) -> Resp {
        let auth = token.map(|t| format!("Bearer {t}"));
        self.post_raw(
            path,
            Some("application/json"),
            auth.as_deref(),
            &body.to_string(),
        )
    }

    pub fn get(&self, path: &str) -> Resp {
        Self::finish(self.agent.get(format!("{}{}", self.base, path)).call())
            .unwrap_or_else(|e| panic!("GET {path}: {e}"))
    }

    pub fn delete(&self, path: &str) -> Resp {
        Self::finish(self.agent.delete(format!("{}{}", self.base, path)).call())
            .unwrap_or_else(|e| panic!("DELETE {path}: {e}"))
    }

    /// A token for the default credentials.
    pub fn token(&self) -> String {
        self.token_for(DEFAULT_API_KEY)
    }

    pub fn token_for(&self, api_key: &str) -> String {
        let r = self.post(
            "/api/v2/access_token",
            None,
            &json!({"appId": DEFAULT_APP_ID, "clientSecret": DEFAULT_CLIENT_SECRET, "apiKey": api_key}),
        );
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()["token"].as_str().expect("token").to_string()
    }
}

/// Decodes the payload of a JWT-shaped token.
pub fn jwt_payload(token: &str) -> Value {
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 3, "not JWT-shaped: {token}");
    let bytes = URL_SAFE_NO_PAD.decode(parts[1]).expect("base64url payload");
    serde_json::from_slice(&bytes).expect("JSON payload")
}

/// One request received by [`Receiver`].
#[derive(Debug, Clone)]
pub struct Received {
    pub authorization: Option<String>,
    pub content_type: Option<String>,
    pub body: String,
    pub at: SystemTime,
}

impl Received {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("webhook body is JSON")
    }
}

/// How the receiver answers the next request.
#[derive(Debug, Clone, Copy)]
pub enum Answer {
    Status(u16),
    /// Sleep this long, then answer 200.
    Slow(Duration),
}

/// A webhook receiver on loopback (the emulator's [`WebhookSink`]): answers
/// from a plan, then with a default status.
pub struct Receiver {
    sink: WebhookSink,
    pub url: String,
    plan: Arc<Mutex<(VecDeque<Answer>, u16)>>,
}

impl Receiver {
    pub fn start() -> Receiver {
        let plan = Arc::new(Mutex::new((VecDeque::new(), 200u16)));
        let p = plan.clone();
        let sink = WebhookSink::start(move |_| {
            let answer = {
                let mut p = p.lock().unwrap();
                p.0.pop_front().unwrap_or(Answer::Status(p.1))
            };
            match answer {
                Answer::Status(s) => s,
                Answer::Slow(d) => {
                    std::thread::sleep(d);
                    200
                }
            }
        })
        .expect("start the sink");
        let url = sink.url();
        Receiver { sink, url, plan }
    }

    /// Answers for the next requests, in order.
    pub fn plan(&self, answers: &[Answer]) {
        self.plan.lock().unwrap().0.extend(answers.iter().copied());
    }

    /// Status used once the plan is exhausted.
    pub fn set_default(&self, status: u16) {
        self.plan.lock().unwrap().1 = status;
    }

    pub fn received(&self) -> Vec<Received> {
        self.sink
            .requests()
            .into_iter()
            .map(|r| Received {
                authorization: r.header("Authorization").map(str::to_string),
                content_type: r.header("Content-Type").map(str::to_string),
                body: r.body_text(),
                at: r.at,
            })
            .collect()
    }

    pub fn count(&self) -> usize {
        self.sink.requests().len()
    }
}

/// Polls `f` until it is true or `timeout` passes.
pub fn eventually(timeout: Duration, mut f: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if f() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

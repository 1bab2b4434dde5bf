//! The inbox as a Redis stream read through a consumer group.
//!
//! Writing and de-duplicating are one Lua script (`SET NX PX` per key, then
//! `XADD`), so a resend is stored once whichever replica gets it. Consumers
//! read with `XREADGROUP`; entries idle in the pending list longer than the
//! visibility timeout are taken over with `XAUTOCLAIM`, which also counts the
//! deliveries. Acknowledging is `XACK` + `XDEL`, checked against the
//! delivery's owner and count so a late consumer cannot acknowledge an event
//! handed out again.

use std::collections::HashMap;

use redis::{Script, Value};

use super::{dead_reason, DeadLetter, Delivery, InboxBackend, InboxCounts, InboxOptions};
use crate::store::redis_store::RedisConn;
use crate::store::url::RedisTarget;
use crate::store::{now_ms, ttl_ms, StoreError};

const STREAM: &str = "iikocloud:inbox";
const DEAD: &str = "iikocloud:inbox:dead";
const REASONS: &str = "iikocloud:inbox:reasons";
const GROUP: &str = "iikocloud";

type Fields = HashMap<String, Vec<u8>>;
/// `XREADGROUP`'s answer: per stream, its entries.
type StreamRead = Option<Vec<(String, Vec<(String, Fields)>)>>;

pub(crate) struct RedisInbox {
    conn: RedisConn,
    consumer: String,
    push: Script,
    ack: Script,
    release: Script,
}

impl RedisInbox {
    pub(crate) fn open(target: &RedisTarget) -> Result<RedisInbox, StoreError> {
        let conn = RedisConn::open(target)?;
        conn.with(|c| {
            match redis::cmd("XGROUP")
                .arg("CREATE")
                .arg(STREAM)
                .arg(GROUP)
                .arg("0")
                .arg("MKSTREAM")
                .query::<()>(c)
            {
                Err(e) if e.code() == Some("BUSYGROUP") => Ok(()),
                other => other,
            }
        })?;
        Ok(RedisInbox {
            conn,
            consumer: format!("c-{}-{:016x}", std::process::id(), fastrand::u64(..)),
            push: Script::new(
                r"local n = 0
                  for i = 3, #ARGV, 2 do
                    if redis.call('SET', 'iikocloud:inbox-seen:' .. ARGV[i], '1', 'NX', 'PX', ARGV[1]) then
                      redis.call('XADD', KEYS[1], '*', 'key', ARGV[i], 'body', ARGV[i + 1], 'at', ARGV[2])
                      n = n + 1
                    end
                  end
                  return n",
            ),
            ack: Script::new(
                r"local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1)
                  if #p == 0 or p[1][2] ~= ARGV[3] or tonumber(p[1][4]) ~= tonumber(ARGV[4]) then
                    return 0
                  end
                  redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
                  redis.call('XDEL', KEYS[1], ARGV[2])
                  redis.call('HDEL', KEYS[2], ARGV[2])
                  return 1",
            ),
            release: Script::new(
                r"local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1)
                  if #p == 0 or p[1][2] ~= ARGV[3] or tonumber(p[1][4]) ~= tonumber(ARGV[4]) then
                    return 0
                  end
                  redis.call('HSET', KEYS[2], ARGV[2], ARGV[5])
                  redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[3], 0, ARGV[2], 'IDLE', ARGV[6], 'JUSTID')
                  return 1",
            ),
        })
    }

    fn field(fields: &Fields, name: &str) -> String {
        fields
            .get(name)
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .unwrap_or_default()
    }

    /// Deliveries of `id` so far, from the pending list.
    fn delivery_count(&self, id: &str) -> Result<u32, StoreError> {
        let p: Vec<(String, String, i64, i64)> = self.conn.with(|c| {
            redis::cmd("XPENDING")
                .arg(STREAM)
                .arg(GROUP)
                .arg(id)
                .arg(id)
                .arg(1)
                .query(c)
        })?;
        Ok(p.first()
            .map(|(_, _, _, n)| u32::try_from(*n).unwrap_or(u32::MAX))
            .unwrap_or(1))
    }

    fn bury(&self, id: &str, fields: &Fields, attempts: u32) -> Result<(), StoreError> {
        let reason: Option<String> = self
            .conn
            .with(|c| redis::cmd("HGET").arg(REASONS).arg(id).query(c))?;
        let reason = dead_reason(attempts, reason.as_deref());
        self.conn.with(|c| {
            redis::pipe()
                .atomic()
                .cmd("XADD")
                .arg(DEAD)
                .arg("*")
                .arg("key")
                .arg(fields.get("key").map(Vec::as_slice).unwrap_or_default())
                .arg("body")
                .arg(fields.get("body").map(Vec::as_slice).unwrap_or_default())
                .arg("attempts")
                .arg(attempts)
                .arg("reason")
                .arg(&reason)
                .ignore()
                .cmd("XACK")
                .arg(STREAM)
                .arg(GROUP)
                .arg(id)
                .ignore()
                .cmd("XDEL")
                .arg(STREAM)
                .arg(id)
                .ignore()
                .cmd("HDEL")
                .arg(REASONS)
                .arg(id)
                .ignore()
                .query::<()>(c)
        })
    }

    fn delivery(id: String, fields: &Fields, attempt: u32) -> Delivery {
        Delivery {
            id,
            attempt,
            key: Self::field(fields, "key"),
            body: Self::field(fields, "body"),
            received_at_ms: Self::field(fields, "at").parse().unwrap_or(0),
        }
    }
}

impl InboxBackend for RedisInbox {
    fn push(
        &self,
        events: &[(String, String)],
        dedup_ttl: std::time::Duration,
    ) -> Result<usize, StoreError> {
        if events.is_empty() {
            return Ok(0);
        }
        let n: i64 = self.conn.with(|c| {
            let mut inv = self.push.key(STREAM);
            inv.arg(ttl_ms(dedup_ttl)).arg(now_ms());
            for (key, body) in events {
                inv.arg(key).arg(body);
            }
            inv.invoke(c)
        })?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    fn dead_letter(&self, key: &str, body: &str, reason: &str) -> Result<(), StoreError> {
        self.conn.with(|c| {
            redis::cmd("XADD")
                .arg(DEAD)
                .arg("*")
                .arg("key")
                .arg(key)
                .arg("body")
                .arg(body)
                .arg("attempts")
                .arg(0)
                .arg("reason")
                .arg(reason)
                .query::<String>(c)
        })?;
        Ok(())
    }

    fn take(&self, options: &InboxOptions) -> Result<Option<Delivery>, StoreError> {
        loop {
            // Events whose consumer did not acknowledge them in time.
            let (_, claimed, _): (String, Vec<Value>, Value) = self.conn.with(|c| {
                redis::cmd("XAUTOCLAIM")
                    .arg(STREAM)
                    .arg(GROUP)
                    .arg(&self.consumer)
                    .arg(ttl_ms(options.visibility_timeout))
                    .arg("0-0")
                    .arg("COUNT")
                    .arg(1)
                    .query(c)
            })?;
            if let Some(entry) = claimed.into_iter().find(|v| *v != Value::Nil) {
                let (id, fields): (String, Fields) = redis::from_redis_value(&entry)
                    .map_err(|e| self.conn.error(format!("unexpected XAUTOCLAIM reply: {e}")))?;
                let attempts = self.delivery_count(&id)?;
                if attempts > options.max_attempts {
                    self.bury(&id, &fields, attempts - 1)?;
                    continue;
                }
                return Ok(Some(Self::delivery(id, &fields, attempts)));
            }
            let read: StreamRead = self.conn.with(|c| {
                redis::cmd("XREADGROUP")
                    .arg("GROUP")
                    .arg(GROUP)
                    .arg(&self.consumer)
                    .arg("COUNT")
                    .arg(1)
                    .arg("STREAMS")
                    .arg(STREAM)
                    .arg(">")
                    .query(c)
            })?;
            let entry = read
                .into_iter()
                .flatten()
                .flat_map(|(_, entries)| entries)
                .next();
            return Ok(entry.map(|(id, fields)| Self::delivery(id, &fields, 1)));
        }
    }

    fn ack(&self, delivery: &Delivery) -> Result<bool, StoreError> {
        let n: i64 = self.conn.with(|c| {
            self.ack
                .key(STREAM)
                .key(REASONS)
                .arg(GROUP)
                .arg(&delivery.id)
                .arg(&self.consumer)
                .arg(delivery.attempt)
                .invoke(c)
        })?;
        Ok(n == 1)
    }

    fn release(&self, delivery: &Delivery, reason: &str) -> Result<(), StoreError> {
        self.conn.with(|c| {
            self.release
                .key(STREAM)
                .key(REASONS)
                .arg(GROUP)
                .arg(&delivery.id)
                .arg(&self.consumer)
                .arg(delivery.attempt)
                .arg(reason)
                // Idle for 30 days: the next take claims it at once.
                .arg(30i64 * 24 * 3600 * 1000)
                .invoke::<i64>(c)
        })?;
        Ok(())
    }

    fn dead_letters(&self, limit: usize) -> Result<Vec<DeadLetter>, StoreError> {
        let entries: Vec<(String, Fields)> = self.conn.with(|c| {
            redis::cmd("XRANGE")
                .arg(DEAD)
                .arg("-")
                .arg("+")
                .arg("COUNT")
                .arg(limit.max(1))
                .query(c)
        })?;
        Ok(entries
            .into_iter()
            .take(limit)
            .map(|(id, f)| DeadLetter {
                id,
                key: Self::field(&f, "key"),
                body: Self::field(&f, "body"),
                attempts: Self::field(&f, "attempts").parse().unwrap_or(0),
                reason: Self::field(&f, "reason"),
            })
            .collect())
    }

    fn counts(&self) -> Result<InboxCounts, StoreError> {
        let (pending, dead): (u64, u64) = self.conn.with(|c| {
            redis::pipe()
                .cmd("XLEN")
                .arg(STREAM)
                .cmd("XLEN")
                .arg(DEAD)
                .query(c)
        })?;
        Ok(InboxCounts { pending, dead })
    }

    fn oldest_received_ms(&self) -> Result<Option<i64>, StoreError> {
        // Acknowledged entries leave the stream, and an entry's id starts
        // with the milliseconds at which it was added.
        let first: redis::streams::StreamRangeReply = self.conn.with(|c| {
            redis::cmd("XRANGE")
                .arg(STREAM)
                .arg("-")
                .arg("+")
                .arg("COUNT")
                .arg(1)
                .query(c)
        })?;
        Ok(first
            .ids
            .first()
            .and_then(|entry| entry.id.split('-').next()?.parse().ok()))
    }
}

#!/usr/bin/env python3
"""Writes tests/vectors/limits.json: how every binding reads a limit its caller
gives (format in tests/vectors/README.md). The expectations below are written
by hand, never computed by the SDK; the core's table must match `limits`
(tests/limit_vectors.rs checks it). Run from the repository root and commit
both files."""

import json
H = 3600000
limits = [
 # name, unit, default, zero, raw_zero_is_default, min, max, above
 ("client.timeout", "ms", 15000, "refused", False, 1000, H, "refused"),
 ("client.client_timeout", "ms", None, "refused", False, 1, None, "refused"),
 ("client.retries", "count", 2, "itself", False, 1, 4294967295, "refused"),
 ("client.retry_base_delay", "ms", 250, "itself", False, 1, None, "refused"),
 ("client.max_response_bytes", "bytes", 67108864, "refused", False, 1, None, "refused"),
 ("client.refresh_margin", "ms", 60000, "itself", False, 1, None, "refused"),
 ("client.fallback_token_lifetime", "ms", 3600000, "itself", False, 1, None, "refused"),
 ("call.timeout", "ms", None, "refused", True, 1000, H, "refused"),
 ("wait.timeout", "ms", 60000, "refused", True, 1, 86400000, "refused"),
 ("wait.first_pause", "ms", 250, "itself", False, 1, None, "refused"),
 ("wait.max_pause", "ms", 5000, "itself", False, 1, None, "refused"),
 ("webhook.max_body_bytes", "bytes", 16777216, "refused", True, 1, None, "refused"),
 ("webhook.max_depth", "levels", 64, "refused", True, 1, 128, "lowered"),
 ("inbox.visibility_timeout", "ms", 30000, "refused", True, 1, None, "refused"),
 ("inbox.max_attempts", "count", 5, "refused", True, 1, 4294967295, "refused"),
 ("inbox.dedup_ttl", "ms", 86400000, "refused", True, 1, None, "refused"),
 ("inbox.dead_letters", "count", 100, "itself", False, 0, None, "refused"),
 ("dedup.capacity", "count", 10000, "refused", False, 1, None, "refused"),
 ("dedup.max_age", "ms", 86400000, "refused", False, 1, None, "refused"),
 ("ordering.capacity", "count", 10000, "refused", False, 1, None, "refused"),
 ("ordering.store_ttl", "ms", 604800000, "refused", False, 1, None, "refused"),
]
table = [dict(name=n, unit=u, default=d, zero=z, raw_zero_is_default=r, min=mi, max=ma, above=a)
         for (n, u, d, z, r, mi, ma, a) in limits]

C = []
def ok(limit, value, **given):
    C.append(dict(limit=limit, **given, value=value))
def err(limit, text, **given):
    C.append(dict(limit=limit, **given, error=text))

# client.timeout: 1 s to 1 h, 0 refused everywhere, seconds rounded up.
T = "client.timeout must be between 1 s and 1 h, got "
ok("client.timeout", 15000, absent=True)
ok("client.timeout", 1000, int=1000)
ok("client.timeout", 3600000, int=3600000)
ok("client.timeout", 1500, seconds=1.5)
ok("client.timeout", 1000, seconds=0.9995)
err("client.timeout", T + "0 ms", int=0)
err("client.timeout", T + "0 ms", raw=0)
err("client.timeout", T + "0 ms", seconds=0)
err("client.timeout", T + "999 ms", int=999)
err("client.timeout", T + "500 ms", seconds=0.5)
err("client.timeout", T + "3600001 ms", int=3600001)
err("client.timeout", T + "3601 s", seconds=3601)
err("client.timeout", "client.timeout must not be negative, got -1", int=-1)
err("client.timeout", "client.timeout must not be negative, got -15 s", seconds=-15)
err("client.timeout", "client.timeout must be a number of seconds, got NaN", seconds="NaN")
err("client.timeout", "client.timeout must be a number of seconds, got inf", seconds="inf")
err("client.timeout", "client.timeout must be a number of seconds, got -inf", seconds="-inf")
err("client.timeout", T + "1e300 s", seconds=1e300)

ok("client.client_timeout", None, absent=True)
ok("client.client_timeout", 20000, seconds=20)
err("client.client_timeout", "client.client_timeout must be at least 1 ms, got 0 ms", int=0)
err("client.client_timeout", "client.client_timeout must be at least 1 ms, got 0 ms", seconds=0)

ok("client.retries", 2, absent=True)
ok("client.retries", 0, int=0)
ok("client.retries", 0, raw=0)
ok("client.retries", 7, int=7)
ok("client.retries", 4294967295, int=4294967295)
err("client.retries", "client.retries must be between 0 and 4294967295, got 4294967296", int=4294967296)
err("client.retries", "client.retries must not be negative, got -1", int=-1)
err("client.retries", "client.retries takes a whole number, not seconds", seconds=1)

ok("client.retry_base_delay", 250, absent=True)
ok("client.retry_base_delay", 0, seconds=0)
ok("client.retry_base_delay", 1, seconds=0.0001)
err("client.retry_base_delay", "client.retry_base_delay must not be negative, got -0.25 s", seconds=-0.25)

ok("client.max_response_bytes", 67108864, absent=True)
ok("client.max_response_bytes", 1, int=1)
err("client.max_response_bytes", "client.max_response_bytes must be at least 1 byte, got 0 bytes", int=0)
err("client.max_response_bytes", "client.max_response_bytes must be at least 1 byte, got 0 bytes", raw=0)
err("client.max_response_bytes", "client.max_response_bytes must not be negative, got -5", int=-5)

ok("client.refresh_margin", 60000, absent=True)
ok("client.refresh_margin", 0, int=0)
ok("client.refresh_margin", 30000, seconds=30)
err("client.refresh_margin", "client.refresh_margin must not be negative, got -1 s", seconds=-1)
ok("client.fallback_token_lifetime", 3600000, absent=True)
ok("client.fallback_token_lifetime", 1000, seconds=1)
ok("client.max_response_bytes", 1048576, int=1048576)

# call.timeout: the client's when not given (or the C ABI's 0), else 1 s to 1 h.
CT = "call.timeout must be between 1 s and 1 h, got "
ok("call.timeout", None, absent=True)
ok("call.timeout", None, raw=0)
ok("call.timeout", 30000, seconds=30)
ok("call.timeout", 1000, raw=1000)
err("call.timeout", CT + "0 ms", int=0)
err("call.timeout", CT + "0 ms", seconds=0)
err("call.timeout", CT + "999 ms", raw=999)
err("call.timeout", CT + "2 h", seconds=7200)
err("call.timeout", "call.timeout must not be negative, got -1 s", seconds=-1)

W = "wait.timeout must be between 1 ms and 24 h, got "
ok("wait.timeout", 60000, absent=True)
ok("wait.timeout", 60000, raw=0)
ok("wait.timeout", 1, raw=1)
ok("wait.timeout", 86400000, int=86400000)
ok("wait.timeout", 1, seconds=0.0004)
err("wait.timeout", W + "0 ms", int=0)
err("wait.timeout", W + "0 ms", seconds=0)
err("wait.timeout", W + "86400001 ms", raw=86400001)
err("wait.timeout", W + "25 h", seconds=90000)
ok("wait.first_pause", 250, absent=True)
ok("wait.first_pause", 0, seconds=0)
ok("wait.max_pause", 5000, absent=True)
ok("wait.max_pause", 2000, seconds=2)
err("wait.max_pause", "wait.max_pause must be a number of seconds, got NaN", seconds="NaN")

B = "webhook.max_body_bytes must be at least 1 byte, got "
ok("webhook.max_body_bytes", 16777216, absent=True)
ok("webhook.max_body_bytes", 16777216, raw=0)
ok("webhook.max_body_bytes", 1, int=1)
ok("webhook.max_body_bytes", 100, raw=100)
err("webhook.max_body_bytes", B + "0 bytes", int=0)
err("webhook.max_body_bytes", "webhook.max_body_bytes must not be negative, got -1", int=-1)

D = "webhook.max_depth must be at least 1 level, got "
ok("webhook.max_depth", 64, absent=True)
ok("webhook.max_depth", 64, raw=0)
ok("webhook.max_depth", 1, int=1)
ok("webhook.max_depth", 128, int=128)
ok("webhook.max_depth", 128, int=129)
ok("webhook.max_depth", 128, raw=1000)
err("webhook.max_depth", D + "0 levels", int=0)
err("webhook.max_depth", "webhook.max_depth must not be negative, got -2", int=-2)

ok("inbox.visibility_timeout", 30000, absent=True)
ok("inbox.visibility_timeout", 30000, raw=0)
ok("inbox.visibility_timeout", 300, raw=300)
ok("inbox.visibility_timeout", 2500, seconds=2.5)
err("inbox.visibility_timeout", "inbox.visibility_timeout must be at least 1 ms, got 0 ms", seconds=0)
err("inbox.visibility_timeout", "inbox.visibility_timeout must not be negative, got -1 s", seconds=-1)
ok("inbox.max_attempts", 5, absent=True)
ok("inbox.max_attempts", 5, raw=0)
ok("inbox.max_attempts", 2, int=2)
err("inbox.max_attempts", "inbox.max_attempts must be between 1 and 4294967295, got 0", int=0)
err("inbox.max_attempts", "inbox.max_attempts must not be negative, got -3", int=-3)
err("inbox.max_attempts", "inbox.max_attempts must be between 1 and 4294967295, got 4294967296", int=4294967296)
ok("inbox.dedup_ttl", 86400000, absent=True)
ok("inbox.dedup_ttl", 86400000, raw=0)
ok("inbox.dedup_ttl", 3600000, seconds=3600)
err("inbox.dedup_ttl", "inbox.dedup_ttl must be at least 1 ms, got 0 ms", seconds=0)
err("inbox.dedup_ttl", "inbox.dedup_ttl must be a number of seconds, got NaN", seconds="NaN")
ok("inbox.dead_letters", 100, absent=True)
ok("inbox.dead_letters", 0, int=0)
ok("inbox.dead_letters", 10, int=10)
err("inbox.dead_letters", "inbox.dead_letters must not be negative, got -1", int=-1)

ok("dedup.capacity", 10000, absent=True)
ok("dedup.capacity", 1, int=1)
err("dedup.capacity", "dedup.capacity must be at least 1, got 0", int=0)
err("dedup.capacity", "dedup.capacity must be at least 1, got 0", raw=0)
err("dedup.capacity", "dedup.capacity must not be negative, got -10", int=-10)
ok("dedup.max_age", 86400000, absent=True)
ok("dedup.max_age", 60000, seconds=60)
ok("dedup.max_age", 1000, raw=1000)
err("dedup.max_age", "dedup.max_age must be at least 1 ms, got 0 ms", seconds=0)
err("dedup.max_age", "dedup.max_age must be at least 1 ms, got 0 ms", raw=0)
err("dedup.max_age", "dedup.max_age must not be negative, got -1 s", seconds=-1)
ok("ordering.capacity", 10000, absent=True)
err("ordering.capacity", "ordering.capacity must be at least 1, got 0", int=0)
err("ordering.capacity", "ordering.capacity must be at least 1, got 0", raw=0)
ok("ordering.store_ttl", 604800000, absent=True)
ok("ordering.store_ttl", 3600000, seconds=3600)
err("ordering.store_ttl", "ordering.store_ttl must be at least 1 ms, got 0 ms", seconds=0)
err("ordering.store_ttl", "ordering.store_ttl must be at least 1 ms, got 0 ms", raw=0)

err("no.such_limit", 'no limit named "no.such_limit"', int=1)

doc = {"format": "iikocloud-limit-vectors", "version": 1, "limits": table, "cases": C}
with open("tests/vectors/limits.json", "w") as f:
    f.write("{\n")
    f.write('  "format": "iikocloud-limit-vectors",\n  "version": 1,\n')
    f.write('  "limits": [\n' + ",\n".join("    " + json.dumps(t) for t in table) + "\n  ],\n")
    f.write('  "cases": [\n' + ",\n".join("    " + json.dumps(c) for c in C) + "\n  ]\n}\n")
print(f"{len(C)} cases")

#!/usr/bin/env python3
"""A small CONNECT proxy with Basic credentials, for the binding tests.

Usage: connect_proxy.py USER PASSWORD  (the password may also come from
IIKO_TEST_PROXY_PASSWORD, to keep it out of `ps`). Listens on 127.0.0.1 on a
free port, prints "listening on 127.0.0.1:PORT", then one line per CONNECT:
"tunnel HOST:PORT" or "refused 407". Tunnels only to loopback. Standard
library only; the Rust tests use their own proxy (tests/support).
"""

import base64
import os
import socket
import sys
import threading


def pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def handle(conn: socket.socket, expected: str, lock: threading.Lock) -> None:
    conn.settimeout(10)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = conn.recv(4096)
        if not chunk:
            conn.close()
            return
        head += chunk
    raw, rest = head.split(b"\r\n\r\n", 1)
    lines = raw.decode("latin-1").split("\r\n")
    method, target = (lines[0].split(" ") + ["", ""])[:2]
    auth = None
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "proxy-authorization":
            auth = value.strip()

    def say(text: str) -> None:
        with lock:
            print(text, flush=True)

    if method != "CONNECT":
        conn.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
        conn.close()
        return
    if auth != expected:
        say("refused 407")
        conn.sendall(
            b"HTTP/1.1 407 Proxy Authentication Required\r\n"
            b'Proxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n'
        )
        conn.close()
        return
    host, _, port = target.rpartition(":")
    if host not in ("127.0.0.1", "localhost", "[::1]"):
        conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
        conn.close()
        return
    try:
        upstream = socket.create_connection((host.strip("[]"), int(port)), timeout=10)
    except (OSError, ValueError):
        conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
        conn.close()
        return
    say(f"tunnel {target}")
    conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    conn.settimeout(None)
    upstream.settimeout(None)
    if rest:
        upstream.sendall(rest)
    back = threading.Thread(target=pipe, args=(upstream, conn), daemon=True)
    back.start()
    pipe(conn, upstream)
    back.join()
    conn.close()
    upstream.close()


def main() -> None:
    user = sys.argv[1]
    password = sys.argv[2] if len(sys.argv) > 2 else os.environ["IIKO_TEST_PROXY_PASSWORD"]
    expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    print(f"listening on 127.0.0.1:{server.getsockname()[1]}", flush=True)
    lock = threading.Lock()
    while True:
        conn, _ = server.accept()
        threading.Thread(target=handle, args=(conn, expected, lock), daemon=True).start()


if __name__ == "__main__":
    main()

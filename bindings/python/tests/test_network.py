"""The package over HTTPS and through a proxy: the emulator serves a leaf
from a root CA made here with openssl, and a real CONNECT proxy
(tests/tools/connect_proxy.py) wants Basic credentials."""

from __future__ import annotations

import asyncio
import pathlib
import subprocess
import sys
import time
from typing import Iterator, Tuple

import pytest

import iikocloud
from iikocloud.testing import Emulator

ROOT = pathlib.Path(__file__).resolve().parents[3]
PROXY_USER = "till"
PROXY_PASSWORD = "py-proxy-pw-5c1e"


def openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    d = tmp_path_factory.mktemp("pki")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    openssl("req", "-x509", *ec, "-days", "2", "-subj", "/CN=iikocloud py test root",
            "-keyout", str(d / "ca.key"), "-out", str(d / "ca.pem"),
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    openssl("req", *ec, "-subj", "/CN=localhost", "-keyout", str(d / "leaf.key"),
            "-out", str(d / "leaf.csr"))
    (d / "leaf.ext").write_text(
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
    openssl("x509", "-req", "-in", str(d / "leaf.csr"), "-CA", str(d / "ca.pem"),
            "-CAkey", str(d / "ca.key"), "-CAcreateserial", "-days", "2",
            "-extfile", str(d / "leaf.ext"), "-out", str(d / "leaf.pem"))
    return d


@pytest.fixture(scope="module")
def tls_emulator(pki: pathlib.Path) -> Iterator[Emulator]:
    with Emulator(tls_cert=pki / "leaf.pem", tls_key=str(pki / "leaf.key")) as emu:
        yield emu


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tuple[str, pathlib.Path]]:
    log = tmp_path_factory.mktemp("proxy") / "proxy.log"
    with open(log, "w") as out:
        p = subprocess.Popen(
            [sys.executable, str(ROOT / "tests/tools/connect_proxy.py"), PROXY_USER],
            env={"IIKO_TEST_PROXY_PASSWORD": PROXY_PASSWORD},
            stdout=out, stderr=subprocess.STDOUT)
    try:
        for _ in range(200):
            text = log.read_text()
            if "listening on " in text:
                break
            p.poll()
            assert p.returncode is None, text
            time.sleep(0.05)
        addr = log.read_text().split("listening on ", 1)[1].split()[0]
        yield addr, log
    finally:
        p.kill()
        p.wait()


def test_emulator_serves_https(tls_emulator: Emulator) -> None:
    assert tls_emulator.url.startswith("https://127.0.0.1:")


def test_unknown_root_is_a_tls_error(tls_emulator: Emulator) -> None:
    with pytest.raises(iikocloud.TlsError) as info:
        tls_emulator.client(retries=0).organizations()
    e = info.value
    assert isinstance(e, iikocloud.TransportError) and e.kind == "tls"
    assert "127.0.0.1: certificate issued by an unknown authority" in str(e)
    assert "ca_file" in str(e)
    with pytest.raises(iikocloud.TlsError):
        tls_emulator.client(trust="bundled").organizations()


def test_ca_file_and_proxy(tls_emulator: Emulator, pki: pathlib.Path,
                           proxy: Tuple[str, pathlib.Path]) -> None:
    addr, log = proxy
    before = log.read_text().count("tunnel ")
    url = f"http://{PROXY_USER}:{PROXY_PASSWORD}@{addr}"
    client = tls_emulator.client(ca_file=pki / "ca.pem", proxy=url)
    assert client.organizations().organizations
    assert PROXY_PASSWORD not in repr(client)
    assert log.read_text().count("tunnel ") == before + 1

    async def via_async() -> int:
        async with tls_emulator.async_client(ca_file=str(pki / "ca.pem"), proxy=url) as c:
            return len((await c.organizations()).organizations)

    assert asyncio.run(via_async()) > 0
    assert log.read_text().count("tunnel ") == before + 2


def test_wrong_proxy_password_is_a_proxy_error(tls_emulator: Emulator, pki: pathlib.Path,
                                               proxy: Tuple[str, pathlib.Path]) -> None:
    addr, _ = proxy
    wrong = PROXY_PASSWORD + "-nope"
    client = tls_emulator.client(ca_file=pki / "ca.pem",
                                 proxy=f"http://{PROXY_USER}:{wrong}@{addr}")
    with pytest.raises(iikocloud.ProxyError) as info:
        client.organizations()
    e = info.value
    assert e.kind == "proxy" and "407" in str(e)
    for shown in (str(e), repr(e), repr(client)):
        assert PROXY_PASSWORD not in shown


def test_bad_trust_options(tls_emulator: Emulator, tmp_path: pathlib.Path) -> None:
    with pytest.raises(iikocloud.InvalidInputError, match="cannot be read"):
        tls_emulator.client(ca_file=tmp_path / "missing.pem")
    (tmp_path / "empty.pem").write_text("nothing here\n")
    with pytest.raises(iikocloud.InvalidInputError, match="holds no certificate"):
        tls_emulator.client(ca_file=tmp_path / "empty.pem")
    with pytest.raises(iikocloud.InvalidInputError, match="trust"):
        tls_emulator.client(trust="none")
    with pytest.raises(iikocloud.InvalidInputError):
        Emulator(tls_cert=tmp_path / "empty.pem")
    with pytest.raises(iikocloud.InvalidInputError, match="proxy URL") as info:
        tls_emulator.client(proxy="socks5://u:py-proxy-pw-5c1e@127.0.0.1:1")
    assert PROXY_PASSWORD not in str(info.value)

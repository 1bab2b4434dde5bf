"""The blocking client against the in-process emulator: every method, every
exception class with its correlation_id, tokens, secrets, logging."""

from __future__ import annotations

import datetime as dt
import http.server
import json
import os
import threading
import subprocess
import sys
import textwrap
import types
from pathlib import Path
import logging
import pickle
from decimal import Decimal

import pytest

import iikocloud
from iikocloud import api_models as m
from iikocloud.testing import (
    API_KEY,
    API_LOGIN_NAME,
    CLIENT_SECRET,
    DISABLED_ORGANIZATION_ID,
    EMPTY_API_KEY,
    ORGANIZATION_ID,
    SECOND_ORGANIZATION_ID,
    TERMINAL_GROUP_ID,
    Emulator,
)

ORGS = "/api/1/organizations"


def test_the_native_module_raises_the_classes_of_errors_by_type() -> None:
    from iikocloud import _errors, _native

    # One list on both sides: a class added or renamed on one side only fails here
    # (and a class the native code raises that _errors lacks fails the import).
    assert sorted(_native.error_class_names()) == sorted(_errors.__all__)
    lacking = types.ModuleType("lacking")
    for name in _native.error_class_names():
        if name != "CommandTimeoutError":
            setattr(lacking, name, getattr(_errors, name))
    with pytest.raises(ImportError, match="no exception class CommandTimeoutError"):
        _native.bind_error_classes(lacking)
    # All or nothing: the real classes are still the ones raised.
    with pytest.raises(iikocloud.InvalidInputError):
        iikocloud.Client(api_login="")


def test_organizations_simple_and_extended(emu: Emulator) -> None:
    with emu.client() as client:
        r = client.organizations()
        assert isinstance(r, m.GetOrganizationsResponse)
        assert r.correlation_id and r.organizations
        ids = [o.id for o in r.organizations]
        assert ORGANIZATION_ID in ids and SECOND_ORGANIZATION_ID in ids
        # The union is read into its variant by `responseType`.
        assert all(isinstance(o, m.SimpleOrganizationInfo) for o in r.organizations)

        ext = client.organizations(organization_ids=[ORGANIZATION_ID], return_additional_info=True)
        assert ext.organizations is not None
        (org,) = ext.organizations
        assert isinstance(org, m.ExtendedOrganizationInfo) and org.response_type == "Extended"
        assert org.id == ORGANIZATION_ID
        assert type(org.currency_minimum_denomination) is Decimal
        d = ext.to_dict()
        assert d["organizations"][0]["id"] == ORGANIZATION_ID
        assert d["organizations"][0]["responseType"] == "Extended"
        assert d["correlationId"] == ext.correlation_id
        assert m.GetOrganizationsResponse.from_dict(d) == ext

        disabled = client.organizations(include_disabled=True)
        assert DISABLED_ORGANIZATION_ID in [o.id for o in disabled.organizations or []]


def test_empty_api_key_sees_no_organization(emu: Emulator) -> None:
    assert emu.client(api_key=EMPTY_API_KEY).organizations().organizations == []


def test_stop_lists_balances_are_exact_decimals(emu: Emulator) -> None:
    r = emu.client().stop_lists(organization_ids=[ORGANIZATION_ID])
    assert isinstance(r, m.StopListsResponse) and r.correlation_id
    assert r.terminal_group_stop_lists is not None
    (org,) = r.terminal_group_stop_lists
    assert org.organization_id == ORGANIZATION_ID
    group = next(g for g in org.items or [] if g.terminal_group_id == TERMINAL_GROUP_ID)
    balances = sorted(i.balance for i in group.items or [] if i.balance is not None)
    assert balances == [Decimal("0.1"), Decimal("12.35")]
    assert all(type(b) is Decimal for b in balances)


def test_stop_list_commands_are_reachable_from_the_client(emu: Emulator) -> None:
    client = emu.client()
    product = "0c3f7a1e-6d52-4b8e-9f0a-3d2c1b4a5e6f"  # on the menu, not stopped in the fixtures

    def stopped() -> "list[str]":
        r = client.stop_lists(organization_ids=[ORGANIZATION_ID], terminal_groups_ids=[TERMINAL_GROUP_ID])
        return [
            i.product_id or ""
            for org in r.terminal_group_stop_lists or []
            for g in org.items or []
            for i in g.items or []
        ]

    assert product not in stopped()
    added = client.stop_lists.add(
        organization_id=ORGANIZATION_ID,
        terminal_group_id=TERMINAL_GROUP_ID,
        items=[m.AddProductsToStopListItem(product_id=product, balance=Decimal("3.5"))],
    )
    assert isinstance(added, m.CorrelationIdResponse)
    client.wait(added, organization_id=ORGANIZATION_ID, timeout=10)
    assert product in stopped()
    checked = client.stop_lists.check(
        organization_id=ORGANIZATION_ID,
        terminal_group_id=TERMINAL_GROUP_ID,
        items=[{"type": "Product", "productId": product, "amount": 1, "price": 690}],
    )
    assert isinstance(checked, m.CheckStopListResponse)
    removed = client.stop_lists.remove(
        organization_id=ORGANIZATION_ID, terminal_group_id=TERMINAL_GROUP_ID, items=[{"productId": product}]
    )
    client.wait(removed, organization_id=ORGANIZATION_ID, timeout=10)
    assert product not in stopped()
    cleared = client.stop_lists.clear(organization_id=ORGANIZATION_ID, terminal_group_id=TERMINAL_GROUP_ID)
    client.wait(cleared, organization_id=ORGANIZATION_ID, timeout=10)
    assert stopped() == []


def test_webhook_settings_round_trip_and_secret_not_in_repr(emu: Emulator) -> None:
    client = emu.client()
    token = "very-secret-webhook-token-123"
    filt = m.WebHooksFilter(
        delivery_order_filter=m.DeliveryOrderWebHooksFilter(order_statuses=["Unconfirmed"], errors=True),
        stop_list_update_filter=m.WebHookShortFilter(updates=True),
    )
    r = client.webhooks.update_settings(
        organization_id=ORGANIZATION_ID,
        web_hooks_uri="http://127.0.0.1:9/hook",
        auth_token=token,
        web_hooks_filter=filt,
    )
    assert isinstance(r, m.CorrelationIdResponse) and r.correlation_id
    s = client.webhooks.settings(organization_id=ORGANIZATION_ID)
    assert isinstance(s, m.GetWebHookSettingsResponse)
    assert s.web_hooks_uri == "http://127.0.0.1:9/hook"
    assert s.auth_token == token
    assert s.api_login_name == API_LOGIN_NAME
    assert s.web_hooks_filter is not None
    assert s.web_hooks_filter.delivery_order_filter is not None
    assert s.web_hooks_filter.delivery_order_filter.order_statuses == ["Unconfirmed"]
    assert s.web_hooks_filter.delivery_order_filter.order_statuses[0] == m.DeliveryStatus.UNCONFIRMED
    # The token is kept (to_dict sends it back) but never shown.
    assert token not in repr(s) and "auth_token='[redacted]'" in repr(s)
    assert s.to_dict()["authToken"] == token
    assert token not in repr(s.replace(web_hooks_uri="http://127.0.0.1:9/other"))
    # A plain dict works as a filter too.
    client.webhooks.update_settings(
        organization_id=ORGANIZATION_ID,
        web_hooks_uri="http://127.0.0.1:9/h2",
        auth_token=token,
        web_hooks_filter={"reserveFilter": {"updates": True}},
    )
    again = client.webhooks.settings(organization_id=ORGANIZATION_ID)
    assert again.web_hooks_uri == "http://127.0.0.1:9/h2"
    assert again.web_hooks_filter is not None and again.web_hooks_filter.reserve_filter is not None


def test_credentials_in_generated_models_are_redacted() -> None:
    secret = "s3cret-value-0123456789"
    shown = [
        repr(m.GetAccessTokenV2Request(api_key=secret, client_secret=secret, app_id="app")),
        repr(m.GetAccessTokenRequest(api_login=secret)),
        repr(m.GetAccessTokenResponse(token=secret, correlation_id="c")),
        repr(m.UpdateWebHookSettingsRequest(auth_token=secret, web_hooks_uri="http://x")),
    ]
    for text in shown:
        assert secret not in text and "[redacted]" in text, text
    assert "app_id='app'" in shown[0] and "correlation_id='c'" in shown[2]


def test_raw_call(emu: Emulator) -> None:
    client = emu.client()
    answer = client.call(ORGS, {"organizationIds": [ORGANIZATION_ID]}, idempotent=True)
    assert answer["organizations"][0]["id"] == ORGANIZATION_ID
    answer = client.call("/api/1/stop_lists", {"organizationIds": [ORGANIZATION_ID]}, decimals=True)
    items = answer["terminalGroupStopLists"][0]["items"][0]["items"]
    assert Decimal("0.1") in [i["balance"] for i in items]
    with pytest.raises(iikocloud.InvalidInputError):
        client.call("api/no-slash", {})
    with pytest.raises(iikocloud.InvalidInputError, match=r"body\.x"):
        client.call(ORGS, {"x": object()})


def test_invalid_input_is_a_value_error_and_sends_nothing(emu: Emulator) -> None:
    client = emu.client()
    with pytest.raises(ValueError, match="organizationIds"):
        client.organizations(organization_ids=["not-a-uuid"])
    # A bare string is not read as a list of characters.
    with pytest.raises(iikocloud.InvalidInputError, match="organizationIds: must be a list, got a string"):
        client.organizations(organization_ids=ORGANIZATION_ID)
    with pytest.raises(iikocloud.InvalidInputError, match="organizationId"):
        client.webhooks.update_settings(organization_id="not-a-uuid", web_hooks_uri="http://x")
    with pytest.raises(TypeError):
        client.stop_lists([ORGANIZATION_ID])  # type: ignore[misc]
    assert emu.request_count(ORGS) == 0
    assert emu.request_count("/api/1/webhooks/update_settings") == 0


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"app_id": "a"},
        {"app_id": "a", "client_secret": "s", "api_key": "k", "api_login": "l"},
        {"api_login": "l", "base_url": "ftp://x"},
        {"api_login": "l", "timeout": 10, "client_timeout": 5},
        {"api_login": "l", "timeout": -1},
    ],
)
def test_bad_configuration(kwargs: dict) -> None:
    with pytest.raises(iikocloud.InvalidInputError):
        iikocloud.Client(**kwargs)


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, iikocloud.BadRequestError),
        (403, iikocloud.ForbiddenError),
        (404, iikocloud.NotFoundError),
        (408, iikocloud.TerminalTimeoutError),
        (500, iikocloud.ServerError),
        (503, iikocloud.ServerError),
        (418, iikocloud.ApiError),
    ],
)
def test_api_errors_by_status(emu: Emulator, status: int, cls: type) -> None:
    client = emu.client(retries=0)
    client.ensure_token()
    emu.inject(ORGS, "status", status=status)
    with pytest.raises(cls) as info:
        client.organizations()
    e = info.value
    assert isinstance(e, iikocloud.ApiError) and isinstance(e, iikocloud.IikoError)
    assert e.status == status and e.path == ORGS
    assert e.correlation_id and e.correlation_id in str(e)
    last = emu.requests()[-1]
    assert last["correlationId"] == e.correlation_id
    assert e.body and e.correlation_id in e.body
    assert e.error_code


def test_rate_limit_has_retry_after_and_is_not_retried(emu: Emulator) -> None:
    client = emu.client()  # retries on: a 429 must still not be retried
    client.ensure_token()
    emu.inject(ORGS, "rate_limited", retry_after=7)
    with pytest.raises(iikocloud.RateLimitError) as info:
        client.organizations()
    assert info.value.retry_after == 7.0
    assert info.value.status == 429 and info.value.correlation_id
    assert emu.request_count(ORGS) == 1


def test_server_errors_of_safe_calls_are_retried(emu: Emulator) -> None:
    client = emu.client(retries=2)
    emu.inject(ORGS, "status", status=503, times=2)
    assert client.organizations().organizations
    assert emu.request_count(ORGS) == 3


def test_authentication_error(emu: Emulator) -> None:
    client = emu.client(api_key="wrong-key", retries=0)
    with pytest.raises(iikocloud.AuthenticationError) as info:
        client.organizations()
    assert info.value.status == 401 and info.value.correlation_id
    assert "wrong-key" not in str(info.value) and CLIENT_SECRET not in str(info.value)


def test_transport_error(emu: Emulator) -> None:
    client = emu.client(retries=0)
    client.ensure_token()
    emu.inject(ORGS, "connection_reset")
    with pytest.raises(iikocloud.TransportError) as info:
        client.organizations()
    assert info.value.path == ORGS and info.value.kind in ("io", "connect", "other")
    assert info.value.correlation_id is None
    closed = iikocloud.Client(api_login="x", base_url="http://127.0.0.1:9", retries=0)
    with pytest.raises(iikocloud.TransportError) as info2:
        closed.organizations()
    assert info2.value.kind == "connect"


def test_client_timeout_is_a_transport_timeout(emu: Emulator) -> None:
    client = emu.client(retries=0, timeout=1, client_timeout=1.3)
    client.ensure_token()
    emu.inject(ORGS, "delay", delay=2.5)
    with pytest.raises(iikocloud.TransportError) as info:
        client.organizations()
    assert info.value.is_timeout and info.value.kind == "timeout"


@pytest.mark.parametrize("fault", ["malformed_body", "wrong_content_type"])
def test_decode_error(emu: Emulator, fault: str) -> None:
    client = emu.client(retries=0)
    client.ensure_token()
    emu.inject(ORGS, fault)
    with pytest.raises(iikocloud.DecodeError) as info:
        client.organizations()
    assert info.value.status == 200 and info.value.path == ORGS
    assert info.value.body


def test_exceptions_pickle_and_live_in_the_package() -> None:
    e = iikocloud.RateLimitError("slow", status=429, correlation_id="c-1", retry_after=3.0, body="{}")
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is iikocloud.RateLimitError
    assert (e2.status, e2.correlation_id, e2.retry_after, str(e2)) == (429, "c-1", 3.0, "slow")
    for name in iikocloud.__all__:
        obj = getattr(iikocloud, name)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            assert obj.__module__ == "iikocloud"
            assert issubclass(obj, iikocloud.IikoError)
    for cls in (iikocloud.InvalidInputError, iikocloud.WebhookVerificationError, iikocloud.WebhookParseError):
        assert issubclass(cls, ValueError)


def test_a_rust_panic_is_an_iiko_error() -> None:
    from iikocloud import _native

    if os.environ.get("IIKO_RELEASE_WHEEL") == "1":
        # scripts/dist-test.sh runs this suite on the release wheel, which
        # must not carry the test hook.
        assert not hasattr(_native, "_panic_for_tests")
        return
    with pytest.raises(iikocloud.IikoError, match="panic requested"):
        _native._panic_for_tests()


def test_token_is_cached_and_refreshed_after_expiry(emu: Emulator) -> None:
    client = emu.client()
    assert client.token_expires_at() is None
    client.organizations()
    client.organizations()
    assert emu.request_count("/api/v2/access_token") == 1
    exp = client.token_expires_at()
    assert exp is not None and exp.tzinfo is not None
    assert exp > dt.datetime.now(dt.timezone.utc)
    emu.expire_tokens()  # the service now answers 401: one refresh, one retry
    assert client.organizations().organizations
    assert emu.request_count("/api/v2/access_token") == 2


def test_token_cache_dir_shares_one_token_between_processes(emu: Emulator, tmp_path: Path) -> None:
    # Separate interpreters, as gunicorn workers would be: only the file is shared.
    script = textwrap.dedent(
        """
        import sys, iikocloud
        client = iikocloud.Client(app_id=sys.argv[1], client_secret=sys.argv[2],
                                  api_key=sys.argv[3], base_url=sys.argv[4],
                                  token_cache_dir=sys.argv[5])
        assert client.organizations().organizations
        """
    )
    creds = emu.credentials
    args = [creds["app_id"], creds["client_secret"], creds["api_key"], emu.url, str(tmp_path)]
    procs = [subprocess.Popen([sys.executable, "-c", script, *args]) for _ in range(4)]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0, 0]
    assert emu.request_count("/api/v2/access_token") == 1
    files = [f for f in os.listdir(tmp_path) if f.endswith(".json")]
    assert len(files) == 1
    with open(os.path.join(tmp_path, files[0])) as f:
        text = f.read()
    assert creds["client_secret"] not in text and creds["api_key"] not in text


def test_api_login_credentials(emu: Emulator) -> None:
    # The emulator may or may not accept the legacy login; the call must go
    # to the legacy token endpoint either way.
    client = iikocloud.Client(api_login="some-login", base_url=emu.url, retries=0)
    try:
        client.organizations()
    except iikocloud.ApiError:
        pass
    assert emu.request_count("/api/1/access_token") == 1


def test_with_timeout_shares_the_token_and_sends_the_header(emu: Emulator) -> None:
    client = emu.client(timeout=15)
    slow = client.with_timeout(dt.timedelta(seconds=42))
    assert slow.timeout == 42.0 and client.timeout == 15.0
    client.organizations()
    slow.organizations()
    assert emu.request_count("/api/v2/access_token") == 1
    headers = [r["timeoutHeader"] for r in emu.requests() if r["path"] == ORGS]
    assert headers == ["15", "42"]


def test_repr_never_shows_secrets_and_close(emu: Emulator) -> None:
    client = emu.client()
    text = repr(client)
    assert CLIENT_SECRET not in text and API_KEY not in text and emu.url in text
    legacy = iikocloud.Client(api_login="login-xyz-secret", base_url=emu.url)
    assert "login-xyz-secret" not in repr(legacy)
    client.close()
    assert client.closed
    with pytest.raises(iikocloud.IikoError, match="closed"):
        client.organizations()


def test_debug_log_line_per_request_without_secrets(emu: Emulator, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="iikocloud"):
        client = emu.client()
        r = client.organizations()
    lines = [rec.getMessage() for rec in caplog.records if rec.name == "iikocloud"]
    assert any(ORGS in line and r.correlation_id in line for line in lines), lines
    text = "\n".join(lines)
    for secret in (CLIENT_SECRET, API_KEY):
        assert secret not in text
    assert "Bearer" not in text


def test_plugin_fixture(iikocloud_emulator: Emulator) -> None:
    assert iikocloud_emulator.running
    assert iikocloud_emulator.client().organizations().organizations


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_forked_child_gets_its_own_pool_and_token(emu: Emulator) -> None:
    import os

    client = emu.client()
    client.organizations()
    pid = os.fork()
    if pid == 0:  # child: must not reuse the parent's pooled socket
        code = 1
        try:
            code = 0 if client.organizations().organizations else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    assert emu.request_count("/api/v2/access_token") == 2
    assert client.organizations().organizations


class _FixedAnswer(http.server.BaseHTTPRequestHandler):
    """Answers every call with ``answer`` (and a token), and records the
    bodies it was sent."""

    protocol_version = "HTTP/1.1"
    answer = b"{}"
    status = 200
    bodies: "list[bytes]" = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        sent = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path.endswith("/access_token"):
            body = b'{"correlationId":"t","token":"opaque-token"}'
        else:
            type(self).bodies.append(sent)
            body = type(self).answer
        self.send_response(200 if self.path.endswith("/access_token") else type(self).status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


class _ExactAmounts(_FixedAnswer):
    """Amounts a float cannot hold."""

    answer = b'{"sum":12345678901234567.891,"items":[{"price":0.30000000000000004441}],"count":98765432109876543210}'
    bodies: "list[bytes]" = []


def test_raw_call_with_decimals_keeps_every_digit() -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _ExactAmounts)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = iikocloud.Client(api_login="login", base_url=f"http://127.0.0.1:{server.server_address[1]}")
        answer = client.call("/api/1/anything", {"amount": Decimal("12.50")}, decimals=True)
        assert answer["sum"] == Decimal("12345678901234567.891")
        assert answer["items"][0]["price"] == Decimal("0.30000000000000004441")
        assert answer["count"] == 98765432109876543210
        assert json.loads(_ExactAmounts.bodies[-1]) == {"amount": 12.5}
        # Without decimals the answer is floats, as json.loads gives them.
        plain = client.call("/api/1/anything", {})
        assert plain["sum"] == 12345678901234567.891 and isinstance(plain["sum"], float)
    finally:
        server.shutdown()
        server.server_close()


class _UnmakeableNumbers(_FixedAnswer):
    """JSON the core passes whose number Python refuses to make (set by the
    test)."""

    bodies: "list[bytes]" = []


@pytest.mark.parametrize(
    "number, why",
    [("9" * 5000, "Exceeds the limit"), ("1e9999999999999999999999", "exponent past what Decimal holds")],
    ids=["int_past_the_digit_limit", "exponent_past_decimal"],
)
def test_an_answer_python_cannot_make_is_a_decode_error(number: str, why: str) -> None:
    """A value Python refuses (``int``'s digit limit, ``Decimal``'s exponent)
    in an answer raises the DecodeError of any unreadable answer, with the
    path, the body and its correlationId, by every way of calling: the typed
    call read natively, the call by name, the raw call with decimals."""
    if number.startswith("9") and not hasattr(sys, "get_int_max_str_digits"):
        pytest.skip("this Python has no integer digit limit")
    text = f'{{"correlationId":"c-7","organizations":[{{"id":"o","name":{number}}}]}}'
    _UnmakeableNumbers.answer = text.encode()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _UnmakeableNumbers)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = iikocloud.Client(api_login="login", base_url=f"http://127.0.0.1:{server.server_address[1]}", retries=0)
        calls = {
            "typed": client.organizations,
            "by name": lambda: client.call_operation("organizations", {}),
            "raw": lambda: client.call(ORGS, {}, decimals=True),
        }
        for how, call in calls.items():
            with pytest.raises(iikocloud.DecodeError) as info:
                call()
            e = info.value
            assert (e.status, e.path, e.correlation_id, e.body) == (200, ORGS, "c-7", text), how
            assert why in str(e) and "Python cannot make its values" in str(e), (how, str(e))
            assert isinstance(e.__cause__, (ValueError, ArithmeticError)), how
        # A raw call's error keeps the status its answer came with (a
        # create's 201).
        _UnmakeableNumbers.status = 201
        with pytest.raises(iikocloud.DecodeError) as info:
            client.call(ORGS, {}, decimals=True)
        assert (info.value.status, info.value.path) == (201, ORGS)
    finally:
        _UnmakeableNumbers.status = 200
        server.shutdown()
        server.server_close()


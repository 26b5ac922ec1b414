"""Getting to a real cluster (issue 10, finding 7): proxies from the environment and the kubeconfig, a
per-request timeout that follows --timeout-scale, 429/5xx answered with Retry-After retried as client-go does,
and a token refreshed by an exec plugin masked like the first one."""

from __future__ import annotations

import time

import requests

from conformance.client.api import KubeClient
from conformance.client.config import _BearerAuth, from_kubeconfig, from_server
from conformance.wait import set_timeout_scale

from test_config import _write_kubeconfig  # noqa: E402  (tests/harness is on sys.path, see conftest)


def _proxies(conn, url):
    return conn.session.merge_environment_settings(url, {}, None, None, None)["proxies"]


def test_https_proxy_from_environment_is_used(monkeypatch):
    """client-go's transport uses http.ProxyFromEnvironment (HTTPS_PROXY, NO_PROXY) unless proxy-url is set."""
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    conn = from_server("https://api.cluster.example:6443", insecure=True)
    assert _proxies(conn, conn.base_url + "/version").get("https") == "http://proxy.example:3128"


def test_no_proxy_bypasses_the_environment_proxy(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", ".cluster.example")
    conn = from_server("https://api.cluster.example:6443", insecure=True)
    assert not _proxies(conn, conn.base_url + "/version").get("https")


def test_environment_does_not_override_kubeconfig_ca(monkeypatch, tmp_path):
    """Honouring proxies must not let REQUESTS_CA_BUNDLE replace the CA the kubeconfig names."""
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", "/nonexistent/ca.pem")
    conn = from_server("https://api.cluster.example:6443", ca_file=str(tmp_path / "ca.pem"))
    settings = conn.session.merge_environment_settings(conn.base_url, {}, None, None, None)
    assert settings["verify"] == str(tmp_path / "ca.pem")


def test_kubeconfig_proxy_url_wins_over_environment(monkeypatch, tmp_path, fake):
    monkeypatch.setenv("HTTPS_PROXY", "http://env-proxy.example:3128")
    monkeypatch.setenv("HTTP_PROXY", "http://env-proxy.example:3128")
    kc = _write_kubeconfig(tmp_path / "kc", fake.url, {"token": "t"},
                           cluster_extra={"proxy-url": "http://kc-proxy.example:8080"})
    conn = from_kubeconfig(str(kc))
    assert _proxies(conn, conn.base_url + "/version").get("http") == "http://kc-proxy.example:8080"


def test_request_timeout_follows_timeout_scale(recorder):
    seen = []

    class Session(requests.Session):
        def send(self, request, **kw):  # type: ignore[override]
            seen.append(kw.get("timeout"))
            raise requests.exceptions.ConnectionError("stop here")

    client = KubeClient("http://127.0.0.1:9", Session(), recorder=recorder, timeout=30.0)
    set_timeout_scale(3.0)
    try:
        client.get("/version")
    except Exception:
        pass
    assert seen == [90.0]


def test_429_with_retry_after_is_retried(fake, client):
    fake.throttle = [(429, "0"), (503, "0")]
    resp = client.get("/version")
    assert resp.status_code == 200
    assert [p for _, p, _ in fake.requests].count("/version") == 3


def test_429_without_retry_after_is_answered_as_is(fake, client):
    """client-go retries only when the server says when (checkWait needs Retry-After)."""
    fake.throttle = [(429, None)]
    assert client.get("/version").status_code == 429


def test_retries_are_bounded(fake, client):
    fake.throttle = [(429, "0")] * 30
    assert client.get("/version").status_code == 429
    assert len([p for _, p, _ in fake.requests if p == "/version"]) == 11  # 1 + client-go's 10 retries


def test_retry_after_wait_is_honoured(fake, client):
    fake.throttle = [(429, "1")]
    started = time.monotonic()
    assert client.get("/version").status_code == 200
    assert time.monotonic() - started >= 0.9


def test_refreshed_exec_token_is_masked(recorder):
    tokens = iter(["Bearer first-token", "Bearer second-token"])

    class Cfg:
        def get_api_key_with_prefix(self, *_a, **_kw):
            return next(tokens)

    auth = _BearerAuth(Cfg())
    session = requests.Session()
    session.auth = auth
    client = KubeClient("http://127.0.0.1:9", session, recorder=recorder, secrets=("first-token",))
    for _ in range(2):
        session.prepare_request(requests.Request("GET", "http://127.0.0.1:9/version"))
    assert "second-token" in client.secrets and "first-token" in client.secrets

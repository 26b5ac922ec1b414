"""`/healthz`, `/livez`, `/readyz` and the root index `/` over HTTP, on each storage backend (the etcd one probes a
real etcd): upstream's bodies, status codes and headers (healthz.go, routes/index.go)."""
from __future__ import annotations

import json
from typing import Any

import pytest
import requests

from ..conftest import unique
from ..test_extensions import CRDS, crd
from .test_checks import READYZ_1_33
from tests.reference_server.crds import create_crd


def test_readyz_verbose_lists_every_check_of_1_33(http: requests.Session, url: str) -> None:
    r = http.get(f"{url}/readyz?verbose")
    assert r.status_code == 200 and r.text == READYZ_1_33
    assert r.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert r.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("path", ["/healthz", "/livez", "/readyz"])
def test_roots_answer_ok_and_each_check_has_its_path(http: requests.Session, url: str, path: str) -> None:
    assert http.get(url + path).text == "ok"
    verbose = http.get(f"{url}{path}?verbose=1&exclude=etcd&exclude=nope").text
    assert "[+]etcd excluded: ok\n" in verbose
    assert verbose.endswith('warn: some health checks cannot be excluded: no matches for "nope"\n'
                            f"{path[1:]} check passed\n")
    for line in verbose.splitlines()[:-2]:
        name = line[3:].split(" ")[0]
        one = http.get(f"{url}{path}/{name}")
        assert (one.status_code, one.text) == (200, "ok"), name
        assert "X-Content-Type-Options" not in one.headers  # adaptCheckToHandler sets no header
    missing = http.get(f"{url}{path}/nope")
    assert (missing.status_code, missing.text) == (404, "404 page not found\n")


def test_health_handlers_answer_any_method(http: requests.Session, url: str) -> None:
    """A mux handler, not a go-restful route: POST is answered as GET (authorization decides, not a 405)."""
    r = http.post(f"{url}/livez?verbose")
    assert r.status_code == 200 and r.text.endswith("livez check passed\n")


def test_readyz_shutdown_is_readyz_only(http: requests.Session, url: str) -> None:
    assert http.get(f"{url}/readyz/shutdown").text == "ok"
    assert http.get(f"{url}/livez/shutdown").status_code == 404
    assert http.get(f"{url}/healthz/informer-sync").status_code == 404


def _index(http: requests.Session, url: str, path: str = "/") -> list[str]:
    r = http.get(url + path)
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/json"
    paths = r.json()["paths"]
    assert r.text == json.dumps({"paths": paths}, indent=2)  # MarshalIndent, two spaces, no final newline
    return paths


def test_root_index_lists_the_served_paths_sorted(http: requests.Session, url: str) -> None:
    paths = _index(http, url)
    assert paths == sorted(set(paths))
    assert {"/api", "/api/v1", "/apis", "/apis/", "/apis/apps", "/apis/apps/v1", "/apis/autoscaling/v1",
            "/apis/autoscaling/v2", "/healthz", "/healthz/etcd", "/livez/ping", "/metrics", "/metrics/slis",
            "/openapi/v2", "/openapi/v3", "/openapi/v3/", "/readyz", "/readyz/etcd-readiness", "/readyz/shutdown",
            "/readyz/poststarthook/scheduling/bootstrap-system-priority-classes", "/version"} <= set(paths)

    def same_groups() -> bool:  # (polled: another test's CRD may be going away between the two reads)
        listed = {p.split("/")[2] for p in _index(http, url) if p.startswith("/apis/") and p != "/apis/"}
        return listed == {g["name"] for g in http.get(f"{url}/apis").json()["groups"]}
    _poll(same_groups)
    assert "/" not in paths and "/index.html" not in paths  # UnlistedHandle
    for path in paths:  # every listed path is served (or was a CRD's, gone since)
        assert http.get(url + path).status_code != 404 or path not in _index(http, url), path
    assert _index(http, url, "/index.html") == paths


def test_root_index_lists_a_crds_group_and_versions(http: requests.Session, url: str) -> None:
    group = f"{unique('idx')}.example.com"
    assert create_crd(http, url, crd(group)).status_code == 201
    try:
        def listed() -> bool:
            return {f"/apis/{group}", f"/apis/{group}/v1"} <= set(_index(http, url))
        _poll(listed)
    finally:
        http.delete(f"{url}{CRDS}/widgets.{group}")


def _poll(predicate: Any, timeout: float = 10.0) -> None:
    import time
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)

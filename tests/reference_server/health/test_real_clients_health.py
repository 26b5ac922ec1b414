"""kubectl 1.33 reads the health endpoints and the index as on a kind cluster: `kubectl get --raw='/readyz?verbose'`
(every troubleshooting guide's first command) prints 1.33's checks, `kubectl get --raw /` the index, and a check
that fails makes kubectl report the server's 500 with its body."""
from __future__ import annotations

import json
from typing import Iterator

import pytest

from ..test_real_clients import Kube, kube, serve_kube  # noqa: F401 - kube: a fixture
from .test_checks import READYZ_1_33


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "health", flavor="bare", authorization="rbac")


def test_kubectl_get_raw_readyz_verbose(kube: Kube) -> None:  # noqa: F811
    assert kube.ok("get", "--raw", "/readyz?verbose") == READYZ_1_33
    assert kube.ok("get", "--raw", "/livez") == "ok"
    assert kube.ok("get", "--raw", "/readyz/poststarthook/rbac/bootstrap-roles") == "ok"


def test_kubectl_get_raw_index(kube: Kube) -> None:  # noqa: F811
    out = kube.ok("get", "--raw", "/")
    paths = json.loads(out)["paths"]
    assert out == json.dumps({"paths": paths}, indent=2)
    assert paths == kube.http.get(f"{kube.server.url}/").json()["paths"]
    assert {"/api/v1", "/apis/", "/readyz/shutdown", "/version"} <= set(paths)


def test_kubectl_sees_a_failing_check(kube: Kube) -> None:  # noqa: F811
    health = kube.server.server.ctx.health
    health.shutting_down = True
    try:
        failed = kube.run("get", "--raw", "/readyz")
    finally:
        health.shutting_down = False
    assert failed.returncode != 0
    assert "[-]shutdown failed: reason withheld" in failed.stderr and "readyz check failed" in failed.stderr
    denied = kube.run("get", "--raw", "/", "--as", "someone")
    assert denied.returncode != 0 and 'User "someone" cannot get path "/"' in denied.stderr

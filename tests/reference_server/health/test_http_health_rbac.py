"""Who may read the health endpoints and the index under `--authorization rbac` (bootstrappolicy/policy.go):
`system:public-info-viewer` (every user, anonymous included) and `system:discovery` grant `get` on `/healthz`,
`/livez`, `/readyz` only; `system:monitoring` adds each check's path (`/readyz/*`, ...); `/` and `/index.html`
are in no role but cluster-admin's `*`."""
from __future__ import annotations


import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from tests.reference_server.ownserver import own_server


rbac = own_server(flavor="bare", authorization="rbac")


def _as(srv: RunningServer, user: str | None = None, *groups: str) -> dict[str, str]:
    if user is None:
        return {}
    headers = {"Authorization": f"Bearer {srv.token}", "Impersonate-User": user}
    if groups:
        headers["Impersonate-Group"] = ",".join(groups)
    return headers


def _forbidden(r: requests.Response, user: str, path: str, verb: str = "get") -> None:
    assert r.status_code == 403, r.text
    assert r.json()["message"] == f'forbidden: User "{user}" cannot {verb} path "{path}"'


@pytest.mark.parametrize("path", ["/healthz", "/livez", "/readyz"])
def test_anyone_reads_the_roots_but_not_the_checks(rbac: RunningServer, path: str) -> None:
    assert requests.get(rbac.url + path).text == "ok"  # system:anonymous, through system:public-info-viewer
    _forbidden(requests.get(f"{rbac.url}{path}/etcd"), "system:anonymous", f"{path}/etcd")
    _forbidden(requests.get(f"{rbac.url}{path}/etcd", headers=_as(rbac, "someone")), "someone", f"{path}/etcd")
    _forbidden(requests.post(rbac.url + path), "system:anonymous", path, "post")
    monitoring = requests.get(f"{rbac.url}{path}/etcd", headers=_as(rbac, "prom", "system:monitoring"))
    assert (monitoring.status_code, monitoring.text) == (200, "ok")


@pytest.mark.parametrize("path", ["/", "/index.html"])
def test_the_index_is_cluster_admins(rbac: RunningServer, path: str) -> None:
    _forbidden(requests.get(rbac.url + path), "system:anonymous", path)
    _forbidden(requests.get(rbac.url + path, headers=_as(rbac, "someone")), "someone", path)
    admin = requests.get(rbac.url + path, headers={"Authorization": f"Bearer {rbac.token}"})
    assert admin.status_code == 200 and "/readyz/shutdown" in admin.json()["paths"]

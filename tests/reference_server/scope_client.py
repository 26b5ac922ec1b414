"""A small client for the scope tests (RBAC, quota, LimitRange) against an embedded server."""
from __future__ import annotations

import threading
import time
import uuid
from typing import Any, Callable

import requests

RBAC = "/apis/rbac.authorization.k8s.io/v1"
GROUP = "rbac.authorization.k8s.io"
_PAUSE = threading.Event()


def unique(base: str = "t") -> str:
    return f"{base}-{uuid.uuid4().hex[:8]}"


class ScopeClient:
    """Requests as the server's admin (its token), optionally impersonating `user`."""

    def __init__(self, srv: Any):
        self.url = srv.url
        self.s = requests.Session()
        if srv.token:
            self.s.headers["Authorization"] = f"Bearer {srv.token}"

    def req(self, method: str, path: str, user: str | None = None, **kw: Any) -> requests.Response:
        headers = dict(kw.pop("headers", {}) or {})
        if user:
            headers["Impersonate-User"] = user
        return self.s.request(method, self.url + path, headers=headers, **kw)

    def get(self, path: str, user: str | None = None, **kw: Any) -> requests.Response:
        return self.req("GET", path, user, **kw)

    def post(self, path: str, body: Any, user: str | None = None, **kw: Any) -> requests.Response:
        return self.req("POST", path, user, json=body, **kw)

    def delete(self, path: str, user: str | None = None, **kw: Any) -> requests.Response:
        return self.req("DELETE", path, user, **kw)

    # ---- set-up helpers -------------------------------------------------------------------------
    def ns(self, base: str = "ns") -> str:
        name = unique(base)
        r = self.post("/api/v1/namespaces", {"metadata": {"name": name}})
        assert r.status_code == 201, r.text
        return name

    def grant(self, ns: str, user: str, verbs: list[str], resources: tuple[str, ...] = ("configmaps",),
              role_kind: str = "Role") -> None:
        name = unique("r")
        if role_kind == "Role":
            r = self.post(f"{RBAC}/namespaces/{ns}/roles", {"metadata": {"name": name}, "rules": [
                {"apiGroups": [""], "resources": list(resources), "verbs": verbs}]})
        else:
            r = self.post(f"{RBAC}/clusterroles", {"metadata": {"name": name}, "rules": [
                {"apiGroups": [""], "resources": list(resources), "verbs": verbs}]})
        assert r.status_code == 201, r.text
        r = self.post(f"{RBAC}/namespaces/{ns}/rolebindings", {
            "metadata": {"name": name}, "roleRef": {"apiGroup": GROUP, "kind": role_kind, "name": name},
            "subjects": [{"kind": "User", "name": user, "apiGroup": GROUP}]})
        assert r.status_code == 201, r.text

    def quota(self, ns: str, hard: dict[str, str], name: str = "q") -> dict[str, Any]:
        r = self.post(f"/api/v1/namespaces/{ns}/resourcequotas", {"metadata": {"name": name}, "spec": {"hard": hard}})
        assert r.status_code == 201, r.text
        return self.until_used(ns, name, {k: "0" for k in hard})

    def used(self, ns: str, name: str = "q") -> dict[str, str]:
        return (self.get(f"/api/v1/namespaces/{ns}/resourcequotas/{name}").json().get("status") or {}).get("used") or {}

    def until(self, check: Callable[[], bool], what: str, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            _PAUSE.wait(0.02)

    def until_used(self, ns: str, name: str, used: dict[str, str], timeout: float = 5.0) -> dict[str, Any]:
        self.until(lambda: all(self.used(ns, name).get(k) == v for k, v in used.items()),
                   f"quota {ns}/{name} used {used} (last {self.used(ns, name)})", timeout)
        return self.get(f"/api/v1/namespaces/{ns}/resourcequotas/{name}").json()

    def cm(self, ns: str, name: str, user: str | None = None) -> requests.Response:
        return self.post(f"/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": name}}, user)

    def pod(self, ns: str, name: str, resources: dict[str, Any] | None = None) -> requests.Response:
        c: dict[str, Any] = {"name": "c", "image": "x"}
        if resources is not None:
            c["resources"] = resources
        return self.post(f"/api/v1/namespaces/{ns}/pods", {"metadata": {"name": name}, "spec": {"containers": [c]}})

    def limit_range(self, ns: str, item: dict[str, Any]) -> None:
        r = self.post(f"/api/v1/namespaces/{ns}/limitranges", {"metadata": {"name": "l"}, "spec": {"limits": [item]}})
        assert r.status_code == 201, r.text

"""Creating a CRD as a client of a real cluster must: POST it, then wait (on a watch of it, no sleeping) until
kube-apiserver's naming and establishing controllers have made it Established, before using its resources."""
from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Callable

import requests

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def schemaless_crd(group: str, plural: str, kind: str, scope: str = "Namespaced") -> dict[str, Any]:
    """A CRD serving `v1` (its storage version) whose schema keeps every field (`x-kubernetes-preserve-unknown-
    fields` at its root): any body is a valid custom resource."""
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{group}"},
            "spec": {"group": group, "scope": scope, "names": {"plural": plural, "kind": kind},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}


def condition(crd: dict[str, Any], typ: str) -> dict[str, Any] | None:
    return next((c for c in (crd.get("status") or {}).get("conditions") or [] if c.get("type") == typ), None)


def established(crd: dict[str, Any]) -> bool:
    c = condition(crd, "Established")
    return bool(c and c.get("status") == "True")


def wait_crd(http: Any, base: str, name: str, pred: Callable[[dict[str, Any]], bool] = established,
             timeout: float = 30.0, **kw: Any) -> dict[str, Any]:
    """The CRD `name` once `pred` holds for it (Established by default), waiting on a watch from its current
    resourceVersion. `http`: `requests` or a session (its credentials), `kw` the request's extra arguments."""
    r = http.get(f"{base}{CRDS}/{name}", timeout=timeout, **kw)
    assert r.status_code == 200, r.text
    crd = r.json()
    if pred(crd):
        return crd
    params = {"watch": "1", "fieldSelector": f"metadata.name={name}",
              "resourceVersion": crd["metadata"]["resourceVersion"], "timeoutSeconds": str(int(timeout) + 1)}
    with http.get(f"{base}{CRDS}", params=params, stream=True, timeout=timeout + 5, **kw) as w:
        for line in w.iter_lines():
            if not line:
                continue
            ev = json.loads(line)
            if ev.get("type") in ("ADDED", "MODIFIED") and pred(ev["object"]):
                return ev["object"]
    raise AssertionError(f"CRD {name}: not there within {timeout} s (last seen: {crd.get('status')})")


def create_crd(http: Any, base: str, body: dict[str, Any], **kw: Any) -> requests.Response:
    """POST `body`; a created CRD is waited for until Established (the answer is the POST's)."""
    r = http.post(f"{base}{CRDS}", json=body, **kw)
    if r.status_code == 201:
        wait_crd(http, base, r.json()["metadata"]["name"], **{k: v for k, v in kw.items() if k != "timeout"})
    return r


def settle_crd(registry: Any, name: str) -> dict[str, Any]:
    """For a test of a bare registry (no server, no controllers running): the naming and establishing
    controllers' syncs of the CRD `name`, run once each as their workers would, in order. The CRD as stored."""
    from conformance.reference_server.controller.crd_establishing import EstablishingController
    from conformance.reference_server.controller.crd_naming import NamingConditionController
    NamingConditionController(registry).sync_crd(name)
    EstablishingController(registry).sync_crd(name)
    return registry.custom.crds.get("", name)


def delete_crd(http: Any, base: str, name: str, timeout: float = 30.0) -> None:
    """DELETE the CRD `name` and wait (on a watch) until it is gone, so that a shared server's discovery no longer
    lists its group."""
    r = http.delete(f"{base}{CRDS}/{name}", timeout=timeout)
    assert r.status_code in (200, 202, 404), r.text
    r = http.get(f"{base}{CRDS}/{name}", timeout=timeout)
    if r.status_code == 404:
        return
    params = {"watch": "1", "fieldSelector": f"metadata.name={name}",
              "resourceVersion": r.json()["metadata"]["resourceVersion"], "timeoutSeconds": str(int(timeout) + 1)}
    with http.get(f"{base}{CRDS}", params=params, stream=True, timeout=timeout + 5) as w:
        if http.get(f"{base}{CRDS}/{name}", timeout=timeout).status_code == 404:
            return
        for line in w.iter_lines():
            if line and json.loads(line).get("type") == "DELETED":
                return
    raise AssertionError(f"CRD {name}: still there after {timeout} s")


def api_version_of(url: str) -> str:
    """The `<group>/<version>` of a custom resource URL (`.../apis/<group>/<version>/...`): the `apiVersion` a real
    client's body names (one without is refused: http/crbodygvk.py)."""
    _, _, rest = url.partition("/apis/")
    group, version = rest.split("/")[:2]
    return f"{group}/{version}"


def integer_spec_schema(*fields: str) -> dict[str, Any]:
    """A version's schema: `spec` with integer `fields`, `status` kept whole."""
    return {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {f: {"type": "integer"} for f in fields}},
        "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}


@contextmanager
def two_version_things(http: Any, base: str, ns: str, prefix: str) -> Iterator[tuple[str, str]]:
    """A CRD of two served versions (`v1` stored: `spec.size`, `spec.color`; `v2`: `spec.size`; both with
    `/status`), conversion `None`, and one object `t` created in v1 in `ns`; yields (its group, the v1 collection
    URL), the CRD deleted after."""
    group = f"{prefix}-{uuid.uuid4().hex[:8]}.example.com"
    body = {"metadata": {"name": f"things.{group}"},
            "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "things", "kind": "Thing"},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": integer_spec_schema("size", "color"), "subresources": {"status": {}}},
                                  {"name": "v2", "served": True, "storage": False,
                                   "schema": integer_spec_schema("size"), "subresources": {"status": {}}}]}}
    assert create_crd(http, base, body).status_code == 201
    things = f"{base}/apis/{group}/v1/namespaces/{ns}/things"
    r = http.post(things, json={"apiVersion": f"{group}/v1", "kind": "Thing", "metadata": {"name": "t"},
                                "spec": {"size": 1, "color": 2}})
    assert r.status_code == 201, r.text
    try:
        yield group, things
    finally:
        http.delete(f"{base}{CRDS}/things.{group}")

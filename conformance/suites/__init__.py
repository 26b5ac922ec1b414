"""The conformance suites: one module per clause group, every test marked `@pytest.mark.clause(...)`.

Small helpers shared by the suites live here; everything that speaks HTTP goes through the `api` fixture and
every path that differs between profiles through the `paths` fixture (Contract 6).
"""

from __future__ import annotations

import copy
import threading
from typing import Any, Callable, Iterable

from conformance import assertions as A
from conformance.schemas import validate
from conformance.wait import terminating_without_finalizers

_PAUSE = threading.Event()  # never set: wait() is a short bounded pause between conflict retries

HOLD = "nsconform.io/hold"
"""A foreign spec/metadata finalizer the suites use to keep an object in storage while they look at it."""

ORIGIN = "example.com/origin"
"""The external finalizer of the seed's OpenShift walk-through (there: `openshift.com/origin`)."""

CONTENT_KINDS = ("configmaps", "secrets", "services", "serviceaccounts", "pods")
"""Namespaced kinds whose namespace rules the suites check one by one."""

KIND_OF = {"configmaps": "ConfigMap", "secrets": "Secret", "services": "Service",
           "serviceaccounts": "ServiceAccount", "pods": "Pod"}

# On a real cluster pod deletion waits for the kubelet (grace period); give it room (scaled by the user).
SLOW_KINDS = {"pods": 150.0}
DELETE_TIMEOUT = 90.0
"""Seconds (before --timeout-scale) a namespace deletion may take on a real cluster (controller delay 5 s, retries)."""


def status_code_for(profile: str, kubernetes: int) -> int | range:
    """The exact code for the kubernetes profile; any 4xx for the design profile, whose source fixes none."""
    return kubernetes if profile == "kubernetes" else A.CLIENT_ERROR


def refuse(profile: str, resp: Any, code: int, **status: Any) -> None:
    """kubernetes: `expect_status(resp, code, **status)`; design: the request is refused with some 4xx."""
    __tracebackhide__ = True
    if profile == "kubernetes":
        A.expect_status(resp, code, **status)
    else:
        A.expect_rejected(resp)


def namespace_body(name: str, labels: dict[str, str] | None = None, *, finalizers: Iterable[str] | None = None,
                   **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"apiVersion": "v1", "kind": "Namespace",
                            "metadata": {"name": name, "labels": dict(labels or {})}}
    if finalizers is not None:
        body["spec"] = {"finalizers": list(finalizers)}
    for key, value in extra.items():
        body[key] = value
    return body


def create_namespace(namespaces: Any, base: str = "t", *, finalizers: Iterable[str] | None = None) -> dict[str, Any]:
    """Create through the factory (asserts 201) and check the body is a Namespace."""
    __tracebackhide__ = True
    if finalizers is None:
        ns = namespaces.create(base)
    else:
        ns = namespaces.create(base, finalizers=list(finalizers))
    validate(ns, "Namespace")
    return ns


def read_namespace(api: Any, paths: Any, name: str) -> dict[str, Any]:
    """GET a namespace, asserting 200 and the Namespace schema."""
    __tracebackhide__ = True
    ns = A.expect_ok(api.get(paths.namespace(name)))
    validate(ns, "Namespace")
    return ns


def read_object(api: Any, path: str, schema: str | None = None) -> dict[str, Any]:
    __tracebackhide__ = True
    obj = A.expect_ok(api.get(path))
    if schema:
        validate(obj, schema)
    return obj


def finalize(api: Any, paths: Any, name: str, finalizers: Iterable[str],
             base: dict[str, Any] | None = None) -> Any:
    """Send the profile's finalize operation setting spec.finalizers; returns the raw response."""
    body = copy.deepcopy(base) if base is not None else read_namespace(api, paths, name)
    body.setdefault("spec", {})["finalizers"] = list(finalizers)
    body.pop("status", None)
    (body.get("metadata") or {}).pop("resourceVersion", None)
    return api.verb(paths.finalize_method, paths.finalize(name), body)


def finalize_ok(api: Any, paths: Any, name: str, finalizers: Iterable[str]) -> dict[str, Any]:
    """Finalize and assert 200 with a Namespace body echoing the list."""
    __tracebackhide__ = True
    wanted = list(finalizers)
    ns = A.expect_ok(finalize(api, paths, name, wanted))
    validate(ns, "Namespace")
    assert A.finalizers(ns) == wanted, (
        f"{paths.finalize_method} {paths.finalize(name)}: expected the response to echo spec.finalizers "
        f"{wanted}, got {A.finalizers(ns)}")
    return ns


def delete_namespace(api: Any, paths: Any, name: str, *, expect_present: bool = True) -> dict[str, Any] | None:
    """DELETE a namespace, asserting 200 (202 tolerated); returns the body when it is a Namespace."""
    __tracebackhide__ = True
    resp = api.delete(paths.namespace(name))
    body = A.expect_ok(resp, (200, 202))
    if body.get("kind") == "Namespace":
        validate(body, "Namespace")
        return body
    return None


def content_body(content: Any, resource: str, name: str, ns: str | None = None,
                 labels: dict[str, str] | None = None) -> dict[str, Any]:
    body = copy.deepcopy(content.body_for(resource, name, ns))
    if labels:
        body.setdefault("metadata", {}).setdefault("labels", {}).update(labels)
    return body


def own_label(namespaces: Any) -> dict[str, str]:
    """The labels that mark this test's objects in this run (used to narrow content lists and watches).

    The test label alone is a hash of the nodeid, the same in every run: a second run (or a concurrent CI
    job) on a cluster still holding the first one's content would see it. The run label tells them apart."""
    keys = ("nsconform.io/run", "nsconform.io/test")
    labels = dict(namespaces.labels)
    mine = {k: labels[k] for k in keys if k in labels}
    return mine or labels


def selector_of(labels: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in labels.items())


def names_of(items: Iterable[dict[str, Any]]) -> list[str]:
    return sorted(((i.get("metadata") or {}).get("name") or "") for i in items)


def event_summary(events: Iterable[dict[str, Any]]) -> str:
    out = []
    for ev in events:
        obj = ev.get("object") or {}
        meta = obj.get("metadata") or {} if isinstance(obj, dict) else {}
        bits = [str(ev.get("type")), str(meta.get("namespace") + "/" if meta.get("namespace") else "")
                + str(meta.get("name"))]
        ph = A.phase(obj) if isinstance(obj, dict) else None
        if ph:
            bits.append(ph)
        if meta.get("deletionTimestamp"):
            bits.append("deleting")
        out.append(" ".join(bits))
    return "[" + "; ".join(out) + "]"


def wait_namespace(waiter: Any, paths: Any, name: str, predicate: Any, what: str,
                   timeout: float = DELETE_TIMEOUT, *, give_up: Any = None) -> dict[str, Any] | None:
    """Wait until the namespace satisfies `predicate` *or is gone*; returns the object, or None when gone.
    `give_up(namespace)` names a state that makes `predicate` impossible (the wait then ends at once)."""
    __tracebackhide__ = True
    return waiter.until_or_gone(paths.namespace(name), predicate, what, timeout, give_up=give_up)


CONFLICT_ATTEMPTS = 5
"""client-go's `retry.DefaultRetry` (RetryOnConflict): five steps, 10 ms apart."""


def update_fresh(api: Any, path: str, change: Callable[[dict[str, Any]], Any], *, read_path: str | None = None,
                 method: str = "PUT", attempts: int = CONFLICT_ATTEMPTS) -> Any:
    """GET `read_path` (default `path`), apply `change` to the body, PUT it to `path`; on 409 Conflict read again
    and retry, as client-go's RetryOnConflict does. Real clusters run controllers that write to a namespace
    right after it is created (OpenShift's `openshift.io/sa.scc.*` annotations, Pod Security label sync), so a
    resourceVersion read a moment earlier may be stale; a clause that is not about conflicts must not fail on
    that. Returns the last response (never the 409 unless every attempt conflicted)."""
    resp = None
    for attempt in range(max(1, attempts)):
        body = A.expect_ok(api.get(read_path or path))
        change(body)
        resp = api.verb(method, path, body)
        if not _is_conflict(resp):
            return resp
        _PAUSE.wait(0.01 * (attempt + 1))
    return resp


def _is_conflict(resp: Any) -> bool:
    if getattr(resp, "status_code", None) != 409:
        return False
    try:
        return (resp.json() or {}).get("reason") == "Conflict"
    except ValueError:
        return False


def skip_if_denied(api: Any, resp: Any, method: str, path: str) -> None:
    """A probe that expects the router's 405/404 gets 403 when the credentials lack the verb the request
    resolves to, because kube-apiserver authorizes before it routes. When the answer is 403 *and* the
    server's own SelfSubjectAccessReview says the verb is denied, the probe is not judged (skipped with that
    reason); a 403 for a verb the server says is allowed is judged like any other answer."""
    if getattr(resp, "status_code", None) != 403:
        return
    from conformance.preflight import allowed, request_attributes

    attrs = request_attributes(method, path)
    if allowed(lambda p, body: api.post(p, body), attrs) is False:
        import pytest

        pytest.skip(f"not judged: the credentials may not {attrs} (SelfSubjectAccessReview said no), and "
                    f"kube-apiserver authorizes {method} {path.partition('?')[0]} before it routes it, so the "
                    "answer can only be 403; grant it (README, 'Permissions on a real cluster')")


def wait_namespace_gone(waiter: Any, paths: Any, name: str, timeout: float = DELETE_TIMEOUT) -> None:
    """Wait until the namespace is gone; on the kubernetes profile end at once when it is terminating with
    no finalizer left (nothing will ever remove it then, see `wait.terminating_without_finalizers`)."""
    __tracebackhide__ = True
    give_up = terminating_without_finalizers if paths.profile == "kubernetes" else None
    waiter.namespace_gone(name, timeout=timeout, give_up=give_up)


def clear_content_finalizers(api: Any, path: str) -> None:
    """Remove metadata.finalizers of one object (GET + PUT; PUT because the design content API has no PATCH)."""
    __tracebackhide__ = True
    for _ in range(5):
        resp = api.get(path)
        if resp.status_code == 404:
            return
        obj = A.expect_ok(resp)
        obj["metadata"]["finalizers"] = []
        put = api.put(path, obj)
        if put.status_code == 409:
            continue
        A.expect_ok(put, (200, 201))
        return
    raise AssertionError(f"could not clear metadata.finalizers of {path}: five conflicts in a row")

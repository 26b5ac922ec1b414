"""Helpers of the scope suites (`test_scope_*.py`): RBAC paths and bodies, impersonation headers, the
"does this target enforce authorization" probe, and bounded waits for RBAC and quota state.

Every scope test acts as a throw-away user `nsc-u-<random>` through impersonation from the run's own
(admin) identity, so it works the same on the embedded server (`--nsconform-authorization rbac`) and on
a real cluster; its Roles, RoleBindings, ResourceQuotas and LimitRanges live in the test's namespaces,
so namespace teardown removes them.
"""

from __future__ import annotations

import secrets
import threading
import time
from typing import Any, Callable

import pytest

from conformance import assertions as A
from conformance.fixtures.content import unschedulable_pod_spec
from conformance.wait import WaitTimeout, gone, scaled

RBAC_GROUP = "rbac.authorization.k8s.io"
RBAC = f"/apis/{RBAC_GROUP}/v1"
RBAC_TIMEOUT = 15.0
"""Seconds (before --timeout-scale) a new RoleBinding may take to take effect (upstream's authorizer reads
informer caches, so a grant is effective a few milliseconds after the create, not at once)."""

NOT_ENFORCED = ("target does not enforce authorization (an impersonated user without any binding was allowed): "
                "on the embedded server run `nsconform run --authorization rbac` (under pytest: "
                "--nsconform-authorization rbac)")

_PAUSE = threading.Event()  # never set: `wait()` is a bounded pause between two polls of a condition


def new_user() -> str:
    """A user name that exists nowhere else (no bindings, no groups besides system:authenticated)."""
    return f"nsc-u-{secrets.token_hex(4)}"


def as_user(user: str) -> dict[str, str]:
    return {"Impersonate-User": user}


def rbac_path(plural: str, ns: str | None = None, name: str | None = None) -> str:
    base = f"{RBAC}/namespaces/{ns}/{plural}" if ns else f"{RBAC}/{plural}"
    return f"{base}/{name}" if name else base


def rule(verbs: list[str], resources: list[str] | None = None, groups: list[str] | None = None) -> dict[str, Any]:
    return {"apiGroups": groups if groups is not None else [""], "resources": resources or ["configmaps"],
            "verbs": verbs}


def role_body(name: str, rules: list[dict[str, Any]], kind: str = "Role") -> dict[str, Any]:
    return {"apiVersion": f"{RBAC_GROUP}/v1", "kind": kind, "metadata": {"name": name}, "rules": rules}


def binding_body(name: str, role_kind: str, role_name: str, user: str) -> dict[str, Any]:
    return {"apiVersion": f"{RBAC_GROUP}/v1", "kind": "RoleBinding", "metadata": {"name": name},
            "roleRef": {"apiGroup": RBAC_GROUP, "kind": role_kind, "name": role_name},
            "subjects": [{"apiGroup": RBAC_GROUP, "kind": "User", "name": user}]}


def require_authorization(api: Any, paths: Any, ns: str) -> None:
    """Skip unless the target serves RBAC and refuses a user without bindings (probe with a fresh user)."""
    if api.get(RBAC).status_code == 404:
        pytest.skip(f"target does not serve {RBAC_GROUP}/v1 (on the embedded server run `nsconform run "
                    "--authorization rbac`; under pytest: --nsconform-authorization rbac)")
    resp = api.get(paths.content(ns, "configmaps"), headers=as_user(new_user()))
    if resp.status_code == 200:
        pytest.skip(NOT_ENFORCED)
    if resp.status_code == 403 and "cannot impersonate" in (resp.text or ""):
        pytest.skip("the run's identity may not impersonate users: grant it `impersonate` on users and groups "
                    "(see README: running the scope suites against a cluster)")
    A.expect_status(resp, 403, reason="Forbidden")


def create(api: Any, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST as the run's identity; asserts 201."""
    return A.expect_ok(api.post(path, body), 201)


def grant(api: Any, ns: str, user: str, verbs: list[str], resources: list[str] | None = None) -> str:
    """A Role with one rule and a RoleBinding of it to `user`, both in `ns`; returns the Role's name."""
    name = f"nsc-r-{secrets.token_hex(3)}"
    create(api, rbac_path("roles", ns), role_body(name, [rule(verbs, resources)]))
    create(api, rbac_path("rolebindings", ns), binding_body(name, "Role", name, user))
    return name


def until(check: Callable[[], Any], what: str, timeout: float) -> Any:
    """Poll `check()` (a response) until it answers 200, within `timeout` × --timeout-scale seconds."""
    limit = scaled(timeout)
    deadline = time.monotonic() + limit
    interval = 0.05
    while True:
        resp = check()
        if resp.status_code == 200:
            return resp
        if time.monotonic() >= deadline:
            raise WaitTimeout(f"timed out after {limit:g}s waiting for {what}; last answer: "
                              f"{A.describe_request(resp)} {A.body_excerpt(resp)}", last_seen=resp.status_code)
        _PAUSE.wait(interval)
        interval = min(interval * 2, 0.5)


def until_allowed(api: Any, path: str, user: str, what: str, params: dict[str, Any] | None = None) -> Any:
    """Wait until `user` may GET `path` (the grant took effect); returns the 200 response."""
    return until(lambda: api.get(path, headers=as_user(user), params=params),
                 f"{what} (GET {path} as {user})", RBAC_TIMEOUT)


def forbidden_message(user: str, verb: str, resource: str, ns: str | None, name: str | None = None,
                      group: str = "") -> Callable[[Any], bool]:
    """`responsewriters.Forbidden`: `forbiddenMessage` behind `NewForbidden`'s `<resource> ["name" ]is forbidden: `,
    then `: <reason>` when an authorizer gave one (RBAC does for a binding to a missing role, GKE's webhook
    authorizer always does). The text up to the reason is exact; the reason is any non-empty text."""
    where = f'in the namespace "{ns}"' if ns else "at the cluster scope"
    head = f'{resource} "{name}" is forbidden' if name else f"{resource} is forbidden"
    text = f'{head}: User "{user}" cannot {verb} resource "{resource}" in API group "{group}" {where}'

    def check(message: Any) -> bool:
        if not isinstance(message, str):
            return False
        return message == text or (message.startswith(text + ": ") and bool(message[len(text) + 2:].strip()))

    return A.where(check, f"{text!r}, optionally followed by ': <authorizer reason>'")


# ---- quota / limits ------------------------------------------------------------------------------
QUOTA_TIMEOUT = 60.0
"""Seconds (before --timeout-scale) the quota controller may take to fill or replenish status.used."""


def quota_body(name: str, hard: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name}, "spec": {"hard": hard}}


def until_used(waiter: Any, paths: Any, ns: str, name: str, used: dict[str, str],
               timeout: float = QUOTA_TIMEOUT) -> dict[str, Any]:
    """Wait until the quota's status.used has these values (upstream fills it asynchronously); a quota that
    is gone will never show them, so that ends the wait at once."""
    __tracebackhide__ = True

    def ok(q: dict[str, Any]) -> bool:
        have = (q.get("status") or {}).get("used") or {}
        return all(have.get(k) == v for k, v in used.items())
    return waiter.until(paths.content(ns, "resourcequotas", name), ok,
                        f"ResourceQuota {ns}/{name} status.used to show {used}", timeout=timeout, give_up=gone)


def pod_body(name: str, resources: dict[str, Any] | None = None) -> dict[str, Any]:
    """A pod every cluster admits (PodSecurity `restricted`) and never schedules (so never waits on a node)."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": unschedulable_pod_spec(resources)}

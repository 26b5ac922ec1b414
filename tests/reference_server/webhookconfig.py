"""Admission webhook configurations for the tests of admission/webhooks/ (shared by test_admission_webhooks.py,
test_admission_webhook_paths.py, test_admission_controller_writes.py and the modules that reuse their hook), so
that no test module imports its helpers from another: one configuration of one webhook, made and removed over
HTTP, and the reviews the hook received for one namespace."""
from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import requests

from conformance.reference_server.embedded import RunningServer

AR = "/apis/admissionregistration.k8s.io/v1"
MUTATING, VALIDATING = "mutatingwebhookconfigurations", "validatingwebhookconfigurations"


def configure(server: RunningServer, plural: str, ns: str | None, name: str | None = None,
              url: str | None = None, ca: str = "", resources: Sequence[str] = ("configmaps",), *,
              operations: Sequence[str] = ("*",), api_groups: Sequence[str] = ("", "apps"), session: Any = requests,
              **extra: Any) -> str:
    """Create a `plural` (MUTATING or VALIDATING) named `name` (`cfg-<random>` when None) with one webhook
    `<name>.example.com`: its rule `operations` on the v1 `resources` of `api_groups`, for the namespaces labelled
    `hooks: <ns>` (every object when `ns` is None), calling `url` (trusting the base64 `ca`). `extra` adds or
    replaces the webhook's fields (`clientConfig` for a service reference, `namespaceSelector`, `failurePolicy`,
    `matchConditions`, ...), posted with `session` (a TLS + token server's own). Returns the configuration's name
    (for `unconfigure`)."""
    name = name or f"cfg-{uuid.uuid4().hex[:8]}"
    webhook: dict[str, Any] = {
        "name": f"{name}.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
        "rules": [{"operations": list(operations), "apiGroups": list(api_groups), "apiVersions": ["v1"],
                   "resources": list(resources)}]}
    if ns is not None:
        webhook["namespaceSelector"] = {"matchLabels": {"hooks": ns}}
    if url is not None:
        webhook["clientConfig"] = {"url": url, "caBundle": ca}
    body = {"metadata": {"name": name}, "webhooks": [{**webhook, **extra}]}
    r = session.post(f"{server.url}{AR}/{plural}", json=body)
    assert r.status_code == 201, r.text
    return name


def unconfigure(server: RunningServer, plural: str, name: str) -> None:
    """Delete a configuration `configure` made (a cleanup: a missing one is no error)."""
    requests.delete(f"{server.url}{AR}/{plural}/{name}")


def reviews(hook: Any, ns: str, *, scheduler: bool = True) -> list[dict[str, Any]]:
    """The reviews of namespace `ns` that `hook` (test_admission_webhooks.Hook) received (`scheduler=False`:
    without kube-scheduler's own `pods/status` writes)."""
    return [body["request"] for _, body in hook.reviews if body["request"].get("namespace") == ns
            and (scheduler or body["request"]["userInfo"].get("username") != "system:kube-scheduler")]

"""Where a write meets the admission webhooks (admission/webhooks/): the handlers' create, update (PUT) and delete
await these around the registry call, so the webhook calls never run inside the (synchronous) store write."""
from __future__ import annotations

from typing import Any, Awaitable, Callable

from aiohttp import web

from .. import apierrors as E
from ..admission.policy import PolicyAdmission
from ..admission.webhooks import WebhookAdmission, attributes
from ..storage.clone import clone
from .authz import REQUESTER
from .patch import json_patch


def webhook_admission(registry: Any) -> WebhookAdmission:
    return WebhookAdmission(registry, json_patch, PolicyAdmission(registry))


def _scope(store: Any, obj: dict[str, Any] | None, namespace: str, name: str) -> tuple[str, str]:
    meta = (obj or {}).get("metadata") or {}
    name = name or meta.get("name") or ""
    if store.info.plural == "namespaces" and not getattr(store, "group", ""):
        return name, name  # a namespace's own requests carry its name as the namespace
    return (namespace or meta.get("namespace") or "") if store.info.namespaced else "", name


def _options(kind: str, dry_run: bool, field_manager: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"kind": kind, "apiVersion": "meta.k8s.io/v1"}
    if dry_run:
        out["dryRun"] = ["All"]
    if field_manager:
        out["fieldManager"] = field_manager
    return out


async def on_write(hooks: WebhookAdmission, request: web.Request, store: Any, operation: str, obj: dict[str, Any],
                   old: dict[str, Any] | None, dry_run: bool, field_manager: str, warnings: list[str],
                   preview: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
    """CREATE / UPDATE: mutating webhooks on the defaulted object, then validating ones on `preview(obj)` (the
    write as a dry run). Returns the object to write (`obj` itself when no webhook changed it)."""
    namespace, name = _scope(store, obj, "", "")
    a = attributes(operation, store, namespace, name)
    user = request.get(REQUESTER)
    options = _options("CreateOptions" if operation == "CREATE" else "UpdateOptions", dry_run, field_manager)
    candidate = clone(obj)
    store.strategy.default(candidate)
    mutated = await hooks.mutate(a, candidate, old, user, dry_run, options, warnings)
    if mutated is not candidate:
        obj = mutated
    await hooks.validate(a, obj, old, user, dry_run, options, warnings, lambda: preview(obj))
    return obj


async def on_delete(hooks: WebhookAdmission, request: web.Request, store: Any, namespace: str, name: str,
                    dry_run: bool) -> None:
    """DELETE: both plugins with the stored object as `oldObject` (a missing one: the store answers 404)."""
    try:
        old = store.get(namespace, name, shared=True)
    except E.StatusError:
        return
    ns, name = _scope(store, old, namespace, name)
    a = attributes("DELETE", store, ns, name)
    user, options, warnings = request.get(REQUESTER), _options("DeleteOptions", dry_run), []
    await hooks.mutate(a, None, old, user, dry_run, options, warnings)
    await hooks.validate(a, None, old, user, dry_run, options, warnings)

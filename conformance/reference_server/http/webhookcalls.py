"""Where a write meets the admission webhooks (admission/webhooks/): the handlers' create, update (PUT), every
patch type, server-side apply, subresource writes, delete and each item of a delete collection await these around
the registry call, so the webhook calls never run inside the (synchronous) store write.

The review's fields follow `webhook/request/admissionreview.go`: `options` is the request's options object as
the handler decoded it (`CreateOptions`, `UpdateOptions`, `DeleteOptions`; a PATCH's `PatchOptions` become
`UpdateOptions`, or `CreateOptions` when an apply creates, as `patchToUpdateOptions`/`patchToCreateOptions`), with
the query's own `fieldManager` (not the user agent a manager defaults to), `dryRun` and `fieldValidation`."""
from __future__ import annotations

from typing import Any, Awaitable, Callable

from aiohttp import web

from .. import apierrors as E
from ..admission.policy import PolicyAdmission
from ..admission.webhooks import Attributes, WebhookAdmission, attributes
from ..registry.store import DeleteOptions
from ..storage.clone import clone
from .authz import REQUESTER
from .patch import json_patch

Builtin = Callable[[dict[str, Any]], None]

# the route targets that are subresources, by the name a rule's `resources` uses (`pods/status`, ...)
SUBRESOURCES = {"status": "status", "ns-status": "status", "ns-finalize": "finalize", "approval": "approval",
                "scale": "scale"}


def webhook_admission(registry: Any) -> WebhookAdmission:
    return WebhookAdmission(registry, json_patch, PolicyAdmission(registry))


def subresource(target: str) -> str:
    return SUBRESOURCES.get(target, "")


def _scope(store: Any, obj: dict[str, Any] | None, namespace: str, name: str) -> tuple[str, str]:
    meta = (obj or {}).get("metadata") or {}
    name = name or meta.get("name") or ""
    if store.info.plural == "namespaces" and not getattr(store, "group", ""):
        return name, name  # a namespace's own requests carry its name as the namespace
    return (namespace or meta.get("namespace") or "") if store.info.namespaced else "", name


def options(kind: str, request: web.Request | None, dry_run: bool) -> dict[str, Any]:
    """The review's `options`: the decoded options object (its set fields only, as Go's omitempty)."""
    out: dict[str, Any] = {"kind": kind, "apiVersion": "meta.k8s.io/v1"}
    if dry_run:
        out["dryRun"] = ["All"]
    query = request.query if request is not None else {}
    if query.get("fieldManager"):
        out["fieldManager"] = query["fieldManager"]
    if query.get("fieldValidation"):
        out["fieldValidation"] = query["fieldValidation"]
    return out


def delete_options(opts: DeleteOptions) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"}
    if opts.grace_period_seconds is not None:
        out["gracePeriodSeconds"] = opts.grace_period_seconds
    if opts.uid or opts.resource_version:
        out["preconditions"] = {k: v for k, v in (("uid", opts.uid), ("resourceVersion", opts.resource_version))
                                if v}
    if opts.orphan_dependents is not None:
        out["orphanDependents"] = opts.orphan_dependents
    if opts.propagation_policy:
        out["propagationPolicy"] = opts.propagation_policy
    if opts.dry_run:
        out["dryRun"] = ["All"]
    return out


async def on_write(hooks: WebhookAdmission, request: web.Request, store: Any, operation: str, obj: dict[str, Any],
                   old: dict[str, Any] | None, dry_run: bool, warnings: list[str],
                   preview: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]], *, sub: str = "",
                   options_kind: str = "", builtin: Builtin | None = None,
                   kind: tuple[str, str, str] | None = None) -> dict[str, Any]:
    """CREATE / UPDATE: the built-in mutating plugins (`builtin`, a create's), then the mutating webhooks, on the
    defaulted object; then validating ones on `preview(obj)` (the write as a dry run). Returns the object to
    write (`obj` itself when no webhook changed it: the store runs the built-in plugins on it)."""
    namespace, name = _scope(store, obj if obj.get("metadata") else old, "", "")
    a = attributes(operation, store, namespace, name, sub, kind)
    opts = options(options_kind or ("CreateOptions" if operation == "CREATE" else "UpdateOptions"), request,
                   dry_run)
    user = request.get(REQUESTER)
    candidate = clone(obj)
    if kind is None:
        store.strategy.default(candidate)
    if builtin is not None:
        builtin = _settled(builtin)
        builtin(candidate)
    mutated = await hooks.mutate(a, candidate, old, user, dry_run, opts, warnings, builtin)
    if mutated is not candidate:
        obj = mutated
    await hooks.validate(a, obj, old, user, dry_run, opts, warnings, lambda: preview(obj))
    return obj


def _settled(builtin: Builtin) -> Builtin:
    """The built-in plugins as run before the webhooks: a refusal the store's write retries (the ServiceAccount
    plugin waiting for `default`: `RetriedStatusError`) is left to that write, which runs them again."""
    def run(obj: dict[str, Any]) -> None:
        try:
            builtin(obj)
        except E.RetriedStatusError:
            pass
    return run


async def on_delete(hooks: WebhookAdmission, request: web.Request, store: Any, namespace: str, name: str,
                    opts: DeleteOptions, old: dict[str, Any] | None = None) -> None:
    """DELETE: both plugins with the stored object as `oldObject` (a missing one: the store answers 404)."""
    if old is None:
        try:
            old = store.get(namespace, name, shared=True)
        except E.StatusError:
            return
    ns, name = _scope(store, old, namespace, name)
    a = attributes("DELETE", store, ns, name)
    user, review_opts, warnings = request.get(REQUESTER), delete_options(opts), []
    await hooks.mutate(a, None, old, user, opts.dry_run, review_opts, warnings)
    await hooks.validate(a, None, old, user, opts.dry_run, review_opts, warnings)


async def on_subresource_create(registry: Any, request: web.Request, a: Attributes, obj: dict[str, Any],
                                dry_run: bool) -> dict[str, Any]:
    """CREATE of a subresource that stores no object of its own (`pods/binding`, `serviceaccounts/token`): both
    plugins on the request's object (a Binding, a TokenRequest); the object as the mutating webhooks left it."""
    hooks = webhook_admission(registry)
    if not hooks.active():
        return obj
    user, opts, warnings = request.get(REQUESTER), options("CreateOptions", request, dry_run), []
    obj = await hooks.mutate(a, clone(obj), None, user, dry_run, opts, warnings) or obj
    await hooks.validate(a, obj, None, user, dry_run, opts, warnings)
    return obj


def pinned(obj: dict[str, Any], old: dict[str, Any]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The transform that writes `obj`, computed by a patch from `old`, only over that same state: a write in
    between raises `Stale` (the handler patches the new state again, as upstream's patcher retries)."""
    rv = (old.get("metadata") or {}).get("resourceVersion")

    def transform(current: dict[str, Any]) -> dict[str, Any]:
        if (current.get("metadata") or {}).get("resourceVersion") != rv:
            raise Stale()
        return clone(obj)
    return transform


class Stale(Exception):
    """The object changed between a patch's admission and its write."""


PATCH_ATTEMPTS = 5  # upstream's patcher: `maxRetryWhenPatchConflicts`

"""Where a request's write meets the admission webhooks (admission/webhooks/): the handlers' create, update (PUT),
every patch type, server-side apply, subresource writes, delete and each item of a delete collection await these
around the registry call, so the webhook calls never run inside the (synchronous) store write. The orchestration
is admission/admitted.py's (shared with the controllers' own writes); this module adds the request's user and
options.

The review's fields follow `webhook/request/admissionreview.go`: `options` is the request's options object as
the handler decoded it (`CreateOptions`, `UpdateOptions`, `DeleteOptions`; a PATCH's `PatchOptions` become
`UpdateOptions`, or `CreateOptions` when an apply creates, as `patchToUpdateOptions`/`patchToCreateOptions`), with
the query's own `fieldManager` (not the user agent a manager defaults to), `dryRun` and `fieldValidation`."""
from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from aiohttp import web

from ..admission.admitted import (
    Builtin,
    Stale,
    admit_delete,
    admit_subresource_create,
    admit_write,
    pinned,
    review_options,
)
from ..admission.policy import PolicyAdmission
from ..admission.serviceips import release_deferred, reservation
from ..admission.webhooks import Attributes, WebhookAdmission
from ..registry import draws
from ..registry.store import DeleteOptions
from .authz import REQUESTER
from .crconversion import admitted_once
from .crconversion import answer as converted
from .patch import json_patch

T = TypeVar("T")

# the route targets that are subresources, by the name a rule's `resources` uses (`pods/status`, ...)
SUBRESOURCES = {"status": "status", "ns-status": "status", "ns-finalize": "finalize", "approval": "approval",
                "scale": "scale", "ephemeralcontainers": "ephemeralcontainers", "resize": "resize"}


def webhook_admission(registry: Any, authorizer: Any = None) -> WebhookAdmission:
    """`authorizer`: the server's (`ctx.authorizer`), which CEL's `authorizer` checks ask (None: AlwaysAllow)."""
    return WebhookAdmission(registry, json_patch, PolicyAdmission(registry, authorizer), authorizer)


def subresource(target: str) -> str:
    return SUBRESOURCES.get(target, "")


def options(kind: str, request: web.Request | None, dry_run: bool) -> dict[str, Any]:
    """The review's `options`: the decoded options object (its set fields only, as Go's omitempty)."""
    return review_options(kind, request.query if request is not None else None, dry_run)


async def on_write(hooks: WebhookAdmission, request: web.Request, store: Any, operation: str, obj: dict[str, Any],
                   old: dict[str, Any] | None, dry_run: bool, warnings: list[str],
                   preview: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]], *, sub: str = "",
                   options_kind: str = "", builtin: Builtin | None = None,
                   kind: tuple[str, str, str] | None = None,
                   begin: Callable[[dict[str, Any]], Awaitable[None]] | None = None) -> dict[str, Any]:
    """CREATE / UPDATE of a request (admission/admitted.py `admit_write`, as the requesting user)."""
    opts = options(options_kind or ("CreateOptions" if operation == "CREATE" else "UpdateOptions"), request,
                   dry_run)

    async def previewed(o: dict[str, Any]) -> dict[str, Any]:  # in the request's version (http/crconversion.py)
        return await converted(await preview(o), hooks.service)

    async def admit() -> dict[str, Any]:
        return await admit_write(hooks, store, operation, obj, old, request.get(REQUESTER), opts, dry_run,
                                 warnings, previewed, sub=sub, builtin=builtin, kind=kind, begin=begin)
    return await admitted_once([operation, sub, obj, old], admit, warnings)


async def on_create(hooks: WebhookAdmission, request: web.Request, store: Any, obj: dict[str, Any], dry_run: bool,
                    warnings: list[str], write: Callable[[dict[str, Any], bool], Awaitable[dict[str, Any]]],
                    builtin: Builtin | None = None) -> dict[str, Any]:
    """A request's create: `write(obj, dry_run)` after admission. While webhooks or policies are configured the
    write's draws are pinned (registry/draws.py), so the validating webhooks' preview is the object then stored
    (its generated name, a Service's ClusterIP and NodePorts), and a Service's ClusterIP is reserved through
    admission between the mutating and validating phases (admission/serviceips.py), released if the create then
    fails."""
    if not hooks.active():
        return await write(obj, dry_run)
    return await _admitted_write(hooks, request, store, "CREATE", obj, None, dry_run, warnings, write,
                                 builtin=builtin)


async def on_update(hooks: WebhookAdmission, request: web.Request, store: Any, obj: dict[str, Any],
                    old: dict[str, Any], dry_run: bool, warnings: list[str],
                    write: Callable[[dict[str, Any], bool], Awaitable[dict[str, Any]]], *,
                    sub: str = "") -> dict[str, Any]:
    """A request's update of `old` while webhooks or policies are configured: `write(obj, dry_run)` after
    admission, the preview (`write(o, True)`) and the write sharing their draws, a ClusterIP the update adds (a
    Service leaving ExternalName) reserved through admission before the validating phase, released if the update
    then fails."""
    return await _admitted_write(hooks, request, store, "UPDATE", obj, old, dry_run, warnings, write, sub=sub)


async def _admitted_write(hooks: WebhookAdmission, request: web.Request, store: Any, operation: str,
                          obj: dict[str, Any], old: dict[str, Any] | None, dry_run: bool, warnings: list[str],
                          write: Callable[[dict[str, Any], bool], Awaitable[dict[str, Any]]], *, sub: str = "",
                          builtin: Builtin | None = None) -> dict[str, Any]:
    with _session(hooks, store, dry_run):
        def preview(o: dict[str, Any]) -> Awaitable[dict[str, Any]]:
            return write(o, True)
        held = reservation(hooks, store, preview, old, sub)
        try:
            obj = await on_write(hooks, request, store, operation, obj, old, dry_run, warnings, preview, sub=sub,
                                 builtin=builtin, begin=held.begin if held is not None else None)
            return await write(obj, dry_run)
        except BaseException:
            if held is not None:
                await held.release()
            raise
        finally:
            await release_deferred(hooks, store)


async def releasing(hooks: WebhookAdmission, store: Any, dry_run: bool, delete: Callable[[], Awaitable[T]]) -> T:
    """A delete while webhooks or policies are configured: the ClusterIPs of a Service it removes (`afterDelete`)
    released after it as the loopback client's DELETEs, through admission."""
    with _session(hooks, store, dry_run):
        try:
            return await delete()
        finally:
            await release_deferred(hooks, store)


@contextmanager
def _session(hooks: WebhookAdmission, store: Any, dry_run: bool) -> Iterator[draws.Draws]:
    """The request's draws (registry/draws.py), its releases left to it (made through admission)."""
    with draws.pinned(dry_run) as session:
        session.defer_release = True
        yield session


async def on_delete(hooks: WebhookAdmission, request: web.Request, store: Any, namespace: str, name: str,
                    opts: DeleteOptions, old: dict[str, Any] | None = None) -> None:
    """DELETE of a request (admission/admitted.py `admit_delete`)."""
    await admit_delete(hooks, store, namespace, name, request.get(REQUESTER), opts, old)


async def on_subresource_create(registry: Any, request: web.Request, a: Attributes, obj: dict[str, Any],
                                dry_run: bool, authorizer: Any = None) -> dict[str, Any]:
    """CREATE of a subresource that stores no object of its own (`pods/binding`, `serviceaccounts/token`)."""
    hooks = webhook_admission(registry, authorizer)
    if not hooks.active():
        return obj
    return await admit_subresource_create(hooks, a, obj, request.get(REQUESTER),
                                          options("CreateOptions", request, dry_run), dry_run)


PATCH_ATTEMPTS = 5  # upstream's patcher: `maxRetryWhenPatchConflicts`

__all__ = ["PATCH_ATTEMPTS", "SUBRESOURCES", "Stale", "on_create", "on_delete", "on_update", "on_subresource_create",
           "on_write", "options", "releasing",
           "pinned", "subresource", "webhook_admission"]

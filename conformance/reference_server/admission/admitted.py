"""The admitted write: the webhooks and ValidatingAdmissionPolicies (admission/webhooks/, admission/policy/) around
one registry write, for API requests (http/webhookcalls.py) and the built-in controllers' own writes alike, so a
write passes this room once whichever client made it.

As upstream's handlers (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go`, `update.go`, `delete.go`;
`pkg/registry/generic/registry/store.go` `Update` → `createValidation` for a PUT that creates): the built-in
mutating plugins first, then the mutating webhooks on the defaulted object, then the validating ones (policies
first) on the object as it would be stored (the write run as a dry run), then the write. A webhook call is
awaited network I/O, so it never runs inside the (synchronous) store write.

The controllers (controller/) are kube-controller-manager's, API clients on a cluster: with
`--use-service-account-credentials` (kind's default) each writes as `system:serviceaccount:kube-system:<name>`
(`cmd/kube-controller-manager/app/*.go` `ClientOrDie("<name>")`), and its writes pass the webhooks as anyone's;
so do the other components' (`ControllerWrites(..., user=...)`): kube-scheduler's and the leader election's
client-certificate users, OpenShift's `openshift-infra` service accounts, and kube-apiserver's own loopback client
(`system:apiserver`, which upstream's webhook dispatchers do not skip: only the admission configuration kinds are
exempt, `IsExemptAdmissionConfigurationResource`, admission/webhooks/matching.py `EXEMPT`).
Their syncs are synchronous code (run on the loop, or in an Offload thread on etcd), so a write that must be
admitted first stops the sync with `Pending`; the controller's worker awaits `Pending.settle()` (the admission,
on the event loop) and runs the sync again, level-triggered as upstream's syncs are: the write it reaches again
finds its verdict (the admitted object, or the refusal it raises) and is made synchronously. Without any webhook
configuration or policy binding (`active()`, three counts), or when no webhook's rules and selectors and no
policy's constraints select the write (`relevant()`, synchronous), a controller write is the plain registry call.

A Service's ClusterIPs are kube-apiserver's allocator's IPAddresses, written and deleted by its loopback client
whoever writes the Service (`pkg/registry/core/service/ipallocator/ipallocator.go`): a controller's Service create
reserves them in its admission (admission/serviceips.py) and writes with the draws that admission pinned
(registry/draws.py); those its writes release (`afterDelete`) are deleted through admission once its sync is
done (`releasing`, awaited by `admitted`).
"""
from __future__ import annotations

import json
import uuid
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Awaitable, Callable, Iterator

from .. import apierrors as E
from ..auth.rbac import UserInfo
from ..registry import draws
from ..registry.store import DeleteOptions
from ..registry.subresources import (SCALE_GROUP, SCALE_KIND, SCALE_VERSION, ScaleUpdateStrategy,
                                     keep_managed_fields, scale_model, scale_update)
from ..storage.clone import clone
from .webhooks import Attributes, WebhookAdmission, attributes

Builtin = Callable[[dict[str, Any]], None]
Preview = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
KUBE_SYSTEM = "kube-system"


# ---- the review's pieces -------------------------------------------------------------------------------
def scope(store: Any, obj: dict[str, Any] | None, namespace: str, name: str) -> tuple[str, str]:
    """The review's (namespace, name): a namespace's own requests carry its name as the namespace."""
    meta = (obj or {}).get("metadata") or {}
    name = name or meta.get("name") or ""
    if store.info.plural == "namespaces" and not getattr(store, "group", ""):
        return name, name
    return (namespace or meta.get("namespace") or "") if store.info.namespaced else "", name


def review_options(kind: str, query: Any, dry_run: bool) -> dict[str, Any]:
    """The review's `options`: the decoded options object (its set fields only, as Go's omitempty)."""
    out: dict[str, Any] = {"kind": kind, "apiVersion": "meta.k8s.io/v1"}
    if dry_run:
        out["dryRun"] = ["All"]
    query = query or {}
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


def _settled(builtin: Builtin) -> Builtin:
    """The built-in plugins as run before the webhooks: a refusal the store's write retries (the ServiceAccount
    plugin waiting for `default`: `RetriedStatusError`) is left to that write, which runs them again."""
    def run(obj: dict[str, Any]) -> None:
        try:
            builtin(obj)
        except E.RetriedStatusError:
            pass
    return run


# ---- one admitted write ----------------------------------------------------------------------------------
async def admit_write(hooks: WebhookAdmission, store: Any, operation: str, obj: dict[str, Any],
                      old: dict[str, Any] | None, user: Any, opts: dict[str, Any], dry_run: bool,
                      warnings: list[str], preview: Preview, *, sub: str = "", builtin: Builtin | None = None,
                      kind: tuple[str, str, str] | None = None,
                      begin: Callable[[dict[str, Any]], Awaitable[None]] | None = None) -> dict[str, Any]:
    """CREATE / UPDATE: the built-in mutating plugins (`builtin`, a create's), then the mutating webhooks, on the
    defaulted object; then `begin(obj)` (the storage's `BeginCreate`: a Service's ClusterIP reservations,
    admission/serviceips.py); then validating ones on `preview(obj)` (the write as a dry run). Returns the object
    to write (`obj` itself when no webhook changed it: the store runs the built-in plugins on it)."""
    namespace, name = scope(store, obj if obj.get("metadata") else old, "", "")
    a = attributes(operation, store, namespace, name, sub, kind)
    candidate = clone(obj)
    if kind is None:
        store.strategy.default(candidate)
    if builtin is not None:
        builtin = _settled(builtin)
        builtin(candidate)
    mutated = await hooks.mutate(a, candidate, old, user, dry_run, opts, warnings, builtin)
    if mutated is not candidate:
        obj = mutated
    if begin is not None:
        await begin(obj)
    stored: list[Exception] = []

    async def previewed() -> dict[str, Any]:
        """The preview; a create whose name is taken is validated as prepared, and answered AlreadyExists after
        the validating admission (`store.go` `create`: `createValidation`, then `Storage.Create`)."""
        try:
            return await preview(obj)
        except (E.StatusError, Unadmitted) as exc:
            prepared = getattr(exc.error if isinstance(exc, Unadmitted) else exc, "prepared", None)
            if prepared is None:
                raise
            stored.append(exc)
            return prepared
    await hooks.validate(a, obj, old, user, dry_run, opts, warnings, previewed)
    if stored:
        raise stored[0]
    return obj


async def admit_delete(hooks: WebhookAdmission, store: Any, namespace: str, name: str, user: Any,
                       opts: DeleteOptions, old: dict[str, Any] | None = None) -> None:
    """DELETE: both plugins with the stored object as `oldObject` (a missing one: the store answers 404)."""
    if old is None:
        try:
            old = store.get(namespace, name, shared=True)
        except E.StatusError:
            return
    ns, name = scope(store, old, namespace, name)
    a = attributes("DELETE", store, ns, name)
    review_opts, warnings = delete_options(opts), []
    await hooks.mutate(a, None, old, user, opts.dry_run, review_opts, warnings)
    await hooks.validate(a, None, old, user, opts.dry_run, review_opts, warnings)


async def admit_subresource_create(hooks: WebhookAdmission, a: Attributes, obj: dict[str, Any], user: Any,
                                   opts: dict[str, Any], dry_run: bool) -> dict[str, Any]:
    """CREATE of a subresource that stores no object of its own (`pods/binding`, `serviceaccounts/token`): both
    plugins on the request's object; the object as the mutating webhooks left it."""
    warnings: list[str] = []
    obj = await hooks.mutate(a, clone(obj), None, user, dry_run, opts, warnings) or obj
    await hooks.validate(a, obj, None, user, dry_run, opts, warnings)
    return obj


def _named_as(obj: dict[str, Any], previewed: list[dict[str, Any]]) -> dict[str, Any]:
    """A generateName create's admitted object with the name its validating admission saw (upstream's one
    request path generates it once, before that admission: `store.go` `Create`)."""
    meta = obj.get("metadata") or {}
    if not previewed or meta.get("name") or not meta.get("generateName"):
        return obj
    return {**obj, "metadata": {**meta, "name": (previewed[-1].get("metadata") or {}).get("name")}}


class Stale(Exception):
    """The object changed between a write's admission and the write."""


def pinned(obj: dict[str, Any], old: dict[str, Any]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The transform that writes `obj`, admitted over `old`, only over that same state: a write in between raises
    `Stale` (a handler patches the new state again, as upstream's patcher retries; a controller syncs again)."""
    rv = (old.get("metadata") or {}).get("resourceVersion")

    def transform(current: dict[str, Any]) -> dict[str, Any]:
        if (current.get("metadata") or {}).get("resourceVersion") != rv:
            raise Stale()
        return clone(obj)
    return transform


# ---- the controllers' writes -------------------------------------------------------------------------------
def controller_user(service_account: str, namespace: str = KUBE_SYSTEM) -> UserInfo:
    """kube-controller-manager's client for one controller (`SAControllerClientBuilder`); OpenShift's controllers'
    service accounts live in `openshift-infra`."""
    return UserInfo(f"system:serviceaccount:{namespace}:{service_account}",
                    groups=("system:serviceaccounts", f"system:serviceaccounts:{namespace}",
                            "system:authenticated"))


# kube-apiserver's own writes (the CRD finalizer, APIService availability, the `kubernetes` Endpoints/EndpointSlice
# reconciler, the APF config producer, an eviction's budget status): its loopback client's user
# (`staging/src/k8s.io/apiserver/pkg/server/config.go` `AuthorizeClientBearerToken`: `user.APIServerUser`, groups
# `system:authenticated` and `system:masters`; the uid a fresh UUID per process)
APISERVER_USER = UserInfo("system:apiserver", uid=str(uuid.uuid4()),
                          groups=("system:authenticated", "system:masters"))
# kind's kube-controller-manager.conf / kube-scheduler.conf: client certificates `CN=<name>` without organisation
# (their leader election's Lease, the scheduler's writes)
KUBE_CONTROLLER_MANAGER_USER = UserInfo("system:kube-controller-manager", groups=("system:authenticated",))
KUBE_SCHEDULER_USER = UserInfo("system:kube-scheduler", groups=("system:authenticated",))


class Pending(Exception):
    """A controller's write that must pass the webhooks first: its sync stops here; the worker awaits `settle()`
    (which returns the keys of the verdicts it made) and syncs again; `done(keys)` drops what is left of them."""

    def __init__(self, settle: Callable[[], Awaitable[list[str]]], done: Callable[[list[str]], None]):
        super().__init__("admission pending")
        self.settle = settle
        self.done = done


class AdmissionRefusal(E.StatusError):
    """A controller write refused by a webhook or policy (or a failed call under `failurePolicy: Fail`): the
    controller requeues the key with its rate limiter's backoff, as upstream's `AddRateLimited`."""


class Unadmitted(Exception):
    """The registry's or a built-in plugin's own answer met while admitting (the dry-run preview, NamespaceLifecycle):
    the write's verdict as the direct write would have raised it, not a webhook's refusal."""

    def __init__(self, error: E.StatusError):
        super().__init__(error.message)
        self.error = error


ROUNDS = 512  # settle-and-sync rounds one key may take in a row (each admits at least one write)
VERDICTS = 1024  # admitted writes kept for the syncs that make them (stale ones dropped past this)


# what a sync's writes leave to be awaited after it: the loopback client's IPAddress DELETEs of the ClusterIPs
# a controller's Service write released (`afterDelete`), through admission (`ControllerWrites.releasing`)
_AFTER: ContextVar[list[Callable[[], Awaitable[None]]] | None] = ContextVar("nsconform_after_sync", default=None)


async def admitted(call: Callable[..., Awaitable[Any]], *args: Any, on_rerun: Callable[[], None] | None = None,
                   **kw: Any) -> Any:
    """`await call(*args, **kw)`, settling each `Pending` write it stops at and calling again (`on_rerun()` first).
    The verdicts are this call's: a refusal answers every time the sync reaches that write again (as upstream's
    sync ends at its first error), and what is left of them is dropped at the end. What the writes left to be
    awaited (`_AFTER`) is awaited last."""
    settled: list[tuple[Callable[[list[str]], None], list[str]]] = []
    after: list[Callable[[], Awaitable[None]]] = []
    token = _AFTER.set(after)
    try:
        for _ in range(ROUNDS):
            try:
                return await call(*args, **kw)
            except Pending as p:
                settled.append((p.done, await p.settle()))
            if on_rerun is not None:
                on_rerun()
        return await call(*args, **kw)
    finally:
        _AFTER.reset(token)
        for done, keys in settled:
            done(keys)
        for job in after:
            await job()


async def release_ips(hooks: WebhookAdmission | None, ipaddresses: Any, ips: list[str]) -> None:
    """`ipallocator.go` `Release`: each ClusterIP's IPAddress deleted by name by kube-apiserver's loopback client
    (`system:apiserver`), through admission; an error only logged upstream (the repair loop's business)."""
    writes = ControllerWrites(hooks, "", user=APISERVER_USER)

    async def delete(ip: str) -> Any:
        return writes.delete(ipaddresses, "", ip, DeleteOptions())
    for ip in ips:
        try:
            await admitted(delete, ip)
        except E.StatusError:
            pass


class _Reserved:
    """A Service create's verdict whose ClusterIPs were reserved through admission: the object and the draws
    (registry/draws.py) the write must make again."""

    def __init__(self, obj: dict[str, Any], session: draws.Draws):
        self.obj = obj
        self.session = session


_MISSING = object()


def _key(*parts: Any) -> str:
    return json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)


def _reserves(store: Any) -> bool:
    """Whether `store` writes IPAddresses for its objects (the Services' ClusterIPs: registry/servicestore.py)."""
    return getattr(store, "ipaddresses", None) is not None and hasattr(store, "reservations")


class ControllerWrites:
    """One controller's writes (as its service account) through the admitted path; a plain registry call while
    no webhook configuration or policy binding exists, or none selects the write."""

    def __init__(self, hooks: WebhookAdmission | None, service_account: str, offload: Any = None,
                 user: UserInfo | None = None):
        self.hooks = hooks  # None: every write is the plain registry call
        self.user = user or controller_user(service_account)  # `user`: a component with credentials of its own
        self.offload = offload
        self._verdicts: dict[str, Any] = {}

    def active(self) -> bool:
        return self.hooks is not None and self.hooks.active()

    def _selected(self, operation: str, store: Any, obj: dict[str, Any] | None, old: dict[str, Any] | None,
                  sub: str = "") -> bool:
        """Whether a webhook or policy may select this write (else it is made at once, as upstream's plugins
        let a request no configuration selects through untouched)."""
        assert self.hooks is not None
        namespace, name = scope(store, obj if obj is not None and obj.get("metadata") else old, "", "")
        return self.hooks.relevant(attributes(operation, store, namespace, name, sub), obj, old)

    # ---- verdicts --------------------------------------------------------------------------------------
    def _take(self, key: str) -> Any:
        """The verdict for `key`: an admitted object serves one write; a refusal stays for the sync's reruns."""
        verdict = self._verdicts.get(key, _MISSING)
        if isinstance(verdict, E.StatusError):
            raise verdict
        self._verdicts.pop(key, None)
        return verdict

    def _done(self, keys: list[str]) -> None:
        for key in keys:
            self._verdicts.pop(key, None)

    def _pending(self, key: str, admit: Callable[[], Awaitable[Any]]) -> Pending:
        return self._pending_all([(key, admit)])

    def _pending_all(self, admits: list[tuple[str, Callable[[], Awaitable[Any]]]]) -> Pending:
        async def settle() -> list[str]:
            if len(self._verdicts) + len(admits) > VERDICTS:
                self._verdicts.clear()
            for key, admit in admits:
                try:
                    verdict = await admit()
                except Unadmitted as exc:
                    verdict = exc.error
                except E.StatusError as exc:
                    verdict = AdmissionRefusal(exc.status)
                self._verdicts[key] = verdict
            return [key for key, _ in admits]
        return Pending(settle, self._done)

    async def _run(self, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        """A preview (the write as a dry run): its errors are the registry's, not admission's."""
        try:
            if self.offload is not None:
                return await self.offload(fn, *args, **kw)
            return fn(*args, **kw)
        except E.StatusError as exc:
            raise Unadmitted(exc) from None

    @staticmethod
    def _builtin(builtin: Builtin | None) -> Builtin | None:
        """The built-in mutating plugins; their refusals (NamespaceLifecycle's, ...) are not the webhooks'."""
        if builtin is None:
            return None

        def run(obj: dict[str, Any]) -> None:
            try:
                builtin(obj)
            except E.RetriedStatusError:
                raise
            except E.StatusError as exc:
                raise Unadmitted(exc) from None
        return run

    # ---- the three verbs ---------------------------------------------------------------------------------
    def create(self, store: Any, obj: dict[str, Any], **kw: Any) -> dict[str, Any]:
        """`store.create(obj, **kw)` after the webhooks (CREATE, CreateOptions). A Service's ClusterIPs are
        reserved in its admission, as the loopback client's IPAddress CREATEs (admission/serviceips.py: upstream's
        allocator writes them whoever creates the Service), so a Service create is admitted whenever webhooks or
        policies are configured."""
        reserves = _reserves(store)
        if not self.active() or not (reserves or self._selected("CREATE", store, obj, None)):
            return store.create(obj, **kw)
        assert self.hooks is not None
        key = _key("CREATE", store.info.plural, getattr(store, "group", ""), obj)
        verdict = self._take(key)
        if isinstance(verdict, _Reserved):
            return self._create_reserved(store, verdict, **kw)
        if verdict is not _MISSING:
            return store.create(verdict, **kw)
        opts = review_options("CreateOptions", None, False)
        hooks = self.hooks

        async def admit() -> Any:
            previewed: list[dict[str, Any]] = []

            async def preview(o: dict[str, Any]) -> dict[str, Any]:
                previewed.append(await self._run(store.create, o, **{**kw, "dry_run": True}))
                return previewed[-1]
            if not reserves:
                verdict = await admit_write(hooks, store, "CREATE", obj, None, self.user, opts, False, [], preview,
                                            builtin=self._builtin(kw.get("admit")))
                return _named_as(verdict, previewed)
            from .serviceips import reservation  # (it writes through this module)
            with draws.pinned(False) as session:  # the draws the write makes again (`_create_reserved`)
                session.defer_release = True
                held = reservation(hooks, store, preview)
                assert held is not None
                try:
                    verdict = await admit_write(hooks, store, "CREATE", obj, None, self.user, opts, False, [],
                                                preview, builtin=self._builtin(kw.get("admit")), begin=held.begin)
                except BaseException:
                    await held.release()  # the transaction's revert, through admission
                    raise
                return _Reserved(_named_as(verdict, previewed), session)
        raise self._pending(key, admit)

    def _create_reserved(self, store: Any, verdict: _Reserved, **kw: Any) -> dict[str, Any]:
        """The admitted Service written with the draws its admission reserved; when the write fails, those
        reservations are released through admission after the sync (`txn.Revert`)."""
        session = verdict.session
        with draws.resumed(session):
            try:
                return store.create(verdict.obj, **kw)
            except BaseException:
                session.released += sorted(session.reserved)
                session.reserved.clear()
                raise
            finally:
                released, session.released = session.released, []
                self._release_after(store, released)

    def _release_after(self, store: Any, ips: list[str]) -> None:
        """`ips`' IPAddresses deleted through admission after the sync (`admitted`), or at once when no sync
        awaits them."""
        if not ips:
            return
        after = _AFTER.get()
        if after is not None:
            hooks = self.hooks
            after.append(lambda: release_ips(hooks, store.ipaddresses, ips))
            return
        for ip in ips:
            try:
                store.ipaddresses.delete("", ip, DeleteOptions())
            except E.StatusError:
                pass

    @contextmanager
    def releasing(self, store: Any) -> Iterator[None]:
        """The ClusterIPs a write of `store` within releases (a Service's `afterDelete`, an update dropping
        them) deleted after the sync through admission, as the loopback client's DELETEs: upstream's allocator
        releases them so whoever deleted the Service. The plain registry delete while no webhook or policy is
        configured, or no sync awaits them."""
        if not self.active() or not _reserves(store) or _AFTER.get() is None:
            yield
            return
        sink: list[str] = []
        try:
            with draws.releasing_to(sink):
                yield
        finally:
            self._release_after(store, sink)

    def update(self, store: Any, ns: str, name: str, body: dict[str, Any] | None = None, *,
               transform: Callable[[dict[str, Any]], dict[str, Any]] | None = None, **kw: Any) -> dict[str, Any]:
        with self.releasing(store):  # (a Service's last finalizer removed, or its ClusterIPs dropped)
            return self._update(store, ns, name, body, transform=transform, **kw)

    def _update(self, store: Any, ns: str, name: str, body: dict[str, Any] | None = None, *,
                transform: Callable[[dict[str, Any]], dict[str, Any]] | None = None, **kw: Any) -> dict[str, Any]:
        """`store.update(...)` after the webhooks (UPDATE, UpdateOptions; a status/finalize strategy's
        subresource): the new object is computed over the current one, and written only over that same state
        (a write in between: 409, the controller syncs again)."""
        if not self.active():
            return store.update(ns, name, body, transform=transform, **kw)
        assert self.hooks is not None
        old = store.get(ns, name)
        new = transform(clone(old)) if transform is not None else body
        assert new is not None
        rv = (new.get("metadata") or {}).get("resourceVersion")
        old_rv = old["metadata"].get("resourceVersion")
        if transform is None and rv and rv != old_rv:
            raise E.conflict(store.info.plural, name, E.OPTIMISTIC_LOCK_MSG, getattr(store, "group", ""))
        strategy = kw.get("strategy")
        sub = getattr(strategy, "subresource", "") or ""
        if not self._selected("UPDATE", store, new, old, sub):
            return store.update(ns, name, body, transform=transform, **kw)
        key = _key("UPDATE", store.info.plural, getattr(store, "group", ""), ns, name, sub, old_rv, new)
        verdict = self._take(key)
        if verdict is not _MISSING:
            return store.update(ns, name, transform=self._guarded(store, name, verdict, old), **kw)
        opts = review_options("UpdateOptions", None, False)

        async def admit() -> dict[str, Any]:
            return await admit_write(self.hooks, store, "UPDATE", new, old, self.user, opts, False, [],
                                     lambda o: self._run(store.update, ns, name, transform=pinned(o, old),
                                                         **{**kw, "dry_run": True}), sub=sub)
        raise self._pending(key, admit)

    def update_scale(self, store: Any, ns: str, name: str, replicas: int, manager: str) -> dict[str, Any]:
        """client-go's scale client `Update`: the object's `scale` subresource set to `replicas`, reviewed as an
        UPDATE of the autoscaling/v1 Scale (its resourceVersion the one read: a write in between is a 409)."""
        group, model = getattr(store, "group", ""), scale_model(store)  # a custom resource's: registry/crscale.py
        kw: dict[str, Any] = {"strategy": ScaleUpdateStrategy(store.strategy), "manage": keep_managed_fields}

        def writing(scale: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[dict[str, Any]], dict[str, Any]]:
            return scale_update(store.info.plural, group, name, scale, manager=manager, model=model)

        def resized(scale: dict[str, Any]) -> dict[str, Any]:
            scale.setdefault("spec", {})["replicas"] = replicas
            return scale
        if not self.active():
            return store.update(ns, name, transform=writing(resized), **kw)
        assert self.hooks is not None
        old = model.view(store.get(ns, name))
        new = resized(clone(old))
        if not self._selected("UPDATE", store, new, old, "scale"):
            return store.update(ns, name, transform=writing(resized), **kw)
        key = _key("UPDATE", store.info.plural, group, ns, name, "scale", new)
        verdict = self._take(key)
        if verdict is not _MISSING:
            return store.update(ns, name, transform=writing(lambda _old: clone(verdict)), **kw)
        opts = review_options("UpdateOptions", None, False)

        async def preview(scale: dict[str, Any]) -> dict[str, Any]:
            return model.view(await self._run(store.update, ns, name, transform=writing(lambda _old: clone(scale)),
                                              dry_run=True, **kw))

        async def admit() -> dict[str, Any]:
            return await admit_write(self.hooks, store, "UPDATE", new, old, self.user, opts, False, [], preview,
                                     sub="scale", kind=(SCALE_GROUP, SCALE_VERSION, SCALE_KIND))
        raise self._pending(key, admit)

    @staticmethod
    def _guarded(store: Any, name: str, obj: dict[str, Any], old: dict[str, Any]) -> Any:
        step = pinned(obj, old)

        def run(current: dict[str, Any]) -> dict[str, Any]:
            try:
                return step(current)
            except Stale:
                raise E.conflict(store.info.plural, name, E.OPTIMISTIC_LOCK_MSG,
                                 getattr(store, "group", "")) from None
        return run

    def delete_items(self, store: Any, items: list[dict[str, Any]],
                     opts: DeleteOptions) -> list[E.StatusError] | None:
        with self.releasing(store):
            return self._delete_items(store, items, opts)

    def _delete_items(self, store: Any, items: list[dict[str, Any]],
                      opts: DeleteOptions) -> list[E.StatusError] | None:
        """Each of `items` deleted as upstream's DeleteCollection does (`store.go`: a Delete of each item with the
        request's admission, so every item's DELETE reaches the webhooks); all of them admitted in one round.
        Returns the errors (an item already gone is none); None, deleting nothing, when no webhook or policy
        selects any item (the caller's collection delete is then the same)."""
        if not self.active():
            return None
        assert self.hooks is not None
        hooks = self.hooks
        keyed = [(it, self._delete_key(store, it["metadata"].get("namespace", ""), it["metadata"]["name"], it, opts))
                 for it in items]
        selected = [(it, k) for it, k in keyed if k in self._verdicts or self._selected("DELETE", store, None, it)]
        if not selected:
            return None
        missing = [(k, self._delete_admission(hooks, store, it, opts)) for it, k in selected if k not in self._verdicts]
        if missing:
            raise self._pending_all(missing)
        errors: list[E.StatusError] = []
        for it, k in keyed:
            meta = it["metadata"]
            try:
                self._take(k)  # (none for an item no webhook or policy selects)
                store.delete(meta.get("namespace", ""), meta["name"], opts)
            except E.StatusError as exc:
                if exc.code != 404:
                    errors.append(exc)
        return errors

    @staticmethod
    def _delete_key(store: Any, ns: str, name: str, old: dict[str, Any], opts: DeleteOptions) -> str:
        return _key("DELETE", store.info.plural, getattr(store, "group", ""), ns, name,
                    old["metadata"].get("resourceVersion"), delete_options(opts))

    def _delete_admission(self, hooks: WebhookAdmission, store: Any, old: dict[str, Any],
                          opts: DeleteOptions) -> Callable[[], Awaitable[bool]]:
        meta = old["metadata"]

        async def admit() -> bool:
            await admit_delete(hooks, store, meta.get("namespace", ""), meta["name"], self.user, opts, old)
            return True
        return admit

    def delete(self, store: Any, ns: str, name: str, opts: DeleteOptions, **kw: Any) -> tuple[dict[str, Any], bool]:
        with self.releasing(store):
            return self._delete(store, ns, name, opts, **kw)

    def _delete(self, store: Any, ns: str, name: str, opts: DeleteOptions, **kw: Any) -> tuple[dict[str, Any], bool]:
        """`store.delete(...)` after the webhooks (DELETE, DeleteOptions, the stored object as oldObject)."""
        if not self.active():
            return store.delete(ns, name, opts, **kw)
        assert self.hooks is not None
        old = store.get(ns, name)
        if not self._selected("DELETE", store, None, old):
            return store.delete(ns, name, opts, **kw)
        key = self._delete_key(store, ns, name, old, opts)
        if self._take(key) is not _MISSING:
            return store.delete(ns, name, opts, **kw)
        raise self._pending(key, self._delete_admission(self.hooks, store, old, opts))


__all__ = ["APISERVER_USER", "AdmissionRefusal", "release_ips", "KUBE_CONTROLLER_MANAGER_USER", "KUBE_SCHEDULER_USER", "ControllerWrites", "Pending", "Stale", "admit_delete", "admit_subresource_create",
           "admit_write", "admitted", "controller_user", "delete_options", "pinned", "review_options", "scope"]

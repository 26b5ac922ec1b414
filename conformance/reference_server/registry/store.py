"""The generic REST store (upstream `registry/generic/registry.Store`): create/get/list/update/delete/watch.

Strategies decide what a write may change; this module owns the mechanics every kind shares:
generateName, system metadata, optimistic concurrency, finalizer-aware deletion, dry-run, selectors,
paging and the translation of storage errors into API errors.
"""
from __future__ import annotations

import asyncio
import contextvars
import uuid
from dataclasses import dataclass
from time import perf_counter
from typing import Any, Callable, Iterator, Protocol

from .. import apierrors as E
from ..deviations import NONE, Deviations
from ..fieldmanager import FieldManager
from ..storage import DELETE, KeyExistsError, KeyNotFoundError, Store, TooOldResourceVersionError, object_key
from ..storage.clone import clone
from ..storage.errors import FUTURE_REVISION
from ..storage.freshness import READ_AT
from ..storage.interface import NO_OBSERVER, Event, Watcher
from ..storage.rehearsal import recall
from . import meta as M
from .collectiondelete import deletion_answer, deletion_pages
from .draws import draw
from .graceful import GRACEFUL, PENDING, Decision, before_delete
from .propagation import FOREGROUND, ORPHAN, deletion_finalizers
from .kinds import ResourceInfo
from . import continuetoken
from .selectors import check_syntax, exact_match, make_predicate
from .strategy import Strategy
from .validation import is_dns1123_label, is_path_segment_name
from .updatemeta import generate_name_errors, update_causes
from ..memo import remember
from ..wire import gostructs
from ..goport.gonet.strconv import quote
from ..warning import add_warning
from ..wire import gowritten
from ..wire.schema import OUTPUT_MESSAGES

MAX_GENERATE_ATTEMPTS = 8
DELETE_BATCH = 200  # delete_collection_async lets the event loop run after this many deletions
META_ORDER = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
              "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
              "ownerReferences", "finalizers", "managedFields")
_META_PLANS: dict[tuple[str, ...], tuple[str, ...] | None] = {}  # metadata's keys → their order (None: in order)
_META_PLANS_MAX = 1024


def meta_in_go_order(meta: dict[str, Any]) -> dict[str, Any]:
    """A new dict of `meta`'s keys, those of `META_ORDER` in its order, then the others in theirs. Every object
    read passes here, its keys mostly in that order already (stored so): the order is worked out once per set of
    keys, and a dict already in order is copied as it is."""
    keys = tuple(meta)
    plan = _META_PLANS.get(keys, False)
    if plan is False:
        ordered = tuple(k for k in META_ORDER if k in meta) + tuple(k for k in keys if k not in META_ORDER)
        plan = remember(_META_PLANS, keys, None if ordered == keys else ordered, _META_PLANS_MAX)
    return dict(meta) if plan is None else {k: meta[k] for k in plan}


LIST_TOO_OLD = "The resourceVersion for the provided list is too old."
CONTINUE_TOO_OLD = ("The provided continue parameter is too old to display a consistent list result. You can start "
                    "a new list without the continue parameter, or use the continue token in this response to "
                    "retrieve the remainder of the results. Continuing with the provided token results in an "
                    "inconsistent list - objects that were created, modified, or deleted between the time the first "
                    "chunk was returned and now may show up in the list.")

Admit = Callable[[dict[str, Any]], None]
ValidateAdmit = Callable[[dict[str, Any]], "Callable[[], None] | None"]
"""Validating admission on the prepared, validated object; may return what to write after the object
(the quota's new `status.used`), run in the same atomic block and only when the object was stored."""

RENDER_MEMO_MAX = 4096  # objects whose encoded GET response `get_rendered` keeps

Manage = Callable[["dict[str, Any] | None", dict[str, Any]], dict[str, Any]]
"""The field manager's step (`manage(live, new) -> new`, live None on create), handed down by the handler and
run where upstream's handler runs it: on the decoded, defaulted object, before admission."""


API_LIST: contextvars.ContextVar[bool] = contextvars.ContextVar("nsconform_api_list", default=False)
"""Set by the HTTP layer around an API LIST's read: the LISTs the watch cache's metrics count."""


class CacheState(Protocol):
    """A watch cache's own state (a CRD version's: registry/crconversion/cache.py), which `cacher.go` answers the
    reads it serves with (it may be older than storage's); `storage`: the reading store's, None from either
    when it is not the cache's."""

    def held_list(self, storage: Any, namespace: str | None) -> tuple[list[dict[str, Any]], int] | None:
        """The stored objects the cache holds, sorted by key, and its resourceVersion."""

    def held_one(self, storage: Any, namespace: str, name: str) -> tuple[dict[str, Any] | None] | None:
        """(the stored object the cache holds, or None when it holds none)."""


CACHE_STATE: contextvars.ContextVar[CacheState | None] = contextvars.ContextVar("nsconform_cache_state",
                                                                              default=None)
"""Set by the HTTP layer around a read a watch cache of its own serves (http/crconversion.py)."""


@dataclass
class ListOptions:
    label_selector: str = ""
    field_selector: str = ""
    limit: int = 0
    continue_token: str = ""
    resource_version: str = ""
    resource_version_match: str = ""
    send_initial_events: bool | None = None  # `*bool`: None when the query has no `sendInitialEvents`


@dataclass
class DeleteOptions:
    """The subset of `metav1.DeleteOptions` the registry acts on."""

    dry_run: bool = False
    propagation_policy: str | None = None
    orphan_dependents: bool | None = None
    uid: str | None = None
    resource_version: str | None = None
    grace_period_seconds: int | None = None


class GenericStore:
    """One resource's REST storage over a `storage.Store`."""

    group = ""  # a named API group's stores (`GroupStore`) qualify their errors with it
    ttl = 0  # seconds a create or update keeps the object (upstream's `TTLFunc`: Events' `--event-ttl`); 0: forever
    api_version = "v1"  # a named group's stores set their own; readers ask `getattr(store, "api_version", "v1")`,
    #                     which, without this, raised and caught an AttributeError on every core GET
    cached_reads = True  # reads at a resourceVersion wait for the storage to reach it (http/cacheread.py)

    @property
    def table_kind(self) -> str:
        """Which `wire.table` printer renders this resource's Table (`kubectl get`): its kind."""
        return self.info.kind

    def __init__(self, info: ResourceInfo, store: Store, strategy: Strategy | None = None,
                 deviations: Deviations = NONE):
        self.info = info
        self.store = store
        self.strategy = strategy or Strategy(info)
        self.deviations = deviations
        self._rendered: dict[int, tuple[Any, ...]] = {}  # get_rendered's memo

    # ---- helpers ---------------------------------------------------------------------------------
    def _invalid(self, name: str, errs: list[E.FieldError]) -> E.StatusError:
        err = E.invalid(self.info.kind, name, errs)
        if self.deviations.active("invalid-details-resource-kind"):
            err.status["details"]["kind"] = self.info.plural
        return err

    def _not_found(self, name: str) -> E.StatusError:
        return E.not_found(self.info.plural, name)

    def _key(self, ns: str, name: str) -> str:
        return object_key(self.info.plural, ns, name)

    def _finish(self, obj: dict[str, Any]) -> dict[str, Any]:
        """What a response shows: `_normalize(obj)` (subclasses add response-only fields)."""
        return self._normalize(obj)

    def _normalize(self, obj: dict[str, Any]) -> dict[str, Any]:
        """What is stored and shown: a new object with kind/apiVersion set and keys in Go's struct order;
        `obj` is left untouched.

        The result has new top-level and metadata dicts; everything below is shared with `obj` (which may be
        a stored object: callers may set top-level or metadata keys of the result, nothing deeper)."""
        out = {"kind": None, "apiVersion": None, **obj}  # (a key already there keeps its place when updated)
        out["kind"] = self.info.kind
        out["apiVersion"] = "v1"
        meta = out.get("metadata")
        if isinstance(meta, dict):
            out["metadata"] = meta_in_go_order(meta)
        return out

    def _stored_form(self, obj: dict[str, Any]) -> dict[str, Any]:
        """What a create or update stores: `_normalize(obj)`, a built-in kind's fields as Go writes them read back
        from protobuf storage, a CRD's and an APIService's from JSON storage (by-value fields' zero values, nil ones
        `null` or left out: wire/gowritten.py), then each struct's fields in the Go struct's order
        (wire/gostructs.py) and each Go map's keys sorted
        (wire/gomaps.py), as the Go type kube-apiserver decodes into writes them; done once here, so reads answer
        the stored form. `obj` is left untouched (what is out of order is copied, with the dicts on its way)."""
        out = self._normalize(obj)
        if not getattr(self, "crd_name", None):
            out = gowritten.written_object(out, out.get("apiVersion"), out.get("kind"))
        return gostructs.typed_form(self.api_version, self.info.kind)(out)

    def _in_order(self, change: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], Any]:
        """`change` (a storage update's function that sets metadata fields: a deletion's marks) with its result
        normalized, so the stored object, and so its watch event, keeps Go's key order (`deletionTimestamp` in
        its place, not after `managedFields`)."""
        def changed(obj: dict[str, Any]) -> Any:
            out = change(obj)
            return self._normalize(out) if isinstance(out, dict) else out
        return changed

    # ---- create ----------------------------------------------------------------------------------
    def create(self, obj: dict[str, Any], *, dry_run: bool = False, field_manager: str = "",
               manage: Manage | None = None,
               admit: Admit | None = None, validate_admit: ValidateAdmit | None = None,
               strategy: Strategy | None = None) -> dict[str, Any]:
        """Create (NS-10..NS-23 order): field manager → admission → name generation → prepare → validate →
        validating admission → store. `field_manager` (internal writers) records an Update entry by that name;
        `manage` is the handler's own field-manager step; `strategy` another version's (registry/crconversion/)."""
        with self.store.atomic():  # admission's check and the write see the same world
            return self._create(clone(obj), dry_run, self._manage(manage, field_manager), admit, validate_admit,
                                strategy or self.strategy)

    @property
    def field_manager(self) -> FieldManager:
        """This kind's managedFields bookkeeping (built once: the kind never changes under a store)."""
        fm = self.__dict__.get("_field_manager")
        if fm is None:
            builtin = not getattr(self, "crd_name", None)
            status_sub = getattr(self, "status_strategy", None) is not None
            zero = getattr(self, "field_manager_zero", None) or \
                {f: {} for f in ("spec", "status") if builtin and f in self.info.fields}
            if builtin:  # `Creater.New`'s nil fields are `null` too (a body's `"rules": null` then owns nothing)
                api_version = getattr(self, "api_version", "v1")
                zero = gowritten.written(zero, OUTPUT_MESSAGES.get((api_version, self.info.kind)), zeros=False)
            ignored = {"status": frozenset({"spec"}), "finalize": frozenset({"status"})}
            if status_sub or (builtin and "status" in self.info.fields):
                ignored[""] = frozenset({"status"})
            fm = FieldManager(self.info.kind, getattr(self, "api_version", "v1"), builtin=builtin, zero=zero,
                              ignored=ignored, crd_schema=None if builtin else getattr(self.strategy, "schema", None),
                              converter=getattr(self, "version_converter", None))  # registry/versions.py
            self.__dict__["_field_manager"] = fm
        return fm

    def _manage(self, manage: Manage | None, field_manager: str, subresource: str = "") -> Manage | None:
        if manage is not None or not field_manager:
            return manage
        fm = self.field_manager
        return lambda live, new: fm.update(live, new, field_manager, subresource, live_stored=True)

    def _create(self, obj: dict[str, Any], dry_run: bool, manage: Manage | None,
                admit: Admit | None, validate_admit: ValidateAdmit | None = None,
                strategy: Strategy | None = None) -> dict[str, Any]:
        strategy = strategy or self.strategy
        meta = obj.setdefault("metadata", {})
        strategy.default(obj)  # decode → default → admission → prepare → validate, as upstream
        if manage is not None:
            obj = manage(None, obj)
            meta = obj.setdefault("metadata", {})
        if admit is not None:
            admit(obj)
        if _nonzero_rv(meta.get("resourceVersion")):
            raise E.StatusError(E.status_dict(500, None, "resourceVersion should not be set on objects to be created"))
        M.wipe_system_fields(meta)
        generated = not meta.get("name") and bool(meta.get("generateName"))
        attempts = MAX_GENERATE_ATTEMPTS if generated else 1
        for attempt in range(attempts):
            candidate = clone(obj)
            cmeta = candidate["metadata"]
            if generated:
                prefix = cmeta["generateName"]  # a rehearsal's draw, kept; the webhooks' preview's too (draws.py)
                cmeta["name"] = recall("generate-name", lambda: prefix, lambda: draw(
                    "generate-name", (prefix, attempt), lambda: M.generate_name(prefix)), strict=False)
            strategy.prepare_for_create(candidate)
            errs = strategy.validate(candidate)
            if errs:
                raise self._invalid(cmeta.get("name", ""), errs)
            for text in strategy.warnings_on_create(candidate):  # rest.BeforeCreate: once valid
                add_warning(text)
            strategy.canonicalize(candidate)
            cmeta["uid"] = cmeta.get("uid") or M.new_uid()  # a strategy may have set it (Job's selector)
            if self.info.plural == "namespaces" and self.deviations.active("uid-from-name"):
                cmeta["uid"] = str(uuid.uuid5(uuid.NAMESPACE_DNS, cmeta["name"]))
            cmeta["creationTimestamp"] = M.now()
            cmeta["resourceVersion"] = ""  # keeps the key's position; storage fills it in
            candidate = self._stored_form(candidate)
            after = validate_admit(candidate) if validate_admit is not None else None
            try:
                created = self._store_create(candidate, dry_run)
                if after is not None and not dry_run:
                    after()
                return created
            except KeyExistsError as e:
                if generated and attempt + 1 < attempts:
                    continue
                if generated:
                    raise E.generate_name_conflict(self.info.plural, cmeta["name"], group=self.group)
                being_deleted = bool(e.existing.get("metadata", {}).get("deletionTimestamp"))
                if being_deleted and self.deviations.active("terminating-conflict-message"):
                    being_deleted = False
                if self.info.plural == "namespaces" and self.deviations.active("already-exists-as-conflict"):
                    raise E.conflict(self.info.plural, cmeta["name"], "the object already exists")
                exists = E.already_exists(self.info.plural, cmeta["name"], self.group, being_deleted=being_deleted)
                if dry_run:  # the storage's answer: a dry-run preview's validating admission comes before it
                    exists.prepared = candidate  # type: ignore[attr-defined]
                raise exists
        raise AssertionError("unreachable")

    def _store_create(self, obj: dict[str, Any], dry_run: bool) -> dict[str, Any]:
        meta = obj["metadata"]
        ns, name = meta.get("namespace", ""), meta["name"]
        if self.info.namespaced and self.deviations.active("names-unique-across-namespaces"):
            for other in self.store.list(self.info.plural, None)[0]:
                if other["metadata"]["name"] == name:
                    raise KeyExistsError(self._key(ns, name), other)
        if self.info.namespaced and not dry_run and self.deviations.active("duplicate-content-overwrites"):
            try:
                self.store.delete(self.info.plural, ns, name)
            except KeyNotFoundError:
                pass
        if dry_run:
            obj["metadata"].pop("resourceVersion", None)
            try:
                existing = self.store.get(self.info.plural, ns, name)
            except KeyNotFoundError:
                return obj
            raise KeyExistsError(self._key(ns, name), existing)
        if self.ttl:  # (only a TTL'd resource's stores are asked to take one)
            return self.store.create(self.info.plural, ns, name, obj, ttl=self.ttl)
        return self.store.create(self.info.plural, ns, name, obj)

    # ---- read ------------------------------------------------------------------------------------
    def get(self, ns: str, name: str, *, shared: bool = False) -> dict[str, Any]:
        """The object; with `shared=True` only its top-level and metadata dicts are new (the rest is the
        stored object's): for callers that only serialise it."""
        state = CACHE_STATE.get()
        held = state.held_one(self.store, ns, name) if state is not None and not READ_AT.get() else None
        if held is not None:  # a read its watch cache serves (READ_AT: etcd's): the object as the cache holds it
            if held[0] is None:
                raise self._not_found(name)
            return self._finish(held[0] if shared else clone(held[0]))
        try:
            return self._finish(self.store.get(self.info.plural, ns, name, shared=shared))
        except KeyNotFoundError:
            raise self._not_found(name) from None

    def get_rendered(self, ns: str, name: str, render: Callable[[dict[str, Any]], Any]) -> Any:
        """`render(self.get(ns, name, shared=True))`, memoised per stored object version.

        Stored objects are immutable (every write stores a new dict, see `MemoryStore`), so the identity of
        the stored dict stands for its version (resourceVersion): a write makes the next call miss. The
        memo holds the stored dict, so its id cannot be reused while cached. `_finish` and `render` must be
        pure functions of the stored object (and of `self.deviations`, checked too)."""
        try:
            raw = self.store.get(self.info.plural, ns, name, shared=True)
        except KeyNotFoundError:
            raise self._not_found(name) from None
        memo = self._rendered
        hit = memo.get(id(raw))
        if hit is not None and hit[0] is raw and hit[1] is render and hit[2] is self.deviations:
            return hit[3]
        out = render(self._finish(raw))
        remember(memo, id(raw), (raw, render, self.deviations, out), RENDER_MEMO_MAX)  # (hot objects come back)
        return out

    def predicate(self, opts: ListOptions) -> Callable[[dict[str, Any]], bool]:
        return make_predicate(opts.label_selector, opts.field_selector, self.info.selectable_fields,
                              self.info.custom_field_labels, self.field_kind)

    @property
    def field_kind(self) -> str:
        """The kind whose `ToSelectableFields` computes its field values (registry/selectablefields.py); a custom
        resource's (registry/crd.py) is "": each value is the one at its path, whatever its kind is called."""
        return self.info.kind

    def check_list(self, opts: ListOptions) -> Callable[[dict[str, Any]], bool]:
        """A LIST's refusals before any read (options, selectors, the resourceVersion's parse); its predicate."""
        check_syntax(opts.label_selector, opts.field_selector)  # `DecodeParameters`, before `ValidateListOptions`
        validate_list_options(opts, watch=False)
        pred = self.predicate(opts)  # selectors are parsed with the request's options, before storage
        check_list_rv(opts)
        return pred

    def selection(self, opts: ListOptions) -> Callable[[dict[str, Any]], bool]:
        """A LIST's refusals (`check_list`) and its predicate of the stored objects (a custom resource's, which
        its storage's codec may convert first: registry/crconversion/selection.py)."""
        return self.check_list(opts)

    def list(self, ns: str | None, opts: ListOptions, *, shared: bool = False,
             pred: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
        """A `<Kind>List` with paging (`limit`/`continue`/`remainingItemCount`) (NS-25..NS-29).

        Served from a versioned snapshot as etcd3 `store.GetList`: a continue token pins the first page's
        resourceVersion (every page is one snapshot; once compacted: 410 with an inconsistent-continue
        token); `resourceVersionMatch=Exact`, and the legacy `resourceVersion` + `limit`, read at that
        resourceVersion; `NotOlderThan` (or no match) reads the current state.
        `shared` as for `get`: each item's top-level and metadata dicts are new, the rest is stored data.
        `pred`: the stored objects' predicate when another version's store checked the options (a custom
        resource's served version: registry/crconversion/selection.py); its `prepare`, if any, sees the
        candidates and the limit first."""
        pred = self.selection(opts) if pred is None else pred
        ns, single = self._single_key(ns, opts)
        start: str | None = None  # the first key to list, relative to the list's prefix (continuetoken.list_key)
        if opts.continue_token:
            token_rv, start = decode_continue(opts.continue_token)
            if opts.resource_version not in ("", "0"):
                raise E.bad_request("specifying resource version is not allowed when using continue")
            at: int | None = token_rv if token_rv > 0 else None  # -1: continue at the latest state
            if at is not None and (self.deviations.active("list-pages-not-snapshot") or (
                    self.deviations.active("compaction-unnoticed") and at < self.store.compacted_rv())):
                at = None
        else:
            at = self._list_rv(opts)
        started = perf_counter()
        try:
            if at is None and ns is not None and self.deviations.active("list-scans-all-namespaces"):
                items, rv = self.store.list(self.info.plural, None, shared=True)
                items = [o if shared else clone(o) for o in items if o["metadata"].get("namespace") == ns]
            elif at is None:
                state = CACHE_STATE.get()  # a LIST its watch cache serves (READ_AT: etcd's): the cache's state
                held = state.held_list(self.store, ns) if state is not None and not READ_AT.get() else None
                items, rv = held if held is not None else self.store.list(self.info.plural, ns, shared=shared)
                if held is not None and not shared:
                    items = clone(items)
            else:
                items, rv = self.store.list_at(self.info.plural, ns, at, shared=shared)
        except TooOldResourceVersionError:
            if start is not None:
                err = E.expired(CONTINUE_TOO_OLD)
                err.status["metadata"] = {"continue": encode_continue(-1, start)}  # (errors.go: the same key)
                raise err from None
            raise E.expired(LIST_TOO_OLD) from None
        if single is not None:  # (a non-recursive `GetList`: the one key, so no page ever has more)
            items = [o for o in items if o["metadata"]["name"] == single]
        listed, seconds = items, perf_counter() - started
        one_namespace = ns is not None
        if start is not None:  # etcd's range from the start key on (the token's `\x00` makes it the next key)
            items = [o for o in items if continuetoken.list_key(o, one_namespace) >= start]
        prepare = getattr(pred, "prepare", None)
        if prepare is not None:
            prepare(items, opts.limit)
        list_meta: dict[str, Any] = {"resourceVersion": str(rv)}
        if opts.limit and opts.limit > 0:
            page, after = _page(items, pred, opts.limit)
            if after:  # any object after the page's last, selected or not: etcd3 `GetList`'s `hasMore`
                cached = at is None and start is None and not READ_AT.get()  # the watch cache's page, or etcd's
                last = continuetoken.list_key(page[-1], one_namespace, cached)
                list_meta["continue"] = encode_continue(rv, last + "\x00")  # `PrepareContinueToken`
                if not opts.label_selector and not opts.field_selector:  # (`pred.Empty()`: every key counts)
                    list_meta["remainingItemCount"] = len(after)
            items = [self._finish(o) for o in page]
        else:
            items = [self._finish(o) for o in items if pred(o)]
        if at is None and start is None:  # the watch cache's LIST (1.33 sends a continued one to etcd)
            self._cache_listed(opts, listed, len(items), seconds, single=single is not None)
        return {"kind": self.info.list_kind, "apiVersion": "v1", "metadata": list_meta, "items": items}

    def _single_key(self, ns: str | None, opts: ListOptions) -> tuple[str | None, str | None]:
        """(the namespace the LIST reads, the one name it reads or None): generic registry store.go
        `ListPredicate` (k8s.io/apiserver v0.33.1). Without a continue token, a LIST across namespaces whose field
        selector requires one valid namespace (`MatchesSingleNamespace`, `ValidateNamespaceName`) reads that
        namespace's key prefix, and one requiring a name (`MatchesSingle`) whose key `KeyFunc` makes (a namespace
        known for a namespaced kind, a valid path segment) is a non-recursive `GetList` of that key: no continue
        token and no `remainingItemCount` (etcd3's `hasMore` and the cacher's `hasMoreListItems` are false)."""
        if opts.continue_token or not opts.field_selector:
            return ns, None
        if ns is None and self.info.namespaced:
            narrowed = exact_match(opts.field_selector, "metadata.namespace", self.field_kind)
            if narrowed is not None and not is_dns1123_label(narrowed):
                ns = narrowed
        name = exact_match(opts.field_selector, "metadata.name", self.field_kind)
        if not name or (self.info.namespaced and not ns) or is_path_segment_name(name):
            return ns, None
        return ns, name

    def _cache_listed(self, opts: ListOptions, listed: list[dict[str, Any]], returned: int, seconds: float, *,
                      single: bool = False) -> None:
        """Report an API LIST the watch cache served (`cacher.go` `GetList`'s `RecordListCacheMetrics`; the
        built-in controllers' own reads are upstream's informer caches, not LISTs): `listed` is what was read under
        the key prefix. Pods keep 1.33's one index, `spec.nodeName` (`pod.Indexers`), used when the field selector
        pins it (`spec.host` too, converted to it before storage): then what is fetched is that index's bucket
        (`listLatestRV`: `ByIndex`, then the prefix), the pods on that node."""
        if not API_LIST.get() or READ_AT.get():  # READ_AT: a consistent read the cache could not serve (etcd's)
            return
        node = exact_match(opts.field_selector, "spec.nodeName", self.field_kind) \
            if self.info.plural == "pods" and opts.field_selector and not single else None  # (single: a `Get`)
        if node is None:
            index, fetched = "", len(listed)
        else:
            index = "f:spec.nodeName"
            fetched = sum(1 for o in listed if (o.get("spec") or {}).get("nodeName", "") == node)
        getattr(self.store, "observer", NO_OBSERVER).cache_listed(self.info.plural, index, fetched, returned, seconds)

    def _list_rv(self, opts: ListOptions) -> int | None:
        """The resourceVersion to read the list at, or None for the current state."""
        if opts.resource_version in ("", "0"):
            return None
        rv = int(opts.resource_version)  # check_list_rv has parsed it
        current = self.store.current_rv()
        exact = opts.resource_version_match == "Exact" or (not opts.resource_version_match and opts.limit > 0)
        if rv > current:
            if exact:  # etcd3 `store.GetList` reads etcd at `rv`; its refusal passes `interpretListError` as it is
                raise unconverted_storage_error(FUTURE_REVISION)
            raise too_large_rv(rv, current)  # the cache's, once the HTTP layer waited for it (http/cacheread.py)
        if not exact or (opts.resource_version_match == "Exact" and self.deviations.active("list-exact-reads-latest")):
            return None
        if self.deviations.active("compaction-unnoticed") and rv < self.store.compacted_rv():
            return None
        return rv

    # ---- update ----------------------------------------------------------------------------------
    def update(self, ns: str, name: str, body: dict[str, Any] | None = None, *,
               transform: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
               strategy: Strategy | None = None, dry_run: bool = False, field_manager: str = "",
               manage: Manage | None = None, admit: Admit | None = None,
               validate_admit: Callable[[dict[str, Any], dict[str, Any]], Callable[[], None] | None] | None = None
               ) -> dict[str, Any]:
        """Guaranteed update; `transform(current)` (PATCH) or `body` (PUT) gives the new object;
        `validate_admit(new, current)`: the validating admission of an update, after the strategy's validation;
        what it returns (a quota's charge) runs once the update is stored.

        Unconditional without `metadata.resourceVersion`; stale RV ⇒ 409; a body UID is a precondition.
        An update that empties the finalizers of an object being deleted removes it (NS-39).
        """
        strategy = strategy or self.strategy
        manage = self._manage(manage, field_manager, strategy.subresource)
        result: dict[str, Any] = {}
        if self.info.namespaced and ns and self.deviations.active("terminating-blocks-updates"):
            try:
                owner = self.store.get("namespaces", "", ns)
            except KeyNotFoundError:
                owner = {}
            if (owner.get("metadata") or {}).get("deletionTimestamp"):
                raise E.forbidden(self.info.plural, name,
                                  f"unable to change content in namespace {ns} because it is being terminated")

        def compute(current: dict[str, Any]) -> Any:
            new = clone(transform(clone(current)) if transform else body)
            if not isinstance(new, dict):
                raise E.bad_request("the body of the request must be an object")
            nmeta = new.setdefault("metadata", {})
            if not isinstance(nmeta, dict):
                raise E.bad_request("metadata must be an object")
            cmeta = current["metadata"]
            uid = nmeta.get("uid")
            if uid and uid != cmeta.get("uid"):
                raise E.conflict(self.info.plural, name,
                                 f"StorageError: invalid object, Code: 4, Key: {self._key(ns, name)}, "
                                 f"ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in "
                                 f"precondition: {uid}, UID in object meta: {cmeta.get('uid')}")
            strategy.default(new, update=True)  # decode-time defaults come before admission and validation
            if manage is not None:
                new = manage(current, new)
                nmeta = new.setdefault("metadata", {})
            if admit is not None:
                admit(new)
            self._check_update_rv(name, strategy, new["metadata"], cmeta)
            strategy.prepare_for_update(new, current)
            _restore_system_meta(nmeta, cmeta)
            refused = strategy.begin_update(new, current)  # `BeginUpdate`, before `rest.BeforeUpdate`: alone
            if refused:
                raise self._invalid(name, refused)
            errs = strategy.validate_update(new, current)
            if errs or generate_name_errors(nmeta):  # every repeat of the metadata causes, only when refused
                raise self._invalid(name, update_causes(strategy, new, current, errs))
            if validate_admit is not None:  # may return what to write once the update is stored (a quota's charge)
                result["after"] = validate_admit(new, current)
            strategy.canonicalize_update(new, current)
            for text in strategy.warnings_on_update(new, current):  # rest.BeforeUpdate: once valid
                add_warning(text)
            if manage is None and "managedFields" not in nmeta and cmeta.get("managedFields"):
                nmeta["managedFields"] = cmeta["managedFields"]  # an unmanaged write keeps them as they are
            new = self._stored_form(new)
            new["metadata"]["resourceVersion"] = cmeta.get("resourceVersion")
            result["new"] = new
            if strategy.should_delete_during_update(new, current):
                return DELETE
            return new

        try:
            if dry_run:
                current = self.store.get(self.info.plural, ns, name)
                out = compute(current)
                return self._finish(result["new"] if out is DELETE else out)
            obj, deleted = self.store.guaranteed_update(self.info.plural, ns, name, compute,
                                                        **({"ttl": self.ttl} if self.ttl else {}))
        except KeyNotFoundError:
            raise self._not_found(name) from None
        after = result.get("after")
        if after is not None:
            after()
        return self._finish(result["new"] if deleted else obj)

    def _check_update_rv(self, name: str, strategy: Strategy, nmeta: dict[str, Any], cmeta: dict[str, Any]) -> None:
        """store.go `Update`, on the object the field manager and mutating admission made (`UpdatedObject`):
        its `resourceVersion` read by the versioner (a 409 with the `storage.InvalidError`'s text where
        `ParseUint` refuses it), none ("" or "0") being an unconditional update where the strategy allows one
        (`AllowUnconditionalUpdate`) and else the 422 `metadata.resourceVersion: Invalid value: 0x0: must be
        specified for an update` (a `uint64`, printed `%#v`, under the resource's name as its kind), another
        than the stored one the optimistic lock's 409."""
        rv = nmeta.get("resourceVersion")
        if self.deviations.active("no-optimistic-locking"):
            return
        text = rv if isinstance(rv, str) else ""
        bad = versioner_error(text)
        if bad is not None:
            raise E.conflict(self.info.plural, name, bad, self.group)
        if text in ("", "0"):
            if not strategy.allow_unconditional_update:
                raise E.invalid(self.info.plural, name, [E.FieldError(
                    "FieldValueInvalid", "metadata.resourceVersion",
                    "Invalid value: 0x0: must be specified for an update")], self.group)
            return
        if int(text) != int(cmeta.get("resourceVersion") or 0):
            raise E.conflict(self.info.plural, name, E.OPTIMISTIC_LOCK_MSG, self.group)

    # ---- delete ----------------------------------------------------------------------------------
    def delete(self, ns: str, name: str, opts: DeleteOptions, *,
               admit: Admit | None = None) -> tuple[dict[str, Any], bool]:
        """Finalizer-aware delete; returns (object or Success Status, removed-now)."""
        current = self.get(ns, name)
        cmeta = current["metadata"]
        check_delete_preconditions(self.info.plural, name, opts, cmeta, generic=True)
        if admit is not None:
            admit(current)
        decision = before_delete(self.strategy, current, opts.grace_period_seconds)
        if decision.outcome == PENDING:
            return current, False

        def gc_finalizers(meta: dict[str, Any]) -> None:
            """`deletionFinalizersForGarbageCollection` on the state being written (registry/propagation.py)."""
            changed, finalizers = deletion_finalizers(self.strategy, meta, opts.propagation_policy,
                                                      opts.orphan_dependents)
            if changed:
                if finalizers:
                    meta["finalizers"] = finalizers
                else:
                    meta.pop("finalizers", None)

        if decision.outcome == GRACEFUL:
            return self._delete_gracefully(ns, name, current, decision, opts, gc_finalizers)
        changed, finalizers = deletion_finalizers(self.strategy, cmeta, opts.propagation_policy,
                                                  opts.orphan_dependents)
        if finalizers and not changed and cmeta.get("deletionTimestamp") and \
                not cmeta.get("deletionGracePeriodSeconds"):
            return current, False  # already marked: upstream's update changes nothing and writes nothing
        if finalizers:  # `updateForGracefulDeletionAndFinalizers` with pending finalizers: mark, keep
            def mark(obj: dict[str, Any]) -> Any:
                meta = obj["metadata"]
                check_delete_preconditions(self.info.plural, name, opts, meta, generic=True)
                gc_finalizers(meta)
                if not meta.get("finalizers"):
                    return DELETE  # finalizers gone since the read: `errDeleteNow`
                mark_as_deleting(meta)
                return obj

            if opts.dry_run:
                out = mark(current)
                return (self._deleted_result(current), True) if out is DELETE else (out, False)
            try:
                obj, deleted = self.store.guaranteed_update(self.info.plural, ns, name, self._in_order(mark))
            except KeyNotFoundError:
                raise self._not_found(name) from None
            if deleted:
                return self._deleted_result(self._finish(obj)), True
            return self._finish(obj), False
        if opts.dry_run:
            return self._deleted_result(current), True

        def check(stored: dict[str, Any]) -> None:
            meta = stored.get("metadata") or {}
            check_delete_preconditions(self.info.plural, name, opts, meta, generic=True)
            if changed:  # the options emptied the GC finalizers: only those may be there
                if [f for f in meta.get("finalizers") or [] if f not in (ORPHAN, FOREGROUND)]:
                    raise _HasFinalizers()
            else:
                _refuse_finalizers(stored)

        try:
            gone = self.store.delete(self.info.plural, ns, name, check=check)
        except KeyNotFoundError:
            raise self._not_found(name) from None
        except _HasFinalizers:  # finalizers added since the read: the general path decides again
            return self.delete(ns, name, opts)
        return self._deleted_result(self._finish(gone)), True

    def _delete_gracefully(self, ns: str, name: str, current: dict[str, Any], decision: Decision,
                           opts: DeleteOptions,
                           gc_finalizers: Callable[[dict[str, Any]], None]) -> tuple[dict[str, Any], bool]:
        """`updateForGracefulDeletionAndFinalizers`: write the deletion timestamp and grace period (and the GC
        finalizers the options ask for); the object stays while the period is above zero or finalizers remain,
        else it is removed right after that write."""
        changes = decision.changes or {}

        def mark(obj: dict[str, Any]) -> dict[str, Any]:
            gc_finalizers(obj["metadata"])
            obj["metadata"].update(changes)
            return obj

        if opts.dry_run:
            obj = mark(current)
            if decision.period > 0 or obj["metadata"].get("finalizers"):
                return obj, False
            return self._deleted_result(obj), True
        try:
            stored, _ = self.store.guaranteed_update(self.info.plural, ns, name, self._in_order(mark))
        except KeyNotFoundError:
            raise self._not_found(name) from None
        obj = self._finish(stored)
        if decision.period > 0 or obj["metadata"].get("finalizers"):
            return obj, False
        try:
            gone = self.store.delete(self.info.plural, ns, name, check=_refuse_finalizers)
        except KeyNotFoundError:  # upstream ignores NotFound here: another component won the race
            return self._deleted_result(obj), True
        except _HasFinalizers:  # finalizers added since the write: the object waits for them
            return self.get(ns, name), False
        return self._deleted_result(self._finish(gone)), True

    def _deleted_result(self, obj: dict[str, Any]) -> dict[str, Any]:
        if self.info.return_deleted_object:
            return obj
        meta = obj["metadata"]
        details = {"name": meta["name"], **({"group": self.group} if self.group else {}), "kind": self.info.plural,
                   "uid": meta.get("uid", "")}
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details}

    def delete_collection(self, ns: str | None, list_opts: ListOptions, opts: DeleteOptions, *,
                          select: Callable[[ListOptions], Callable[[dict[str, Any]], bool]] | None = None
                          ) -> dict[str, Any]:
        """DELETE of a collection: the LIST of the request's options, page by page, each item deleted (or marked);
        answers the objects as listed (registry/collectiondelete.py). `select(opts)`: each page's predicate of
        the stored objects when another version's store lists them (`list`'s `pred`)."""
        fast = self._deletes_directly(opts)
        pages = []
        for page in deletion_pages(self, ns, list_opts, select):
            self._delete_chunk(page["items"], fast, opts, None)
            pages.append(page)
        return deletion_answer(pages, list_opts.limit > 0)

    def _deletes_directly(self, opts: DeleteOptions) -> bool:
        """Whether objects without finalizers may go straight from storage (what `delete` would do)."""
        return (type(self).delete is GenericStore.delete and not opts.dry_run
                and getattr(self.strategy, "graceful_period", None) is None  # graceful kinds: `delete` decides
                and not deletion_finalizers(self.strategy, {}, opts.propagation_policy,
                                            opts.orphan_dependents)[1])  # nor when the options add a GC finalizer

    def delete_collection_steps(self, ns: str | None, list_opts: ListOptions, opts: DeleteOptions,
                                out: list[dict[str, Any]] | None, batch: int = DELETE_BATCH) -> Iterator[None]:
        """Delete the matching objects (as `delete` each), appending the results to `out` (None: a caller that
        does not read them, the namespace deleter: no response copies are made); yields after every
        `batch` of them, so an async caller (the namespace controller) can let the event loop serve other
        requests in between. Each deletion is atomic on its own: its own write, resourceVersion and event.

        Objects without finalizers are removed straight from storage (what `delete` would do, without its
        copies), a batch at a time (`_delete_chunk`); anything else goes through `delete`."""
        opts_list = ListOptions(list_opts.label_selector, list_opts.field_selector)
        check_syntax(opts_list.label_selector, opts_list.field_selector)
        validate_list_options(opts_list, watch=False)
        pred = self.predicate(opts_list)
        stored, _ = self.store.list(self.info.plural, ns, shared=True)  # read-only snapshot of the stored objects
        fast = self._deletes_directly(opts)
        chunk: list[dict[str, Any]] = []
        for o in stored:
            if pred(o):
                chunk.append(o if out is None else self._finish(o))  # the listed state (read-only)
            if len(chunk) == batch:
                self._delete_chunk(chunk, fast, opts, out)
                chunk = []
                yield
        if chunk:
            self._delete_chunk(chunk, fast, opts, out)

    def _delete_chunk(self, items: list[dict[str, Any]], fast: bool, opts: DeleteOptions,
                      out: list[dict[str, Any]] | None) -> None:
        """Delete listed `items` (in order), appending the results to `out`. Those without finalizers go to
        the store together (`store.delete_many`: each its own write, possibly concurrent); the store's check
        refuses one that got finalizers meanwhile, which then goes through `delete`, as does anything else."""
        direct = [i for i, item in enumerate(items) if fast and not item["metadata"].get("finalizers")]
        removed = dict(zip(direct, self.store.delete_many(
            self.info.plural, [(items[i]["metadata"].get("namespace", ""), items[i]["metadata"]["name"])
                               for i in direct], check=_refuse_finalizers))) if direct else {}
        for i, item in enumerate(items):
            m = item["metadata"]
            obj: dict[str, Any] | None = None
            if i in removed:
                gone = removed[i]
                if isinstance(gone, KeyNotFoundError):
                    continue
                if isinstance(gone, Exception) and not isinstance(gone, _HasFinalizers):
                    raise gone
                if not isinstance(gone, Exception):
                    if out is None:
                        continue
                    obj = self._deleted_result(self._finish(gone))
            if obj is None:  # not direct, or finalizers added since the listing: the general path decides
                try:
                    obj, _ = self.delete(m.get("namespace", ""), m["name"], DeleteOptions(
                        dry_run=opts.dry_run, grace_period_seconds=opts.grace_period_seconds,
                        propagation_policy=opts.propagation_policy, orphan_dependents=opts.orphan_dependents))
                except E.StatusError as e:
                    if e.code == 404:
                        continue
                    raise
            if out is not None:
                out.append(item if obj.get("kind") == "Status" else obj)

    # ---- watch -----------------------------------------------------------------------------------
    def watch(self, ns: str | None, opts: ListOptions,
              loop: asyncio.AbstractEventLoop) -> tuple[list[Event], Watcher, Callable[[dict], bool]]:
        """Subscribe; raises `TooOldResourceVersionError` for a compacted RV (the caller sends ERROR)."""
        check_syntax(opts.label_selector, opts.field_selector)
        validate_list_options(opts, watch=True)
        pred = self.predicate(opts)
        rv = parse_watch_rv(opts.resource_version)
        if opts.resource_version == "" and self.deviations.active("watch-no-initial-state"):
            rv = self.store.current_rv()
        if rv and self.deviations.active("compaction-unnoticed"):
            rv = max(rv, self.store.compacted_rv())  # serve what history is left, as if nothing were lost
        backlog, watcher = self.store.watch(self.info.plural, ns, rv, loop)
        return backlog, watcher, pred


# ---- module helpers ------------------------------------------------------------------------------
class _HasFinalizers(Exception):
    """The object to delete has finalizers (raised by `_refuse_finalizers` under the store lock)."""


def mark_as_deleting(meta: dict[str, Any]) -> None:
    """`markAsDeleting`: a first deletion bumps a kept `generation`; the deletion timestamp is now unless an
    earlier one is set; the grace period is zero."""
    ts = meta.get("deletionTimestamp")
    if not ts and isinstance(meta.get("generation"), int) and meta["generation"] > 0:
        meta["generation"] += 1
    now = M.now()
    if not ts or ts > now:
        meta["deletionTimestamp"] = now
    meta["deletionGracePeriodSeconds"] = 0


def _refuse_finalizers(stored: dict[str, Any]) -> None:
    if (stored.get("metadata") or {}).get("finalizers"):
        raise _HasFinalizers()


def _nonzero_rv(value: Any) -> bool:
    """`store.Create` → `versioner.PrepareObjectForStorage` refuses only a resourceVersion that parses as a
    non-zero integer (`ParseResourceVersion`: "" and "0" are 0; anything unparsable is ignored there, then
    wiped with the other system fields), so `"0"` or `"abc"` create the object."""
    try:
        return int(str(value)) != 0
    except (TypeError, ValueError):
        return False


MAX_UINT64 = 2**64 - 1


def versioner_error(value: str) -> str | None:
    """`APIObjectVersioner.ParseResourceVersion` (apiserver/pkg/storage/api_object_versioner.go): "" and "0" are 0,
    anything else goes to `strconv.ParseUint(v, 10, 64)`; returns the text of the `storage.InvalidError` it
    makes of a refusal (`resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid
    syntax`), or None for a valid value."""
    if value in ("", "0"):
        return None
    if not value.isascii() or not value.isdigit():
        why = "invalid syntax"
    elif int(value) > MAX_UINT64:
        why = "value out of range"
    else:
        return None
    quoted = quote(value)  # Go's %q, as the rest of the field errors here
    return f"resourceVersion: Invalid value: {quoted}: strconv.ParseUint: parsing {quoted}: {why}"


def too_large_rv(rv: int, current: int, retry: int = 1) -> E.StatusError:
    """`storage.NewTooLargeResourceVersionError(rv, current, retry)` (apiserver/pkg/storage/errors.go): 504 Timeout,
    the cause `ResourceVersionTooLarge`; retry 1 s from the watch cache's `waitUntilFreshAndBlock` after
    `blockTimeout`, 0 (omitted) from etcd3's `validateMinimumResourceVersion`. `InterpretGetError` and
    `InterpretListError` pass it as it is."""
    err = E.timeout(f"Too large resource version: {rv}, current: {current}", retry)
    err.status["details"] = {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
                             **({"retryAfterSeconds": retry} if retry else {})}
    return err


def unconverted_storage_error(text: str) -> E.StatusError:
    """A storage error that nothing converts on the way out (`InterpretListError`/`InterpretGetError` pass a
    `storage.InvalidError` through): `ErrorToAPIStatus` answers it as a 500 with no reason and its text."""
    return E.StatusError(E.status_dict(500, None, text))


def delegates_list(opts: ListOptions) -> bool:
    """`shouldDelegateList` (apiserver/pkg/storage/cacher/delegator.go, 1.33): which lists the watch cache
    hands to etcd3's `store.GetList` rather than serving itself. Exact, the legacy exact (`limit` with a
    non-zero resourceVersion and no match) and continued lists go to etcd."""
    m = opts.resource_version_match
    if m == "Exact" or m not in ("", "NotOlderThan"):
        return True
    if m == "NotOlderThan":
        return False
    return bool((opts.limit > 0 and opts.resource_version not in ("", "0")) or opts.continue_token)


def check_list_rv(opts: ListOptions) -> None:
    """A list's resourceVersion as kube-apiserver 1.33 parses it: a list the cache serves parses it in
    `CacheDelegator.GetList` and returns the versioner's error as it is (500, no reason); a list handed to
    etcd parses it first thing in etcd3 `store.GetList` (before the continue token), a 400 BadRequest
    `invalid resource version: ...`."""
    text = versioner_error(opts.resource_version)
    if text is None:
        return
    if delegates_list(opts):
        raise E.bad_request(f"invalid resource version: {text}")
    raise unconverted_storage_error(text)


def check_get_rv(value: str) -> None:
    """GET of one object at a resourceVersion: `CacheDelegator.Get` sends "" to etcd and parses anything else
    (`ParseResourceVersion`), returning its error unconverted (`InterpretGetError` passes it): a 500."""
    text = versioner_error(value) if value else None
    if text is not None:
        raise unconverted_storage_error(text)


def parse_watch_rv(value: str) -> int:
    """`APIObjectVersioner.ParseResourceVersion` as the watch path meets it (cacher.go `Watch`, etcd3
    `store.Watch`): "" and "0" are 0; anything `strconv.ParseUint` refuses is a `storage.InvalidError` that
    nothing converts on the way out, so `ErrorToAPIStatus` answers it as a 500 without a reason."""
    text = versioner_error(value)
    if text is not None:
        raise unconverted_storage_error(text)
    return int(value) if value else 0


def validate_list_options(opts: ListOptions, *, watch: bool) -> None:
    """`ValidateListOptions` / `validateWatchOptions` (apimachinery meta/internalversion/validation): every
    error, in upstream's order (NS-28, NS-92)."""
    errs: list[E.FieldError] = []
    m = opts.resource_version_match
    sie = opts.send_initial_events
    if sie is not None and watch:  # (the WatchList feature gate is off in 1.33)
        if m != "NotOlderThan":
            errs.append(E.field_forbidden("resourceVersionMatch",
                                          "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
        errs.append(E.field_forbidden("sendInitialEvents", "sendInitialEvents is forbidden for watch unless the "
                                                           "WatchList feature gate is enabled"))
    if m and watch:
        if sie is None:
            errs.append(E.field_forbidden("resourceVersionMatch",
                                          "resourceVersionMatch is forbidden for watch unless sendInitialEvents "
                                          "is provided"))
        if m != "NotOlderThan":
            errs.append(E.field_not_supported("resourceVersionMatch", m, ["NotOlderThan"]))
        if opts.continue_token:
            errs.append(E.field_forbidden("resourceVersionMatch",
                                          "resourceVersionMatch is forbidden when continue is provided"))
    elif m:
        if not opts.resource_version:
            errs.append(E.field_forbidden("resourceVersionMatch",
                                          "resourceVersionMatch is forbidden unless resourceVersion is provided"))
        if opts.continue_token:
            errs.append(E.field_forbidden("resourceVersionMatch",
                                          "resourceVersionMatch is forbidden when continue is provided"))
        if m not in ("Exact", "NotOlderThan"):
            errs.append(E.field_not_supported("resourceVersionMatch", m, ["Exact", "NotOlderThan", ""]))
        if m == "Exact" and opts.resource_version == "0":
            errs.append(E.field_forbidden("resourceVersionMatch",
                                          'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'))
    if sie is not None and not watch:
        errs.append(E.field_forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
    if errs:
        raise E.invalid("ListOptions", "", errs, group="meta.k8s.io")


def encode_continue(rv: int, start: str) -> str:
    """`EncodeContinue`'s token (registry/continuetoken.py) of a start key relative to the list's prefix."""
    return continuetoken.encode(rv, start)


def decode_continue(token: str) -> tuple[int, str]:
    """The token's resourceVersion and start key (registry/continuetoken.py: `DecodeContinue`, its 400s)."""
    return continuetoken.decode(token)


def _page(items: list[dict[str, Any]], pred: Callable[[dict[str, Any]], bool],
          limit: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The first `limit` objects `pred` selects, and the objects after the last of them, selected or not.

    etcd3 `store.GetList` and the cacher's `GetList` (k8s.io/apiserver v0.33) stop once the page is full and
    return a continue token when any key follows (`hasMore`, `hasMoreListItems`), so a page whose remaining
    objects all fail the selector still has one, and the next page is empty."""
    page: list[dict[str, Any]] = []
    for i, o in enumerate(items):
        if pred(o):
            page.append(o)
            if len(page) == limit:
                return page, items[i + 1:]
    return page, []


def _restore_system_meta(new: dict[str, Any], old: dict[str, Any]) -> None:
    """`rest.BeforeUpdate` (apiserver pkg/registry/rest/update.go): the generation, uid, creationTimestamp and
    deletion fields come from storage (selfLink: `PrepareObjectForStorage` clears it); `generateName` is the
    body's, as any other field (validated by `ValidateObjectMetaAccessor`, never restored); a grace period is kept
    only where the body has none."""
    new["name"] = old.get("name")
    if old.get("namespace"):
        new["namespace"] = old["namespace"]
    for f in ("uid", "creationTimestamp", "generation", "selfLink"):
        if f in old:
            new[f] = old[f]
        else:
            new.pop(f, None)
    if old.get("deletionTimestamp") is not None:
        new["deletionTimestamp"] = old["deletionTimestamp"]
    if old.get("deletionGracePeriodSeconds") is not None and new.get("deletionGracePeriodSeconds") is None:
        new["deletionGracePeriodSeconds"] = old["deletionGracePeriodSeconds"]  # a changed one is refused: immutable


def check_delete_preconditions(resource: str, name: str, opts: DeleteOptions, meta: dict[str, Any],
                               *, generic: bool) -> None:
    """UID/RV preconditions: `rest.BeforeDelete` texts (generic) or namespace `REST.Delete` texts."""
    uid, rv = meta.get("uid"), meta.get("resourceVersion")
    if opts.uid is not None and opts.uid != uid:
        msg = (f"the UID in the precondition ({opts.uid}) does not match the UID in record ({uid}). "
               "The object might have been deleted and then recreated") if generic else \
            f"Precondition failed: UID in precondition: {opts.uid}, UID in object meta: {uid}"
        raise E.conflict(resource, name, msg)
    if opts.resource_version is not None and opts.resource_version != rv:
        msg = (f"the ResourceVersion in the precondition ({opts.resource_version}) does not match the "
               f"ResourceVersion in record ({rv}). The object might have been modified") if generic else \
            (f"Precondition failed: ResourceVersion in precondition: {opts.resource_version}, "
             f"ResourceVersion in object meta: {rv}")
        raise E.conflict(resource, name, msg)

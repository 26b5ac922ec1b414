"""Resource handlers (upstream `endpoints/handlers`): one request → admission → registry, exactly once."""
from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from typing import Any, Awaitable

import yaml
from aiohttp import web
from multidict import CIMultiDict, istr

from .. import apierrors as E
from ..goport import gojsonraw
from ..admission import create_admission, update_admission
from ..admission.chain import note_items
from ..goport.gofmt import go_quote
from ..registry import GenericStore
from ..registry.collectiondelete import deletion_answer, deletion_pages
from ..registry.createonupdate import allows_create_on_update
from ..registry.crconversion.cache import Caches
from ..registry.namespace import NamespaceStore
from ..registry.store import DeleteOptions, ListOptions, check_get_rv
from ..registry.subresources import (SCALE_API_VERSION, SCALE_GROUP, SCALE_KIND, SCALE_VERSION,
                                     ScaleUpdateStrategy, keep_managed_fields, scale_model, scale_update)
from ..storage.clone import clone
from . import crbodygvk, params as P
from .context import ServerContext
from ..extensions import extra_fields
from ..wire.textdecode import check_depth
from .decode import cannot_be_handled, refuse_overflow
from ..storage.freshness import FreshnessGate
from ..storage.offload import Offload
from .rehearse import Rehearse
from ..warning import recorded, warning_headers
from ..wire.dupkeys import Repeats, yaml_warnings
from ..wire.goconvert import yaml_numbers
from .decode import (StrictDecodingError, apply_field_validation, apply_strict_error, decode_body, patch_invalid,
                     patch_decode_error, patch_strict_errors, patch_type_error, patched_meta_error,
                     strict_create_error, strict_patch_error)
from .groups import go_message, raw_before_patch
from . import deleteoptions
from .subbody import SCALE_MESSAGE, validate_fields
from ..registry.crdschema.defaults import coerce_error
from ..registry.crschema import embedded_unknown_paths, unknown_paths
from ..registry import crtypemeta
from ..registry.crconversion import patched as crpatched
from ..fieldmanager import manager_or_user_agent
from ..wire.textdecode import loads_json_once, loads_yaml, loads_yaml_once
from ..wire.patchmeta import EMPTY, for_kind
from ..fieldmanager.jsonkinds import patch_root
from .patchtype import patch_type
from .patch import (APPLY_PATCH, CUSTOM_RESOURCE_PATCH_TYPES, MERGE_PATCH, PATCH_TYPES, STRATEGIC_PATCH,
                    apply_patch, internal_meta, internal_object, other_version, patched_js, refuse_patched_gvk,
                    scheme_kind)
from .respond import dumps_line, json_body_response, object_response, plain_json, protobuf_ok
from .router import Route
from .authz import REQUESTER
from .webhookcalls import (PATCH_ATTEMPTS, Stale, on_create, on_delete, on_update, on_write, pinned, releasing,
                          webhook_admission)
from .webhookcalls import subresource as subresource_name
from .crconversion import AnswerPending, answer, cached_get, cached_list, converting, unconverted
from .watch import serve_watch
from .cacheread import fresh_enough, got_at, list_read


BODY_KEY = "nsconform.body"


async def read_body(request: web.Request) -> bytes:
    """The body, refusing more than 3 MiB (413, as `limitedReadBody`); kept for a request run again
    (http/crconversion.py)."""
    kept = request.get(BODY_KEY)
    if kept is not None:
        return kept
    if request.content_length is not None and request.content_length > P.MAX_BODY:
        raise E.request_entity_too_large(f"limit is {P.MAX_BODY}")
    chunks, size = [], 0
    while chunk := await request.content.read(64 * 1024):  # read() may return less than asked: loop to EOF
        size += len(chunk)
        if size > P.MAX_BODY:
            raise E.request_entity_too_large(f"limit is {P.MAX_BODY}")
        chunks.append(chunk)
    body = request[BODY_KEY] = b"".join(chunks)
    return body


def check_path_segment(value: str, what: str) -> None:
    """`path.IsValidPathSegmentName` on names and namespaces (NS-24)."""
    if "/" not in value and "%" not in value and value != "." and value != "..":  # the common case, at once
        return
    msgs = []
    if value in (".", ".."):
        msgs.append(f"may not be '{value}'")
    else:
        if "/" in value:
            msgs.append("may not contain '/'")
        if "%" in value:
            msgs.append("may not contain '%'")
    if msgs:
        raise E.bad_request(f'{what} parameter invalid: {go_quote(value)}: {";".join(msgs)}')  # `%q`


_ACCEPT = istr("Accept")  # (a case-insensitive key made once: a plain str is folded at every look-up)
DEPRECATION_KEY: Any = (web.RequestKey("deprecation", str) if hasattr(web, "RequestKey")  # type: ignore[attr-defined]
                        else "nsconform.deprecation")  # aiohttp < 3.12


def add_deprecation_warning(request: web.Request, response: web.StreamResponse) -> None:
    """Run as a response starts (http/app.py): the `Warning` upstream's handler wrapper adds to every answer on a
    deprecated kind (`APILifecycleDeprecated`, e.g. core/v1 Endpoints since 1.33), errors and watches included.
    It comes first, before what the request's strategy warned of: upstream's wrapper (`AddWarningsHandler`) adds
    it before the handler runs."""
    warning = request.get(DEPRECATION_KEY)
    if warning:
        recorded = response.headers.popall("Warning", [])
        response.headers.add("Warning", f'299 - "{warning}"')
        for header in recorded:
            response.headers.add("Warning", header)


def _field_model(store: GenericStore) -> str | None:
    """A named group's built-in kind's Go type in the field model (`apps.Deployment`), whose nested fields a
    strict decode knows; None for a core kind (known by its name) or a custom resource."""
    group = getattr(store, "group", "")
    if not group or getattr(store, "crd_name", None):
        return None
    return go_message(group, store.version, store.info.kind)  # type: ignore[attr-defined]


def _schema_kind(store: GenericStore) -> str:
    """The kind name the decoder's field model knows this resource by: its kind, except where a named group
    reuses a core kind's name for another type (events.k8s.io/v1 Event: `registry/eventsview.py`)."""
    return getattr(store, "schema_kind", store.info.kind)


def _coerce_error(store: GenericStore, obj: dict[str, Any]) -> str | None:
    """A custom resource's decoding error for an embedded resource that does not decode (`schemaCoercingDecoder`:
    the error, not the strict ones, in every `fieldValidation`); None for any other kind."""
    if not getattr(store, "crd_name", None):
        return None
    err = coerce_error(obj, _decode_schema(store, obj))
    return None if err is None else str(err)


def _pruned(store: GenericStore, obj: dict[str, Any]) -> list[str] | None:
    """A custom resource's fields its version's schema prunes, then the unknown fields of its embedded resources'
    `metadata` (`unstructuredSchemaCoercer.apply`: `PruneWithOptions`, then `CoerceWithOptions`; the
    `schemaCoercingDecoder`'s strict errors); None for any other kind."""
    if not getattr(store, "crd_name", None):
        return None
    schema = _decode_schema(store, obj)
    return unknown_paths(obj, schema) + embedded_unknown_paths(obj, schema)


def _decode_schema(store: GenericStore, obj: dict[str, Any]) -> dict[str, Any] | None:
    """The schema a custom resource's decoder coerces `obj` with: its version's, or that of the version a patched
    object names, none for another kind (registry/crtypemeta.py `decode_schema`)."""
    own = getattr(store.strategy, "schema", None)
    if not crtypemeta.names_other(obj, store.api_version, store.info.kind):  # type: ignore[attr-defined]
        return own
    return crtypemeta.decode_schema(obj, getattr(store, "crd", None), getattr(store, "group", ""),
                                    store.info.kind, own)


def _naming(store: GenericStore) -> contextlib.AbstractContextManager[None]:
    """A custom resource's created or updated body keeps the kind it names (http/crbodygvk.py): within, its
    strategy refuses another (registry/crtypemeta.py `patching`)."""
    return crtypemeta.patching() if getattr(store, "crd_name", None) else contextlib.nullcontext()


class Handlers:
    def __init__(self, ctx: ServerContext):
        self.ctx = ctx
        self.offload = Offload(ctx.store)  # writes to a remote store (etcd) run off the event loop
        self.rehearse = Rehearse()  # a local store's writes whose validation may be long: rehearsed off it
        self.fresh = FreshnessGate(ctx.store)  # reads at resourceVersion "" see every acknowledged write
        # admission/webhooks/: awaited around the writes
        self.webhooks = webhook_admission(ctx.registry, ctx.authorizer)
        self.caches: Caches = ctx.registry.custom.caches  # CRDs' watch caches, converting every change (crconversion/)

    # ---- dispatch --------------------------------------------------------------------------------
    def handle(self, request: web.Request, route: Route) -> Awaitable[web.StreamResponse]:
        """The route's answer, to be awaited (a plain function: one coroutine less on every request's path)."""
        if route.namespace:
            check_path_segment(route.namespace, "Namespace")
        if route.name:
            check_path_segment(route.name, "Name")
        store = self._store(route)
        converter = getattr(store, "converter", None)
        if converter is not None and converter.webhook:  # a custom resource's version its webhook converts
            self.caches.start(self.ctx.registry.custom, store)  # (the first request for its resources)
            return converting(lambda: self._handle(request, route, store), self.webhooks.service)
        if getattr(store, "crd_name", None):  # any other custom resource: the first request makes its storages
            self.caches.start(self.ctx.registry.custom, store)  # (a watch from before their LIST: 410)
        return self._handle(request, route, store)

    async def _handle(self, request: web.Request, route: Route, store: GenericStore) -> web.StreamResponse:
        m = request.method
        if store.info.deprecation:
            request[DEPRECATION_KEY] = store.info.deprecation
        query = request.query if request.query_string else P.NO_QUERY  # (parsing nothing costs too)
        watching = route.watch_path or (query is not P.NO_QUERY and P.truthy(query.get("watch"))
                                        and route.target not in ("ns-status", "ns-finalize", "status", "scale",
                                                                 "approval", "ephemeralcontainers", "resize"))
        if route.target == "scale":
            return await self._scale(request, route, store)
        if m == "GET":
            if route.target in ("ns-collection", "collection", "cluster") or watching:
                ns = None if route.target in ("ns-collection", "cluster", "ns-item") else route.namespace
                if watching and route.target == "collection" and self.ctx.deviations.active("namespaced-watch-leaks"):
                    ns = None
                named = route.name if watching else ""
                if route.watch_path and self.ctx.deviations.active("named-watch-ignores-name"):
                    named = ""
                opts = P.list_options(query, named)
                if watching:
                    return await serve_watch(self.ctx, request, store, ns, opts, cluster=route.target == "cluster",
                                             get_service=self.webhooks.service, caches=self.caches)
                def read() -> Awaitable[Any]:
                    return list_read(self.fresh, getattr(self.ctx, "metrics", None), store, opts,
                                     lambda: self._list(store, ns, opts, route))
                cache = self.caches.of(store) if getattr(store, "crd_name", None) else None  # (built-ins: none)
                listed = await (read() if cache is None else cached_list(cache, store, opts, read))
                return self._respond(request, listed, store=store)
            if query is not P.NO_QUERY:
                check_get_rv(query.get("resourceVersion", ""))
                await got_at(getattr(self.ctx, "metrics", None), store, query.get("resourceVersion", ""), self.fresh)
                cache = self.caches.of(store) if query.get("resourceVersion") and getattr(store, "crd_name", None) \
                    else None
                if cache is not None:  # a GET at a resourceVersion its version's watch cache serves
                    return await cached_get(cache, store, query["resourceVersion"], lambda: self._respond(
                        request, store.get(route.namespace, route.name, shared=True), store=store))
            if self.fresh.remote and not query.get("resourceVersion"):  # consistent get (upstream: etcd)
                stale = await self.fresh()
                if stale:
                    got = await self.fresh.read_at(stale, lambda: store.get(route.namespace, route.name, shared=True))
                    return self._respond(request, got, store=store)
            if plain_json(request.headers.get(_ACCEPT), store.info.kind,  # the hot path: memoised bytes
                          protobuf_ok(getattr(store, "api_version", "v1"), store.info.kind)):
                return json_body_response(store.get_rendered(route.namespace, route.name, dumps_line))
            return self._respond(request, store.get(route.namespace, route.name, shared=True),  # only encoded
                                 store=store)
        if m == "POST":
            if route.target == "ns-finalize":
                return await self._update(request, route, store)
            return await self._create(request, route, store)
        if m == "PUT":
            return await self._update(request, route, store)
        if m == "PATCH":
            return await self._patch(request, route, store)
        if m == "DELETE":
            if route.target == "collection":
                return await self._delete_collection(request, route, store)
            return await self._delete(request, route, store)
        raise E.route_method_not_allowed()

    def _store(self, route: Route) -> GenericStore:
        if route.group:
            gstore = self.ctx.registry.group(route.group, route.resource, route.version)
            if gstore is None:
                raise E.route_not_found()
            return gstore
        if route.resource == "namespaces":
            return self.ctx.registry.namespaces
        store = self.ctx.registry.content(route.resource) or self.ctx.registry.cluster(route.resource)
        if store is None:
            raise E.route_not_found()
        return store

    def _respond(self, request: web.Request, obj: Any, status: int = 200,
                 warnings: list[str] | None = None, *, store: GenericStore) -> web.Response:
        if getattr(store, "converter", None) is not None and unconverted(obj):  # http/crconversion.py
            raise AnswerPending(obj, lambda out: self._respond(request, out, status, warnings, store=store))
        headers = None
        if warnings is not None and (warned := recorded()):  # a write's: what its lower layers added (warning.py)
            warnings = [*warnings, *warned]
        if warnings:  # one Warning header per warning, quoted as RFC 7234 warn-text (`net.NewWarningHeader`)
            headers = CIMultiDict(warning_headers(warnings))
        kind = obj.get("kind", "").removesuffix("List") if obj.get("kind") != "Status" else ""
        if kind == store.info.kind:
            kind = store.table_kind
        return object_response(obj, status, request.headers.get("Accept"), headers, kind=kind, query=request.query,
                               protobuf=protobuf_ok(getattr(store, "api_version", "v1"), store.info.kind))

    def _list(self, store: GenericStore, ns: str | None, opts: Any, route: Route) -> dict[str, Any]:
        if route.target == "collection" and self.ctx.deviations.active("namespaced-list-leaks"):
            ns = None
        if route.target == "cluster" and opts.field_selector \
                and self.ctx.deviations.active("cluster-list-ignores-namespace-selector"):
            kept = [t for t in opts.field_selector.split(",") if not t.strip().startswith("metadata.namespace")]
            opts = dataclasses.replace(opts, field_selector=",".join(kept))
        out = store.list(ns, opts, shared=True)  # only encoded (and filtered below)
        if route.target == "cluster" and self.ctx.deviations.active("cluster-list-misses-namespaces"):
            namespaces = sorted({i["metadata"].get("namespace", "") for i in out["items"]})
            if namespaces:
                out["items"] = [i for i in out["items"] if i["metadata"].get("namespace") != namespaces[-1]]
        return out

    # ---- body helpers ----------------------------------------------------------------------------
    async def _decode(self, request: web.Request, store: GenericStore,
                      options_kind: str = "CreateOptions") -> tuple[dict[str, Any], list[str]]:
        raw = await read_body(request)
        mode = P.field_validation(request.query, options_kind)
        repeats: list[Repeats] = []  # (Ignore: no error, but a repeated struct is merged as Go's decoder does)
        if getattr(store, "api_version", "v1") != "v1":  # a named API group (http/groups.py)
            from .groups import decode_group_body
            obj = decode_group_body(request.headers.get("Content-Type"), raw, store, repeats, mode != "Ignore")
        else:
            obj = decode_body(request.headers.get("Content-Type"), raw, store.info.kind, repeats)
        custom = bool(getattr(store, "crd_name", None))  # (its body keeps the version and kind it names)
        if (why := _coerce_error(store, obj)) is not None:  # create.go / update.go `transformDecodeError`
            kind, version = store.info.kind, getattr(store, "version", "v1")
            raise crbodygvk.coerce_error(obj, kind, why) if custom else cannot_be_handled(kind, version, kind, why)
        try:
            warnings = apply_field_validation(obj, _schema_kind(store), store.info.fields, mode,
                                              extra_fields(self.ctx.feature_gates, store.info.kind),
                                              keep_unknown=store.info.keeps_unknown_fields,
                                              message=_field_model(store), repeats=repeats, pruned=_pruned(store, obj))
        except StrictDecodingError as exc:
            if custom:
                raise crbodygvk.strict_error(exc, obj) from None
            raise strict_create_error(exc, store.info.kind, getattr(store, "version", "v1")) from None
        if custom:  # `AcceptsGroupVersion`, after the strict errors (http/crbodygvk.py)
            crbodygvk.refuse_other_version(obj, store.api_version, warnings)  # type: ignore[attr-defined]
        return obj, warnings

    def _fix_namespace(self, obj: dict[str, Any], route: Route, store: GenericStore) -> None:
        """NS-14 (namespaces: cleared) and NS-80/NS-81 (content: filled in, mismatch ⇒ 400)."""
        meta = obj.setdefault("metadata", {})
        if not store.info.namespaced:
            meta.pop("namespace", None)
            return
        body_ns = meta.get("namespace") or ""
        if not body_ns:
            if not self.ctx.deviations.active("no-namespace-defaulting"):
                meta["namespace"] = route.namespace
        elif body_ns != route.namespace:
            if self.ctx.deviations.active("mismatch-as-invalid"):
                raise E.invalid(store.info.kind, meta.get("name") or "", [E.field_invalid(
                    "metadata.namespace", body_ns, "does not match the namespace of the request")])
            if not self.ctx.deviations.active("accept-namespace-mismatch"):
                raise E.bad_request("the namespace of the provided object does not match the namespace sent "
                                    "on the request")
            meta["namespace"] = route.namespace

    @staticmethod
    def _check_name(obj: dict[str, Any], name: str) -> None:
        """`checkName` (NS-35)."""
        body_name = obj.get("metadata", {}).get("name") or ""
        if not body_name:
            raise E.bad_request(f"the name of the object ({name} based on URL) was undeterminable: "
                                "name must be provided")
        if body_name != name:
            raise E.bad_request(f"the name of the object ({body_name}) does not match the name on the URL ({name})")

    def _strategy(self, route: Route, store: GenericStore) -> Any:
        if route.target == "status":  # registry/subresources.py, CRDs, APIServices, custom resources
            return getattr(store, "status_strategy", None)
        extra = getattr(store, "extra_subresources", None)
        if extra and route.target in extra:  # CSRs' /approval
            return extra[route.target]
        if isinstance(store, NamespaceStore):
            if route.target == "ns-status":
                return store.status_strategy
            if route.target == "ns-finalize":
                return store.finalize_strategy
        return None

    async def _write(self, store: GenericStore, route: Route | None, body: Any, fn: Any, *args: Any, **kw: Any) -> Any:
        """`fn(*args, **kw)`, a store's create or update, as `offload` runs it; rehearsed off the event loop first
        (http/rehearse.py) when the kind says validating `body` or the object at `route` may be long (custom
        resources: registry/rehearsed.py). Other kinds pay one attribute lookup."""
        judge = getattr(getattr(store, "strategy", None), "may_stall", None)
        if judge is not None and not self.offload.remote:
            current = self._current(store, route) if route is not None and route.name else None
            if (isinstance(body, dict) and judge(body)) or (current is not None and judge(current)):
                return await self.rehearse(fn, *args, **kw)
        return await self.offload(fn, *args, **kw)

    @staticmethod
    def _current(store: GenericStore, route: Route) -> dict[str, Any] | None:
        try:
            return store.get(route.namespace, route.name, shared=True)
        except E.StatusError:
            return None  # the update itself answers (404, or a create where the kind allows one)

    # ---- verbs -----------------------------------------------------------------------------------
    async def _create(self, request: web.Request, route: Route, store: GenericStore) -> web.Response:
        obj, warnings = await self._decode(request, store)
        self._fix_namespace(obj, route, store)
        dry = P.dry_run(request.query.getall("dryRun", []))
        if getattr(store, "records_requester", False):  # a CSR's spec.username/groups (registry/certificates.py)
            from .authentication import record_requester
            record_requester(self.ctx, request)
        kw = dict(field_manager=P.field_manager(request.query, request.headers.get("User-Agent")),
                  **create_admission(self.ctx.admission, store.info))
        with _naming(store):
            created = await on_create(self.webhooks, request, store, obj, dry, warnings,
                                      lambda o, d: self._create_retried(store, o, dry_run=d, **kw), kw.get("admit"))
        return self._respond(request, created, 201, warnings, store=store)

    async def _create_retried(self, store: GenericStore, obj: dict[str, Any], **kw: Any) -> dict[str, Any]:
        """`store.create`, run again while admission answers a `RetriedStatusError` it has tries left for."""
        attempt = 1
        while True:
            try:
                return await self._write(store, None, obj, store.create, obj, **kw)
            except E.RetriedStatusError as exc:
                if attempt >= exc.attempts:
                    raise E.StatusError(exc.status) from None
                attempt += 1
                await asyncio.sleep(exc.interval)

    async def _update(self, request: web.Request, route: Route, store: GenericStore) -> web.Response:
        obj, warnings = await self._decode(request, store, "UpdateOptions")
        self._fix_namespace(obj, route, store)
        if route.target != "ns-finalize" and self.ctx.deviations.active("body-name-ignored"):
            obj.setdefault("metadata", {})["name"] = route.name
        self._check_name(obj, route.name)
        dry = P.dry_run(request.query.getall("dryRun", []), "UpdateOptions")
        manager = P.field_manager(request.query, request.headers.get("User-Agent"), "UpdateOptions")
        adm = update_admission(self.ctx.admission, store.info, subresource_name(route.target))
        creates = route.target == "item" and allows_create_on_update(store)
        old = self._current(store, route) if self.webhooks.active() else None
        if old is None and creates and self.webhooks.active():
            return await self._create_on_update(request, route, store, obj, manager, dry, warnings)
        def write(o: dict[str, Any], dry_run: bool) -> Awaitable[dict[str, Any]]:
            return self._write(store, route, o, store.update, route.namespace, route.name, o,
                               strategy=self._strategy(route, store), dry_run=dry_run, field_manager=manager, **adm)
        try:
            with _naming(store):
                if old is not None:
                    out = await on_update(self.webhooks, request, store, obj, old, dry, warnings, write,
                                          sub=subresource_name(route.target))
                else:
                    out = await write(obj, dry)
        except E.StatusError as exc:
            if not creates or exc.code != 404 or not _names_object(exc, route.name):
                raise
            return await self._create_on_update(request, route, store, obj, manager, dry, warnings)
        return self._respond(request, out, 200, warnings, store=store)

    async def _create_on_update(self, request: web.Request, route: Route, store: GenericStore, obj: dict[str, Any],
                                manager: str, dry: bool, warnings: list[str]) -> web.Response:
        """A PUT of a missing object of a kind whose strategy has `AllowCreateOnUpdate` (store.go `Update`): the
        user must also be allowed to `create` it (update.go `withAuthorization`), admission is a create's (the
        webhooks' operation CREATE with the UpdateOptions as CreateOptions, `updateToCreateOptions`), and the
        answer is 201."""
        if self.ctx.authorizer is not None:
            from ..auth import request_attributes
            user = request.get(REQUESTER)
            attrs = dataclasses.replace(request_attributes("POST", request.path, request.query, user), verb="create",
                                        name=route.name)
            allowed, reason = self.ctx.authorizer.authorize(attrs)
            if not allowed:
                raise E.forbidden(store.info.plural, route.name, reason, getattr(store, "group", ""))
        obj.setdefault("metadata", {}).pop("resourceVersion", None)  # the storage's create ignores it
        kw = dict(field_manager=manager, **create_admission(self.ctx.admission, store.info))
        created = await on_create(self.webhooks, request, store, obj, dry, warnings,
                                  lambda o, d: self._create_retried(store, o, dry_run=d, **kw), kw.get("admit"))
        return self._respond(request, created, 201, warnings, store=store)

    async def _patch(self, request: web.Request, route: Route, store: GenericStore) -> web.Response:
        custom = bool(getattr(store, "crd_name", None))  # crdHandler's PatchResource: no router, no strategic
        ctype = patch_type(request.headers.get("Content-Type"), CUSTOM_RESOURCE_PATCH_TYPES if custom else PATCH_TYPES,
                           routed=not custom)
        raw = await read_body(request)
        manager, force = P.patch_options(request.query, ctype == APPLY_PATCH)
        if ctype == APPLY_PATCH:
            return await self._apply(request, route, store, raw, manager, force)
        mode = P.field_validation(request.query)
        try:
            patch, again = loads_json_once(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise E.bad_request(f"error decoding patch: {exc}") from None
        prior = patch_strict_errors(ctype, patch, raw, again) if mode != "Ignore" else []
        undecodable = patch_decode_error(ctype, patch) if mode != "Ignore" else None
        warnings: list[str] = []

        def transform(current: dict[str, Any]) -> dict[str, Any]:
            # (off the event loop: the kind's metadata is built on its first strategic patch)
            if undecodable is not None:  # `applyJSPatch`: the patch read strictly, once the object is read
                raise E.bad_request(f"error decoding patch: {undecodable}")
            if ctype == STRATEGIC_PATCH:
                refuse_overflow(patch)  # `strategicPatchObject` reads the patch into a map first
            if custom and current.get("apiVersion") != store.api_version:  # (an older storage version's: decoded
                current = {**current, "apiVersion": store.api_version}  # and converted to the request's first)
            raws = raw_before_patch(store, current, ctype)
            patched = apply_patch(current, ctype, patch, patch_meta(store) if ctype == STRATEGIC_PATCH else EMPTY,
                                  raw)
            if raws:
                gojsonraw.repatched(patched, raws, raw.decode("utf-8", "replace"), ctype == MERGE_PATCH)
            with patched_js(current, ctype, raw):  # (a 422 on `patch` shows evanphx's bytes)
                out = self._check_patched(patched, route, store, ctype, patch, mode, warnings, prior)
            if custom:  # (the field manager's conversion of an object naming another version)
                crpatched.ask(store, current, out)
            return out

        dry = P.dry_run(request.query.getall("dryRun", []))
        manager = manager_or_user_agent(manager, request.headers.get("User-Agent")) or "unknown"
        kw = dict(strategy=self._strategy(route, store), dry_run=dry, field_manager=manager,
                  **update_admission(self.ctx.admission, store.info, subresource_name(route.target)))
        with crtypemeta.patching() if custom else contextlib.nullcontext():
            if self.webhooks.active():
                out = await self._admitted_update(request, route, store, transform, warnings, kw)
            else:
                out = await self._write(store, route, patch, store.update, route.namespace, route.name,
                                        transform=transform, **kw)
        return self._respond(request, out, 200, warnings, store=store)

    async def _admitted_update(self, request: web.Request, route: Route, store: GenericStore,
                               transform: Any, warnings: list[str], kw: dict[str, Any]) -> dict[str, Any]:
        """A PATCH or an apply while webhooks are configured: the patch applied to the current object, the
        webhooks on the result (operation UPDATE, as upstream's patcher admits it), the write pinned to the state
        it was computed from; a write in between patches the new state again (`maxRetryWhenPatchConflicts`)."""
        ns, name = route.namespace, route.name
        for _ in range(PATCH_ATTEMPTS):
            old = self._current(store, route)
            if old is None:
                break  # the store answers (404; an apply then creates)
            try:
                patched = await self.offload(transform, clone(old))
                return await on_update(self.webhooks, request, store, patched, old, kw["dry_run"], warnings,
                                       lambda o, d: self._write(store, route, o, store.update, ns, name,
                                                                transform=pinned(o, old), **{**kw, "dry_run": d}),
                                       sub=subresource_name(route.target))
            except Stale:
                continue
        else:
            raise E.conflict(store.info.plural, name, E.OPTIMISTIC_LOCK_MSG, getattr(store, "group", ""))
        return await self._write(store, route, None, store.update, ns, name, transform=transform, **kw)

    def _check_patched(self, patched: dict[str, Any], route: Route, store: GenericStore, ctype: str, patch: Any,
                       mode: str, warnings: list[str], prior: list[str] | None = None) -> dict[str, Any]:
        """What every patched object goes through before the registry: it must still decode into the kind.
        `prior`: the strict errors of reading the patch itself (`patch_strict_errors`), named first."""
        check_depth(patched)
        custom = bool(getattr(store, "crd_name", None))
        into = None if custom else scheme_kind(store)
        found = refuse_patched_gvk(patched, ctype, patch, custom, into, mode, prior, route.name)
        if (refused := patched_meta_error(patched, ctype)) is not None:
            raise patch_invalid(patched, ctype, patch, refused)
        if found is not None and found.internal and internal_meta(patched) is not None:
            patched = internal_object(patched)  # (read into the internal object itself: its ObjectMeta alone)
        converter = getattr(store, "version_converter", None)
        named = other_version(found, into, converter) if into is not None else None
        if not custom or ctype == APPLY_PATCH:
            patched["kind"], patched["apiVersion"] = store.info.kind, named or store.api_version
        # (a custom resource's JSON or merge patch keeps the version and kind it names: registry/crtypemeta.py)
        # (another served version named: decoded as that version's Go type, then converted: http/patch.py)
        model = _field_model(store) if named is None else go_message(store.group, named.rpartition("/")[2],
                                                                     store.info.kind)
        patch_type_error(patched, _schema_kind(store), ctype, patch, model)
        if patched.get("metadata") is None:  # null metadata decodes to Go's zero ObjectMeta
            patched["metadata"] = {}
        if ctype != APPLY_PATCH and (why := _coerce_error(store, patched)) is not None:
            raise patch_invalid(patched, ctype, patch, why)  # patch.go: DecodeInto's error, not a strict one
        try:
            warnings[:] = apply_field_validation(patched, _schema_kind(store), store.info.fields, mode,
                                                  extra_fields(self.ctx.feature_gates, store.info.kind),
                                                  keep_unknown=store.info.keeps_unknown_fields,
                                                  message=model, prior=prior,
                                                  pruned=_pruned(store, patched) if ctype != APPLY_PATCH else None)
        except StrictDecodingError as exc:
            if ctype == APPLY_PATCH:  # (server-side apply words its own refusals: fieldmanager/)
                raise
            raise strict_patch_error(exc, patched, ctype, patch) from None
        if named is not None:
            patched = converter.convert(patched, named, store.api_version)
        self._fix_namespace(patched, route, store)
        self._check_name(patched, route.name)
        if route.group:  # a named-group kind: the patched object must still decode (groups.check_shape)
            from .groups import check_shape
            check_shape(store, patched)
        return patched

    async def _apply(self, request: web.Request, route: Route, store: GenericStore, raw: bytes, manager: str,
                     force: bool) -> web.Response:
        """Server-side apply (`applyPatcher`): merge the applied configuration into the live object under the
        manager's ownership; a missing object is created from it (201), except through a subresource."""
        try:
            # util/yaml.Unmarshal: an int64 where the number is an integer (`2.0` too), else a float64
            config, again = loads_yaml_once(raw, unmarshal=True) if raw.strip() else ({}, False)
            config = yaml_numbers(config)
        except (yaml.YAMLError, ValueError, UnicodeDecodeError) as exc:
            raise E.bad_request(f"error decoding YAML: {exc}") from None
        if config is None:
            config = {}
        mode = P.field_validation(request.query)
        repeated = apply_strict_error(raw) if again and mode != "Ignore" else None
        warnings: list[str] = []
        strategy = self._strategy(route, store)
        subresource = strategy.subresource if strategy is not None else ""
        fm = store.field_manager
        kind = store.info.kind

        def applied(live: dict[str, Any] | None) -> dict[str, Any]:
            out = fm.apply(live, config, manager, force, subresource)
            out = self._check_patched(out, route, store, APPLY_PATCH, config, mode, warnings)
            if repeated is not None:  # `applyPatcher`: `unmarshalStrictFn` once the apply has merged
                if mode == "Strict":
                    raise E.bad_request(f"error strict decoding YAML: {repeated}")
                warnings.extend(yaml_warnings(repeated))
            return out

        def keep(_live: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
            return new  # the apply already computed managedFields

        dry = P.dry_run(request.query.getall("dryRun", []))
        kw = dict(strategy=strategy, dry_run=dry, manage=keep,
                  **update_admission(self.ctx.admission, store.info, subresource_name(route.target)))
        try:
            if self.webhooks.active():
                out = await self._admitted_update(request, route, store, applied, warnings, kw)
            else:
                out = await self._write(store, route, config, store.update, route.namespace, route.name,
                                        transform=applied, **kw)
            return self._respond(request, out, 200, warnings, store=store)
        except E.StatusError as exc:
            if exc.status.get("code") != 404 or subresource or not _names_object(exc, route.name):
                raise
        obj = applied(None)
        uid = (obj.get("metadata") or {}).get("uid")
        if uid:
            raise E.conflict(store.info.plural, route.name, f"uid mismatch: the provided object specified uid {uid}, "
                             "and no existing object was found", getattr(store, "group", ""))
        obj["kind"] = kind
        adm = create_admission(self.ctx.admission, store.info)
        created = await on_create(  # an apply that creates: CREATE with `patchToCreateOptions`
            self.webhooks, request, store, obj, dry, warnings,
            lambda o, d: self._create_retried(store, o, dry_run=d, manage=keep, **adm), adm.get("admit"))
        return self._respond(request, created, 201, warnings, store=store)

    async def _scale(self, request: web.Request, route: Route, store: GenericStore) -> web.Response:
        """`ScaleREST` (registry/subresources.py): GET answers the object's Scale; PUT and PATCH (merge,
        strategic, JSON patch, server-side apply) change it, i.e. the object's `spec.replicas`, through the object's
        strategy; managedFields through the Scale's field manager (fieldmanager/scale.py)."""
        name, model = route.name, scale_model(store)  # a custom resource's: its CRD's paths (registry/crscale.py)
        if request.method == "GET":
            check_get_rv(request.query.get("resourceVersion", ""))
            await fresh_enough(store, request.query.get("resourceVersion", ""), fresh=self.fresh)
            return self._respond_scale(request, model.scale_of(store.get(route.namespace, name, shared=True)),
                                       store)
        raw = await read_body(request)
        applied: tuple[Any, bool] | None = None  # server-side apply: (configuration, force)
        warnings: list[str] = []  # a patch's strict decoding warnings (a PUT's are recorded: http/subbody.py)
        if request.method == "PUT":
            from .groups import decode_unstored_body
            from . import hooks
            decode_stored = hooks.wire_attr("protobuf", "decode_stored")  # a typed client's protobuf Scale
            mode, repeats = P.field_validation(request.query, "UpdateOptions"), []
            body = decode_unstored_body(request.headers.get("Content-Type"), raw, SCALE_API_VERSION, SCALE_KIND,
                                        lambda b: decode_stored(b, SCALE_API_VERSION, SCALE_KIND),  # type: ignore[misc]
                                        repeats)
            validate_fields(body, SCALE_KIND, SCALE_VERSION, SCALE_MESSAGE, mode, repeats)
            self._fix_namespace(body, route, store)
            self._check_name(body, name)

            def new_scale(_old: dict[str, Any]) -> dict[str, Any]:
                return body
            manager = P.field_manager(request.query, request.headers.get("User-Agent"), "UpdateOptions")
        else:
            custom = bool(getattr(store, "crd_name", None))  # crdHandler's serveScale
            ctype = patch_type(request.headers.get("Content-Type"),
                               CUSTOM_RESOURCE_PATCH_TYPES if custom else PATCH_TYPES, routed=not custom)
            manager, force = P.patch_options(request.query, ctype == APPLY_PATCH)
            mode = P.field_validation(request.query) if ctype != APPLY_PATCH else "Ignore"
            again = False
            try:  # server-side apply through /scale: the Scale's field manager merges it (fieldmanager/scale.py)
                if ctype == APPLY_PATCH:
                    patch = yaml_numbers(loads_yaml(raw, unmarshal=True)) or {}
                else:
                    patch, again = loads_json_once(raw)
            except (yaml.YAMLError, ValueError, UnicodeDecodeError) as exc:  # (applyPatcher's words for apply)
                what = "YAML" if ctype == APPLY_PATCH else "patch"
                raise E.bad_request(f"error decoding {what}: {exc}") from None
            if ctype == APPLY_PATCH:
                check_depth(patch)
                applied = (patch, bool(force))
            # the patch read strictly first (patch.go `applyJSPatch`, `strategicPatchObject`), as any patch's
            prior = patch_strict_errors(ctype, patch, raw, again) if mode != "Ignore" else []
            undecodable = patch_decode_error(ctype, patch) if mode != "Ignore" else None

            def new_scale(old: dict[str, Any]) -> dict[str, Any]:
                if undecodable is not None:
                    raise E.bad_request(f"error decoding patch: {undecodable}")
                patched = old if applied is not None else apply_patch(old, ctype, patch, raw=raw)
                check_depth(patched)
                with patched_js(old, ctype, raw):  # (a 422 on `patch` shows evanphx's bytes)
                    # the patched (or applied) Scale must decode (convert) into autoscaling/v1's type
                    refuse_patched_gvk(patched, ctype, patch, False, (SCALE_GROUP, SCALE_VERSION, SCALE_KIND), mode,
                                       prior, name)
                    patch_type_error(patched, SCALE_KIND, ctype, patch)
                    if not isinstance(patched.get("metadata"), dict):
                        patched["metadata"] = {}
                    try:  # then its strict decoding errors (`DecodeInto` with the strict codec)
                        warnings[:] = apply_field_validation(patched, SCALE_KIND, frozenset(), mode,
                                                             message=SCALE_MESSAGE, prior=prior)
                    except StrictDecodingError as exc:
                        raise strict_patch_error(exc, patched, ctype, patch) from None
                patched["kind"], patched["apiVersion"] = SCALE_KIND, SCALE_API_VERSION
                self._fix_namespace(patched, route, store)
                self._check_name(patched, name)
                return patched
            manager = manager_or_user_agent(manager, request.headers.get("User-Agent")) or "unknown"
        dry = P.dry_run(request.query.getall("dryRun", []))
        group = getattr(store, "group", "")
        transform = scale_update(store.info.plural, group, name, new_scale, manager=manager, apply=applied,
                                 model=model)
        kw = dict(strategy=ScaleUpdateStrategy(store.strategy), dry_run=dry, manage=keep_managed_fields)
        if self.webhooks.active():
            out = await self._admitted_scale(request, route, store, transform, manager, kw)
        else:
            out = await self._write(store, route, None, store.update, route.namespace, name, transform=transform,
                                    **kw)
        if unconverted(out):  # a converted version's object the conversion webhook must answer first
            raise AnswerPending(out, lambda obj: self._respond_scale(request, model.answer(obj), store, warnings))
        return self._respond_scale(request, model.answer(out), store, warnings)

    async def _admitted_scale(self, request: web.Request, route: Route, store: GenericStore, transform: Any,
                              manager: str, kw: dict[str, Any]) -> dict[str, Any]:
        """A /scale write while webhooks are configured: they see the Scale (kind autoscaling/v1 Scale, resource
        the object's, subresource `scale`), new and old; a mutated Scale is written as a PUT of it would be."""
        ns, name, group = route.namespace, route.name, getattr(store, "group", "")
        preview, model = dict(kw, dry_run=True), scale_model(store)

        def writing(scale: dict[str, Any]) -> Any:
            return scale_update(store.info.plural, group, name, lambda _old: clone(scale), manager=manager,
                                model=model)

        def guarded(step: Any, old: dict[str, Any]) -> Any:
            rv = old["metadata"].get("resourceVersion")

            def run(current: dict[str, Any]) -> dict[str, Any]:
                if current["metadata"].get("resourceVersion") != rv:
                    raise Stale()
                return step(current)
            return run

        for _ in range(PATCH_ATTEMPTS):
            old = self._current(store, route)
            if old is None:
                return await self.offload(store.update, ns, name, transform=transform, **kw)  # 404
            try:
                scale = model.view(await answer(await self._write(  # (a converted version's: converted first)
                    store, route, None, store.update, ns, name, transform=guarded(transform, old), **preview),
                    self.webhooks.service))
                final = await on_write(
                    self.webhooks, request, store, "UPDATE", scale, model.view(old), kw["dry_run"], [],
                    lambda s: self._scale_preview(store, route, guarded(writing(s), old), preview),
                    sub="scale", kind=(SCALE_GROUP, SCALE_VERSION, SCALE_KIND))
                step = transform if final is scale else writing(final)
                return await self._write(store, route, None, store.update, ns, name, transform=guarded(step, old),
                                         **kw)
            except Stale:
                continue
        raise E.conflict(store.info.plural, name, E.OPTIMISTIC_LOCK_MSG, group)

    async def _scale_preview(self, store: GenericStore, route: Route, step: Any, kw: dict[str, Any]) -> Any:
        return scale_model(store).view(await answer(await self._write(
            store, route, None, store.update, route.namespace, route.name, transform=step, **kw), self.webhooks.service))

    @staticmethod
    def _respond_scale(request: web.Request, scale: dict[str, Any], store: GenericStore,
                       warnings: list[str] | None = None) -> web.Response:
        """The Scale; as a Table, a custom resource's is its own kind's (crdHandler's scale scope keeps the
        custom resource's TableConvertor: Name and Age of the Scale). `warnings`: a write's, before those its
        request recorded (warning.py)."""
        kind = store.table_kind if getattr(store, "crd_name", None) else SCALE_KIND  # type: ignore[attr-defined]
        texts = [*(warnings or ()), *recorded()]
        headers = CIMultiDict(warning_headers(texts)) if texts else None
        return object_response(scale, 200, request.headers.get("Accept"), headers, kind=kind, query=request.query,
                               protobuf=protobuf_ok(SCALE_API_VERSION, SCALE_KIND))

    async def _delete_body(self, request: web.Request) -> dict[str, Any] | None:
        """delete.go: a body of any length (blanks too) gives the options; without one, the query does."""
        raw = await read_body(request)
        if not raw:
            return None
        return deleteoptions.decode(request.headers.get("Content-Type"), raw)

    async def _delete(self, request: web.Request, route: Route, store: GenericStore) -> web.Response:
        body = await self._delete_body(request)
        opts = P.delete_options(body, request.query, request.query.getall("dryRun", []))
        admit = self.ctx.admission.for_delete(store.info, route.name)
        def delete() -> Awaitable[tuple[dict[str, Any], bool]]:
            return self.offload(store.delete, route.namespace, route.name, opts, admit=admit)
        if self.webhooks.active():
            await on_delete(self.webhooks, request, store, route.namespace, route.name, opts)
            out, deleted = await releasing(self.webhooks, store, opts.dry_run, delete)
        else:
            out, deleted = await delete()
        status = 202 if (not deleted and opts.orphan_dependents is False) else 200
        return self._respond(request, out, status, store=store)

    async def _delete_collection(self, request: web.Request, route: Route, store: GenericStore) -> web.Response:
        query = P.list_options(request.query)  # (delete.go `DeleteCollection`: the ListOptions decoded first)
        body = await self._delete_body(request)
        opts = P.delete_options(body, request.query, request.query.getall("dryRun", []))
        # its LIST is a LIST: at a resourceVersion the cache has not reached it waits as one (http/cacheread.py)
        await list_read(self.fresh, getattr(self.ctx, "metrics", None), store, query, lambda: None)
        if self.webhooks.active():
            out = await self._delete_each(request, route, store, query, opts)
        else:
            out = await self.offload(store.delete_collection, route.namespace, query, opts)
        note_items(len(out.get("items") or ()))  # each item's deletion was validated (admission's metrics)
        return self._respond(request, out, store=store)

    async def _delete_each(self, request: web.Request, route: Route, store: GenericStore, query: ListOptions,
                           opts: DeleteOptions) -> dict[str, Any]:
        """DELETE collection while webhooks are configured: upstream's `DeleteCollection` deletes item by item
        through `Delete` with the request's admission, so every item's DELETE reaches the webhooks; a refusal
        (or any error) ends the call with that error after the other items' deletions (upstream's workers go on
        with theirs too). Listed page by page and answered as `store.delete_collection` answers."""
        pages: list[dict[str, Any]] = []
        first: E.StatusError | None = None
        for page in deletion_pages(store, route.namespace, query):
            pages.append(page)
            for item in page["items"]:
                m = item["metadata"]
                ns = m.get("namespace", "")
                try:
                    await on_delete(self.webhooks, request, store, ns, m["name"], opts, old=item)
                    await releasing(self.webhooks, store, opts.dry_run, lambda: self.offload(
                        store.delete, ns, m["name"], DeleteOptions(
                            dry_run=opts.dry_run, grace_period_seconds=opts.grace_period_seconds,
                            propagation_policy=opts.propagation_policy, orphan_dependents=opts.orphan_dependents)))
                except E.StatusError as exc:
                    if exc.code != 404 and first is None:
                        first = exc
            if first is not None:
                raise first
        return deletion_answer(pages, query.limit > 0)


def _names_object(err: E.StatusError, name: str) -> bool:
    """A NotFound about the patched object itself (not, say, its namespace's)."""
    return (err.status.get("details") or {}).get("name") == name


def patch_meta(store: GenericStore) -> Any:
    """The kind's strategic-merge metadata (built once per kind by `wire.patchmeta`; CRDs' and APIServices' by
    `fieldmanager.jsonkinds`, which knows their types' patch strategies)."""
    group, version = getattr(store, "group", "") or "", getattr(store, "version", "v1")
    return patch_root(group, version, store.info.kind) or for_kind(group, version, store.info.kind)

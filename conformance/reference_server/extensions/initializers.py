"""Namespace initializers (KEP-33, sig-api-machinery, 2018, status *provisional*: never merged upstream),
served only with `--feature-gates NamespaceInitializers=true`.

What the KEP specifies, and where it lives here:

* `spec.initializers` (`{"pending": [{"name": ...}], "result": Status?}`) on v1 Namespace, an alpha field:
  `InitializingNamespaceStrategy` keeps it on create (as admission filled it) and on update (an initializer
  removes itself); when `pending` becomes empty the whole field is cleared ("the initializers struct will
  be set to nil") and the `Initializing` condition flips to `False`.
* `NamespaceInitializerConfiguration` (v1alpha1), cluster-scoped, with an ordered `initializers` list.
  Group: `admissionregistration.k8s.io` — the KEP derives it from `InitializerConfiguration`, which lived
  in `admissionregistration.k8s.io/v1alpha1`, and names no other group.
* The mutating admission plugin `NamespaceInitializers` (`InitializerAdmission.for_create`): on a
  namespace create it replaces whatever the body had in `spec.initializers` with the merge of every
  configuration — sorted by configuration name, order kept within one configuration (KEP: "we sort the
  initializers from different NamespaceInitializerConfigurations by the name of the
  NamespaceInitializerConfigurations; the order of the initializers from the same
  NamespaceInitializerConfiguration is preserved"). No configuration or no names: no field, no condition.
* `status.conditions` with type `Initializing` (`True` while pending is non-empty, then `False`).
  The KEP's optional third phase value `Initializing` ("can be introduced") is served only with the
  second gate `NamespaceInitializingPhase=true`; by default `phase` stays `Active`. The suites accept
  either while a namespace initializes, and `Active` once it is done.
* The guard (`guard_middleware`): while a namespace is initializing, every request for a resource inside
  it (not the namespace object itself, which the initializers must update) needs the `initialize` verb on
  `namespaces` (RBAC, the namespace's name as the resource name); otherwise 403 `Forbidden` in upstream's
  admission format (`<resource> "<name>" is forbidden: namespace <ns> is being initialized: User ... cannot
  initialize ...`). Without `--authorization rbac` the server authorizes everything (AlwaysAllow), so the
  guard never refuses — as upstream with AlwaysAllow.

Readings where the KEP is silent (also in README "Extensions"):

* The configuration "doesn't support selection of namespaces, so there's no Rules field": every
  configuration applies to every namespace created while it exists (the suites run serially because of it).
* Deleting a namespace that is still initializing works as for any namespace: pending initializers are
  not finalizers and do not hold deletion; the list is left as it was (the object is gone once the
  `kubernetes` finalizer is removed), and the `Initializing` condition stays `True` until then.
  An initializer may still remove itself from a Terminating namespace.
* Only the merge result is written on create: a client-supplied `spec.initializers` is replaced
  ("When an object is created, the system will populate this list"). On update, names may only be
  removed, never added or reordered, and once the field is cleared it stays cleared ("Once it is empty,
  it may not be modified further by any user"): other changes are refused with 422.
* `result` with a failure is not implemented (the KEP inherits it from the generic Initializers, which
  delete the object; nothing here tests it).
"""
from __future__ import annotations

import copy
from typing import Any, Callable

from aiohttp import web

from .. import apierrors as E
from ..deviations import NONE, Deviations
from ..goport.gofmt import go_quote
from ..registry import Registry, ResourceInfo
from ..registry.kinds import NAMESPACES
from ..registry.namespace import NamespaceStatusStrategy, NamespaceStrategy
from ..registry.strategy import Strategy
from ..registry.validation import validate_object_meta

GATE = "NamespaceInitializers"
GROUP = "admissionregistration.k8s.io"
VERSION = "v1alpha1"
CONDITION = "Initializing"
CONFIGURATIONS = ResourceInfo(
    "NamespaceInitializerConfiguration", "namespaceinitializerconfigurations", "namespaceinitializerconfiguration",
    (), ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"), namespaced=False,
    fields=frozenset({"initializers"}), selectable_fields=("metadata.name",))


def _names(items: Any) -> list[str]:
    return [i.get("name") for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def _pending(ns: dict[str, Any]) -> list[str]:
    inits = (ns.get("spec") or {}).get("initializers")
    return _names(inits.get("pending")) if isinstance(inits, dict) else []


def initializing(ns: dict[str, Any]) -> bool:
    return bool(_pending(ns))


def merged_initializers(configurations: list[dict[str, Any]], deviations: Deviations = NONE) -> list[str]:
    """Every configuration's names: configurations sorted by name, each one's order kept."""
    key = (lambda c: int(c["metadata"].get("resourceVersion") or 0)) \
        if deviations.active("initializers-unsorted") else (lambda c: c["metadata"]["name"])
    out: list[str] = []
    for cfg in sorted(configurations, key=key):
        names = _names(cfg.get("initializers"))
        if deviations.active("initializers-order-reversed"):
            names = names[::-1]
        out += [n for n in names if n and n not in out]
    return out


class ConfigurationStrategy(Strategy):
    """Validation essentials: each initializer has a name, a DNS subdomain with at least three segments
    (the generic `InitializerConfiguration` rule the KEP's comment repeats: "Name should be fully
    qualified, e.g., alwayspullimages.kubernetes.io"), no duplicates."""

    def validate(self, obj: dict[str, Any]) -> list[E.FieldError]:
        errs = validate_object_meta(obj.get("metadata", {}), namespaced=False, name_rule="subdomain")
        return errs + _initializer_errs(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[E.FieldError]:
        return super().validate_update(new, old) + _initializer_errs(new)


def _initializer_errs(obj: dict[str, Any]) -> list[E.FieldError]:
    errs: list[E.FieldError] = []
    items = obj.get("initializers")
    if items is None:
        return errs
    if not isinstance(items, list):
        return [E.field_invalid("initializers", items, "must be a list")]
    seen: set[str] = set()
    for i, item in enumerate(items):
        name = item.get("name") if isinstance(item, dict) else None
        path = f"initializers[{i}].name"
        if not isinstance(name, str) or not name:
            errs.append(E.field_required(path, ""))
        elif len(name.split(".")) < 3:
            errs.append(E.field_invalid(path, name, "should be a domain with at least three segments separated "
                                                    "by dots"))
        elif name in seen:
            errs.append(E.FieldError("FieldValueDuplicate", path, f"Duplicate value: {go_quote(name)}"))
        else:
            seen.add(name)
    return errs


def _set_condition(ns: dict[str, Any], status: str, reason: str, message: str) -> None:
    st = ns.setdefault("status", {})
    conditions = [c for c in st.get("conditions") or [] if isinstance(c, dict) and c.get("type") != CONDITION]
    old = next((c for c in st.get("conditions") or [] if isinstance(c, dict) and c.get("type") == CONDITION), None)
    from ..registry import meta as M
    now = M.now()
    transition = old.get("lastTransitionTime") if old and old.get("status") == status else now
    conditions.append({"type": CONDITION, "status": status, "lastTransitionTime": transition,
                       "reason": reason, "message": message})
    st["conditions"] = conditions


class InitializingNamespaceStrategy(NamespaceStrategy):
    """The namespace strategy with the alpha field and the `Initializing` condition (and, with
    `phase=True`, the optional `Initializing` phase while initializers are pending)."""

    def __init__(self, deviations: Deviations = NONE, phase: bool = False):
        super().__init__(deviations)
        self.phase = phase

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        pending = _pending(obj)
        if pending and self.phase:
            obj["status"]["phase"] = CONDITION
        if pending:
            if not self.deviations.active("initializing-condition-missing"):
                _set_condition(obj, "True", "InitializersPending",
                               f"waiting for initializers: {', '.join(pending)}")
        else:
            obj["spec"].pop("initializers", None)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        body_inits = (new.get("spec") or {}).get("initializers") if isinstance(new.get("spec"), dict) else None
        super().prepare_for_update(new, old)  # keeps spec.finalizers, copies status from old
        before = _pending(old)
        if not before:
            new["spec"].pop("initializers", None)  # cleared for good
            return
        if body_inits is None:
            new["spec"]["initializers"] = copy.deepcopy(old["spec"]["initializers"])
            return
        after = _pending(new)
        if after:
            return
        if self.deviations.active("initializers-kept-when-empty"):
            new["spec"]["initializers"] = {"pending": []}
        else:
            new["spec"].pop("initializers", None)
        if not self.deviations.active("initializing-condition-stuck"):
            _set_condition(new, "False", "InitializersDone", "all initializers have completed")
        if new["status"].get("phase") == CONDITION:
            new["status"]["phase"] = "Active"

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[E.FieldError]:
        errs = super().validate_update(new, old)
        before, after = _pending(old), _pending(new)
        if after and [n for n in before if n in after] != after:
            errs.append(E.field_forbidden("spec.initializers.pending",
                                          "initializers may only be removed, not added or reordered"))
        return errs


class InitializingStatusStrategy(NamespaceStatusStrategy):
    """`/status` with the optional phase: `Initializing` is also valid while initializers are pending."""

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[E.FieldError]:
        if new["status"].get("phase") == CONDITION and _pending(new) and not new["metadata"].get("deletionTimestamp"):
            probe = copy.deepcopy(new)
            probe["status"]["phase"] = "Active"
            return super().validate_update(probe, old)
        return super().validate_update(new, old)


class InitializerAdmission:
    """Wraps the server's admission chain: adds the mutating `NamespaceInitializers` plugin on namespace
    create, delegates everything else."""

    def __init__(self, inner: Any, registry: Registry, deviations: Deviations = NONE):
        self._inner = inner
        self.registry = registry
        self.deviations = deviations

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def for_create(self, info: ResourceInfo) -> Callable[[dict[str, Any]], None] | None:
        inner = self._inner.for_create(info)
        if info is not NAMESPACES:
            return inner

        def admit(obj: dict[str, Any]) -> None:
            if inner is not None:
                inner(obj)
            if self.deviations.active("initializers-not-populated"):
                return
            configs = self.registry.store.list(CONFIGURATIONS.plural, None)[0]
            names = merged_initializers(configs, self.deviations)
            spec = obj.get("spec")
            if not isinstance(spec, dict):
                spec = obj["spec"] = {}
            if names:
                spec["initializers"] = {"pending": [{"name": n} for n in names]}
            else:
                spec.pop("initializers", None)
        return admit


    def for_delete(self, info: ResourceInfo, name: str) -> Callable[[dict[str, Any]], None] | None:
        inner = self._inner.for_delete(info, name)
        if info is not NAMESPACES or not self.deviations.active("initializing-namespace-undeletable"):
            return inner

        def admit(obj: dict[str, Any]) -> None:
            if inner is not None:
                inner(obj)
            if initializing(obj):
                raise E.conflict("namespaces", name, "the namespace is still initializing")
        return admit


def guard_middleware(ctx: Any):
    """The `NamespaceInitializers` guard: content requests in an initializing namespace need `initialize`."""
    from ..auth.rbac import Attributes, RequestInfoError, forbidden_message, request_attributes
    from ..http.authz import REQUESTER
    from ..storage import KeyNotFoundError

    @web.middleware
    async def guard(request: web.Request, handler):
        if ctx.deviations.active("initializing-namespace-unguarded"):
            return await handler(request)
        user = request.get(REQUESTER)
        try:
            attrs = request_attributes(request.method, request.path, request.query, user)
        except RequestInfoError:
            return await handler(request)
        ns = attrs.namespace
        if not attrs.resource_request or not ns or attrs.resource == "namespaces":
            return await handler(request)
        try:
            namespace = ctx.registry.store.get("namespaces", "", ns)
        except KeyNotFoundError:
            return await handler(request)
        if not initializing(namespace):
            return await handler(request)
        ask = Attributes(user=user, verb="initialize", resource="namespaces", name=ns)
        allowed, _ = ctx.authorizer.authorize(ask)
        if not allowed:
            raise E.forbidden(attrs.resource, attrs.name, f"namespace {ns} is being initialized: "
                              f"{forbidden_message(ask)}", attrs.api_group)
        return await handler(request)
    return guard


def extend_openapi(doc: dict[str, Any]) -> None:
    """Add the alpha `spec.initializers` to NamespaceSpec in an OpenAPI v2 or v3 document (in place).
    (The configuration kind is in discovery only: named groups are not in this server's OpenAPI.)"""
    defs = doc.get("definitions") if "definitions" in doc else (doc.get("components") or {}).get("schemas")
    if not isinstance(defs, dict) or "io.k8s.api.core.v1.NamespaceSpec" not in defs:
        return
    ref = "#/definitions/" if "definitions" in doc else "#/components/schemas/"
    defs["io.k8s.api.core.v1.NamespaceInitializer"] = {
        "description": "NamespaceInitializer is information about an initializer that has not yet completed.",
        "type": "object", "required": ["name"],
        "properties": {"name": {"description": "name of the process that is responsible for initializing this "
                                               "object.", "type": "string"}}}
    defs["io.k8s.api.core.v1.NamespaceInitializers"] = {
        "description": "NamespaceInitializers tracks the progress of initialization (KEP-33, alpha).",
        "type": "object", "required": ["pending"],
        "properties": {"pending": {"type": "array", "items": {"$ref": ref + "io.k8s.api.core.v1.NamespaceInitializer"},
                                   "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"},
                       "result": {"$ref": ref + "io.k8s.apimachinery.pkg.apis.meta.v1.Status"}}}
    props = defs["io.k8s.api.core.v1.NamespaceSpec"].setdefault("properties", {})
    props["initializers"] = {"description": "A list of initializers that have not yet acted on this object "
                                            "(alpha, feature gate NamespaceInitializers).",
                             "$ref": ref + "io.k8s.api.core.v1.NamespaceInitializers"}


def install(registry: Registry, admission: Any, deviations: Deviations, *, phase: bool = False) -> Any:
    """Serve the configuration kind, swap in the namespace strategies; returns the wrapped admission.
    `phase`: the optional `Initializing` phase (gate `NamespaceInitializingPhase`)."""
    from ..registry.group import GroupStore

    registry.add_group_store(GroupStore(CONFIGURATIONS, registry.store, GROUP, VERSION,
                                        ConfigurationStrategy(CONFIGURATIONS), deviations))
    registry.namespaces.strategy = InitializingNamespaceStrategy(deviations, phase=phase)
    if phase:
        registry.namespaces.status_strategy = InitializingStatusStrategy(deviations)
    return InitializerAdmission(admission, registry, deviations)

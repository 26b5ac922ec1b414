"""CustomResourceDefinitions (`apiextensions.k8s.io/v1`) and the custom resources they define.

As `apiextensions-apiserver`: a CRD is a cluster-scoped object named `<plural>.<group>`, created with an empty
status; kube-apiserver's naming and establishing controllers write its accepted names and its NamesAccepted and
Established conditions a moment later (controller/crd_naming.py, crd_establishing.py, over `crdnames.py`). Once
its names are accepted (or it is Established) its resources are served at `/apis/<group>/<version>/...`
(`customresource_handler.go` `ServeHTTP`), and once Established discovery lists them
(`customresource_discovery_controller.go`). Served
resources are *derived from storage* on each lookup (`CustomResources.stores`), so a CRD and its REST
storage can never disagree. Deleting a CRD only marks it (finalizer `customresourcecleanup.apiextensions.k8s.io`,
condition Terminating/InstanceDeletionPending); `controller/crd_finalizer.py` deletes the instances and then
releases it, as upstream's `CRDFinalizer`.

Custom resources are stored under `<plural>.<group>` (two CRDs may share a plural), validated against the
storage version's structural schema, pruned and defaulted (`crschema`), and checked by its
`x-kubernetes-validations` rules (`crdrules/`, which also compiles them when a CRD is written). A CRD's schema must
be structural, with upstream's OpenAPI restrictions (`crdschema/`). Every served version is served: the storage
version by the CRD's `CustomResourceStore`, the others by views converting with the CRD's `spec.conversion`
(`crconversion/`); with a conversion webhook, an object an older storage version wrote is converted from that
version as it is read (the storage codec's decoding), and to the storage version before a write uses it.
"""
from __future__ import annotations

import copy
import json
from typing import Any, Callable

from .. import apierrors as E
from ..apierrors import FieldError, field_invalid, field_not_supported, field_required
from ..deviations import NONE, Deviations
from ..storage import KeyNotFoundError, Store
from ..wire.gosyntax import sharp_v as go_sharp_v
from . import crdnames, crdrules, crdschema, crlisttype, crschema, crtypemeta, rehearsed
from . import meta as M
from .crconversion.cache import Caches, served_item
from .crconversion.selection import on_converted, selectable_fields
from .crconversion.stored import StoredVersions
from .crconversion.webhook import GetService
from .crconversion.views import CustomResourceView, served_views
from .crscale import CustomScale, scale_model, validate_subresources
from .crdconversion import conversion_errors, default_conversion, recognized_or_empty
from .crdschema.defaults import validate_embedded
from ..wire import gomaps
from .group import GroupStore
from .kinds import ResourceInfo
from .store import DeleteOptions, ListOptions
from .strategy import PerThread, Strategy
from .subresources import SUBRESOURCE_VERBS
from .updatemeta import update_causes

GROUP, VERSION = "apiextensions.k8s.io", "v1"
CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"
CRD_INFO = ResourceInfo("CustomResourceDefinition", "customresourcedefinitions", "customresourcedefinition",
                        ("crd", "crds"), namespaced=False, fields=frozenset({"spec", "status"}))
CRD_KEY = f"{CRD_INFO.plural}.{GROUP}"  # storage key: not shared with any core plural


def set_condition(status: dict[str, Any], typ: str, state: str, reason: str, message: str) -> None:
    """`SetCRDCondition`: lastTransitionTime changes only when the status flips."""
    conds = status["conditions"] = status.get("conditions") or []  # a new CRD's are null
    old = next((c for c in conds if c.get("type") == typ), None)
    if old is None:
        conds.append({"type": typ, "status": state, "lastTransitionTime": M.now(), "reason": reason,
                      "message": message})
        return
    if old.get("status") != state:
        old["lastTransitionTime"] = M.now()
    old.update(status=state, reason=reason, message=message)


def condition(crd: dict[str, Any], typ: str) -> dict[str, Any] | None:
    return next((c for c in (crd.get("status") or {}).get("conditions") or [] if c.get("type") == typ), None)


def storage_version(crd: dict[str, Any]) -> dict[str, Any] | None:
    return next((v for v in (crd.get("spec") or {}).get("versions") or [] if v.get("storage")), None)


def crd_key(crd: dict[str, Any]) -> tuple[Any, Any, str]:
    """A CRD's uid, generation (bumped by every spec change) and accepted names: its served storages are torn
    down when one changes (`customresource_handler.go` `updateCustomResourceDefinition`: a new uid, or a spec or
    `status.acceptedNames` not `Semantic.DeepEqual` to the storage's; any other status change keeps them)."""
    meta = crd.get("metadata") or {}
    names = (crd.get("status") or {}).get("acceptedNames")
    return meta.get("uid"), meta.get("generation"), json.dumps(names, sort_keys=True, default=str)


def is_established(crd: dict[str, Any]) -> bool:
    c = condition(crd, "Established")
    return bool(c and c.get("status") == "True")


def served(crd: dict[str, Any]) -> bool:
    """crdHandler `ServeHTTP`: a CRD's resources are served once its names are accepted or it is Established
    (a request before that is the delegate's: the not-found handler's 404)."""
    c = condition(crd, "NamesAccepted")
    return is_established(crd) or bool(c and c.get("status") == "True")


def served_names(crd: dict[str, Any]) -> dict[str, Any]:
    """The names a CRD's resources are served and discovered under: its accepted ones
    (`customresource_handler.go` `getOrCreateServingInfoFor`, `customresource_discovery_controller.go`), so a
    spec change waits for the naming controller, and a conflicting one is not served; the spec's for a CRD whose
    names were never accepted (what its finalizer deletes)."""
    accepted = (crd.get("status") or {}).get("acceptedNames") or {}
    return accepted if accepted.get("plural") and accepted.get("kind") else crd["spec"]["names"]


class _KeyedStore:
    """The storage seen through a different resource key (`widgets` → `widgets.example.com`)."""

    _KEYED = ("create", "get", "list", "list_at", "count", "guaranteed_update", "delete", "delete_many", "watch")

    def __init__(self, inner: Store, key: str):
        self._inner, self._key = inner, key

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name not in self._KEYED:
            return attr

        def keyed(resource: str, *args: Any, **kw: Any) -> Any:
            return attr(self._key, *args, **kw)
        return keyed


# ---- the CRD itself --------------------------------------------------------------------------------
class CRDStrategy(Strategy):
    kube_finalizers = False  # apimachinery's generic ValidateObjectMeta: any qualified finalizer name
    allow_unconditional_update = False  # its strategy.go's `AllowUnconditionalUpdate` (and its status one's)
    _old = PerThread()  # the stored spec and generation, between prepare_for_update and canonicalize

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        """v1's `SetDefaults_CustomResourceDefinition` (defaults.go), run as the body is decoded: before the field
        manager, so the writer owns `spec.conversion`, `names.singular` and `names.listKind` as upstream's does."""
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        names = spec.get("names")
        if isinstance(names, dict):
            if not names.get("singular") and names.get("kind"):  # (an empty singular is omitted: omitempty)
                names["singular"] = str(names["kind"]).lower()
            if names.get("kind") and not names.get("listKind"):
                names["listKind"] = f"{names['kind']}List"
        default_conversion(spec)
        status = obj.get("status")
        if isinstance(status, dict) and not status.get("storedVersions"):
            sv = storage_version(obj)
            if sv and sv.get("name"):
                status["storedVersions"] = [sv["name"]]

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        """strategy.go `PrepareForCreate`: an empty status (Go's zero value, as v1 encodes it: null conditions,
        empty accepted names) but for the storage version in storedVersions; the names and conditions are the
        naming and establishing controllers' later writes (controller/crd_naming.py, crd_establishing.py)."""
        self._old = None
        sv = storage_version(obj)
        obj["status"] = {"conditions": None, "acceptedNames": {"plural": "", "kind": ""},
                         "storedVersions": [sv["name"]] if sv and sv.get("name") else None}
        obj.setdefault("metadata", {})["generation"] = 1

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + validate_crd_spec(obj) + conversion_errors(obj.get("spec") or {}) + \
            self._schemas_and_rules(obj, None) + crdnames.validate_api_approval(obj, None)

    def _schemas_and_rules(self, new: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
        """The schemas' checks and the rules' compilation (CEL parsing, type checks, cost estimates: long for long
        rules), remembered by a rehearsal off the loop (registry/rehearsed.py) for the commit on it."""
        def run() -> list[FieldError]:
            schemas = crdschema.validate_crd_schemas(new) if old is None else crdschema.validate_crd_schemas(new, old)
            return schemas.errors + crdrules.validate_crd_rules(new, old, schemas.uncompiled)
        return list(rehearsed.remembered(self, lambda: (rehearsed.unmanaged(new), rehearsed.unmanaged(old)), run))

    def may_stall(self, obj: dict[str, Any] | None) -> bool:
        """A CRD past a few KiB may hold rules long enough to parse for a while: rehearsed off the event loop."""
        return obj is not None and rehearsed.larger_than(obj, rehearsed.LARGE_CRD)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        new["status"] = copy.deepcopy(old.get("status") or {})
        self._old = (old.get("spec"), int((old.get("metadata") or {}).get("generation") or 0))
        sv = storage_version(new)  # strategy.go PrepareForUpdate: a new storage version joins storedVersions
        stored = new["status"]["storedVersions"] = new["status"].get("storedVersions") or []
        if sv and sv.get("name") and sv["name"] not in stored:
            stored.append(sv["name"])

    def canonicalize(self, obj: dict[str, Any]) -> None:
        """strategy.go `PrepareForUpdate`: any change to the spec increments the generation (set here, after the
        store restored the stored system metadata)."""
        if self._old is not None:
            spec, generation = self._old
            self._old = None
            obj.setdefault("metadata", {})["generation"] = generation + (obj.get("spec") != spec)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        ospec, nspec = old.get("spec") or {}, new.get("spec") or {}
        errs = super().validate_update(new, old) + validate_crd_spec(new) + \
            conversion_errors(nspec, recognized_or_empty(ospec.get("conversion"))) + \
            self._schemas_and_rules(new, old) + crdnames.validate_api_approval(new, old)
        for f in ("group", "scope"):
            if nspec.get(f) != ospec.get(f):
                errs.append(field_invalid(f"spec.{f}", nspec.get(f), "field is immutable"))
        if (nspec.get("names") or {}).get("plural") != (ospec.get("names") or {}).get("plural"):
            errs.append(field_invalid("spec.names.plural", (nspec.get("names") or {}).get("plural"),
                                      "field is immutable"))
        return errs


class CRDStatusStrategy(CRDStrategy):
    subresource = "status"

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        new["spec"] = copy.deepcopy(old.get("spec"))
        self._old = None

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return Strategy.validate_update(self, new, old)


def validate_crd_spec(obj: dict[str, Any]) -> list[FieldError]:
    """The parts of `ValidateCustomResourceDefinition` clients meet first."""
    errs: list[FieldError] = []
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return [field_required("spec")]
    group = spec.get("group")
    names = spec.get("names") if isinstance(spec.get("names"), dict) else {}
    if not isinstance(group, str) or not group:
        errs.append(field_required("spec.group"))
    elif "." not in group:
        errs.append(field_invalid("spec.group", group, "should be a domain with at least one dot"))
    plural, kind = names.get("plural"), names.get("kind")
    if not plural:
        errs.append(field_required("spec.names.plural"))
    elif plural != str(plural).lower():
        errs.append(field_invalid("spec.names.plural", plural, "a lowercase RFC 1123 label must consist of "
                                  "lower case alphanumeric characters or '-'"))
    if not kind:
        errs.append(field_required("spec.names.kind"))
    name = (obj.get("metadata") or {}).get("name")
    if plural and group and name != f"{plural}.{group}":
        errs.append(field_invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group'))
    if not spec.get("scope"):  # validation.go `validateEnumStrings(..., required=true)`: "" is Required
        errs.append(field_required("spec.scope"))
    elif spec.get("scope") not in ("Cluster", "Namespaced"):
        errs.append(field_not_supported("spec.scope", spec.get("scope"), ["Cluster", "Namespaced"]))
    versions = spec.get("versions")
    if not isinstance(versions, list) or not versions:
        errs.append(field_invalid("spec.versions", go_versions(versions), "must have exactly one version marked as "
                                  "storage version"))
        return errs
    if sum(1 for v in versions if isinstance(v, dict) and v.get("storage")) != 1:
        errs.append(field_invalid("spec.versions", go_versions(versions), "must have exactly one version marked as "
                                  "storage version"))
    for i, v in enumerate(versions):
        if not isinstance(v, dict) or not v.get("name"):
            errs.append(field_required(f"spec.versions[{i}].name"))
            continue
        schema = (v.get("schema") or {}).get("openAPIV3Schema") if isinstance(v.get("schema"), dict) else None
        if not isinstance(schema, dict):  # the schema itself is crdschema's
            errs.append(field_required(f"spec.versions[{i}].schema.openAPIV3Schema", "schemas are required"))
        errs += validate_subresources(v.get("subresources"), f"spec.versions[{i}].subresources")
    return errs


_PER_VERSION = ("schema", "subresources", "additionalPrinterColumns", "selectableFields")


def _semantic(value: Any) -> Any:
    """A decoded value as `Semantic.DeepEqual` compares it: an empty slice is a nil one."""
    if isinstance(value, dict):
        return {k: _semantic(v) for k, v in value.items() if v != []}
    if isinstance(value, list):
        return [_semantic(v) for v in value] or None
    return value


def go_versions(versions: Any) -> E.GoValue:
    """`spec.Versions` as `field.Invalid` prints it: `%#v` of the internal `[]CustomResourceDefinitionVersion`
    the v1 conversion makes (apiextensions v1/conversion.go: a per-version schema, subresources, columns or
    selectable fields that every version has alike is hoisted to the spec, leaving the versions' nil)."""
    if isinstance(versions, list):
        items = [dict(v) if isinstance(v, dict) else {} for v in versions]
        for key in _PER_VERSION:
            if items and all(_semantic(v.get(key)) == _semantic(items[0].get(key)) for v in items):
                for v in items:
                    v.pop(key, None)
        versions = items
    return E.GoValue(go_sharp_v(versions, "[]apiextensions.CustomResourceDefinitionVersion"))


LOOPBACK_MANAGER = "kube-apiserver"  # kube-apiserver's loopback client's user agent, as managedFields name it


class CRDStore(GroupStore):
    """The CRD REST storage: the first DELETE marks the CRD and adds the cleanup finalizer (`etcd.go` Delete)."""

    # `Creater.New`: a zero CustomResourceDefinition as v1 encodes it (what a create is compared with, so the
    # creator's managedFields entry has upstream's `.` markers: none for `spec.names`, one for `spec.conversion`)
    field_manager_zero = {"spec": {"group": "", "names": {"plural": "", "kind": ""}, "scope": "", "versions": None},
                          "status": {"conditions": None, "acceptedNames": {"plural": "", "kind": ""},
                                     "storedVersions": None}}

    def __init__(self, store: Store, deviations: Deviations = NONE):
        super().__init__(CRD_INFO, _KeyedStore(store, CRD_KEY), GROUP, VERSION,  # type: ignore[arg-type]
                         strategy=CRDStrategy(CRD_INFO), deviations=deviations)
        self.status_strategy = CRDStatusStrategy(CRD_INFO)
        self.storage_key = CRD_KEY  # what the garbage collector watches and reads owners under

    def delete(self, ns: str, name: str, opts: DeleteOptions, *, admit: Any = None) -> tuple[dict[str, Any], bool]:
        """`REST.Delete`: the first DELETE (a dry run too) marks the CRD whatever its `propagationPolicy`
        (deletionTimestamp, the cleanup finalizer, Terminating) and answers it; a DELETE of a CRD already marked
        is the generic one, where the policy writes its garbage-collector finalizers (`orphan`,
        `foregroundDeletion`), which the garbage collector acts on once the instances are gone."""
        current = self.get(ns, name)
        if self.deviations.active("crd-delete-orphans-resources"):
            return GroupStore.delete(self, ns, name, opts, admit=admit)
        if current["metadata"].get("deletionTimestamp"):
            return super().delete(ns, name, opts, admit=admit)
        from .store import check_delete_preconditions
        check_delete_preconditions(self.info.plural, name, opts, current["metadata"], generic=True)
        if admit is not None:  # deleteValidation (upstream: inside the update), as the generic delete calls it
            admit(current)

        def mark(obj: dict[str, Any]) -> dict[str, Any]:
            meta = obj["metadata"]
            meta.setdefault("deletionTimestamp", M.now())
            if CLEANUP_FINALIZER not in (meta.get("finalizers") or []):
                meta["finalizers"] = list(meta.get("finalizers") or []) + [CLEANUP_FINALIZER]
            set_condition(obj.setdefault("status", {}), "Terminating", "True", "InstanceDeletionPending",
                          "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon")
            return obj
        if opts.dry_run:  # GuaranteedUpdate's dry run: the marked CRD, nothing stored
            return self._finish(mark(copy.deepcopy(current))), False
        try:
            obj, _ = self.store.guaranteed_update(self.info.plural, "", name, self._in_order(mark))
        except KeyNotFoundError:
            raise self._not_found(name) from None
        return self._finish(obj), False


# ---- custom resources ------------------------------------------------------------------------------
class CustomResourceStrategy(Strategy):
    kube_finalizers = False  # apimachinery's generic ValidateObjectMeta: any qualified finalizer name
    allow_unconditional_update = False  # its strategy.go's `AllowUnconditionalUpdate` (and its status one's)
    _generation = PerThread()  # an update's new generation, from prepare_for_update to canonicalize (per thread:
    # a rehearsal computes one write in its thread while the loop commits another, and the etcd store computes
    # updates in several threads)

    scale_spec = True  # ValidateScaleSpec runs (not on /status: ValidateStatusUpdate checks the status paths only)
    embedded_checked = True  # schemaobjectmeta.Validate runs (not on /status: status_strategy.go does not call it)

    def __init__(self, info: ResourceInfo, schema: dict[str, Any] | None, status_subresource: bool,
                 rules: crdrules.Node | None = None, scale: CustomScale | None = None):
        super().__init__(info)
        self.schema, self.status_subresource, self.rules = schema, status_subresource, rules
        self.scale = scale  # the version's scale paths, checked on every write (crscale.py)
        self.api_version = ""  # the version's `group/version` (`ValidateTypeMeta`), set by version_strategies
        self.defaults = crschema.defaults_skeleton(schema)
        self.embedded = crschema.has_embedded(schema)  # (a stored object's embedded resources: `decoded`)
        self._costly: bool | None = None  # may_stall's flags, found on first use
        self._checks_strings = False

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        """The request decoder's part that comes before the field manager and admission: the object's own metadata
        written back as decoded (`unstructuredSchemaCoercer.apply`), so a webhook sees a null label value as ""."""
        super().default(obj, update=update)
        crschema.coerce_root_metadata(obj)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        self._generation = None
        if not self._decoded_elsewhere(obj):
            crschema.default(crschema.prune_and_coerce(obj, self.schema), self.schema)
        if self.status_subresource:
            obj.pop("status", None)
        obj.setdefault("metadata", {})["generation"] = 1

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        if self.api_version and crtypemeta.checked(obj, self.api_version, self.info.kind):
            self._refuse_type_meta(obj, None)
        errs = super().validate(obj)

        def schema_and_rules() -> list[FieldError]:
            found = crschema.validate_custom_resource(obj, self.schema) + self._scale_errors(obj)
            found += validate_embedded(obj, self.schema) + crlisttype.validate(obj, self.schema)
            return found + crdrules.validate(self.rules, self.schema, obj, None, errs + found)
        return errs + rehearsed.remembered(self, lambda: rehearsed.custom_resource_inputs(obj, None, errs),
                                           schema_and_rules)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        if not self._decoded_elsewhere(new):
            crschema.default(crschema.prune_and_coerce(new, self.schema), self.schema)
        if self.status_subresource:
            if "status" in old:
                new["status"] = copy.deepcopy(old["status"])
            else:
                new.pop("status", None)
        # strategy.go: any change but to metadata increments the generation (the old object as read from storage)
        decoded = crschema.decoded(old, self.schema, self.defaults, self.embedded)
        changed = _content(new) != _content(decoded)
        self._generation = int((old.get("metadata") or {}).get("generation") or 0) + 1 if changed else None

    def canonicalize(self, obj: dict[str, Any]) -> None:
        """The generation prepare_for_update decided (set after the store restored the stored one)."""
        if self._generation is not None:
            obj.setdefault("metadata", {})["generation"] = self._generation
            self._generation = None

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        # ratcheted against the old object as upstream reads it from storage (see CustomResourceStore._finish)
        old = crschema.decoded(old, self.schema, self.defaults, self.embedded)
        if self.api_version and crtypemeta.checked(new, self.api_version, self.info.kind):
            self._refuse_type_meta(new, old)
        errs = super().validate_update(new, old)

        def schema_and_rules() -> list[FieldError]:
            found = crschema.validate_custom_resource(new, self.schema, old) + self._scale_errors(new)
            if self.embedded_checked:  # (create's and update's alike, not ratcheted)
                found += validate_embedded(new, self.schema)
            if not crlisttype.validate(old, self.schema):  # list-type errors are ratcheted as a whole
                found += crlisttype.validate(new, self.schema)
            return found + crdrules.validate(self.rules, self.schema, new, old, errs + found)
        return errs + rehearsed.remembered(self, lambda: rehearsed.custom_resource_inputs(new, old, errs),
                                           schema_and_rules)

    def _decoded_elsewhere(self, obj: dict[str, Any]) -> bool:
        """Whether `obj` names another group or kind (a patched object or a body: registry/crtypemeta.py), which
        the request decoder neither pruned nor defaulted (`unstructuredSchemaCoercer.apply`,
        `unstructuredDefaulter`: the CRD's group and kind only)."""
        return bool(self.api_version) and crtypemeta.checked(obj, self.api_version, self.info.kind) and \
            crtypemeta.other_kind(obj, self.api_version, self.info.kind)

    def _refuse_type_meta(self, new: dict[str, Any], old: dict[str, Any] | None) -> None:
        """A patched object or a body naming another version or kind (registry/crtypemeta.py): `ObjectKinds`'
        internal error, or `ValidateTypeMeta`'s errors, which return before the metadata, schema and scale checks,
        then the embedded resources', list types' and rules' (strategy.go `Validate`, `ValidateUpdate`;
        status_strategy.go's); `old` None: a create's (`rest.BeforeCreate`: the strategy's errors alone)."""
        if (refused := crtypemeta.untyped(new)) is not None:
            raise refused
        errs = crtypemeta.type_meta_errors(new, self.api_version, self.info.kind)
        found: list[FieldError] = []
        if self.embedded_checked:
            found += validate_embedded(new, self.schema)
        if old is None or not crlisttype.validate(old, self.schema):
            found += crlisttype.validate(new, self.schema)
        errs += found + crdrules.validate(self.rules, self.schema, new, old, errs + found)
        raise crtypemeta.invalid(new, str((new.get("metadata") or {}).get("name") or ""),
                                 errs if old is None else update_causes(self, new, old, errs))

    def _scale_errors(self, obj: dict[str, Any]) -> list[FieldError]:
        return self.scale.validate(obj, spec=self.scale_spec) if self.scale is not None else []

    def may_stall(self, obj: dict[str, Any] | None) -> bool:
        """Whether validating `obj` may hold a thread for long (then the write is rehearsed off the event loop,
        storage/rehearsal.py): rules whose static cost estimate needs a tracked walk, or a large value under a
        schema with rules or patterns. Cheap: a cached flag, then a size count that stops at the threshold."""
        if self._costly is None:
            self._costly = rehearsed.costly(self.rules)
            self._checks_strings = self.rules is not None or rehearsed.has_patterns(self.schema)
        return self._costly or (self._checks_strings and obj is not None and
                                rehearsed.larger_than(obj, rehearsed.LARGE))


def _content(obj: dict[str, Any]) -> dict[str, Any]:
    """`copyNonMetadata` (apiVersion and kind aside: both objects are in the request's version)."""
    return {k: v for k, v in obj.items() if k not in ("metadata", "apiVersion", "kind")}


class CustomResourceStatusStrategy(CustomResourceStrategy):
    subresource = "status"
    scale_spec = embedded_checked = False

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        if self.api_version and crtypemeta.checked(new, self.api_version, self.info.kind):
            # status_strategy.go: the old object's copy, its version and kind too (once typed)
            if (refused := crtypemeta.untyped(new)) is not None:
                raise refused
            new["apiVersion"], new["kind"] = self.api_version, self.info.kind
        crschema.default(crschema.prune_and_coerce(new, self.schema), self.schema)
        for k in list(new):
            if k not in ("apiVersion", "kind", "metadata", "status"):
                del new[k]
        for k, v in old.items():
            if k not in ("apiVersion", "kind", "metadata", "status"):
                new[k] = copy.deepcopy(v)
        new["metadata"]["labels"] = copy.deepcopy((old.get("metadata") or {}).get("labels"))
        if new["metadata"]["labels"] is None:
            new["metadata"].pop("labels")


def version_strategies(crd: dict[str, Any], version: dict[str, Any], info: ResourceInfo, storage: bool = False
                       ) -> tuple[CustomResourceStrategy, CustomResourceStatusStrategy | None]:
    """The strategy (and /status strategy) of one version of `crd`: its schema, subresources and rules
    (`customresource_handler.go` builds a storage per version, each validating in its own version)."""
    schema = (version.get("schema") or {}).get("openAPIV3Schema")
    status_sub = "status" in ((version.get("subresources") or {}))
    # compiled once per CRD uid, resourceVersion and version
    rules = crdrules.validator_for(crd, schema, "" if storage else str(version.get("name") or ""))
    scale = scale_model(crd, version)
    strategy = CustomResourceStrategy(info, schema, status_sub, rules, scale)
    status = CustomResourceStatusStrategy(info, schema, status_sub, rules, scale) if status_sub else None
    for s in (strategy, status):
        if s is not None:
            s.api_version = f"{(crd.get('spec') or {}).get('group')}/{version.get('name')}"
    return strategy, status


def serve_scale(store: Any, crd: dict[str, Any], version: dict[str, Any]) -> None:
    """`/scale` for a version whose `subresources.scale` is set (registry/crscale.py), none for another: routing,
    discovery and OpenAPI look for `subresources`, the HTTP layer for `scale_model`."""
    store.scale_model = scale_model(crd, version)
    store.subresources = {"scale": SUBRESOURCE_VERBS} if store.scale_model is not None else {}


class CustomResourceStore(StoredVersions, GroupStore):
    """REST storage of one CRD's resources (its storage version)."""

    field_kind = ""  # its field selector's values are those at their paths (store.py `field_kind`)

    def __init__(self, crd: dict[str, Any], store: Store, deviations: Deviations = NONE,
                 observe: Callable[..., None] | None = None):
        spec = crd["spec"]
        names = served_names(crd)
        version = storage_version(crd) or spec["versions"][0]
        schema = (version.get("schema") or {}).get("openAPIV3Schema")
        props = frozenset((schema or {}).get("properties") or {}) - {"apiVersion", "kind", "metadata"}
        namespaced = spec.get("scope") == "Namespaced"
        info = ResourceInfo(names["kind"], spec["names"]["plural"], names.get("singular") or names["kind"].lower(),
                            tuple(names.get("shortNames") or ()), namespaced=namespaced,
                            fields=props, name_rule="subdomain",
                            keeps_unknown_fields=bool((schema or {}).get("x-kubernetes-preserve-unknown-fields")),
                            list_kind_name=names.get("listKind") or "",
                            selectable_fields=selectable_fields(crd, namespaced, version["name"]),
                            custom_field_labels=True)
        strategy, status_strategy = version_strategies(crd, version, info, storage=True)
        key = f"{spec['names']['plural']}.{spec['group']}"  # (the plural is immutable)
        super().__init__(info, _KeyedStore(store, key),  # type: ignore[arg-type]
                         spec["group"], version["name"], strategy=strategy, deviations=deviations)
        self.crd_name = crd["metadata"]["name"]
        self.crd = crd  # the CRD it was built from (its versions' schemas published in OpenAPI: wire/crdopenapi.py)
        self.storage_key = key
        self.crd_key = crd_key(crd)  # what its watch caches are kept under (crconversion/cache.py)
        # the decoder's field model must not read it as a core kind of the same name (a `Service` of its own
        # group): http/handlers.py `_schema_kind`, http/decode.py `check_go_types`
        self.schema_kind = f"{spec['group']}/{names['kind']}"
        self.terminating = bool(crd["metadata"].get("deletionTimestamp"))
        self.categories = tuple(names.get("categories") or ())
        self.status_strategy = status_strategy
        self._schema, self._defaults, self._embedded = schema, strategy.defaults, strategy.embedded
        # every object of a CRD whose spec never changed (generation 1) and that serves no other version was
        # written under this schema: reads need no fix-up, and skip even the check. A write through another
        # version is converted and pruned by this schema, not defaulted by it (encoding defaults nothing): its
        # defaults come as the object is decoded (`unstructuredDefaulter`)
        others = any(isinstance(v, dict) and v.get("served") and v is not version for v in spec["versions"])
        self._reads_decode = (int(crd["metadata"].get("generation") or 1) > 1 or others) and isinstance(schema, dict)
        if self._reads_decode:  # watch events are decoded too; their encodings cached per CRD version
            self.present = self._decoded
            self.present_key = f"{self.api_version}@{crd['metadata']['resourceVersion']}"
        self.convert_stored_versions(crd, observe)  # crconversion/stored.py
        serve_scale(self, crd, version)

    def _normalize(self, obj: dict[str, Any]) -> dict[str, Any]:
        """An `unstructured.Unstructured` as `encoding/json` writes its map (wire/gomaps.py): the root's and the
        metadata's keys sorted (`apiVersion`, `kind`, `metadata`, ...), new dicts both."""
        out = {**obj, "kind": self.info.kind, "apiVersion": self.api_version}
        meta = out.get("metadata")
        if isinstance(meta, dict):
            out["metadata"] = {k: meta[k] for k in sorted(meta)}
        return {k: out[k] for k in sorted(out)}

    def _stored_form(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Every object's keys sorted, at every level (`unstructuredJSONScheme.doEncode`: the whole object is a
        `map[string]interface{}`), once, when stored."""
        return gomaps.sort_unstructured(self._normalize(obj))

    def list(self, ns: str | None, opts: ListOptions, *, shared: bool = False, pred: Any = None) -> dict[str, Any]:
        """An `UnstructuredList` as `doEncode` writes it: one map (`apiVersion`, `items`, `kind`, `metadata`),
        its ListMeta a map too (`continue`, `remainingItemCount`, `resourceVersion`)."""
        out = super().list(ns, opts, shared=shared, pred=pred)
        out["metadata"] = gomaps.sorted_map(out["metadata"])
        return {k: out[k] for k in sorted(out)}

    def _decoded(self, obj: dict[str, Any]) -> dict[str, Any]:
        """`obj` as upstream's storage codec decodes it (`customresource_handler.go`: `unstructuredSchemaCoercer`
        prunes, `unstructuredDefaulter` runs `structuraldefaulting.Default`) for get, list, watch and the object a
        write answers: an object stored before the schema changed loses the fields it no longer specifies and
        gains its new defaults; only such an object is copied. An object an older storage version wrote is
        decoded under that version's schema (`structuralSchemas[gv.Version]`, the object's own version)."""
        api_version = obj.get("apiVersion")
        if api_version in (None, self.api_version):
            out = crschema.decoded(obj, self._schema, self._defaults, self._embedded)
        else:
            out = crschema.decoded(obj, *self._decoding(str(api_version)))
        return out if out is obj else gomaps.sort_unstructured(out)  # defaults added: in their key's place

    def _decoding(self, api_version: str) -> tuple[Any, Any, bool]:
        """(schema, defaults skeleton, has embedded resources) of another version of the CRD, made once."""
        kept = self.__dict__.setdefault("_decodings", {})
        if api_version not in kept:
            version = api_version.rpartition("/")[2]
            found = next((v for v in self.crd["spec"].get("versions") or []
                          if isinstance(v, dict) and v.get("name") == version), None)
            schema = ((found.get("schema") or {}).get("openAPIV3Schema") if found is not None else None)
            kept[api_version] = ((schema, crschema.defaults_skeleton(schema), crschema.has_embedded(schema))
                                 if isinstance(schema, dict) else (self._schema, self._defaults, self._embedded))
        return kept[api_version]

    @property
    def judges_shown(self) -> bool:
        """Whether a selector judges each stored object as decoded (http/watch.py too): converted from an older
        storage version by the webhook, or an older schema's object decoded (selection.py)."""
        return self.converter is not None or self._reads_decode

    def selection(self, opts: ListOptions) -> Callable[[dict[str, Any]], bool]:
        pred = self.check_list(opts)
        return on_converted(pred, self._judged, self.converter is not None) if self.judges_shown else pred

    def _judged(self, obj: dict[str, Any]) -> dict[str, Any]:
        """A stored object as a LIST of the storage version decodes it, for its selectors."""
        cached = served_item(self, obj)  # (a LIST its watch cache serves: the cache's)
        if cached is not None:
            return cached
        if self._older(obj):
            return self._current(obj)  # (decoded under its own version's schema, then converted)
        return self._decoded(obj) if self._reads_decode else obj

    def _finish_converted(self, obj: dict[str, Any], converted: bool = False) -> dict[str, Any]:
        """`_finish` of an object in the storage version (StoredVersions converts the others first: `converted`,
        pruned already, is not decoded again)."""
        out = GroupStore._finish(self, obj)
        return self._decoded(out) if self._reads_decode and not converted else out

    def _coerced(self, converted: dict[str, Any], _stored: Any = None) -> dict[str, Any]:
        """A webhook's answer as `schemaCoercingConverter` leaves it: pruned by the storage version's schema
        (`unstructuredSchemaCoercer.apply`), not defaulted (the codec defaults before it converts); a copy when
        pruning changes it."""
        if not isinstance(self._schema, dict) or not crschema.needs_pruning(converted, self._schema, root=True):
            return converted
        return crschema.prune(copy.deepcopy(converted), self._schema, root=True)

    @property
    def table_kind(self) -> str:
        """Every custom resource gets the crdHandler's table (a CRD's kind may equal a built-in one's)."""
        return "CustomResource"

    def _deleted_result(self, obj: dict[str, Any]) -> dict[str, Any]:
        """`Status Success` whose details carry the group (`{name, group, kind: <plural>, uid}`)."""
        out = super()._deleted_result(obj)
        if out.get("kind") == "Status":
            d = out["details"]
            out["details"] = {"name": d["name"], "group": self.group, "kind": d["kind"], "uid": d["uid"]}
        return out

    def create(self, obj: dict[str, Any], **kw: Any) -> dict[str, Any]:
        if self.terminating:  # crdHandler: "create not allowed while custom resource definition is terminating"
            err = E.method_not_supported(f"{self.info.plural}.{self.group}", "create")
            err.status["message"] = "create not allowed while custom resource definition is terminating"
            raise err
        return super().create(obj, **kw)


class CustomResources:
    """The served custom resources, derived from the stored CRDs (one `CustomResourceStore` per CRD, and a
    `CustomResourceView` per other served version (registry/crconversion/), rebuilt when the CRD's
    resourceVersion changes)."""

    def __init__(self, store: Store, deviations: Deviations = NONE, get_service: GetService | None = None):
        self.store = store
        self.deviations = deviations
        self.crds = CRDStore(store, deviations)
        # the served versions' watch caches of CRDs with a conversion webhook (crconversion/cache.py)
        self.caches = Caches(get_service or (lambda _ns, _name: None))
        self._cache: dict[str, tuple[str, CustomResourceStore]] = {}
        self._views: dict[str, dict[str, CustomResourceView]] = {}
        self.observe_conversion: Callable[..., None] | None = None  # metrics/conversion.py's, when served
        self.on_change: list[Callable[[CustomResourceStore], None]] = []

    def _observe(self, *call: Any) -> None:
        if self.observe_conversion is not None:
            self.observe_conversion(*call)

    def _serving(self, crd: dict[str, Any]) -> CustomResourceStore | None:
        """The storage of `crd` (None: its spec cannot be served), built again when its resourceVersion changes."""
        name, rv = crd["metadata"]["name"], crd["metadata"]["resourceVersion"]
        cached = self._cache.get(name)
        if cached is None or cached[0] != rv:
            if storage_version(crd) is None:
                return None
            try:
                cached = (rv, CustomResourceStore(crd, self.store, self.deviations, self._observe))
            except (KeyError, TypeError, AttributeError):
                return None
            self._cache[name] = cached
            base = cached[1]
            self._views[name] = served_views(base, crd, lambda v, b=base: version_strategies(crd, v, b.info),
                                             self._observe)
            for v in (crd.get("spec") or {}).get("versions") or []:
                if isinstance(v, dict) and v.get("name") in self._views[name]:
                    serve_scale(self._views[name][v["name"]], crd, v)
        return cached[1]

    def stores(self) -> list[CustomResourceStore]:
        """The Established CRDs' storages: what discovery lists (`customresource_discovery_controller.go` skips a
        CRD not Established), and so what the namespace deleter and the garbage collector find."""
        out: list[CustomResourceStore] = []
        kept: set[str] = set()
        for crd in self.store.list(CRD_KEY, None, shared=True)[0]:
            if served(crd):
                kept.add(crd["metadata"]["name"])
            if not is_established(crd):
                continue
            base = self._serving(crd)
            if base is not None:
                out.append(base)
        for name in set(self._cache) - kept:
            del self._cache[name]
            self._views.pop(name, None)
        return out

    def served(self, crd_name: str) -> list[GroupStore]:
        """Every served version's store of a CRD (the storage version's first), as the last `stores()` left them."""
        base = self._cache.get(crd_name)
        return [base[1], *self._views.get(crd_name, {}).values()] if base is not None else []

    def crd_key(self, crd_name: str) -> tuple[Any, Any, str] | None:
        """The CRD's `crd_key` now (None when it is gone or not established)."""
        try:
            crd = self.store.get(CRD_KEY, "", crd_name, shared=True)
        except KeyNotFoundError:
            return None
        return crd_key(crd) if is_established(crd) else None

    def views(self, refresh: bool = True) -> list[CustomResourceView]:
        """The served versions other than the storage versions (discovery lists them too); `refresh=False`: as
        the last `stores()` left them (a caller that has just asked for the stores)."""
        if refresh:
            self.stores()
        return [v for views in self._views.values() for v in views.values()]

    def lookup(self, group: str, plural: str, version: str = "") -> GroupStore | None:
        """The store serving `plural` in `group` (in `version` when given: None when not served)."""
        try:
            crd = self.store.get(CRD_KEY, "", f"{plural}.{group}", shared=True)
        except KeyNotFoundError:
            return None
        if not served(crd):
            return None
        base = self._serving(crd)
        if base is None or not version or version == base.version:
            return base
        return self._views.get(base.crd_name, {}).get(version)

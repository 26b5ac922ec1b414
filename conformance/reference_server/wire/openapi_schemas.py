"""OpenAPI schema definitions of the served kinds, generated from the shared field model.

kubectl reads these for client-side validation and, in ``kubectl apply``, for the strategic-merge
patch metadata (``x-kubernetes-patch-merge-key`` / ``-patch-strategy`` / ``-list-type``). The
same model answers ``known_fields`` for ``fieldValidation=Strict``.

A `+default=` marker's value (`markers.DEFAULTS`), and the zero value openapi-gen gives a field that is neither a
pointer nor `omitempty` (`mustEnforceDefault`; here: a required scalar, `REQUIRED`, which openapi-gen marks required
for the same reason), are published in v3 only: kube-apiserver 1.33 prunes every
`default` from its v2 definitions (k8s.io/apiserver `pkg/server/routes/openapi.go` `InstallV2` calls kube-openapi's
`handler.PruneDefaults`; kube-aggregator's merged spec and the CRD controller's v2 specs do the same), while its v3
documents, and the field manager's type converter built from them (`getOpenAPIModels`), keep them.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

from . import markers, schema
from .schema import Field

_PREFIX = {
    "core": "io.k8s.api.core.v1",
    "meta": "io.k8s.apimachinery.pkg.apis.meta.v1",
    "resource": "io.k8s.apimachinery.pkg.api.resource",
    "intstr": "io.k8s.apimachinery.pkg.util.intstr",
    "runtime": "io.k8s.apimachinery.pkg.runtime",
    # the named groups' packages (a group added to `schema.GROUP_KINDS` gets its prefix below)
    "autoscaling": "io.k8s.api.autoscaling.v1",
    "authentication": "io.k8s.api.authentication.v1",
    "authorization": "io.k8s.api.authorization.v1",
    **{package: f"io.k8s.api.{gv.split('/')[0].split('.')[0]}.{gv.split('/')[1]}"
       for gv, (package, _) in schema.GROUP_KINDS.items()},
}
_SCALARS: dict[str, dict[str, str]] = {
    "s": {"type": "string"}, "b": {"type": "boolean"}, "y": {"type": "string", "format": "byte"},
    "i32": {"type": "integer", "format": "int32"}, "i64": {"type": "integer", "format": "int64"},
    "u32": {"type": "integer", "format": "int32"}, "u64": {"type": "integer", "format": "int64"},
    "f32": {"type": "number", "format": "float"}, "f64": {"type": "number", "format": "double"},
}


# openapi-gen's zero `Default:` of a Go builtin (`OpenAPIZeroValue`); `[]byte` ("y") is a slice: none
_ZERO: dict[str, Any] = {"s": "", "b": False, "i32": 0, "i64": 0, "u32": 0, "u64": 0, "f32": 0, "f64": 0}


def _merge(key: str, strategy: str = "merge", *map_keys: str) -> dict[str, Any]:
    return {"x-kubernetes-patch-merge-key": key, "x-kubernetes-patch-strategy": strategy,
            "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": list(map_keys or (key,))}


_ATOMIC = {"x-kubernetes-list-type": "atomic"}
# Upstream's +patchMergeKey / +patchStrategy / +listType markers for the fields of served kinds.
PATCH_META: dict[str, dict[str, Any]] = {
    "meta.ObjectMeta.finalizers": {"x-kubernetes-patch-strategy": "merge", "x-kubernetes-list-type": "set"},
    "meta.ObjectMeta.ownerReferences": _merge("uid"),
    "meta.ObjectMeta.managedFields": _ATOMIC,
    "core.NamespaceSpec.finalizers": _ATOMIC,
    "core.NamespaceStatus.conditions": _merge("type"),
    "core.PodSpec.containers": _merge("name"),
    "core.PodSpec.initContainers": _merge("name"),
    "core.PodSpec.ephemeralContainers": _merge("name"),
    "core.PodSpec.volumes": _merge("name", "merge,retainKeys"),
    "core.PodSpec.imagePullSecrets": _merge("name"),
    "core.PodSpec.hostAliases": _merge("ip"),
    "core.PodSpec.tolerations": _ATOMIC,
    "core.PodSpec.readinessGates": _ATOMIC,
    "core.PodSpec.topologySpreadConstraints": _merge("topologyKey", "merge", "topologyKey", "whenUnsatisfiable"),
    "core.PodSpec.resourceClaims": _merge("name", "merge,retainKeys"),
    "core.PodSpec.schedulingGates": _merge("name"),
    "core.PodStatus.conditions": _merge("type"),
    "core.PodStatus.podIPs": _merge("ip"),
    "core.Container.ports": _merge("containerPort", "merge", "containerPort", "protocol"),
    "core.Container.env": _merge("name"),
    "core.Container.volumeMounts": _merge("mountPath"),
    "core.Container.volumeDevices": _merge("devicePath"),
    "core.EphemeralContainerCommon.ports": _merge("containerPort", "merge", "containerPort", "protocol"),
    "core.EphemeralContainerCommon.env": _merge("name"),
    "core.EphemeralContainerCommon.volumeMounts": _merge("mountPath"),
    "core.EphemeralContainerCommon.volumeDevices": _merge("devicePath"),
    "core.PodStatus.hostIPs": _merge("ip"),
    "core.Container.envFrom": _ATOMIC,
    "core.Container.command": _ATOMIC,
    "core.Container.args": _ATOMIC,
    "core.Container.resizePolicy": _ATOMIC,
    "core.ServiceSpec.ports": _merge("port", "merge", "port", "protocol"),
    "core.ServiceSpec.clusterIPs": _ATOMIC,
    "core.ServiceSpec.ipFamilies": _ATOMIC,
    "core.ServiceSpec.externalIPs": _ATOMIC,
    "core.ServiceSpec.selector": {"x-kubernetes-map-type": "atomic"},
    "core.ServiceStatus.conditions": _merge("type"),
    "core.ServiceAccount.secrets": _merge("name"),
    "core.ServiceAccount.imagePullSecrets": _ATOMIC,
    "core.LimitRangeSpec.limits": _ATOMIC,
    "core.Endpoints.subsets": _ATOMIC,
    "core.EndpointSubset.addresses": _ATOMIC,
    "core.EndpointSubset.notReadyAddresses": _ATOMIC,
    "core.EndpointSubset.ports": _ATOMIC,
    "core.Capabilities.add": _ATOMIC,
    "core.Capabilities.drop": _ATOMIC,
    "meta.DeleteOptions.dryRun": _ATOMIC,
}
PATCH_META.update({k: v for k, v in markers.FIELD_MARKERS.items() if k not in PATCH_META})
_SPEC_STATUS = "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status"
_NS_DOCS = "https://kubernetes.io/docs/tasks/administer-cluster/namespaces/"
# Upstream's doc comments as its OpenAPI carries them (`kubectl explain` prints them), for the Namespace types;
# keyed by message, or message.field. Other messages have none yet.
DESCRIPTIONS: dict[str, str] = {
    "core.Namespace": "Namespace provides a scope for Names. Use of multiple namespaces is optional.",
    "core.Namespace.metadata": "Standard object's metadata. More info: "
                               "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"
                               "#metadata",
    "core.Namespace.spec": f"Spec defines the behavior of the Namespace. More info: {_SPEC_STATUS}",
    "core.Namespace.status": f"Status describes the current status of a Namespace. More info: {_SPEC_STATUS}",
    "core.NamespaceSpec": "NamespaceSpec describes the attributes on a Namespace.",
    "core.NamespaceSpec.finalizers": "Finalizers is an opaque list of values that must be empty to permanently "
                                     f"remove object from storage. More info: {_NS_DOCS}",
    "core.NamespaceStatus": "NamespaceStatus is information about the current status of a Namespace.",
    "core.NamespaceStatus.phase": f"Phase is the current lifecycle phase of the namespace. More info: {_NS_DOCS}\n\n"
                                  "Possible enum values:\n"
                                  ' - `"Active"` means the namespace is available for use in the system\n'
                                  ' - `"Terminating"` means the namespace is undergoing graceful termination',
    "core.NamespaceStatus.conditions": "Represents the latest available observations of a namespace's current "
                                       "state.",
    "core.NamespaceCondition": "NamespaceCondition contains details about state of namespace.",
    "core.NamespaceCondition.type": "Type of namespace controller condition.",
    "core.NamespaceCondition.status": "Status of the condition, one of True, False, Unknown.",
    "core.NamespaceCondition.lastTransitionTime": "Last time the condition transitioned from one status to "
                                                  "another.",
    "core.NamespaceCondition.reason": "Unique, one-word, CamelCase reason for the condition's last transition.",
    "core.NamespaceCondition.message": "Human-readable message indicating details about last transition.",
}
ENUMS: dict[str, list[str]] = {"core.NamespaceStatus.phase": ["Active", "Terminating"]}
REQUIRED: dict[str, list[str]] = {
    "core.Container": ["name"], "core.EphemeralContainer": ["name"], "core.ContainerPort": ["containerPort"],
    "core.EnvVar": ["name"], "core.Volume": ["name"], "core.VolumeMount": ["name", "mountPath"],
    "core.KeyToPath": ["key", "path"], "core.PodSpec": ["containers"], "core.ServicePort": ["port"],
    "core.LimitRangeSpec": ["limits"], "core.LimitRangeItem": ["type"],
    "core.Event": ["metadata", "involvedObject"], "core.Binding": ["target"],
    "core.EndpointAddress": ["ip"], "core.EndpointPort": ["port"],
    "meta.OwnerReference": ["apiVersion", "kind", "name", "uid"],
    "meta.LabelSelectorRequirement": ["key", "operator"],
    "meta.ManagedFieldsEntry": [], "meta.Condition": ["type", "status", "lastTransitionTime", "reason", "message"],
    # the items of the pod and namespace list-maps (k8s.io/api core/v1/types.go 1.33: fields without omitempty),
    # whose keys server-side apply defaults to their zero values
    "core.VolumeDevice": ["name", "devicePath"], "core.ResourceStatus": ["name"], "core.ResourceHealth": ["resourceID"],
    "core.NamespaceCondition": ["type", "status"], "core.PersistentVolumeClaimCondition": ["type", "status"],
    "core.PodCondition": ["type", "status"], "core.HostAlias": ["ip"], "core.HostIP": ["ip"], "core.PodIP": ["ip"],
    "core.PodResourceClaim": ["name"], "core.PodResourceClaimStatus": ["name"], "core.PodSchedulingGate": ["name"],
    "core.TopologySpreadConstraint": ["maxSkew", "topologyKey", "whenUnsatisfiable"], "core.ResourceClaim": ["name"],
    **markers.REQUIRED,
}


def definition_name(message: str) -> str:
    """OpenAPI definition name of a message (``core.Pod`` -> ``io.k8s.api.core.v1.Pod``)."""
    pkg, _, name = message.partition(".")
    return f"{_PREFIX[pkg]}.{name}"


def _special(message: str, v3: bool) -> dict[str, Any] | None:
    """Definitions of messages that are JSON scalars."""
    if message in ("meta.Time", "meta.MicroTime"):
        return {"type": "string", "format": "date-time"}
    if message == "resource.Quantity":
        return {"oneOf": [{"type": "string"}, {"type": "number"}]} if v3 else {"type": "string"}
    if message == "intstr.IntOrString":
        base: dict[str, Any] = {"format": "int-or-string", "x-kubernetes-int-or-string": True}
        return {**base, "oneOf": [{"type": "integer"}, {"type": "string"}]} if v3 else {"type": "string", **base}
    if message == "meta.FieldsV1":
        return {"type": "object"}
    if message in schema.STRING_LIST_MESSAGES:  # Go `type ExtraValue []string`
        return {"type": "array", "items": {"type": "string"}}
    if message == "runtime.RawExtension":  # any JSON object (ControllerRevision.data)
        return {"type": "object"}
    return None


def _ref(message: str, v3: bool) -> dict[str, Any]:
    if v3 and message in schema.JSON_SCALAR_MESSAGES:  # its own UnmarshalJSON: no default (`mustEnforceDefault`)
        return {"$ref": f"#/components/schemas/{definition_name(message)}"}
    if v3:  # kube-openapi v3 style: allOf-wrapped ref so siblings (default, description) are legal
        return {"allOf": [{"$ref": f"#/components/schemas/{definition_name(message)}"}], "default": {}}
    return {"$ref": f"#/definitions/{definition_name(message)}"}


def _field_schema(f: Field, v3: bool) -> dict[str, Any]:
    if f.type in schema.STRING_LIST_MESSAGES:  # inlined, as upstream publishes `map[string]ExtraValue`
        value: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
    else:
        value = _ref(f.type, v3) if f.is_message else dict(_SCALARS[f.type])
        if v3 and (f.repeated or f.map_key is not None) and f.type in _ZERO:  # an element held by value: its zero
            value["default"] = _ZERO[f.type]
    if f.map_key is not None:
        out: dict[str, Any] = {"type": "object", "additionalProperties": value}
    elif f.repeated:
        out = {"type": "array", "items": value}
    else:
        out = value
    if f.qualified in DESCRIPTIONS:
        out = {"description": DESCRIPTIONS[f.qualified], **out}
    if f.qualified in ENUMS:
        out["enum"] = list(ENUMS[f.qualified])
    if v3 and f.qualified in markers.DEFAULTS:  # v2: pruned (`handler.PruneDefaults`, see the module's docstring)
        out["default"] = markers.DEFAULTS[f.qualified]
    elif v3 and f.type in _ZERO and f.map_key is None and not f.repeated and f.name in REQUIRED.get(f.message, ()):
        out["default"] = _ZERO[f.type]  # openapi-gen's `mustEnforceDefault`: a required (non-omitempty) scalar
    out = {**out, **PATCH_META.get(f.qualified, {})}
    if v3 and "$ref" in out and len(out) > 1:  # a described reference goes under `allOf` (builder3's `WrapRefs`)
        out = {"allOf": [{"$ref": out.pop("$ref")}], **out}
    return out


@lru_cache(maxsize=None)
def message_schema(message: str, v3: bool) -> dict[str, Any]:
    """The schema of one message, inlined structs flattened as Go's JSON does (memoised: callers must not
    change it)."""
    special = _special(message, v3)
    if special is not None:
        return special
    props: dict[str, Any] = {}
    for name, f in schema.json_fields(message).items():
        props[name] = _field_schema(f, v3)
    out: dict[str, Any] = {"type": "object", "properties": props}
    if message in DESCRIPTIONS:
        out = {"description": DESCRIPTIONS[message], **out}
    if REQUIRED.get(message):
        out["required"] = REQUIRED[message]
    if message in markers.ATOMIC_STRUCTS:
        out["x-kubernetes-map-type"] = "atomic"
    return out


def closure(roots: list[str]) -> list[str]:
    """Every message reachable from the roots (through inlined structs too)."""
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        m = stack.pop()
        if m in seen:
            continue
        seen.add(m)
        stack.extend(f.type for f in schema.fields(m) if f.is_message and f.type not in schema.STRING_LIST_MESSAGES)
    return sorted(seen)


@lru_cache(maxsize=None)
def _known(message: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, f in schema.json_fields(message).items():
        nested = f.is_message and f.type not in schema.JSON_SCALAR_MESSAGES and f.map_key is None
        out[name] = _known(f.type) if nested else None
    return out


def known_fields(kind: str, message: str | None = None) -> dict[str, Any]:
    """Nested dict of the JSON fields a kind accepts, for ``fieldValidation=Strict``: a core kind's by its name, a
    named group's by its field-model `message` (`apps.Deployment`).

    A value is None for a leaf (scalar, map, timestamp, quantity...) or the nested dict for an
    object; for a list of objects it describes each element. KeyError for an unknown kind.
    """
    found = message if message is not None else schema.KIND_MESSAGES[kind]
    if found not in schema.MESSAGES:
        raise KeyError(found)
    return {"apiVersion": None, "kind": None, **copy.deepcopy(_known(found))}


@lru_cache(maxsize=1)
def object_meta_fields() -> dict[str, Any]:
    """`metav1.ObjectMeta`'s nested field model (an owner reference's and a managed-fields entry's fields too), for
    a custom resource's `metadata` and an embedded resource's, decoded strictly into it (objectmeta/coerce.go).
    Shared: callers must not change it."""
    return _known("meta.ObjectMeta")


def unknown_in(obj: dict[str, Any], model: dict[str, Any], prefix: str, drop: bool) -> list[str]:
    """The paths of the fields of `obj` its Go type's field model (`known_fields`, or a part of it) does not know,
    as sigs.k8s.io/json's strict decoder names them (`a.b[0].c`, after `prefix`); with `drop`, deleted from `obj`."""
    out: list[str] = []
    for key in list(obj):
        if key not in model:
            out.append(prefix + key)
            if drop:
                del obj[key]
        elif isinstance(model[key], dict):
            value = obj[key]
            items = value if isinstance(value, list) else [value]
            for i, item in enumerate(items):
                if isinstance(item, dict):
                    where = f"{prefix}{key}[{i}]." if isinstance(value, list) else f"{prefix}{key}."
                    out += unknown_in(item, model[key], where, drop)
    return out

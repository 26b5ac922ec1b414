"""How structured-merge-diff sees the served kinds: which lists merge by key (`x-kubernetes-list-type: map`
with `x-kubernetes-list-map-keys`), which are sets, which are atomic, and which maps are atomic.

Built-in kinds follow the `+listType`/`+listMapKey`/`+structType`/`+mapType` markers of
`staging/src/k8s.io/api/core/v1/types.go` (and `meta/v1`, `apps/v1`) that their OpenAPI publishes. Custom
resources follow their CRD's structural schema as structured-merge-diff reads it (`schemaconv` of
`kube-openapi`, `apiextensions-apiserver`'s type converter): `x-kubernetes-list-type` (`atomic`, `set`, `map`
with `x-kubernetes-list-map-keys`; a key's `default` fills an item that omits it), `x-kubernetes-map-type:
atomic`; a list without a list type is atomic, a map granular; a custom resource's `metadata` is ObjectMeta.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ATOMIC, SET, MAP = "atomic", "set", "map"


@dataclass(frozen=True)
class ListType:
    kind: str                               # atomic | set | map
    keys: tuple[str, ...] = ()
    defaults: tuple[tuple[str, Any], ...] = ()   # key fields with an OpenAPI default (ports' protocol)


_ATOMIC = ListType(ATOMIC)
_SET = ListType(SET)
_PORT_DEFAULT = (("protocol", "TCP"),)
_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")

# (parent field, field) → list type; the parent of a list item's field is the list's own field name.
_BY_PARENT: dict[tuple[str, str], ListType] = {
    ("metadata", "finalizers"): _SET,
    ("metadata", "ownerReferences"): ListType(MAP, ("uid",)),
    ("metadata", "managedFields"): _ATOMIC,
    **{(c, "ports"): ListType(MAP, ("containerPort", "protocol"), _PORT_DEFAULT) for c in _CONTAINER_LISTS},
    **{(c, "env"): ListType(MAP, ("name",)) for c in _CONTAINER_LISTS},
    **{(c, "volumeMounts"): ListType(MAP, ("mountPath",)) for c in _CONTAINER_LISTS},
    **{(c, "volumeDevices"): ListType(MAP, ("devicePath",)) for c in _CONTAINER_LISTS},
    ("spec", "ports"): ListType(MAP, ("port", "protocol"), _PORT_DEFAULT),   # ServiceSpec
}
_BY_FIELD: dict[str, ListType] = {
    **{c: ListType(MAP, ("name",)) for c in _CONTAINER_LISTS},
    "volumes": ListType(MAP, ("name",)),
    "imagePullSecrets": ListType(MAP, ("name",)),
    "hostAliases": ListType(MAP, ("ip",)),
    "topologySpreadConstraints": ListType(MAP, ("topologyKey", "whenUnsatisfiable")),
    "resourceClaims": ListType(MAP, ("name",)),
    "schedulingGates": ListType(MAP, ("name",)),
    "conditions": ListType(MAP, ("type",)),
}
# ServiceAccount: `secrets` merge by name; its imagePullSecrets are atomic.
_KIND_TOP: dict[str, dict[str, ListType]] = {
    "ServiceAccount": {"secrets": ListType(MAP, ("name",)), "imagePullSecrets": _ATOMIC},
}
# `+structType=atomic` / `+mapType=atomic` maps: LabelSelector (workloads, PDBs, quotas' scope selectors)
_ATOMIC_MAP_KINDS_SELECTOR = frozenset({"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job",
                                        "PodDisruptionBudget"})


_MEMO_LIMIT = 4096


@dataclass(frozen=True)
class Schema:
    """The merge rules of one kind (names: the field names from the root, list items skipped).

    `crd_schema` is a custom resource's `openAPIV3Schema` (None: every list atomic, every map granular)."""

    kind: str
    builtin: bool = True
    crd_schema: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    _memo: dict[tuple[str, ...], tuple[ListType, bool]] = field(default_factory=dict, compare=False, hash=False,
                                                                 repr=False)

    def list_type(self, names: tuple[str, ...]) -> ListType:
        if not names:
            return _ATOMIC
        if not self.builtin:
            return self._custom(names)[0] if names[0] != "metadata" else _builtin_list_type("", names)
        return _builtin_list_type(self.kind, names)

    def atomic_map(self, names: tuple[str, ...]) -> bool:
        """LabelSelector is `+structType=atomic`; a Service's selector is `+mapType=atomic`."""
        if not self.builtin:
            return bool(names) and names[0] != "metadata" and self._custom(names)[1]
        if names != ("spec", "selector"):
            return False
        return self.kind in _ATOMIC_MAP_KINDS_SELECTOR or self.kind == "Service"

    def _custom(self, names: tuple[str, ...]) -> tuple[ListType, bool]:
        """(list type, atomic map) at `names` in the CRD's schema, memoised: the schema never changes under a
        store (a changed CRD gets a new store)."""
        hit = self._memo.get(names)
        if hit is None:
            if len(self._memo) >= _MEMO_LIMIT:  # names include map keys: bound what arbitrary data can add
                self._memo.clear()
            node = _crd_node(self.crd_schema, names)
            hit = self._memo[names] = (_crd_list_type(node), node.get("x-kubernetes-map-type") == "atomic")
        return hit


def _builtin_list_type(kind: str, names: tuple[str, ...]) -> ListType:
    name = names[-1]
    if len(names) == 1 and name in _KIND_TOP.get(kind, {}):
        return _KIND_TOP[kind][name]
    parent = names[-2] if len(names) > 1 else ""
    return _BY_PARENT.get((parent, name)) or _BY_FIELD.get(name) or _ATOMIC


def _crd_node(schema: dict[str, Any] | None, names: tuple[str, ...]) -> dict[str, Any]:
    """The schema at `names` (list items are stepped through; a map's key takes its value schema)."""
    node: Any = schema if isinstance(schema, dict) else {}
    for name in names:
        while isinstance(node.get("items"), dict):
            node = node["items"]
        props = node.get("properties") or {}
        if isinstance(props, dict) and isinstance(props.get(name), dict):
            node = props[name]
        elif isinstance(node.get("additionalProperties"), dict):
            node = node["additionalProperties"]
        else:
            return {}
    return node


def _crd_list_type(node: dict[str, Any]) -> ListType:
    kind = node.get("x-kubernetes-list-type")
    if kind == SET:
        return _SET
    if kind != MAP:
        return _ATOMIC
    keys = tuple(k for k in node.get("x-kubernetes-list-map-keys") or () if isinstance(k, str))
    item_props = (node.get("items") or {}).get("properties") or {}
    defaults = tuple((k, item_props[k]["default"]) for k in keys
                     if isinstance(item_props.get(k), dict) and "default" in item_props[k])
    return ListType(MAP, keys, defaults) if keys else _ATOMIC

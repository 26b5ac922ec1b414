"""How structured-merge-diff sees the served kinds: which lists merge by key (`x-kubernetes-list-type: map`
with `x-kubernetes-list-map-keys`), which are sets, which are atomic, and which maps are atomic.

Built-in kinds follow the `+listType`/`+listMapKey`/`+structType`/`+mapType` markers of
`staging/src/k8s.io/api/core/v1/types.go` (and `meta/v1`, `apps/v1`) that their OpenAPI publishes. Custom
resources (a CRD's schema without list-type hints) get structured-merge-diff's defaults: every list atomic,
every map granular.
"""
from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class Schema:
    """The merge rules of one kind (names: the field names from the root, list items skipped)."""

    kind: str
    builtin: bool = True

    def list_type(self, names: tuple[str, ...]) -> ListType:
        if not self.builtin or not names:
            return _ATOMIC
        name = names[-1]
        if len(names) == 1 and name in _KIND_TOP.get(self.kind, {}):
            return _KIND_TOP[self.kind][name]
        parent = names[-2] if len(names) > 1 else ""
        return _BY_PARENT.get((parent, name)) or _BY_FIELD.get(name) or _ATOMIC

    def atomic_map(self, names: tuple[str, ...]) -> bool:
        """LabelSelector is `+structType=atomic`; a Service's selector is `+mapType=atomic`."""
        if not self.builtin or names != ("spec", "selector"):
            return False
        return self.kind in _ATOMIC_MAP_KINDS_SELECTOR or self.kind == "Service"

"""Strategic-merge patch metadata of a served kind, read from the OpenAPI definitions this server publishes.

Upstream's strategic merge (`apimachinery/pkg/util/strategicpatch`, `PatchMetaFromStruct` /
`PatchMetaFromOpenAPI`) takes each field's `patchStrategy` / `patchMergeKey` from the Go struct tags, which
kube-openapi publishes as `x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key`. Here the published
definitions (`openapi_schemas.PATCH_META` and `markers`, for every kind of the field model) are the one
source: what `kubectl apply` diffs with is what the server merges with. A field the schema does not describe
(free-form status, a field unknown to the model) has no strategy: its maps merge, its lists are replaced.

Nodes are built once per kind (`warm` builds the built-in kinds' at start-up) and memoise their children, so a
request only follows dictionaries.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

_GO_SCALARS = {"string": "string", "boolean": "bool", "number": "float64"}


def resolve(defs: dict[str, Any], schema: Any) -> dict[str, Any]:
    """The definition a schema position stands for: `$ref` (v2) or kube-openapi's allOf-wrapped reference,
    followed up to 8 times; {} for anything else."""
    for _ in range(8):
        if not isinstance(schema, dict):
            return {}
        ref = schema.get("$ref") or next((s.get("$ref") for s in schema.get("allOf") or []
                                          if isinstance(s, dict) and "$ref" in s), None)
        if not ref:
            return schema
        schema = defs.get(ref.rsplit("/", 1)[-1])
    return {}


class Node:
    """One schema position: its patch strategies and merge key, and the nodes below it."""

    __slots__ = ("_defs", "_schema", "strategies", "merge_key", "_children", "_items")

    def __init__(self, defs: dict[str, Any], schema: dict[str, Any] | None):
        self._defs = defs
        self._schema = schema or {}
        raw = self._schema.get("x-kubernetes-patch-strategy") or ""
        self.strategies: tuple[str, ...] = tuple(s for s in raw.split(",") if s)
        self.merge_key: str = self._schema.get("x-kubernetes-patch-merge-key") or ""
        self._children: dict[str, Node] = {}
        self._items: Node | None = None

    def _resolved(self, schema: dict[str, Any] | None) -> dict[str, Any]:
        return resolve(self._defs, schema)

    def field(self, name: str) -> Node:
        """The node of a map's key: a struct's property, else the map's value schema; empty when unknown."""
        child = self._children.get(name)
        if child is None:
            own = self._resolved(self._schema)
            props = own.get("properties") or {}
            sub = props.get(name)
            if sub is None and isinstance(own.get("additionalProperties"), dict):
                sub = own["additionalProperties"]
            child = self._children[name] = Node(self._defs, sub)
        return child

    def items(self) -> Node:
        """The node of a list's elements."""
        if self._items is None:
            own = self._resolved(self._schema)
            self._items = Node(self._defs, self._resolved(own.get("items")))
        return self._items

    def go_kind(self) -> str:
        """`reflect.Kind` of the Go type this node stands for (upstream's error messages name it)."""
        own = self._resolved(self._schema)
        typ = own.get("type")
        if typ == "integer":
            return "int64" if own.get("format") == "int64" else "int32"
        if typ == "object" and "additionalProperties" in own:
            return "map"
        if typ == "array":
            return "slice"
        return _GO_SCALARS.get(typ or "", "struct")


@lru_cache(maxsize=512)
def for_kind(group: str, version: str, kind: str) -> Node:
    """The root node of a served kind (an empty node for a kind without a published schema)."""
    from .openapi import kind_schema  # the OpenAPI model loads on the first strategic patch, not at start-up
    defs, root = kind_schema(group, version, kind)
    return Node(defs, root)


EMPTY = Node({}, None)


def warm() -> None:
    """Build every built-in kind's node ahead of use (the server's start-up warm-up thread calls this), so no
    request builds one on the event loop."""
    from .schema import GROUP_KINDS, KIND_MESSAGES
    for kind in KIND_MESSAGES:
        for_kind("", "v1", kind)
    for group_version, (_, kinds) in GROUP_KINDS.items():
        group, _, version = group_version.rpartition("/")
        for kind in kinds:
            for_kind(group, version, kind)

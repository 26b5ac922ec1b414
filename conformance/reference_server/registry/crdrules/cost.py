"""The cost of a CRD's `x-kubernetes-validations` at write, as apiextensions-apiserver 1.33 (v0.33) estimates it:

- the sizes the estimator sees (`apiserver/pkg/cel/common/schemas.go` `SchemaDeclType`: `MaxElements` from maxItems,
  maxProperties, 4 x maxLength, the longest enum value, or what fits in a 3 MiB request given the elements'
  `MinSerializedSize`; `pkg/apiserver/schema/cel/compilation.go` `sizeEstimator`, `maxCardinality`);
- how often a rule may run (`pkg/apis/apiextensions/validation/cel_validation.go` `CELSchemaContext.MaxCardinality`:
  the product of maxItems/maxProperties above it, else `maxCardinality` of the node's minimum serialized size);
- the limits and messages of `validation.go` (`StaticEstimatedCostLimit` per expression, suppressed for a version
  whose schema an update leaves unchanged; `StaticEstimatedCRDCostLimit` for the whole schema, with the four most
  expensive rules above 1% of it named; `getCostErrorMessage`).

The expression's own estimate is `cel/cost.py`'s."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...apierrors import FieldError, field_forbidden

MAX_REQUEST_SIZE = 3 * 1024 * 1024  # celconfig.MaxRequestSizeBytes
PER_EXPRESSION_LIMIT = 10_000_000  # StaticEstimatedCostLimit
CRD_LIMIT = 100_000_000  # StaticEstimatedCRDCostLimit
_MAX = (1 << 64) - 1
# apiserver/pkg/cel/limits.go
_MIN_STRING, _MIN_BOOL, _MIN_NUMBER, _MIN_DURATION, _DATE, _MIN_DATETIME, _MAX_DURATION, _MAX_DATETIME = \
    2, 4, 1, 3, 12, 21, 32, 32


@dataclass
class Decl:
    """The parts of `apiservercel.DeclType` the estimate reads."""
    max_elements: int = 0
    min_size: int = 1
    fields: dict[str, Decl] = field(default_factory=dict)
    elem: Decl | None = None
    key: Decl | None = None


def _non_negative(v: Any) -> int:
    return max(int(v), 0)


def _string_max(schema: dict[str, Any]) -> int:
    """`estimateMaxStringLengthPerRequest`."""
    return {"duration": _MAX_DURATION, "date": _DATE, "date-time": _MAX_DATETIME}.get(schema.get("format"),
                                                                                   MAX_REQUEST_SIZE - 2)


def _with_type_and_object_meta(schema: dict[str, Any]) -> dict[str, Any]:
    """`WithTypeAndObjectMeta`: a resource's `kind`, `apiVersion` and `metadata.name`/`generateName`."""
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    meta = props.get("metadata") if isinstance(props.get("metadata"), dict) else {}
    meta_props = meta.get("properties") if isinstance(meta.get("properties"), dict) else None

    def typed(s: Any, t: str) -> bool:
        return isinstance(s, dict) and s.get("type") == t
    if props and typed(props.get("kind"), "string") and typed(props.get("apiVersion"), "string") \
            and typed(meta, "object") and meta_props is not None and typed(meta_props.get("name"), "string") \
            and typed(meta_props.get("generateName"), "string"):
        return schema
    string = {"type": "string"}
    return {**schema, "properties": {**props, "kind": string, "apiVersion": string, "metadata": {
        "type": "object", "properties": {"name": string, "generateName": string}}}}


def decl_type(schema: Any, root: bool = False) -> Decl | None:
    """`SchemaDeclType`: None where upstream declares no type (the field is not visible to CEL)."""
    from .compiler import escape
    if not isinstance(schema, dict):
        return None
    if schema.get("x-kubernetes-int-or-string"):
        return Decl(MAX_REQUEST_SIZE - 2, 1)
    if root:
        schema = _with_type_and_object_meta(schema)
    typ = schema.get("type")
    if typ == "array":
        items = schema.get("items")
        if not isinstance(items, dict):
            return None
        elem = decl_type(items, bool(items.get("x-kubernetes-embedded-resource")))
        if elem is None:
            return None
        most = _non_negative(schema["maxItems"]) if schema.get("maxItems") is not None else \
            (MAX_REQUEST_SIZE - 2) // (elem.min_size + 1)
        return Decl(most, 2, elem=elem)
    if typ == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            value = decl_type(extra, bool(extra.get("x-kubernetes-embedded-resource")))
            if value is None:
                return None
            most = _non_negative(schema["maxProperties"]) if schema.get("maxProperties") is not None else \
                (MAX_REQUEST_SIZE - 2) // (value.min_size + 6)
            return Decl(most, 2, elem=value, key=Decl(0, _MIN_STRING))
        required = set(schema.get("required") or []) if isinstance(schema.get("required"), list) else set()
        out = Decl(0, 2)
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        for name, prop in props.items():
            t = decl_type(prop, isinstance(prop, dict) and bool(prop.get("x-kubernetes-embedded-resource")))
            if t is None:
                continue
            escaped = escape(name)
            if escaped is not None:
                out.fields[escaped] = t
            if name in required and prop.get("default") is None:
                out.min_size += len(name.encode()) + t.min_size + 4
        return out
    if typ == "string":
        fmt = schema.get("format")
        if fmt == "byte":
            most = _non_negative(schema["maxLength"]) if schema.get("maxLength") is not None else _string_max(schema)
            return Decl(most, _MIN_STRING)
        if fmt in ("duration", "date", "date-time"):
            least = {"duration": _MIN_DURATION, "date": _DATE, "date-time": _MIN_DATETIME}[fmt]
            return Decl(_string_max(schema), least)
        if schema.get("maxLength") is not None:
            return Decl(_non_negative(schema["maxLength"]) * 4, _MIN_STRING)
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            return Decl(max([len(v.encode()) for v in enum if isinstance(v, str)] or [0]), _MIN_STRING)
        return Decl(_string_max(schema), _MIN_STRING)
    if typ == "boolean":
        return Decl(0, _MIN_BOOL)
    if typ in ("number", "integer"):
        return Decl(0, _MIN_NUMBER)
    return None


def size_estimator(root: Decl) -> Any:
    """compilation.go `sizeEstimator.EstimateSize`: the path (after its variable) walked through the node's type."""
    def estimate(path: tuple[str, ...], _t: Any) -> tuple[int, int] | None:
        node: Decl | None = root
        for name in path[1:]:
            assert node is not None
            if name in ("@items", "@values"):
                node = node.elem
            elif name == "@keys":
                node = node.key
            else:
                node = node.fields.get(name)
            if node is None:
                return None
        return 0, node.max_elements
    return estimate


def max_cardinality(min_size: int) -> int:
    """`maxCardinality`: how many times data of this minimum size fits in a request."""
    return MAX_REQUEST_SIZE // (min_size + 1)


def child_cardinality(parent: dict[str, Any], cardinality: int | None) -> int | None:
    """`childContext`: the parent's cardinality times its `extractMaxElements`; None is unbounded."""
    if cardinality is None:
        return None
    typ = parent.get("type")
    if typ == "object" and parent.get("additionalProperties") is not None:
        most = parent.get("maxProperties")
    elif typ == "array":
        most = parent.get("maxItems")
    else:
        most = 1
    if most is None:
        return None
    return _guarded_product(cardinality, _non_negative(most))


def _guarded_product(cost: int, cardinality: int) -> int:
    """`multiplyWithOverflowGuard`."""
    if cost == 0:
        return 0
    return min(cost * cardinality, _MAX)


def expression_cost(max_cost: int, cardinality: int | None, node: Decl) -> int:
    """`getExpressionCost`: the rule's cost times how often it may run."""
    return _guarded_product(max_cost, cardinality if cardinality is not None else max_cardinality(node.min_size))


def _go_float(x: float, decimals: int) -> str:
    return f"{x:.{decimals}f}"


def cost_message(name: str, cost: int, limit: int) -> str:
    """`getCostErrorMessage`."""
    exceed = float(cost) / float(limit)
    if exceed > 100.0:
        factor = "more than 100x"
    elif exceed < 1.5:
        factor = f"{_go_float(exceed, 6)}x"
    else:
        factor = f"{_go_float(exceed, 1)}x"
    return (f"{name} exceeds budget by factor of {factor} (try simplifying the rule, or adding maxItems, "
            "maxProperties, and maxLength where arrays, maps, and strings are declared)")


def over_limit(path: str, name: str, cost: int) -> FieldError | None:
    """The per-expression limit's error, None within it."""
    return field_forbidden(path, cost_message(name, cost, PER_EXPRESSION_LIMIT)) if cost > PER_EXPRESSION_LIMIT \
        else None


@dataclass
class TotalCost:
    """`TotalCost`: the schema's sum, and its four most expensive expressions above 1% of the CRD limit."""
    total: int = 0
    expensive: list[tuple[str, int]] = field(default_factory=list)

    def observe(self, path: str, cost: int) -> None:
        self.total = min(self.total + cost, _MAX)
        if cost < CRD_LIMIT // 100:
            return
        self.expensive.append((path, cost))
        self.expensive.sort(key=lambda pc: -pc[1])  # sort.Slice is not stable: ties may differ in order
        del self.expensive[4:]

    def errors(self, at: str) -> list[FieldError]:
        if self.total <= CRD_LIMIT:
            return []
        errs = [field_forbidden(p, "contributed to estimated rule cost total exceeding cost limit for entire "
                                   "OpenAPIv3 schema") for p, _ in self.expensive]
        errs.append(field_forbidden(at, cost_message("x-kubernetes-validations estimated rule cost total for entire "
                                                     "OpenAPIv3 schema", self.total, CRD_LIMIT)))
        return errs

"""The Go types go-spew walks when kube-controller-manager hashes a pod template, and how a stored template's JSON
becomes their values.

The struct layouts come from `data/podtemplate_types.json`, generated from k8s.io/api and k8s.io/apimachinery
1.33 (`tools/templatehash/gotypes.py`: `core/v1/types.go`, `meta/v1/{types,time}.go`,
`resource/{quantity,amount}.go`, `intstr/intstr.go`). Values follow what the controller's informer holds: the
object as kube-apiserver stored it, read back as protobuf, so an empty list or map is nil (protobuf has no empty
repeated field), a pointer is non-nil exactly when the JSON has the field, and JSON fields the struct lacks are
dropped. Four types decode from JSON by their own rules, modelled here from their `Unmarshal` methods:
- `resource.Quantity`: the canonical string kube-apiserver wrote (`"0"` for an absent one: the field is not a
  pointer), parsed by `ParseQuantity` (int64 fast path: `i`, the kept string `s`, `Format`; otherwise an
  `*inf.Dec` rounded up to scale 9, `quantity.go`);
- `intstr.IntOrString`: `Type` 0 with `IntVal`, or 1 with `StrVal` (`intstr.go`);
- `metav1.Time` and its `time.Time` (`wall`, `ext`, `loc`): zero for an absent or null timestamp. A set one is
  `time.Unix(...).Local()` upstream, whose `*time.Location` depends on the controller's time zone data; it is
  printed here as a UTC time without a location (not upstream's bytes: templates carry no timestamps in practice).
"""
from __future__ import annotations

import datetime as _dt
import functools
import json
import math
import pathlib
from fractions import Fraction
from typing import Any, Callable, Optional

from ....quantity import MAX_INT64, Quantity, QuantityError, int64_amount

DATA = pathlib.Path(__file__).resolve().parent / "data" / "podtemplate_types.json"
ROOT = "k8s.io/api/core/v1.PodTemplateSpec"
Value = Any
UNIX_TO_INTERNAL = 62135596800  # time.go: seconds from year 1 to 1970


class Go(dict):
    """A struct value already in Go's shape (field name → value), as the special decoders make them."""


class GoType:
    """One Go type: its printed name (reflect's `Type.String()`), kind, and element/key/fields."""

    def __init__(self, name: str, kind: str, elem: "GoType | None" = None, key: "GoType | None" = None,
                 decoder: Optional[Callable[[Any], Any]] = None):
        self.name, self.kind, self.elem, self.key, self.decoder = name, kind, elem, key, decoder
        self.fields: list[tuple[str, GoType]] = []
        self._json: list[tuple[str, Any]] = []  # (Go name, JSON name; None = inline, "-" = never from JSON)

    def go_fields(self, v: Any) -> dict[str, Any]:
        """A struct's field values from its JSON object (an inline embedded struct reads the same object)."""
        obj = v if isinstance(v, dict) else {}
        return {name: (obj if js is None else None if js == "-" else obj.get(js)) for name, js in self._json}


def _basic(name: str) -> GoType:
    return GoType(name, name)


def _struct(name: str, fields: list[tuple[str, GoType]], decoder: Optional[Callable[[Any], Any]] = None) -> GoType:
    t = GoType(name, "struct", decoder=decoder)
    t.fields = fields
    t._json = [(f, f) for f, _ in fields]
    return t


class Model:
    """The type table, resolved into `GoType`s (shared, recursive types built once)."""

    def __init__(self, table: dict[str, Any]):
        self.table = table["types"]
        self.named: dict[str, GoType] = {}
        self._externals()

    def _externals(self) -> None:
        """`time.Time` and `inf.Dec` (with `big.Int`): outside the generated table, their fields as in Go."""
        location = _struct("time.Location", [])
        self.named["time.Time"] = _struct("time.Time", [
            ("wall", _basic("uint64")), ("ext", _basic("int64")), ("loc", GoType("*time.Location", "ptr", location))])
        nat = GoType("big.nat", "slice", GoType("big.Word", "uint"))
        big_int = _struct("big.Int", [("neg", _basic("bool")), ("abs", nat)])
        self.named["gopkg.in/inf.v0.Dec"] = _struct("inf.Dec", [("unscaled", big_int),
                                                                 ("scale", GoType("inf.Scale", "int32"))])

    def resolve(self, expr: Any) -> GoType:
        if isinstance(expr, list):
            if expr[0] == "ptr":
                elem = self.resolve(expr[1])
                return GoType("*" + elem.name, "ptr", elem)
            if expr[0] == "slice":
                elem = self.resolve(expr[1])
                return GoType("[]" + elem.name, "slice", elem)
            key, elem = self.resolve(expr[1]), self.resolve(expr[2])
            return GoType(f"map[{key.name}]{elem.name}", "map", elem, key)
        if not expr.startswith("@"):
            return _basic(expr)
        return self.named_type(expr[1:])

    def named_type(self, key: str) -> GoType:
        if key in self.named:
            return self.named[key]
        decl = self.table[key]
        if "underlying" in decl:
            under = self.resolve(decl["underlying"])
            t = GoType(decl["name"], under.kind, under.elem, under.key)
            self.named[key] = t
            return t
        t = GoType(decl["name"], "struct", decoder=DECODERS.get(key))
        self.named[key] = t  # before the fields: types may refer to themselves (JSONSchemaProps-like)
        t.fields = [(name, self.resolve(expr)) for name, expr, _ in decl["fields"]]
        t._json = [(name, js) for name, _, js in decl["fields"]]
        return t


# ---- the types whose JSON is not their fields -------------------------------------------------------------
def _quantity(raw: Any) -> Go:
    """`Quantity.Unmarshal` of the canonical string kube-apiserver stored. An absent (zero) quantity is stored
    too, as `"0"` (its field is not a pointer, and protobuf writes `String()`)."""
    try:
        q = _capped(Quantity.parse(raw.strip() if isinstance(raw, str) else "0" if raw is None else raw))
    except QuantityError:
        q = Quantity.parse("0")
    text = q.canonical()  # what kube-apiserver wrote; the controller parses it again
    fast = int64_amount(text)
    if fast is not None:
        value, scale, kept, fmt = fast
        return Go(i=Go(value=value, scale=scale), d=Go(Dec=None), s=kept, Format=fmt)
    q = _capped(Quantity.parse(text))
    return Go(i=Go(value=0, scale=0), d=Go(Dec=_inf_dec(q)), s="", Format=q.format)


def _capped(q: Quantity) -> Quantity:
    """`ParseQuantity`'s cap: a BinarySI magnitude above `maxAllowed` (the largest int64) becomes it."""
    if q.format == "BinarySI" and abs(q.value) > MAX_INT64:
        return Quantity(Fraction(MAX_INT64 if q.value > 0 else -MAX_INT64), q.format)
    return q


def _inf_dec(q: Quantity) -> Go:
    """`ParseQuantity`'s inf.Dec path for a non-zero value: rounded up (away from zero) to scale 9, as a
    `big.Int` (sign and 64-bit words, least significant first) and the scale."""
    unscaled = math.ceil(abs(q.value) * 10 ** 9)
    words = []
    while unscaled:
        words.append(unscaled & 0xFFFFFFFFFFFFFFFF)
        unscaled >>= 64
    return Go(unscaled=Go(neg=q.value < 0, abs=words), scale=9)


def _int_or_string(raw: Any) -> Go:
    """`IntOrString.UnmarshalJSON`: a JSON string is Type 1 (String), a number Type 0 (Int)."""
    if isinstance(raw, str):
        return Go(Type=1, IntVal=0, StrVal=raw)
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return Go(Type=0, IntVal=int(raw), StrVal="")
    return Go(Type=0, IntVal=0, StrVal="")


def _meta_time(raw: Any) -> Go:
    """`metav1.Time`: zero for null; otherwise (see the module's note) the instant, UTC, no location."""
    if not isinstance(raw, str) or not raw:
        return Go(Time=Go(wall=0, ext=0, loc=None))
    try:
        t = _dt.datetime.strptime(raw, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.timezone.utc)
    except ValueError:
        return Go(Time=Go(wall=0, ext=0, loc=None))
    return Go(Time=Go(wall=0, ext=int(t.timestamp()) + UNIX_TO_INTERNAL, loc=None))


DECODERS: dict[str, Callable[[Any], Go]] = {
    "k8s.io/apimachinery/pkg/api/resource.Quantity": _quantity,
    "k8s.io/apimachinery/pkg/util/intstr.IntOrString": _int_or_string,
    "k8s.io/apimachinery/pkg/apis/meta/v1.Time": _meta_time,
}


@functools.lru_cache(maxsize=1)
def model() -> Model:
    with open(DATA, encoding="utf-8") as fh:
        return Model(json.load(fh))


def pod_template_spec() -> GoType:
    """`v1.PodTemplateSpec`, resolved."""
    return model().named_type(ROOT)


__all__ = ["Go", "GoType", "Model", "model", "pod_template_spec"]

"""A stored object of a built-in kind as kube-apiserver writes it once read back from storage: every field Go's
encoding/json writes when the body left it out, and none it leaves out.

kube-apiserver answers what it decoded from storage (k8s.io/apiserver `registry/generic/registry/store.go`
`Create`/`Update` hand `out` to etcd3 `store.go`, whose `Create` and `GuaranteedUpdate` decode the stored bytes
into it), and a built-in kind is stored as protobuf (the storage codec's default media type; a CRD and an
APIService are stored as JSON, `LegacyCodec`: `written_object` walks them by their own Go structs,
wire/gowritten_described.py; a custom resource is an unstructured map and does not come here).
Read back into the Go struct and written by encoding/json (sigs.k8s.io/json `encode.go`), a field is, by its Go
kind (`_gokinds_table.py`, generated from k8s.io/api's types by tools/goconvert/byvalue.py):

* a struct held by value: always written (`isEmptyValue` is false for a struct, `omitempty` or not), so an absent
  one is its zero value: `{}` with its own fields so written (a pod template's `metadata` is
  `{"creationTimestamp": null}`), or what its `MarshalJSON` writes for zero: a metav1.Time or MicroTime `null`
  (time.go, micro_time.go), a RawExtension `null` (extension.go), a resource.Quantity `"0"` (quantity.go), an
  IntOrString `0` (intstr.go);
* a string, number or bool: without `omitempty` written, `""`, `0` or `false` when absent (an Event's
  `reportingComponent`, an HPA's `status.desiredReplicas`); under it left out when zero (`"hostname": ""`,
  `"stdin": false`, `"nodePort": 0`);
* a pointer, slice or map: nil written `null` without `omitempty` and left out under it; an empty slice or map is
  no bytes in protobuf, so nil once read back: `"rules": []` is `"rules": null`, `"finalizers": []` and
  `"labels": {}` are left out (a `[]byte`'s `""` likewise).

Applied once on the write path (registry/store.py's stored form, in the same walk as before), so every answer,
list, watch event and YAML rendering of the stored object shows it and reads pay nothing; the field manager's
empty object gets only the `null`s (`zeros=False`), so a body's `null` there owns nothing. A CRD and an APIService,
outside the field model, are written by their own Go structs (`written_object`: wire/gowritten_described.py).
"""
from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple

from . import gowritten_described, schema
from ._gokinds_table import GO_KINDS

# what the `MarshalJSON` of a by-value type with one writes for its zero value
_MARSHALLED_ZERO = {"meta.Time": None, "meta.MicroTime": None, "runtime.RawExtension": None,
                    "resource.Quantity": "0", "intstr.IntOrString": 0}
_SCALAR_ZERO = {"string": "", "number": 0, "bool": False}
_NILABLE = frozenset({"pointer", "slice", "map", "interface"})
# an `omitempty` scalar the store sets "" to keep its place and storage fills right after (registry/store.py)
_FILLED_BY_STORAGE = frozenset({"meta.ObjectMeta.resourceVersion"})


class _Field(NamedTuple):
    """How a present field is written: `omit` (`omitempty`: a pointer left out when nil, a slice or map when nil
    or empty), `null` (a slice or map without `omitempty`: `null` when empty), `sized` (a slice or map), the
    struct message of its value, its items or its map's values to walk (None: nothing inside to write), and
    `zero`: an `omitempty` string's, number's or bool's zero value, left out (`_KEPT`: none), and `filled`: a
    placeholder storage fills (kept when `stored`)."""

    omit: bool
    null: bool
    sized: bool
    sub: str | None
    zero: Any
    filled: bool = False


_KEPT = object()


class _Plan(NamedTuple):
    fields: dict[str, _Field]
    nulls: tuple[str, ...]  # written `null` when absent (nil-able, no `omitempty`), in Go's field order
    zeros: tuple[tuple[str, str | None, Any], ...]  # (name, struct message or None, zero value): by-value fields
    #                                                 written when absent, in Go's field order


def _struct(f: schema.Field) -> str | None:
    """The message of a field whose value is a struct of the field model (not a JSON scalar: a Time, a Quantity)."""
    if not f.is_message or f.type in schema.JSON_SCALAR_MESSAGES or f.type in schema.STRING_LIST_MESSAGES:
        return None
    return f.type if f.type in schema.MESSAGES else None


_BUILDING: set[str] = set()  # messages whose plan is being built (a recursive type is taken to need one)


@cache
def _plan(message: str) -> _Plan | None:
    """What `message`'s fields (inlined structs' included) need; None when nothing at any depth does."""
    if message not in schema.MESSAGES:
        return None
    _BUILDING.add(message)
    try:
        fields: dict[str, _Field] = {}
        nulls: list[str] = []
        zeros: list[tuple[str, str | None, Any]] = []
        for name, f in schema.json_fields(message).items():
            kind, _, omitempty = GO_KINDS.get(f.message, {}).get(name, "").partition(",")
            if not kind:
                continue
            sub = _struct(f)
            if sub is not None and sub not in _BUILDING and _plan(sub) is None:
                sub = None
            sized = kind in ("slice", "map")
            omit = kind in _NILABLE and bool(omitempty)
            null = sized and not omitempty
            zero = _SCALAR_ZERO[kind] if kind in _SCALAR_ZERO and omitempty else _KEPT
            if omit or null or sub is not None or zero is not _KEPT:
                fields[name] = _Field(omit, null, sized, sub, zero, f.qualified in _FILLED_BY_STORAGE)
            if kind in _NILABLE:
                if not omitempty:
                    nulls.append(name)
            elif kind == "struct":
                struct = _struct(f)
                zeros.append((name, struct, None if struct else _MARSHALLED_ZERO.get(f.type)))
            elif not omitempty:
                zeros.append((name, None, _SCALAR_ZERO[kind]))
    finally:
        _BUILDING.discard(message)
    if not (fields or nulls or zeros):
        return None
    return _Plan(fields, tuple(nulls), tuple(zeros))


def written(obj: Any, message: str | None, zeros: bool = True, stored: bool = True) -> Any:
    """`obj` (a body of `message`'s Go type) as Go writes it read back from protobuf: absent by-value fields
    written as their zero value (unless not `zeros`), absent or empty nil-able ones without `omitempty` `null`;
    under `omitempty` nil and empty ones left out, and zero strings, numbers and bools; nested structs likewise.
    Not `stored`: as Go writes the object it decoded from a JSON body (an admission webhook's `request.object`),
    where an empty slice or map is not nil, so one without `omitempty` stays `[]` or `{}`.
    `obj` itself is not changed (a new dict wherever one changes: stored objects share their parts); `obj`
    itself when nothing does."""
    if message is None or not isinstance(obj, dict):
        return obj
    plan = _plan(message)
    if plan is None:
        return obj
    out = obj
    fields = plan.fields
    for name, value in obj.items():
        f = fields.get(name)
        if f is None:
            continue
        if value is None:
            if f.omit:
                out = dict(obj) if out is obj else out
                del out[name]
        elif f.sized and not value and isinstance(value, (list, dict, str)):  # (a `[]byte`'s "")
            if f.omit:
                out = dict(obj) if out is obj else out
                del out[name]
            elif stored:
                out = dict(obj) if out is obj else out
                out[name] = None
        elif f.zero is not _KEPT:
            if value == f.zero and (type(value) is bool) == (type(f.zero) is bool) and not (f.filled and stored):
                out = dict(obj) if out is obj else out  # (0 == False in Python)
                del out[name]
        elif f.sub is not None:
            new = _items(value, f.sub, zeros, stored) if f.sized else written(value, f.sub, zeros, stored)
            if new is not value:
                out = dict(obj) if out is obj else out
                out[name] = new
    for name in plan.nulls:
        if name not in obj:
            out = dict(obj) if out is obj else out
            out[name] = None
    if zeros:
        for name, struct, zero in plan.zeros:
            if name not in obj:
                out = dict(obj) if out is obj else out
                out[name] = written({}, struct) if struct is not None else zero  # (a fresh struct each)
    return out


def written_object(obj: Any, api_version: Any, kind: Any, stored: bool = True) -> Any:
    """A top-level object of `kind` as Go writes it (`written`, `stored` as there): a CRD's or an APIService's by
    their Go structs (wire/gowritten_described.py; their metadata as every kind's), a kind of the field model by
    its message; another (a custom resource, an unstructured map) is `obj` itself."""
    structs = gowritten_described.described(api_version, kind)
    if structs is not None:
        return gowritten_described.written(obj, kind, structs,
                                           lambda meta: written(meta, "meta.ObjectMeta", stored=stored), stored)
    return written(obj, schema.OUTPUT_MESSAGES.get((api_version, kind)), stored=stored)


def _items(items: Any, sub: str, zeros: bool, stored: bool) -> Any:
    """A slice's items or a map's values of struct type, each `written` (a new container if one changed)."""
    if isinstance(items, list):
        new_list = [written(item, sub, zeros, stored) for item in items]
        return new_list if any(a is not b for a, b in zip(new_list, items)) else items
    if isinstance(items, dict):
        new_map = {k: written(v, sub, zeros, stored) for k, v in items.items()}
        return new_map if any(new_map[k] is not v for k, v in items.items()) else items
    return items

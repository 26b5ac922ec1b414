"""An embedded resource's `metadata` in a custom resource as apiextensions-apiserver decodes it into a
`metav1.ObjectMeta` and writes it back (schema/objectmeta/coerce.go `GetObjectMetaWithOptions`, `SetObjectMeta`;
algorithm.go `CoerceWithOptions` calls them for each `x-kubernetes-embedded-resource` below the root).

Decoding: the unstructured value (numbers as the request decoder held them: an int64, else a float64) is
marshalled by `encoding/json` and unmarshalled into the Go type, so a float64 Go writes as an integer is one
(`"generation": 1.0` or `1e0` is `1`; `1e20` is the literal `100000000000000000000`, which no int64 holds) and a
number's error quotes Go's text of it (`go_number`: only the int64 fields' texts show or matter; a `fieldsV1` float
Go reads back as an integer is written as one by this server's encoder anyway). A metadata that does not decode
is the decoder's error (`decode_error`; registry/crdschema/defaults.py words it).

Writing back (`runtime.DefaultUnstructuredConverter.ToUnstructured`, runtime/converter.go; `metav1.Time`'s
`ToUnstructured`, time.go; `FieldsV1`'s `MarshalJSON`, read again by structured-merge-diff's reflectcache.go):
unknown fields dropped, `omitempty` fields left empty dropped (a null is Go's zero value: a null string is "", a
null label value `""`, a null owner reference every one of its four required strings `""`), a set pointer kept
even at its zero value (`deletionGracePeriodSeconds: 0`), every time (`creationTimestamp`, `deletionTimestamp`,
managedFields' `time`) written in RFC 3339 in UTC with second precision (gotime.py). A time that reads as Go's zero
time is written `null`, which `CoerceWithOptions` removes at once for `creationTimestamp` and the storage codec's
second decode (the answer is what etcd3's store decodes from the bytes it wrote) drops for the pointers. Keys come
sorted, as `encoding/json` writes a map."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..goport.gojsonnum import GoFloat, float_literal, go_int
from ..goport.gotime import TimeError, format_rfc3339_utc, is_zero, parse_rfc3339
from ..wire import gotypes

_STRINGS = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion")
_OWNER_STRINGS = ("apiVersion", "kind", "name", "uid")  # no `omitempty`: written even when empty
_OWNER_BOOLS = ("controller", "blockOwnerDeletion")  # *bool, omitempty
_ENTRY_STRINGS = ("manager", "operation", "apiVersion", "fieldsType", "subresource")  # ManagedFieldsEntry
_INTS = ("generation", "deletionGracePeriodSeconds")  # int64, *int64


def go_number(v: Any) -> Any:
    """A number as `json.Marshal` then a preserve-ints decode leave it: a float Go writes without a fraction or an
    exponent is an int64 (when one holds it), any other keeps Go's text as its literal."""
    if not isinstance(v, float) or isinstance(v, GoFloat) and v.overflow:
        return v
    text = float_literal(v)
    if text.lstrip("-").isdigit():
        out = go_int(text)
        return int(out) if isinstance(out, int) else out
    f = GoFloat(v)
    f.literal = text
    return f


def decode_error(meta: Any) -> str | None:
    """`GetObjectMetaWithOptions`' error (invalid fields not dropped): the JSON round trip into `metav1.ObjectMeta`
    (null decodes: the zero ObjectMeta)."""
    if meta is None:
        return None
    if not isinstance(meta, dict):
        return f"json: cannot unmarshal {gotypes.kind_word(meta)} into Go value of type v1.ObjectMeta"
    return gotypes.type_error(_int_fields(meta), "meta.ObjectMeta")


def _int_fields(meta: dict[str, Any]) -> dict[str, Any]:
    """`meta` with its int64 fields' numbers as encoding/json writes them (`go_number`): the only ones whose
    text a decoding error quotes (a string field's error says `number` alone), or that decode otherwise."""
    if not any(isinstance(meta.get(k), float) for k in _INTS):
        return meta
    return {**meta, **{k: go_number(meta[k]) for k in _INTS if k in meta}}


_ZERO: Any = object()  # a time that reads as Go's zero time: `ToUnstructured` writes it null


def _time(v: Any) -> Any:
    """A `metav1.Time` as `ToUnstructured` writes it (None: null, `_ZERO`: the zero time)."""
    return _time_text(v) if isinstance(v, str) else None


@lru_cache(maxsize=4096)
def _time_text(v: str) -> Any:
    """`_time` of a string (the same few times come back on every write of an object: memoised)."""
    try:
        unix, nsec = parse_rfc3339(v)
    except TimeError:  # (refused by `decode_error` first)
        return None
    return _ZERO if is_zero(unix, nsec) else format_rfc3339_utc(unix)


def _pointer_time(out: dict[str, Any], key: str, v: Any) -> None:
    """A `*metav1.Time` (omitempty): absent when nil; a non-nil zero time is written null."""
    if (t := _time(v)) is not None:
        out[key] = None if t is _ZERO else t


def _of(v: Any, typ: type) -> bool:
    """Whether `v` decodes into a Go value of `typ` (null does: the zero value)."""
    return v is None or isinstance(v, typ) and not (typ is int and isinstance(v, bool))


def _string_map(v: Any) -> dict[str, str] | None:
    if not isinstance(v, dict) or not v or not all(_of(x, str) for x in v.values()):
        return None
    return {k: ("" if v[k] is None else v[k]) for k in sorted(v)}


def _list(v: Any, item_ok: Any) -> list[Any] | None:
    """A non-empty list whose items all decode (`item_ok`), else None (omitted, or a field that does not decode)."""
    return v if isinstance(v, list) and v and all(item_ok(x) for x in v) else None


def _owner_ok(ref: Any) -> bool:
    return ref is None or isinstance(ref, dict) and all(_of(ref.get(k), str) for k in _OWNER_STRINGS) and \
        all(_of(ref.get(k), bool) for k in _OWNER_BOOLS)


def _owner(ref: Any) -> dict[str, Any]:
    ref = ref if isinstance(ref, dict) else {}
    out: dict[str, Any] = {k: ("" if ref.get(k) is None else ref[k]) for k in _OWNER_STRINGS}
    out.update({k: ref[k] for k in _OWNER_BOOLS if ref.get(k) is not None})
    return dict(sorted(out.items()))


def _entry_ok(entry: Any) -> bool:
    return entry is None or isinstance(entry, dict) and all(_of(entry.get(k), str) for k in _ENTRY_STRINGS) and \
        (entry.get("time") is None or _time(entry["time"]) is not None)


def _entry(entry: Any) -> dict[str, Any]:
    entry = entry if isinstance(entry, dict) else {}
    out: dict[str, Any] = {k: entry[k] for k in _ENTRY_STRINGS if entry.get(k)}
    _pointer_time(out, "time", entry.get("time"))
    if entry.get("fieldsV1") is not None:  # its raw JSON, read back into an unstructured value (a float64 that
        out["fieldsV1"] = entry["fieldsV1"]  # Go reads back as an int64 is written as one here anyway: left)
    return dict(sorted(out.items()))


def reprint(meta: Any) -> dict[str, Any]:
    """What the answer shows of `meta`: `SetObjectMeta` of what `GetObjectMetaWithOptions` decoded, as stored, then
    again as the storage codec decodes the stored bytes (a pointer's zero time, written null, is then nil; a
    fraction of a second past the zero time is the zero time). A field that does not decode (a request's was
    refused by `decode_error` first) is dropped."""
    return _coerced(_coerced(meta))


def _coerced(meta: Any) -> dict[str, Any]:
    """One `GetObjectMetaWithOptions` + `SetObjectMeta`, and `CoerceWithOptions`' removal of a zero
    `creationTimestamp`."""
    meta = _int_fields(meta) if isinstance(meta, dict) else {}
    out: dict[str, Any] = {k: meta[k] for k in _STRINGS if meta.get(k) and isinstance(meta[k], str)}
    if meta.get("generation") and _of(meta["generation"], int):
        out["generation"] = meta["generation"]
    if (t := _time(meta.get("creationTimestamp"))) not in (None, _ZERO):
        out["creationTimestamp"] = t
    _pointer_time(out, "deletionTimestamp", meta.get("deletionTimestamp"))
    if meta.get("deletionGracePeriodSeconds") is not None and _of(meta["deletionGracePeriodSeconds"], int):
        out["deletionGracePeriodSeconds"] = meta["deletionGracePeriodSeconds"]
    for key in ("labels", "annotations"):
        if (m := _string_map(meta.get(key))) is not None:
            out[key] = m
    if (refs := _list(meta.get("ownerReferences"), _owner_ok)) is not None:
        out["ownerReferences"] = [_owner(ref) for ref in refs]
    if (finalizers := _list(meta.get("finalizers"), lambda f: _of(f, str))) is not None:
        out["finalizers"] = ["" if f is None else f for f in finalizers]
    if (entries := _list(meta.get("managedFields"), _entry_ok)) is not None:
        out["managedFields"] = [_entry(e) for e in entries]
    return dict(sorted(out.items()))

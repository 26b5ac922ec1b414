"""A mutating webhook's patched object read back as the dispatcher reads it (k8s.io/apiserver v0.33
`pkg/admission/plugin/webhook/mutating/dispatcher.go` `callAttrMutatingHook`).

Upstream applies the patch to `runtime.Encode(jsonSerializer, attr.VersionedObject)`, the object's Go-written JSON
the review's `object` shows (review.py `encoded`: a built-in kind's every non-`omitempty` field, `"creationTimestamp":
null` included; a custom resource's map, keys sorted), decodes the result into a new object of the kind
(`jsonSerializer.Decode(patchedJS, nil, newVersionedObject)`: a `null` as Go's decoder holds it, wire/gonull.py),
and counts the call as a change only when `!apiequality.Semantic.DeepEqual(attr.VersionedObject,
newVersionedObject)`: a patch that leaves the decoded object as it was (a no-op, or a `remove` of a
`creationTimestamp: null` the decode restores) changes nothing, so no reinvocation follows.

The patch runs on that JSON for every kind: a ControllerRevision's `data` (a `runtime.RawExtension`) is there as
`MarshalJSON` writes it (its bytes compacted, `null` when it has none), and the decode keeps the bytes the patched
JSON holds (`UnmarshalJSON`; `null` leaves `Raw` nil): evanphx's bytes (gojsonraw.repatched). A custom resource's
map is read back as util/json reads it (`go_read`: an integral float64 written as digits is an int64 again).

This server holds an object in its own form (only the fields it was given or set): `held` maps the patched
Go-written JSON back onto it, dropping what the encoding wrote that the patch left as it was, and `changed`
compares the two objects as Go writes them, as `Semantic.DeepEqual` compares the Go values (semantic.py). The
decoded object is kept whether or not it changed (`attr.VersionedObject = newVersionedObject`).
"""
from __future__ import annotations

from typing import Any

from ...goport import gojsonnum
from ...wire import gonull, gotypes, openapi_schemas, schema
from ...wire.gomaps import ordered_like
from . import review, semantic

_ABSENT = object()


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values (Python's `False == 0` is not)."""
    try:
        return gojsonnum.encode(a) == gojsonnum.encode(b)
    except (TypeError, ValueError):
        return a == b


def _unwritten(value: Any, sent: Any, held: Any) -> Any:
    """`value` (the patched JSON) without the members the encoding added to `held` (not in `held`, in `sent` and
    left by the patch as `sent` had them), at every depth where the three still line up; `held`'s own members are
    kept where the patch did not reach them (a field the encoding leaves out)."""
    if isinstance(value, dict) and isinstance(sent, dict) and isinstance(held, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in held:
                out[key] = _unwritten(item, sent.get(key, _ABSENT), held[key])
            elif key not in sent or not _same(item, sent[key]):
                out[key] = item
        for key, item in held.items():
            if key not in out and key not in sent and key not in value:
                out[key] = item  # (unwritten by Go's encoding, so out of the patch's sight: kept as held)
        return out
    if isinstance(value, list) and isinstance(sent, list) and isinstance(held, list) \
            and len(value) == len(sent) == len(held):
        return [_unwritten(v, s, h) for v, s, h in zip(value, sent, held)]
    return value


def check_decode(patched: dict[str, Any]) -> None:
    """`jsonSerializer.Decode(patchedJS, nil, newVersionedObject)` of a built-in kind's patched JSON into the Go
    type it names (one the field model has): its first type error (`json: cannot unmarshal number into Go struct
    field ConfigMap.data of type string`; `illegal base64 data at input byte 0` for a `[]byte`) is
    `NewInternalError`'d. Each `[]byte` field's base64 made canonical in place, as Go's decode then encode
    writes it."""
    message = schema.OUTPUT_MESSAGES.get((patched.get("apiVersion"), patched.get("kind")))  # type: ignore[arg-type]
    why = gotypes.type_error(patched, message) if message is not None else None
    if why is not None:
        raise review.internal(ValueError(why))


def held(patched: Any, sent: Any, obj: dict[str, Any], custom: bool, raw_fields: tuple[str, ...] = ()) -> Any:
    """The patched Go-written JSON (`patched`, from `sent`, `review.encoded(obj)`) as the object this server holds:
    a built-in kind's nulls as the JSON decoder leaves them (gonull.settle), keys in `obj`'s order; each
    `RawExtension` field (`raw_fields`) the value with the bytes evanphx wrote (gojsonraw.repatched), none for
    `null` (`UnmarshalJSON` leaves `Raw` nil)."""
    out = _unwritten(patched, sent, obj)
    if not custom and isinstance(out, dict):
        message = schema.OUTPUT_MESSAGES.get((out.get("apiVersion"), out.get("kind")))  # type: ignore[arg-type]
        if message is not None:  # (a held object of another kind, which the patch changed: none of its fields)
            same = isinstance(obj, dict) and obj.get("kind") == out.get("kind")
            _drop_unknown(out, openapi_schemas.known_fields("", message), obj if same else {})
            gonull.settle(out, message)
    out = ordered_like(out, obj)
    if isinstance(out, dict) and isinstance(patched, dict):
        for name in raw_fields:  # (after the walks above, which would make a plain value of the held bytes)
            if patched.get(name) is not None:
                out[name] = patched[name]
            else:
                out.pop(name, None)
    return out


def _drop_unknown(value: dict[str, Any], model: dict[str, Any], held: Any) -> None:
    """The fields the Go type lacks dropped from `value` (in place), as the non-strict decode drops them; a field
    the held object has is kept (the decoder let it through: an extension's)."""
    held = held if isinstance(held, dict) else {}
    for key in list(value):
        if key not in model:
            if key not in held:
                del value[key]
        elif isinstance(model[key], dict):
            item, was = value[key], held.get(key)
            if isinstance(item, dict):
                _drop_unknown(item, model[key], was)
            elif isinstance(item, list):
                olds = was if isinstance(was, list) and len(was) == len(item) else [None] * len(item)
                for element, old in zip(item, olds):
                    if isinstance(element, dict):
                        _drop_unknown(element, model[key], old)


def go_read(value: Any) -> Any:
    """A custom resource's Go-written map as util/json reads it back (sigs.k8s.io/json
    `UnmarshalCaseSensitivePreserveInts`: a number written without fraction or exponent that fits is an int64): a
    float64 with an integral value below 2^63, which encoding/json writes as digits, read as an int. A copy."""
    if isinstance(value, dict):
        return {k: go_read(v) for k, v in value.items()}
    if isinstance(value, list):
        return [go_read(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 63:
        return int(value)
    return value


def changed(new: Any, sent: Any, custom: bool) -> bool:
    """`!apiequality.Semantic.DeepEqual(attr.VersionedObject, newVersionedObject)` (semantic.py), on the two as Go
    writes them (`sent`: the review's object)."""
    if custom:
        return not semantic.unstructured_equal(review.encoded(new, custom), sent)
    return not semantic.typed_equal(review.encoded(new, custom), sent)

"""A built-in kind's object as structured-merge-diff reads the Go object the field manager is handed (upstream
apimachinery `managedfields/internal/typeconverter.go` `ObjectToTyped`: a typed object goes through
`FromStructured`, smd v4.6.0 `value.NewValueReflect`; an unstructured one, a custom resource's, is read as it is).

Reflection walks the struct's fields as `value/reflectcache.go` lists them: a field whose `FieldCacheEntry.CanOmit`
(`omitempty` and nil or `isZero`, `value/jsontagutil.go`: an empty slice, map or string, `0`, `false`; never a
struct) is not there, every other one is, a nil pointer, slice or map as `null` (`valuereflect.go` `IsNull`), a type
with its own `MarshalJSON` as it marshals (`ToUnstructured`). That is the object as encoding/json writes it, which
`wire/gowritten.py` already knows by each field's Go kind and `omitempty`: `"labels": {}` or `"stdin": false` in a
body are not there, an Event's `reportingComponent` is `""` on both sides whether the body gave it or not.

Whence the Go object came decides its empty slices: one read back from protobuf storage (the live object, the
kind's `New()`) holds nil ones, `null` where there is no `omitempty`; one decoded from a JSON body keeps `[]`.
"""
from __future__ import annotations

from typing import Any

from ..wire import gowritten
from ..wire.schema import OUTPUT_MESSAGES


def message_of(api_version: str, kind: str, builtin: bool) -> str | None:
    """The Go type's message the object of `kind` at `api_version` is reflected by; None where the object is read
    as sent (a custom resource, unstructured upstream; a kind the field model does not describe: a CRD's, an
    APIService's, typed here as stored)."""
    return OUTPUT_MESSAGES.get((api_version, kind)) if builtin else None


def stored(obj: dict[str, Any], message: str | None) -> dict[str, Any]:
    """`obj` as reflection reads the Go object decoded from storage (or a new empty one): nil slices and maps."""
    return gowritten.written(obj, message) if message is not None else obj


def decoded(obj: dict[str, Any], message: str | None, like: dict[str, Any] | None = None) -> dict[str, Any]:
    """`obj` as reflection reads the Go object decoded from a request's JSON body: an empty slice or map without
    `omitempty` stays `[]` or `{}`. `like`, an object already in `stored` form (the live one): a top-level field
    of `obj` equal to its own is left as it is, being so already (an update's unchanged spec is not walked)."""
    if message is None:
        return obj
    if like is None:
        return gowritten.written(obj, message, stored=False)
    same = [k for k, v in obj.items() if k in like and like[k] == v]
    if not same:
        return gowritten.written(obj, message, stored=False)
    if len(same) == len(obj):
        part: dict[str, Any] = {}
    else:
        part = {k: v for k, v in obj.items() if k not in same}
    out = dict(gowritten.written(part, message, stored=False))  # (with what `obj` lacks: null, zero)
    for k in same:
        out[k] = obj[k]
    return out

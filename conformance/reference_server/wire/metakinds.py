"""The Go types of the meta scheme's kinds that the field model (`wire.schema`) does not hold, and the first error
sigs.k8s.io/json meets decoding a body into one.

A DELETE's DeleteOptions body may name another kind of kube-apiserver's meta scheme (http/deleteoptions.py): the
JSON serializer makes that kind (`runtime.UseOrCreateObject`) and decodes the body into it before the versioning
codec's conversion to DeleteOptions fails, so a field of the wrong JSON type for that kind is the decoder's error
(`json: cannot unmarshal string into Go struct field CreateOptions.dryRun of type []string`), not the conversion's.

Fields and types: k8s.io/apimachinery v0.33.1 `pkg/apis/meta/v1/types.go` (the options, discovery and Table types),
`pkg/apis/meta/internalversion/types.go` (`ListOptions`, its fields untagged: their Go names are their JSON names,
the selectors interfaces a JSON value other than `null` cannot go into) and `pkg/apis/meta/v1/watch.go`
(`InternalEvent`, which is `watch.Event`: `Type EventType`, `Object runtime.Object`, untagged). As sigs.k8s.io/json
decodes: keys match exactly (an unknown one is skipped unread), `null` leaves a field as it is, a mismatch is saved
and decoding goes on (the first one is the error), worded `Go struct field <innermost struct>.<JSON path>` (slice
indexes not named) with the Go type of the field, or of the element for an element. A `RawExtension` (`TableRow.
object`) and an `interface{}` (`TableRow.cells`' items) take any value.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import gotypes
from .dupkeys import Pairs

# Types: a gotypes scalar code ("s", "b", "i32", "i64"), ("named", Go name) for a named string type, "any" (an
# `interface{}` or a RawExtension), ("iface", Go name) for a non-empty interface, ("slice", element[, Go name]),
# or a struct of STRUCTS (its key the Go name: `v1.TableRow`)
_STR, _BOOL, _I32, _I64, _ANY = "s", "b", "i32", "i64", "any"
_STRINGS = ("slice", _STR)
_TYPE_META = {"kind": _STR, "apiVersion": _STR}  # `TypeMeta` `json:",inline"` (or embedded untagged)
_WRITE_OPTIONS = {**_TYPE_META, "dryRun": _STRINGS, "fieldManager": _STR, "fieldValidation": _STR}
_LIST_META = "v1.ListMeta"
STRUCTS: dict[str, dict[str, Any]] = {
    "v1.CreateOptions": _WRITE_OPTIONS,
    "v1.UpdateOptions": _WRITE_OPTIONS,
    "v1.PatchOptions": {**_TYPE_META, "dryRun": _STRINGS, "force": _BOOL, "fieldManager": _STR,
                        "fieldValidation": _STR},
    "v1.GetOptions": {**_TYPE_META, "resourceVersion": _STR},
    "v1.ListOptions": {
        **_TYPE_META, "labelSelector": _STR, "fieldSelector": _STR, "watch": _BOOL, "allowWatchBookmarks": _BOOL,
        "resourceVersion": _STR, "resourceVersionMatch": ("named", "v1.ResourceVersionMatch"),
        "timeoutSeconds": _I64, "limit": _I64, "continue": _STR, "sendInitialEvents": _BOOL},
    "internalversion.ListOptions": {
        **_TYPE_META, "LabelSelector": ("iface", "labels.Selector"), "FieldSelector": ("iface", "fields.Selector"),
        "Watch": _BOOL, "AllowWatchBookmarks": _BOOL, "ResourceVersion": _STR,
        "ResourceVersionMatch": ("named", "v1.ResourceVersionMatch"), "TimeoutSeconds": _I64, "Limit": _I64,
        "Continue": _STR, "SendInitialEvents": _BOOL},
    "v1.InternalEvent": {"Type": ("named", "watch.EventType"), "Object": ("iface", "runtime.Object")},
    "v1.TableOptions": {**_TYPE_META, "includeObject": ("named", "v1.IncludeObjectPolicy")},  # (NoHeaders: `-`)
    "v1.Table": {**_TYPE_META, "metadata": _LIST_META, "columnDefinitions": ("slice", "v1.TableColumnDefinition"),
                 "rows": ("slice", "v1.TableRow")},
    "v1.TableColumnDefinition": {"name": _STR, "type": _STR, "format": _STR, "description": _STR,
                                 "priority": _I32},
    "v1.TableRow": {"cells": ("slice", _ANY), "conditions": ("slice", "v1.TableRowCondition"), "object": _ANY},
    "v1.TableRowCondition": {"type": ("named", "v1.RowConditionType"), "status": ("named", "v1.ConditionStatus"),
                             "reason": _STR, "message": _STR},
    _LIST_META: {"selfLink": _STR, "resourceVersion": _STR, "continue": _STR, "remainingItemCount": _I64},
    "v1.APIVersions": {**_TYPE_META, "versions": _STRINGS,
                       "serverAddressByClientCIDRs": ("slice", "v1.ServerAddressByClientCIDR")},
    "v1.APIGroupList": {**_TYPE_META, "groups": ("slice", "v1.APIGroup")},
    "v1.APIGroup": {**_TYPE_META, "name": _STR, "versions": ("slice", "v1.GroupVersionForDiscovery"),
                    "preferredVersion": "v1.GroupVersionForDiscovery",
                    "serverAddressByClientCIDRs": ("slice", "v1.ServerAddressByClientCIDR")},
    "v1.ServerAddressByClientCIDR": {"clientCIDR": _STR, "serverAddress": _STR},
    "v1.GroupVersionForDiscovery": {"groupVersion": _STR, "version": _STR},
    "v1.APIResourceList": {**_TYPE_META, "groupVersion": _STR, "resources": ("slice", "v1.APIResource")},
    "v1.APIResource": {"name": _STR, "singularName": _STR, "namespaced": _BOOL, "group": _STR, "version": _STR,
                       "kind": _STR, "verbs": ("slice", _STR, "v1.Verbs"), "shortNames": _STRINGS,
                       "categories": _STRINGS, "storageVersionHash": _STR},
}
_SCALARS = {"s": "string", "b": "bool", "i32": "int32", "i64": "int64"}


def go_name(t: Any) -> str:
    """The Go type's name as an `UnmarshalTypeError` prints it (`reflect.Type.String()`)."""
    if isinstance(t, tuple):
        if t[0] == "slice":
            return t[2] if len(t) > 2 else "[]" + go_name(t[1])
        return t[1]
    if t == _ANY:
        return "interface {}"
    return _SCALARS.get(t, t)


def _object(v: Any) -> Iterable[tuple[str, Any]] | None:
    """A JSON object's members in the order the decoder meets them (a repeated key each time), or None."""
    if isinstance(v, Pairs):
        return v
    return v.items() if isinstance(v, dict) else None


class _Walk:
    """One decode: the first saved mismatch (`saveError` keeps only the first)."""

    def __init__(self, sort_keys: bool) -> None:
        self.sort_keys = sort_keys  # a YAML body: sigs.k8s.io/yaml's JSON of a Go map, every object's keys sorted
        self.first: str | None = None

    def save(self, got: str, struct: str, path: str, t: Any) -> None:
        if self.first is None:
            self.first = f"json: cannot unmarshal {got} into Go struct field {struct}.{path} of type {go_name(t)}"

    def members(self, members: Iterable[tuple[str, Any]], t: str, path: str) -> None:
        """A struct's members: each known one decoded into its field (`struct`: this struct's own name)."""
        fields, struct = STRUCTS[t], t.split(".", 1)[1]
        for key, value in sorted(members, key=lambda kv: kv[0]) if self.sort_keys else members:
            ft = fields.get(key)
            if ft is not None:
                self.value(value, ft, struct, f"{path}{key}")

    def value(self, v: Any, t: Any, struct: str, path: str) -> None:
        if v is None or t == _ANY:
            return
        if isinstance(t, tuple) and t[0] == "slice":
            if not isinstance(v, list):
                self.save(gotypes.kind_word(v), struct, path, t)
                return
            for item in v:
                self.value(item, t[1], struct, path)
            return
        if isinstance(t, tuple):  # a named string, or an interface nothing but `null` goes into
            if t[0] == "iface" or not isinstance(v, str):
                self.save(gotypes.kind_word(v), struct, path, t)
            return
        if t in _SCALARS:
            got = gotypes.scalar_error(v, t)
            if got:
                self.save(got, struct, path, t)
            return
        members = _object(v)
        if members is None:
            self.save(gotypes.kind_word(v), struct, path, t)
            return
        self.members(members, t, path + ".")


def type_error(members: Iterable[tuple[str, Any]], go_type: str, sort_keys: bool = False) -> str | None:
    """The first error decoding a body's top-level `members` into `go_type` (a key of STRUCTS), or None."""
    walk = _Walk(sort_keys)
    walk.members(members, go_type, "")
    return walk.first

"""`SimpleMetaFactory.Interpret`: the JSON serializer's first step on every JSON or YAML body.

Upstream: apimachinery v0.33 pkg/runtime/serializer/json/meta.go reads `apiVersion` and `kind` with the standard
library's `json.Unmarshal` into

    struct { APIVersion string `json:"apiVersion,omitempty"`; Kind string `json:"kind,omitempty"` }

and wraps its error as `couldn't get version/kind; json parse error: %v` (json.go `Decode` returns it before the
body is decoded into any kind). encoding/json (Go 1.24) matches keys case-insensitively (`foldName`), reads every
member in the order the body gives them (a repeated key each time, the last string kept), leaves a field unchanged
for `null`, and keeps only the first `UnmarshalTypeError` (`saveError`), named with the anonymous struct's empty
name and the field's JSON name (`addErrorContext`): `json: cannot unmarshal number into Go struct field .kind of
type string`; a body that is no object is `... into Go value of type struct { ... }` (the struct's `String()`).
Then `schema.ParseGroupVersion` refuses an apiVersion of more than one `/` (`unexpected GroupVersion string: a/b/c`).
A YAML body is read after sigs.k8s.io/yaml's `YAMLToJSON`, which writes its keys sorted (a Go map).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import dupkeys, gotypes

PREFIX = "couldn't get version/kind; json parse error: "
STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
_META_KEYS = {"KIND": "kind", "APIVERSION": "apiVersion"}


def fold(key: str) -> str:
    """encoding/json's `foldName` of a key that may match `kind` or `apiVersion`: ASCII upper-cased, the Kelvin
    sign K and the long s (whose simple-fold orbits hold `K` and `S`) made those."""
    return "".join(c.upper() if c < "\x80" else {"\u212a": "K", "\u017f": "S"}.get(c, c) for c in key)


def members(value: Any, pairs: Any = None, sorted_keys: bool = False) -> list[tuple[str, Any]]:
    """The top-level members in the order encoding/json meets them: the body's (`pairs`: the JSON object as
    `dupkeys.Pairs`, a repeated key each time), sorted where Go wrote the JSON from a map (`sorted_keys`: a YAML
    body's `YAMLToJSON`, a JSON or merge patch's evanphx/json-patch)."""
    if not isinstance(value, dict):
        return []
    if isinstance(pairs, dupkeys.Pairs):
        return list(pairs)
    return sorted(value.items()) if sorted_keys else list(value.items())


def interpret(value: Any, found_members: Iterable[tuple[str, Any]]) -> tuple[str, str, str | None]:
    """(apiVersion, kind, error): what `Interpret` reads of a decoded body (`found_members`: `members`' list), its
    error already wrapped in `PREFIX` (None: it reads)."""
    if value is not None and not isinstance(value, dict):
        return "", "", f"{PREFIX}json: cannot unmarshal {gotypes.kind_word(value)} into Go value of type {STRUCT}"
    found = {"kind": "", "apiVersion": ""}
    error = None
    for key, item in found_members:
        name = _META_KEYS.get(fold(key))
        if name is None or item is None:
            continue
        item = dupkeys.plain(item)
        if isinstance(item, str):
            found[name] = item
        elif error is None:
            error = f"{PREFIX}json: cannot unmarshal {gotypes.kind_word(item)} into Go struct field .{name} of type string"
    if error is None and found["apiVersion"].count("/") > 1:  # `schema.ParseGroupVersion`'s, returned as it is
        error = f"unexpected GroupVersion string: {found['apiVersion']}"
    return found["apiVersion"], found["kind"], error


def interpret_error(value: Any, pairs: Any = None, sorted_keys: bool = False) -> str | None:
    """`Interpret`'s error for a decoded body (`pairs`, `sorted_keys`: as `members`'), or None."""
    return interpret(value, members(value, pairs, sorted_keys))[2]


def parse_group_version(gv: str) -> tuple[str, str] | None:
    """apimachinery schema `ParseGroupVersion`: (group, version); `""` and `"/"` are the empty group-version, `v1`
    the core group's, `a/` a group without a version; None where it errs (more than one `/`)."""
    if gv in ("", "/"):
        return "", ""
    if gv.count("/") > 1:
        return None
    group, _, version = gv.rpartition("/")
    return group, version

"""Repeated keys in a request body, named as kube-apiserver's strict decoders name them.

* JSON: sigs.k8s.io/json's `DisallowDuplicateFields` (internal/golang/encoding/json/decode.go `object` and
  `objectInterface`, kubernetes_patch.go `newFieldError`): `duplicate field "spec.replicas"`, the path joined
  with `.` and `[i]`, saved in the order the decoder meets the keys (a repeated key before its value is read),
  among the `unknown field` errors of the same walk, deduplicated, at most 100. A typed struct checks the fields
  it knows (an unknown one is skipped unread: neither it nor what it holds is checked); a map or an `interface{}`
  checks every key; a `RawExtension` or `FieldsV1` (their own `UnmarshalJSON`) is kept unread.
* YAML: go-yaml v2's `UnmarshalStrict` as sigs.k8s.io/yaml's `YAMLToJSONStrict` runs it (goyaml.v2/decode.go
  `mapping`, `setMapIndex`, yaml.go `TypeError.Error`): `yaml: unmarshal errors:\\n  line 4: key "a" already
  set in map`, the line the repeated key's value starts on, a value's own errors before its key's (a value is
  decoded before the key is set); keys compared as go-yaml resolves them (`1` and `"1"` are two keys).

Only a body that repeats a key comes here: `textdecode.loads_json_once` and `loads_yaml_once` tell which, for the
price of one hook call per object; the walks below read the body again.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import yaml

from ..goport.gofmt import sharp_v
from ..goport.gojsonnum import go_float, go_int
from ..goport.gonet.strconv import quote as go_quote  # no raw CR/LF reaches a message or Warning header
from . import gonull
from . import schema as wire_schema
from .textdecode import go_text, replace_lone_surrogates

MAX_STRICT_ERRORS = 100  # kubernetes_patch.go `saveStrictError`
RAW_FIELDS = frozenset({"fieldsV1"})  # metav1.FieldsV1 in any struct that holds one (managedFields entries)
JSON_PATCH_OP = {"op": None, "path": None, "from": None, "value": None}  # patch.go's `jsonPatchOp`
YAML_PREFIX = "yaml: unmarshal errors:\n  "
MAX_YAML_LINES = 1000  # this server's bound on a go-yaml strict error's lines (go-yaml has none)


@dataclass
class Repeats:
    """What a body repeats: its JSON read as key/value pairs (`json`), or go-yaml's strict error (`yaml`)."""

    json: Any = None
    yaml: str | None = None


class Pairs(list):  # type: ignore[type-arg]
    """A JSON object as the (key, value) pairs it was written with, repeats included."""


_PAIRS = json.JSONDecoder(object_pairs_hook=Pairs, parse_float=go_float, parse_int=go_int)


def json_pairs(raw: bytes) -> Any:
    """The body (already read once by `textdecode.loads_json_once`) with each object as its `Pairs`, numbers and
    strings as that reader reads them."""
    text = go_text(raw)
    tree = _PAIRS.decode(text)
    return _surrogates(tree) if "\\u" in text or "\\U" in text else tree


def _surrogates(value: Any) -> Any:
    """`textdecode.replace_lone_surrogates` over `Pairs`: each lone surrogate of a key or a string → U+FFFD."""
    if isinstance(value, Pairs):
        return Pairs((replace_lone_surrogates(k), _surrogates(v)) for k, v in value)
    if isinstance(value, list):
        return [_surrogates(v) for v in value]
    return replace_lone_surrogates(value) if isinstance(value, str) else value


def unknown(path: str) -> str:
    return f"unknown field {go_quote(path)}"


def duplicate(path: str) -> str:
    return f"duplicate field {go_quote(path)}"


def capped(errors: list[str]) -> list[str]:
    """`saveStrictError`: each error once, at most 100."""
    return list(dict.fromkeys(errors))[:MAX_STRICT_ERRORS]


@lru_cache(maxsize=256)
def raw_extension_fields(message: str | None) -> frozenset[str]:
    """The top-level `RawExtension` fields of a field-model message (ControllerRevision `data`), read unchecked."""
    if message is None or message not in wire_schema.MESSAGES:
        return frozenset()
    return frozenset(name for name, f in wire_schema.json_fields(message).items() if f.type == "runtime.RawExtension")


class _Full(Exception):
    """100 errors saved: the decoder saves no more (the walk stops)."""


class _Saved:
    """`saveStrictError`'s list: each (error, path) once, at most 100, worded at the end."""

    def __init__(self) -> None:
        self.found: dict[tuple[bool, str], None] = {}

    def add(self, is_duplicate: bool, path: str) -> None:
        if len(self.found) >= MAX_STRICT_ERRORS:
            raise _Full
        self.found.setdefault((is_duplicate, path))

    def words(self) -> list[str]:
        return [duplicate(p) if dup else unknown(p) for dup, p in self.found]


def typed_errors(tree: Any, schema: Any, raw_fields: frozenset[str] = frozenset()) -> list[str]:
    """The strict errors of decoding `tree` into a typed struct whose known fields are `schema` (the nested field
    model of `http/decode.py`: a dict for a struct or a list of structs, None for any other field), unknown and
    duplicate fields in the decoder's order. `raw_fields`: top-level fields kept unread (`RawExtension`)."""
    out = _Saved()
    try:
        if isinstance(tree, Pairs):
            _struct(tree, schema, "", out, raw_fields | RAW_FIELDS)
        elif isinstance(tree, list):  # a JSON patch's operations
            for i, item in enumerate(tree):
                if isinstance(item, Pairs):
                    _struct(item, schema, f"[{i}].", out, RAW_FIELDS)
    except _Full:
        pass
    return out.words()


def untyped_errors(tree: Any, path: str = "") -> list[str]:
    """The duplicate fields of decoding `tree` into a `map[string]interface{}` (a custom resource, a merge or a
    strategic-merge patch)."""
    out = _Saved()
    try:
        _any(tree, path, out)
    except _Full:
        pass
    return out.words()


def _struct(pairs: Pairs, schema: Any, prefix: str, out: _Saved, raw: frozenset[str]) -> None:
    seen: set[str] = set()
    for key, value in pairs:
        if key not in schema:
            out.add(False, prefix + key)
            continue
        if key in seen:
            out.add(True, prefix + key)
        seen.add(key)
        sub = schema[key]
        if isinstance(sub, dict):
            if isinstance(value, Pairs):
                _struct(value, sub, f"{prefix}{key}.", out, RAW_FIELDS)
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, Pairs):
                        _struct(item, sub, f"{prefix}{key}[{i}].", out, RAW_FIELDS)
        elif key not in raw:
            _any(value, prefix + key, out)


def _any(value: Any, path: str, out: _Saved) -> None:
    if isinstance(value, Pairs):
        seen: set[str] = set()
        for key, item in value:
            if key in seen:
                out.add(True, f"{path}.{key}" if path else key)
            seen.add(key)
            if isinstance(item, list):  # (a `Pairs` too; a scalar holds no key)
                _any(item, f"{path}.{key}" if path else key, out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, list):
                _any(item, f"{path}[{i}]", out)


def go_typed_errors(tree: Any, meta: Any, kind: str, structs: dict[str, dict[str, Any]]) -> list[str]:
    """`typed_errors` for a kind outside the field model whose `spec` and `status` are described by Go type
    descriptors (wire/crdtypes.py's: a CRD's, an APIService's `structs`), `metadata` by the field model's `meta`;
    inside a custom `UnmarshalJSON` (`JSON`, `JSONSchemaPropsOrBool`, ...) nothing is checked, as upstream."""
    out = _Saved()
    if not isinstance(tree, Pairs):
        return []
    try:
        seen: set[str] = set()
        for key, value in tree:
            if key not in ("apiVersion", "kind", "metadata", "spec", "status"):
                out.add(False, key)
                continue
            if key in seen:
                out.add(True, key)
            seen.add(key)
            if key == "metadata" and isinstance(value, Pairs) and isinstance(meta, dict):
                _struct(value, meta, "metadata.", out, RAW_FIELDS)
            elif key in ("spec", "status"):
                _go(value, f"{kind}{key.capitalize()}", key, out, structs)
    except _Full:
        pass
    return out.words()


def _go(value: Any, t: Any, path: str, out: _Saved, structs: dict[str, dict[str, Any]]) -> None:
    if isinstance(t, tuple):
        if t[0] == "slice" and isinstance(value, list) and not isinstance(value, Pairs):
            for i, item in enumerate(value):
                _go(item, t[1], f"{path}[{i}]", out, structs)
        elif t[0] == "map" and isinstance(value, Pairs):
            seen: set[str] = set()
            for key, item in value:
                if key in seen:
                    out.add(True, f"{path}.{key}")
                seen.add(key)
                _go(item, t[1], f"{path}.{key}", out, structs)
        return
    fields = structs.get(t) if isinstance(t, str) else None
    if fields is None or not isinstance(value, Pairs):
        return  # a scalar, or a custom `UnmarshalJSON`: read without strictness
    known: set[str] = set()
    for key, item in value:
        if key not in fields:
            out.add(False, f"{path}.{key}")
            continue
        if key in known:
            out.add(True, f"{path}.{key}")
        known.add(key)
        _go(item, fields[key], f"{path}.{key}", out, structs)


def typed_value(tree: Pairs, schema: Any, raw_fields: frozenset[str] = frozenset(),
                message: str | None = None) -> dict[str, Any]:
    """The object Go's decoder makes of a typed kind's body that repeats keys (decode.go `object`, `array`): a
    repeated struct or map is decoded into the first one (its fields or keys kept unless given again), a slice
    item by item into the first slice's items (then cut to the new length, the items past it kept in its array
    for a longer one given next: `_backing`); anything else, and a `RawExtension`, replaced (the last one kept, as
    Python keeps it); but a `null` given to what Go holds by value in `message`'s Go type leaves it as it was
    (`wire/gonull.py`: `{"name":"a","name":null}` is "a")."""
    return _typed(tree, schema, raw_fields | RAW_FIELDS, {}, message, {}, {})


Backings = dict[int, tuple[list[Any], list[Any]]]


def _typed(pairs: Pairs, schema: Any, raw: frozenset[str], out: dict[str, Any], message: str | None,
           ints: dict[tuple[int, str], int], caps: Backings) -> dict[str, Any]:
    """`ints`: each IntOrString's `IntVal` by (id of its struct, key), which a string leaves and a null shows;
    `caps`: each slice's backing array (`_backing`)."""
    plan = gonull.steps(message)
    for key, value in pairs:
        old = out.get(key)
        sub = schema[key] if key in schema else None
        step = plan.get(key)
        if value is None and key in out and step is not None and step.held == gonull.FIELD:
            out[key] = gonull.after_null(old, step, ints.get((id(out), key)))  # `literalStore`: left as it was
        elif isinstance(sub, dict) and isinstance(value, Pairs):
            out[key] = _typed(value, sub, RAW_FIELDS, old if isinstance(old, dict) else {},
                              step.sub if step is not None else None, ints, caps)
        elif isinstance(value, list) and not isinstance(value, Pairs) and (isinstance(sub, dict) or step is not None):
            out[key] = _items(value, sub, old if isinstance(old, list) else [], step, ints, caps)
        elif sub is None and key in schema and key not in raw and isinstance(value, Pairs) and isinstance(old, dict):
            old.update(plain(value))  # a map: `object` reuses it, each key's value decoded anew
        else:
            out[key] = plain(value)
            if step is not None and step.type == gonull.INT_OR_STRING and isinstance(value, int) \
                    and not isinstance(value, bool):
                ints[(id(out), key)] = value
    return out


def _backing(olds: list[Any], caps: Backings) -> list[Any]:
    """The array a slice Go decoded lies in (decode.go `array`): a shorter slice decoded into a longer one is cut
    (`SetLen`), the items past its length kept in its capacity, where a longer one given next is decoded again
    (`if i >= v.Len() { v.SetLen(i + 1) }`); Go grows the array (`Grow(1)`) only when it is full, so its
    capacity past what was ever decoded holds only zero values, which a fresh item equals."""
    held = caps.get(id(olds))
    return held[1] if held is not None and held[0] is olds else olds


def _keep_backing(out: list[Any], back: list[Any], caps: Backings) -> list[Any]:
    """`out` decoded into `back`: an empty one is a fresh slice (`MakeSlice(..., 0, 0)`), else it keeps the
    items of `back` past its length."""
    if out and len(back) > len(out):
        caps[id(out)] = (out, out + back[len(out):])
    return out


def _items(value: list[Any], sub: Any, olds: list[Any], step: Any, ints: dict[tuple[int, str], int],
           caps: Backings) -> list[Any]:
    """A repeated slice decoded into the first one's items (decode.go `array`), those past its length too (its
    backing array's, `_backing`): a struct item into the old one, a `null` item into what Go holds by value (the
    old item kept), anything else replaced."""
    by_value = step is not None and step.held == gonull.ITEM
    back = _backing(olds, caps)
    out = []
    for i, item in enumerate(value):
        old = back[i] if i < len(back) else None
        if isinstance(sub, dict) and isinstance(item, Pairs):
            out.append(_typed(item, sub, RAW_FIELDS, old if isinstance(old, dict) else {},
                              step.sub if step is not None else None, ints, caps))
        elif item is None and by_value and i < len(back):
            out.append(old)
        else:
            out.append(plain(item))
    return _keep_backing(out, back, caps)


def go_typed_value(tree: Pairs, meta: Any, kind: str, structs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """`typed_value` for a kind whose `spec` and `status` are Go type descriptors (`go_typed_errors`'): a custom
    `UnmarshalJSON`'s value replaced (it decodes into a fresh value), a map's keys decoded anew each; a `null`
    given to what Go holds by value leaves it (`gonull.described_by_value`), a slice's item too (no slice of
    these types holds pointers)."""
    out: dict[str, Any] = {}
    caps: Backings = {}
    top = gonull.described_by_value(kind, kind)
    for key, value in tree:
        old = out.get(key)
        if value is None and key in out and key in top:
            continue  # `Spec CustomResourceDefinitionSpec`, `metav1.ObjectMeta`: null leaves them
        if key in ("spec", "status"):
            out[key] = _go_value(value, f"{kind}{key.capitalize()}", old, structs, kind, caps)
        elif key == "metadata" and isinstance(value, Pairs) and isinstance(meta, dict):
            out[key] = _typed(value, meta, RAW_FIELDS, old if isinstance(old, dict) else {},
                              "meta.ObjectMeta", {}, caps)
        else:
            out[key] = plain(value)
    return out


def _go_value(value: Any, t: Any, old: Any, structs: dict[str, dict[str, Any]], kind: str, caps: Backings) -> Any:
    if isinstance(t, tuple):
        if t[0] == "slice" and isinstance(value, list) and not isinstance(value, Pairs):
            back = _backing(old if isinstance(old, list) else [], caps)  # (items past its length too)
            return _keep_backing([back[i] if item is None and i < len(back) else
                                  _go_value(item, t[1], back[i] if i < len(back) else None, structs, kind, caps)
                                  for i, item in enumerate(value)], back, caps)
        if t[0] == "map" and isinstance(value, Pairs):
            into = old if isinstance(old, dict) else {}
            for key, item in value:
                into[key] = _go_value(item, t[1], None, structs, kind, caps)
            return into
        return plain(value)
    fields = structs.get(t) if isinstance(t, str) else None
    if fields is None or not isinstance(value, Pairs):
        return plain(value)
    into = old if isinstance(old, dict) else {}
    kept = gonull.described_by_value(kind, t)
    for key, item in value:
        if item is None and key in into and key in kept:
            if fields.get(key) == "time":  # `Time.UnmarshalJSON(null)`: the zero time
                into[key] = None
        else:
            into[key] = _go_value(item, fields[key], into.get(key), structs, kind, caps) if key in fields \
                else plain(item)
    return into


def plain(value: Any) -> Any:
    """`Pairs` as Python reads them: dicts, a repeated key's last value kept in its first place."""
    if isinstance(value, Pairs):
        return {k: plain(v) if isinstance(v, list) else v for k, v in value}
    if isinstance(value, list):
        return [plain(v) if isinstance(v, list) else v for v in value]
    return value


# ---- YAML ----------------------------------------------------------------------------------------------
def yaml_error(text: str, loader_class: Any) -> str | None:
    """go-yaml v2's strict error for a YAML document (already read once), or None when it repeats no key as
    go-yaml compares keys. An aliased node's errors are named at each alias, as go-yaml decodes it again, but
    found once; at most `MAX_YAML_LINES` lines (go-yaml has no bound: an aliased repeat may be named a million
    times)."""
    loader = loader_class(text)
    try:
        root = loader.get_node() if loader.check_node() else None  # (go-yaml reads the first document only)
        lines = _yaml_node(root, loader, {}) if root is not None else []
    finally:
        loader.dispose()
    return YAML_PREFIX + "\n  ".join(lines[:MAX_YAML_LINES]) if lines else None


def _yaml_node(node: Any, loader: Any, memo: dict[int, list[str]]) -> list[str]:
    """The errors of decoding `node` (each node's found once: an alias is the anchored node again)."""
    found = memo.get(id(node))
    if found is not None:
        return found
    memo[id(node)] = []  # (an alias inside its own anchor: refused while reading)
    out: list[str] = []
    if isinstance(node, yaml.MappingNode):
        _yaml_pairs(node, loader, out, memo, set())
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            out.extend(_yaml_node(item, loader, memo))
    memo[id(node)] = out
    return out


def _yaml_pairs(node: Any, loader: Any, out: list[str], memo: dict[int, list[str]],
                seen: set[tuple[str, Any]]) -> None:
    for key_node, value_node in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.tag == "tag:yaml.org,2002:merge":
            # `d.merge`: the merged maps' keys set into this one (a sequence's from its last map)
            merged = value_node.value[::-1] if isinstance(value_node, yaml.SequenceNode) else [value_node]
            for m in merged:
                if isinstance(m, yaml.MappingNode):
                    _yaml_pairs(m, loader, out, memo, seen)
            continue
        out.extend(_yaml_node(value_node, loader, memo))  # a value is decoded before its key is set
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        key = loader.construct_object(key_node, deep=True)
        ident = (type(key).__name__, key)
        if ident in seen:
            out.append(f"line {value_node.start_mark.line + 1}: key {_sharp_key(key)} already set in map")
        seen.add(ident)


def _sharp_key(key: Any) -> str:
    """`%#v` of a go-yaml map key."""
    return "<nil>" if key is None else sharp_v(key)


def yaml_warnings(error: str) -> list[str]:
    """rest.go `parseYAMLWarnings`: one warning per line of a go-yaml strict error."""
    for prefix in ("yaml: unmarshal errors:\n", "error converting YAML to JSON: yaml: unmarshal errors:\n"):
        if error.startswith(prefix):
            return [line.strip() for line in error[len(prefix):].split("\n")]
    return [error]

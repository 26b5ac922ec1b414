"""A `RawExtension`'s bytes as Go keeps them (ControllerRevision `data`), where Python's value of them differs.

Upstream (apimachinery `runtime/extension.go`): `RawExtension.UnmarshalJSON` keeps the value's bytes as sent
(`encoding/json` hands it `data[start:end]`: escapes, key order, repeated keys, `-0` and the whitespace inside
all kept); the conversion to the internal `runtime.Unknown` (`runtime/embedded.go`) and the protobuf storage
(`raw`) keep the same bytes, so `ValidateControllerRevisionUpdate`'s `ValidateImmutableField` (`Semantic.DeepEqual`
of the Unknowns) compares them byte for byte. `MarshalJSON` returns them and encoding/json's `marshalerEncoder`
compacts them (`encode.go` `appendCompact(out, b, escapeHTML)`: whitespace outside strings dropped, `<`, `>`, `&`,
U+2028 and U+2029 escaped, nothing else touched); a protobuf answer carries them as stored.

Where they come from: a JSON body's bytes (`attach`: the member's text found in the body, the last one not `null`,
which `UnmarshalJSON` ignores); a YAML body is JSON
first (sigs.k8s.io/yaml `YAMLToJSON`: `json.Marshal` of the converted value, keys sorted: `from_value`); a
protobuf body's `raw` as sent; a JSON or merge patch (the PATCH handler's, a mutating webhook's) re-marshals the
document as evanphx/json-patch v4's lazy nodes write it (`repatched`, gojsonlazy.py: an untouched value's bytes
compacted, a touched object's keys sorted, an array's untouched elements and the patch's own bytes of a value it
brings kept); a strategic patch, an apply and a controller's write hold the value Go writes again (no wrapper:
`exact` is Go's encoding of it). An etcd value holds them as they are (`stored`; `loaded` finds them again).

A value is wrapped (`RawDict`, `RawList`, `RawStr`, `RawInt`; a float's literal is gojsonnum's `RawFloat`) only
when its bytes differ from Go's encoding of the value, so objects written by Go's rules cost nothing; until the
first wrapper, `SEEN[0]` is false and no answer is looked at (gojsonnum.encode asks it).
"""
from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

from . import gojsonnum
from .gojsonhtml import escape_html
from ..wire import textdecode  # (the module: it imports gojsonnum, which imports this one)

SEEN = [False]  # has any value been wrapped? (until then no answer or stored value holds one)
_WS_OR_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|[ \t\r\n]+', re.DOTALL)
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]', re.DOTALL)
KIND_MARK = '"kind":"ControllerRevision'  # the kinds with a RawExtension field (answers, lists, events)


class RawDict(dict):  # type: ignore[type-arg]
    """A JSON object held with the bytes it was sent as (`raw`)."""

    __slots__ = ("raw",)

    def __reduce__(self) -> tuple[Any, ...]:
        return _make, (dict(self), self.raw)

    def __deepcopy__(self, memo: dict[int, Any]) -> RawDict:
        return _make({k: copy.deepcopy(v, memo) for k, v in self.items()}, self.raw)  # type: ignore[return-value]


class RawList(list):  # type: ignore[type-arg]
    """A JSON array held with the bytes it was sent as (`raw`)."""

    __slots__ = ("raw",)

    def __reduce__(self) -> tuple[Any, ...]:
        return _make, (list(self), self.raw)

    def __deepcopy__(self, memo: dict[int, Any]) -> RawList:
        return _make([copy.deepcopy(v, memo) for v in self], self.raw)  # type: ignore[return-value]


class RawStr(str):
    """A JSON string held with the bytes it was sent as (`"\\u00e9"`)."""

    __slots__ = ("raw",)

    def __reduce__(self) -> tuple[Any, ...]:
        return _make, (str(self), self.raw)

    def __deepcopy__(self, memo: dict[int, Any]) -> RawStr:
        return self


class RawInt(int):
    """A JSON integer held with the bytes it was sent as (`-0`; `raw` in its `__dict__`: an int has no slots)."""

    raw: str

    def __reduce__(self) -> tuple[Any, ...]:
        return _make, (int(self), self.raw)

    def __deepcopy__(self, memo: dict[int, Any]) -> RawInt:
        return self


RAW_TYPES = (RawDict, RawList, RawStr, RawInt)
_PLAIN = {RawDict: dict, RawList: list, RawStr: str, RawInt: int}
_HOLDERS = {dict: RawDict, list: RawList, str: RawStr, int: RawInt}


def _make(value: Any, raw: str) -> Any:
    out: Any = _HOLDERS[type(value)](value)
    out.raw = raw
    SEEN[0] = True
    return out


def go_text(value: Any) -> str:
    """encoding/json's bytes of a decoded value (`json.Marshal`: Go's numbers, HTML characters escaped)."""
    return gojsonnum.encode(value)


def compact(raw: str, escape: bool = True) -> str:
    """encoding/json's `appendCompact(dst, raw, escapeHTML=escape)` (`json.Compact`: `escape` false)."""
    out = _WS_OR_STRING.sub(lambda m: m.group() if m.group()[0] == '"' else "", raw)
    return escape_html(out) if escape else out


def wrap(value: Any, raw: str) -> Any:
    """`value` held with the bytes `raw` it was read from (itself when they are Go's own bytes of it)."""
    value = plain(value)
    if type(value) not in _HOLDERS or raw == go_text(value):
        return value  # (a float's literal is gojsonnum's `RawFloat`; a bool or null has one spelling)
    return _make(value, raw)


def plain(value: Any) -> Any:
    """The value without its bytes (a shallow copy)."""
    t = _PLAIN.get(type(value))
    return value if t is None else t(value)


def exact(value: Any) -> str:
    """The bytes Go holds for a `RawExtension` read into `value` (`Raw`: what the immutability check compares)."""
    raw = getattr(value, "raw", None) if type(value) in RAW_TYPES else None
    return raw if raw is not None else go_text(value)


def answered(value: Any) -> str:
    """What `MarshalJSON` of it answers after encoding/json's compaction."""
    return compact(value.raw) if type(value) in RAW_TYPES else go_text(value)


def member(text: str, key: str, skip_null: bool = False) -> str | None:
    """The bytes of the value of `key` in the JSON object `text` (its last occurrence, as Go's decoder keeps the
    last; keys compared decoded and case-sensitively, as sigs.k8s.io/json does); None when absent. `skip_null`:
    the last that is not `null` (a `RawExtension`'s `UnmarshalJSON` leaves its bytes alone on a `null`)."""
    depth, expect_key, found, start = 0, False, None, -1
    pending: str | None = None  # the key whose value comes next (depth 1)
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if depth == 1 and start >= 0 and tok in ",}":  # the end of a top-level member's value
            if pending == key:
                value = text[start:m.start()].strip()
                found = found if skip_null and value == "null" else value
            start, pending = -1, None
        if tok in "{[":
            depth += 1
            expect_key = depth == 1 and tok == "{"
        elif tok in "}]":
            depth -= 1
            if depth == 0:
                break
        elif tok == ",":
            expect_key = depth == 1
        elif tok == ":":
            if depth == 1:
                start = _value_start(text, m.end())
        elif depth == 1 and expect_key:
            pending = json.loads(tok) if "\\" in tok else tok[1:-1]
            expect_key = False
    return found


def _value_start(text: str, i: int) -> int:
    while text[i] in " \t\r\n":
        i += 1
    return i


def attach(obj: dict[str, Any], fields: tuple[str, ...], body: bytes) -> None:
    """A JSON body's `RawExtension` fields held with their bytes as sent (in place)."""
    text = None
    for name in fields:
        if name in obj:
            text = text if text is not None else body.decode("utf-8", "replace")
            raw = member(text, name, skip_null=True)
            if raw is not None:
                value = obj[name]
                if value is None:  # bytes sent before a later `null`: Go keeps them (Python kept the null)
                    value = gojsonnum.keep_literals(textdecode.loads_json(raw.encode()))
                obj[name] = wrap(value, raw)


def from_value(obj: dict[str, Any], fields: tuple[str, ...]) -> None:
    """A YAML body's `RawExtension` fields: the bytes `YAMLToJSON` wrote (`json.Marshal`: keys sorted)."""
    for name in fields:
        if obj.get(name) is not None:
            obj[name] = wrap(obj[name], go_text(gojsonnum.remarshal(plain(obj[name]))))


@dataclass(frozen=True)
class PatchBase:
    """What `repatched` needs of the object a JSON or merge patch runs on: its JSON as kube-apiserver encodes it
    (`runtime.Encode`: each `RawExtension` compacted), the kind's `RawExtension` fields, and each held field's value
    and answered bytes (for the patches gojsonlazy does not follow)."""

    doc: str
    fields: tuple[str, ...]
    held: dict[str, tuple[Any, str]]


def before_patch(obj: dict[str, Any], fields: tuple[str, ...]) -> PatchBase:
    """The `PatchBase` of the current object (before the patch runs on it)."""
    return PatchBase(encode(obj), fields, {name: (copy.deepcopy(plain(obj[name])), answered(obj[name]))
                                           for name in fields if obj.get(name) is not None})


def repatched(patched: dict[str, Any], base: PatchBase, patch_text: str, merge: bool) -> None:
    """A JSON or merge patch's result as kube-apiserver decodes it again (in place): each `RawExtension` field
    holds the bytes evanphx/json-patch v4 writes of it (gojsonlazy.py: an untouched value's bytes compacted, a
    touched object's keys sorted, the patch's own bytes of what it brings), its value read from them. Where that
    model does not follow the patch (an error evanphx answers that http/patch.py did not), the value patched here
    is kept and written as `_remarshaled` guesses it."""
    try:
        text = (_lazy.merge_patch if merge else _lazy.apply_patch)(base.doc, patch_text)
    except (_lazy.PatchFailed, _lazy.Unfollowed):
        text = None
    for name in base.fields:
        new = patched.get(name)
        if new is None:
            continue
        raw = member(text, name) if text is not None else None
        if raw is not None and raw != "null":
            patched[name] = wrap(gojsonnum.keep_literals(textdecode.loads_json(raw.encode())), raw)
        elif name in base.held:
            old, old_text = base.held[name]
            patched[name] = wrap(plain(new), _remarshaled(new, old, old_text))


def _remarshaled(new: Any, old: Any, old_text: str) -> str:
    if gojsonnum.encode(new) == gojsonnum.encode(old):
        return old_text
    if isinstance(new, dict) and isinstance(old, dict) and old_text.startswith("{"):
        parts = []
        for k in sorted(new):
            sub = member(old_text, k) if k in old else None
            parts.append(encode_basestring(k) + ":" + (_remarshaled(new[k], old[k], sub) if sub is not None
                                                       else go_text(new[k])))
        return escape_html("{" + ",".join(parts) + "}")
    return go_text(new)


def encode(obj: Any, html: bool = True) -> str:
    """Compact JSON of an answer holding wrapped values (each written as `answered`); `html` False: its other
    strings keep `<`, `>`, `&` (an answer written without encoding/json's escapes, `/openapi/v2`, which names
    the kind but holds no wrapped value)."""
    out: list[str] = []
    _encode(obj, out, 0, html)
    return "".join(out)


def _encode(o: Any, out: list[str], depth: int, html: bool) -> None:
    t = type(o)
    if t in RAW_TYPES:
        out.append(answered(o))
    elif t is dict and depth < 5:
        out.append("{")
        for i, (k, v) in enumerate(o.items()):
            key = encode_basestring(k)
            out.append(("," if i else "") + (escape_html(key) if html else key) + ":")
            if k == "metadata":
                out.append(gojsonnum.encode(v, html=html))
            else:
                _encode(v, out, depth + 1, html)
        out.append("}")
    elif t is list and depth < 5:
        out.append("[")
        for i, v in enumerate(o):
            if i:
                out.append(",")
            _encode(v, out, depth + 1, html)
        out.append("]")
    else:
        out.append(gojsonnum.encode(o, html=html))


def holds_raw(obj: dict[str, Any]) -> bool:
    """Is `obj` of a kind whose etcd value `stored` writes?"""
    return obj.get("kind") == "ControllerRevision"


def stored(obj: dict[str, Any]) -> str:
    """The etcd value of a ControllerRevision: `data` as the bytes Go keeps (`exact`: wrapped or not, so `loaded`
    finds them again), every other member as gojsonnum writes it."""
    return "{" + ",".join(encode_basestring(k) + ":" + (exact(v) if k == "data" and v is not None
                                                        else gojsonnum.encode(v)) for k, v in obj.items()) + "}"


def loaded(text: str, obj: Any) -> Any:
    """An etcd value read back (`gojsonnum.loads_stored`): a ControllerRevision's `data` held with its stored bytes."""
    if isinstance(obj, dict) and obj.get("kind") == "ControllerRevision" and obj.get("data") is not None:
        raw = member(text, "data")
        if raw is not None:
            obj["data"] = wrap(obj["data"], raw)
    return obj


from . import gojsonlazy as _lazy  # (last: it imports this module's `compact`)

__all__ = ["KIND_MARK", "RAW_TYPES", "PatchBase", "RawDict", "RawInt", "RawList", "RawStr", "answered", "attach",
           "before_patch", "compact", "encode", "exact", "from_value", "go_text", "holds_raw", "loaded", "member",
           "plain", "repatched", "stored", "wrap"]

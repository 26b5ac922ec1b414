"""JSON and YAML request bodies decoded with Go's safety rails, so no body can poison the store or stall
the server:

* a lone UTF-16 surrogate (`"\\ud800"`) becomes U+FFFD, as Go's `encoding/json` does -- Python would keep a
  string that no encoder can write back, and every later list holding it would fail;
* nesting is bounded (`MAX_DEPTH`): Go stops at 10000 levels (`exceeded max depth`); Python's recursive
  encoders, copies and YAML emitter stop far earlier, so this server refuses deeper than `MAX_DEPTH` with
  the same words (a documented limit of the reference server);
* YAML scalars resolve as go-yaml v2 resolves them (`wire/goyaml.py`: `y` is true, `1e3` a number, a date
  the string it was written as);
* invalid UTF-8 in a JSON body becomes U+FFFD, one for each byte that does not start a valid sequence, as
  encoding/json's `unquote` (`utf8.DecodeRune`'s `RuneError`, width 1) reads it inside a string (outside one it
  is a syntax error either way: wire/gojson.py words it); a YAML body holding any is refused with go-yaml v2's
  reader error (sigs.k8s.io/yaml v1.4.0 `goyaml.v2/readerc.go` `yaml_parser_update_buffer`);
* YAML aliases obey go-yaml's `excessive aliasing` rule (`decode.go`, `allowedAliasRatio`), computed on
  the composed node graph, so a billion-laughs document is refused before it is expanded; an alias of no anchor
  before it, or inside its own anchor's value, is go-yaml's error (`unknown anchor 'x' referenced`, `anchor 'x'
  value contains itself`);
* a YAML stream is read up to the end of its first document, as go-yaml's `Unmarshal` reads it (`p.parse()`
  once): what follows is never read;
* a YAML syntax error is go-yaml's (`goyaml.go_error`: `yaml: line 2: mapping values are not allowed in this
  context`).

Errors are `BodyError` (a ValueError) carrying Go's text; the HTTP layer makes them 400s. A YAML error is what
sigs.k8s.io/yaml's `YAMLToJSON` returns (a YAML body: go-yaml's or `json.Marshal`'s error as it is), or, for its
`Unmarshal` (a server-side apply's configuration), wrapped: `error converting YAML to JSON: %w`.
"""
from __future__ import annotations

import codecs
import json
import re
from typing import Any, Iterable

import yaml

from ..goport.gojsonnum import go_float, go_int
from .goyaml import GoYAMLError, GoYAMLLoader, PureGoYAMLLoader, go_error, redefines_anchor

MAX_DEPTH = 100
_SURROGATE_ESCAPE = re.compile(rb"\\[uU][dD][89a-fA-F]")
_LONE = re.compile("[\ud800-\udfff]")
_OPENERS = re.compile(rb"[\[{]")


class BodyError(ValueError):
    """A body Go's decoder would refuse; `str()` is Go's message."""


def too_deep() -> BodyError:
    return BodyError("invalid character '{' exceeded max depth")


def _not_json(name: str) -> Any:
    """`NaN`, `Infinity`, `-Infinity`: Python's extension, a syntax error to Go (wire/gojson.py words it)."""
    if name.startswith("-"):  # a number's sign, then a letter
        raise ValueError("invalid character 'I' in numeric literal")
    raise ValueError(f"invalid character {name[0]!r} looking for beginning of value")


def _go_replace(exc: UnicodeError) -> tuple[str, int]:
    """One U+FFFD for the first byte of an invalid sequence; decoding goes on at the next byte (Go's per-byte
    `RuneError`, where Python's own "replace" takes a truncated sequence's bytes as one)."""
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    return "\ufffd", exc.start + 1


codecs.register_error("nsconform-go-utf8", _go_replace)


def go_text(raw: bytes) -> str:
    """A JSON body's bytes as encoding/json reads them: invalid UTF-8 replaced byte by byte."""
    return raw.decode("utf-8", "nsconform-go-utf8")


def yaml_text(raw: bytes) -> str:
    """A YAML body's bytes as go-yaml v2's reader takes them: valid UTF-8, else its `GoYAMLError` for the first
    invalid sequence."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GoYAMLError("yaml: " + _reader_problem(raw, exc.start)) from None


def _reader_problem(raw: bytes, at: int) -> str:
    """`yaml_parser_update_buffer`'s problem for the sequence starting at `at` (the first Python refused: every
    byte before it is UTF-8 both read alike)."""
    octet = raw[at]
    width = 1 if octet & 0x80 == 0 else 2 if octet & 0xE0 == 0xC0 else 3 if octet & 0xF0 == 0xE0 else \
        4 if octet & 0xF8 == 0xF0 else 0
    if not width:
        return "invalid leading UTF-8 octet"
    if at + width > len(raw):
        return "incomplete UTF-8 octet sequence"
    value = octet & (0x7F, 0x1F, 0x0F, 0x07)[width - 1]
    for k in range(1, width):
        if raw[at + k] & 0xC0 != 0x80:
            return "invalid trailing UTF-8 octet"
        value = (value << 6) + (raw[at + k] & 0x3F)
    if value < (0, 0x80, 0x800, 0x10000)[width - 1]:
        return "invalid length of a UTF-8 sequence"
    return "invalid Unicode character"  # a surrogate or past U+10FFFF


_DECODER = json.JSONDecoder(parse_constant=_not_json, parse_float=go_float, parse_int=go_int)


class _Repeated(Exception):
    """An object of the body repeats a key (`loads_json_once` reads it again as Python does)."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Repeated
    return out


_CHECKING = json.JSONDecoder(parse_constant=_not_json, parse_float=go_float, parse_int=go_int,
                             object_pairs_hook=_unique)


def loads_json(raw: bytes) -> Any:
    """`json.Unmarshal` semantics: surrogates replaced, depth bounded, numbers as util/json reads them (a float
    Go words otherwise, past int64 or past float64: `gojsonnum.GoFloat`)."""
    return _loads_json(raw, _DECODER)


def loads_json_once(raw: bytes) -> tuple[Any, bool]:
    """`loads_json`, and whether some object repeats a key (its value then as Python reads it: the last one
    kept, in the first one's place); a strict decoder names the repeats (`wire/dupkeys.py`). One hook call per
    object: the body is read twice only when it repeats a key."""
    try:
        return _loads_json(raw, _CHECKING), False
    except _Repeated:
        return loads_json(raw), True


def _loads_json(raw: bytes, decoder: json.JSONDecoder) -> Any:
    try:
        value = decoder.decode(go_text(raw))
    except RecursionError:
        raise too_deep() from None
    check_depth(value, raw)
    if _SURROGATE_ESCAPE.search(raw):
        value = replace_lone_surrogates(value)
    return value


def loads_yaml(raw: bytes, unmarshal: bool = False) -> Any:
    """`sigs.k8s.io/yaml` semantics: depth and go-yaml's alias rule checked on the event stream (before
    anything is built or expanded), then the JSON rules on the result. `unmarshal`: its `Unmarshal` (a
    server-side apply's configuration), whose errors from the YAML to JSON step say so, not `YAMLToJSON`
    (a YAML body)."""
    return loads_yaml_once(raw, unmarshal)[0]


def loads_yaml_once(raw: bytes, unmarshal: bool = False) -> tuple[Any, bool]:
    """`loads_yaml`, and whether a mapping may repeat a key (as JSON keys: go-yaml's own comparison is
    `wire/dupkeys.py`'s)."""
    try:
        text = yaml_text(raw)
        _check_events(yaml.parse(text, Loader=_LOADER))
        try:
            value, repeated = _first_document(_LOADER(text))  # a SafeLoader (C when libyaml is there)
        except yaml.YAMLError as exc:
            if not redefines_anchor(exc):
                raise
            value, repeated = _first_document(PureGoYAMLLoader(text))
    except RecursionError:
        raise too_deep() from None
    except GoYAMLError as exc:
        raise _yaml_error(str(exc), unmarshal) from None
    except yaml.YAMLError as exc:
        words = go_error(exc)
        if words is None:
            raise
        raise _yaml_error(words, unmarshal) from None
    check_depth(value, raw)
    if _LONE.search(text) or b"\\u" in raw or b"\\U" in raw:
        value = replace_lone_surrogates(value)
    return value, repeated


def _first_document(loader: Any) -> tuple[Any, bool]:
    """The stream's first document as `loader` reads it (go-yaml's `Unmarshal` reads one), and whether a mapping
    repeated a key."""
    try:
        value = loader.construct_document(loader.get_node()) if loader.check_node() else None
        return value, loader.repeated
    finally:
        loader.dispose()


def _yaml_error(words: str, unmarshal: bool) -> BodyError:
    """sigs.k8s.io/yaml v1.4.0: `YAMLToJSON` returns the error as it is, `Unmarshal` wraps it."""
    return BodyError(f"error converting YAML to JSON: {words}" if unmarshal else words)


def check_depth(value: Any, raw: bytes | None = None) -> None:
    """Refuse a value nested deeper than MAX_DEPTH (cheap pre-check: too few brackets to be that deep)."""
    if raw is not None and len(_OPENERS.findall(raw[: 1 << 20])) < MAX_DEPTH and len(raw) < 1 << 20:
        return
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if d > MAX_DEPTH:
            raise too_deep()
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values() if isinstance(x, (dict, list)))
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v if isinstance(x, (dict, list)))


def _fix(s: str) -> str:
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace") if _LONE.search(s) else s


def replace_lone_surrogates(value: Any) -> Any:
    """Every unpaired surrogate in keys and strings → U+FFFD (one per surrogate, as Go)."""
    if isinstance(value, str):
        return _fix(value)
    if isinstance(value, list):
        return [replace_lone_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_fix(k) if isinstance(k, str) else k: replace_lone_surrogates(v) for k, v in value.items()}
    return value


# ---- go-yaml's alias rule --------------------------------------------------------------------------
_RATIO_LOW, _RATIO_HIGH = 400_000, 4_000_000
_PY_EXPANSION_CAP = 1_000_000  # expanded nodes of an aliased document (go-yaml: bounded by the ratio alone)


def _allowed_alias_ratio(decode_count: int) -> float:
    if decode_count <= _RATIO_LOW:
        return 0.99
    if decode_count >= _RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decode_count - _RATIO_LOW) / (_RATIO_HIGH - _RATIO_LOW)


_LOADER = GoYAMLLoader  # a safe loader reading scalars as go-yaml v2 does (wire/goyaml.py)


def _check_events(events: Iterable[yaml.Event]) -> None:
    """go-yaml counts every decoded node and alias of the *expanded* document; count both from the events
    (an alias adds its anchor's totals), so a bomb costs its size, not its expansion. Depth is bounded here
    too, before any recursive code sees the document. The first document only (go-yaml's `Unmarshal`); an
    alias must follow its anchor (decode.go `p.alias`, as it is parsed) and not be inside its value (`d.alias`,
    once the document is parsed)."""
    anchors: dict[str, tuple[int, int]] = {}
    defined: dict[str, Any] = {}  # go-yaml's `p.doc.anchors` (a collection's at its start): its stack entry
    itself: str | None = None
    stack: list[list[Any]] = [[0, 0, None]]  # [decode count, alias count, anchor] per open collection
    decode_count = alias_count = 0  # of the whole expanded document so far
    for ev in events:
        if isinstance(ev, yaml.DocumentEndEvent):
            break
        if isinstance(ev, yaml.ScalarEvent) and ev.anchor:
            defined[ev.anchor] = None
        if isinstance(ev, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            stack.append([1, 0, ev.anchor])
            if ev.anchor:
                defined[ev.anchor] = stack[-1]
            decode_count += 1
            if len(stack) > MAX_DEPTH + 1:
                raise too_deep()
            continue
        if isinstance(ev, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            count, aliases, anchor = stack.pop()
            if anchor is not None:
                anchors[anchor] = (count, aliases)
            stack[-1][0] += count
            stack[-1][1] += aliases
            continue
        if isinstance(ev, yaml.ScalarEvent):
            if ev.anchor is not None:
                anchors[ev.anchor] = (1, 0)
            stack[-1][0] += 1
            decode_count += 1
            continue
        if not isinstance(ev, yaml.AliasEvent):
            continue
        if ev.anchor not in defined:
            raise GoYAMLError(f"yaml: unknown anchor '{ev.anchor}' referenced")
        if itself is None and (entry := defined[ev.anchor]) is not None and any(e is entry for e in stack):
            itself = ev.anchor  # (its value is a collection still open: the alias is inside it)
        count, aliases = anchors.get(ev.anchor, (1, 0))
        stack[-1][0] += count
        stack[-1][1] += aliases + 1
        decode_count += count
        alias_count += aliases + 1
        if alias_count > 100 and decode_count > 1000 and \
                alias_count / decode_count > _allowed_alias_ratio(decode_count) or decode_count > _PY_EXPANSION_CAP:
            raise GoYAMLError("yaml: document contains excessive aliasing")
    if itself is not None:
        raise GoYAMLError(f"yaml: anchor '{itself}' value contains itself")

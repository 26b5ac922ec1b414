"""go-yaml v2's reading of a YAML document as sigs.k8s.io/yaml v1.4.0 gives it to kube-apiserver (its fork
`goyaml.v2/resolve.go` `resolve`, `decode.go`, then `yaml.go` `convertToJSONableObject` and `json.Marshal`), for a
YAML body and a server-side apply's configuration, where PyYAML's YAML 1.1 resolver differs:
- a plain scalar is a bool for `y`, `Y`, `n`, `N` too, an int in Go's `ParseInt(s, 0, 64)` syntax with `_`
  removed (`017` octal, `0o17`, `0b101`; `1:30` is no sexagesimal 90 but a string), or a float where
  `^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$` matches (`1e3`, which PyYAML leaves a string);
- a timestamp (`2001-12-14`) stays the string it was written as (decoded into `interface{}`, `decode.go` keeps
  it so "for backward compatibility"), never a date no JSON encoder can write;
- `!!binary` is the decoded bytes as a string;
- a map key that is not a string is written as one (`strconv.Itoa`, `true`/`false`);
- a float with no fraction below 1e21 is an integer, as `json.Marshal` writes it (`1e3` is 1000), and `.nan` or
  `.inf` is `json.Marshal`'s refusal (`UnsupportedValue`);
- a tag go-yaml does not resolve (`!foo`, `!!set`, `!!omap`) is ignored, as `resolve` ignores it (a scalar its
  text); an explicit `!!int`, `!!float`, `!!bool` or `!!null` must be what the scalar resolves to (`!!int abc`:
  ``cannot decode !!str `abc` as a !!int``);
- what does not read is go-yaml's error (`GoYAMLError`, `go_error`), which `YAMLToJSON` returns as it is and
  sigs.k8s.io/yaml's `Unmarshal` wraps (`error converting YAML to JSON: %w`).
"""
from __future__ import annotations

import base64
import math
import re
from typing import Any

import yaml

from ..goport.gofmt import format_float, go_quote, sharp_v
from ..goport.gojsonnum import note_float

_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_GO_PLAIN = "tag:nsconform,2026:go-plain"
_MERGE = "tag:yaml.org,2002:merge"
_MAP: dict[str, Any] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
}
_INT = re.compile(r"([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|0([0-7]+)|([0-9]+))")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")  # yamlStyleFloat


def _hint(text: str) -> str:
    """`resolveTable`: what the first character allows (`""` for nothing but a string)."""
    if not text:
        return "N"
    c = text[0]
    return "S" if c in "+-" else "D" if c.isascii() and c.isdigit() else "M" if c in "yYnNtTfFoO~" else \
        "." if c == "." else ""


def _parse_int(s: str) -> int | None:
    """`strconv.ParseInt(s, 0, 64)`, then `ParseUint(s, 0, 64)` (no sign) for what an int64 cannot hold."""
    found = _INT.fullmatch(s)
    if found is None:
        return None
    sign, hexa, octo, bina, octal, dec = found.groups()
    digits, base = next((d, b) for d, b in ((hexa, 16), (octo, 8), (bina, 2), (octal, 8), (dec, 10)) if d)
    value = int(digits, base) * (-1 if sign == "-" else 1)
    if -2 ** 63 <= value < 2 ** 63 or (not sign and 0 <= value < 2 ** 64):
        return value
    return None


def _parse_float(s: str) -> float | None:
    """`strconv.ParseFloat(s, 64)` of a decimal literal: None where it fails (a syntax error, out of range)."""
    if _FLOAT.fullmatch(s) is None:
        return None
    value = float(s)
    if math.isinf(value):
        return None
    note_float(value)  # answers now look for floats Python writes otherwise (gojsonnum.py)
    return value


def resolve_plain(text: str) -> Any:
    """`resolve("", text)` for a plain (unquoted, untagged) scalar, decoded into `interface{}`."""
    hint = _hint(text)
    if not hint:
        return text
    if text in _MAP:
        return _MAP[text]
    if hint == ".":
        value = _parse_float(text)
        return text if value is None else value
    if hint in "DS":  # (a timestamp, which would be tried first, stays its text: no number looks like one)
        plain = text.replace("_", "")
        number = _parse_int(plain)
        if number is None:
            number = _parse_float(plain)
        return text if number is None else number
    return text


def json_number(value: Any) -> Any:
    """What `json.Marshal` writes for a float64 and a decoder reads back: an integer below 1e21 without a
    fraction (`1000`, not `1000.0`)."""
    if isinstance(value, float) and math.isfinite(value) and value == math.trunc(value) and abs(value) < 1e21:
        return int(value)
    return value


def _key(key: Any) -> Any:
    """`convertToJSONableObject`: a map key as JSON needs it (a float as go-yaml writes one, 32-bit `g`)."""
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return {math.inf: ".inf", -math.inf: "-.inf"}.get(key, ".nan" if math.isnan(key) else format_float(key))
    return key


class GoYAMLLoader(_BASE):  # type: ignore[misc,valid-type]
    """A safe loader (C when libyaml is there) with go-yaml v2's scalars and JSON's keys; `repeated`: a mapping
    read repeats a key (Python keeps the last value, as go-yaml's non-strict decoder)."""

    repeated = False

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode and implicit[0]:
            return _MERGE if value == "<<" else _GO_PLAIN
        return str(super().resolve(kind, value, implicit))

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        """SafeConstructor's, each key made JSON's as it is read (so `1` and `true` stay two keys)."""
        if isinstance(node, yaml.MappingNode):
            self.flatten_mapping(node)  # `<<` merges
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = _key(self.construct_object(key_node, deep=deep))
            if key is None:  # (the value printed with `%+#v` as for a JSON value: a YAML map's type differs)
                value = sharp_v(self.construct_object(value_node, deep=True))
                raise GoYAMLError("unsupported map key of type: %!s(<nil>), key: <nil>, value: "  # yaml.go's
                                  f"{value}")
            try:
                hash(key)
            except TypeError:  # decode.go `d.mapping`: a map or a slice as a key
                raise GoYAMLError(f"yaml: invalid map key: {_node_sharp_v(key_node)}") from None
            if key in mapping:
                self.repeated = True
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


class GoYAMLError(ValueError):
    """An error go-yaml v2 (or sigs.k8s.io/yaml's conversion after it) returns, `str()` its words: what
    `YAMLToJSON` returns as it is, `Unmarshal` wrapped."""


def go_error(exc: yaml.YAMLError) -> str | None:
    """go-yaml v2's words for what PyYAML's C parser (libyaml, of which go-yaml's scannerc.go, parserc.go and
    readerc.go are a port, messages and marks alike) refused; None for an error of PyYAML's own.

    sigs.k8s.io/yaml v1.4.0 goyaml.v2/decode.go `(*parser).fail`: `yaml: line N: <problem>` (the problem alone,
    never the context), N the problem mark's 0-based line, plus one for a scanner error only ("Scanner errors don't
    iterate line before returning error"), else the context mark's line; no `line` where that is 0 (a scanner
    error on the first line, a parser error on the first two). A reader error (`yaml_parser_set_reader_error`)
    sets no mark: `yaml: <problem>`."""
    if isinstance(exc, yaml.reader.ReaderError):
        return f"yaml: {exc.reason}"
    if not isinstance(exc, (yaml.scanner.ScannerError, yaml.parser.ParserError)):
        return None
    problem, context = exc.problem_mark, exc.context_mark
    line = 0
    if problem is not None and problem.line:
        line = problem.line + (1 if isinstance(exc, yaml.scanner.ScannerError) else 0)
    elif context is not None and context.line:
        line = context.line
    where = f"line {line}: " if line else ""
    return f"yaml: {where}{exc.problem or 'unknown problem parsing YAML content'}"


def _node_sharp_v(node: yaml.Node) -> str:
    """`%#v` of a node as go-yaml decodes it into `interface{}` (maps `map[interface {}]interface {}`, keys in
    fmt's order for strings), for the invalid map key it names."""
    if isinstance(node, yaml.SequenceNode):
        return "[]interface {}{" + ", ".join(_node_sharp_v(n) for n in node.value) + "}"
    if isinstance(node, yaml.MappingNode):
        pairs = sorted((_node_sharp_v(k), _node_sharp_v(v)) for k, v in node.value)
        return "map[interface {}]interface {}{" + ", ".join(f"{k}:{v}" for k, v in pairs) + "}"
    value = resolve_plain(node.value) if node.tag == _GO_PLAIN else node.value
    if isinstance(value, str):
        return go_quote(value)
    return sharp_v(value) if value is not None else "interface {}(nil)"


def redefines_anchor(exc: yaml.YAMLError) -> bool:
    """Whether PyYAML's composer refused an anchor defined twice, which go-yaml allows (decode.go `p.anchor`: the
    later definition replaces the earlier one for the aliases after it)."""
    return isinstance(exc, yaml.composer.ComposerError) and "duplicate anchor" in str(exc.context)


class _RedefiningComposer(yaml.composer.Composer):
    """PyYAML's composer, an anchor defined again replacing the earlier one (go-yaml's `p.doc.anchors[a] = n`)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if not isinstance(event, yaml.AliasEvent) and event.anchor is not None:
            self.anchors.pop(event.anchor, None)
        return super().compose_node(parent, index)


class UnsupportedValue(GoYAMLError):
    """`json.Marshal`'s `UnsupportedValueError` for a NaN or an infinity, which JSON cannot hold: sigs.k8s.io/yaml
    fails there (`yamlToJSONTarget`), so no YAML body holding one is read."""


def _plain(loader: yaml.BaseLoader, node: yaml.ScalarNode) -> Any:
    value = resolve_plain(node.value)
    if isinstance(value, float) and not math.isfinite(value):
        raise UnsupportedValue("json: unsupported value: " + ("NaN" if math.isnan(value) else
                                                             "+Inf" if value > 0 else "-Inf"))
    return json_number(value)


def _binary(loader: yaml.BaseLoader, node: yaml.ScalarNode) -> str:
    try:  # go-yaml: `base64.StdEncoding.DecodeString`, the bytes as a string (JSON: invalid UTF-8 as U+FFFD)
        return base64.b64decode("".join(node.value.split()), validate=True).decode("utf-8", "replace")
    except ValueError:  # decode.go `d.scalar`'s `failf`
        raise GoYAMLError("yaml: !!binary value contains invalid base64 data") from None


_SHORT = {type(None): "!!null", bool: "!!bool", int: "!!int", float: "!!float", str: "!!str"}


def _explicit(tag: str) -> Any:
    """An explicit `!!int`, `!!float`, `!!bool` or `!!null` (resolve.go `resolve(tag, in)`): the scalar resolved as
    if untagged, which must give that tag (an int is a float's too), else go-yaml's `failf("cannot decode %s `%s`
    as a %s", shortTag(rtag), in, shortTag(tag))`."""
    def construct(loader: yaml.BaseLoader, node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):  # (a collection: decode.go reads it as untagged)
            return _unresolved(loader, node)  # type: ignore[arg-type]
        value = resolve_plain(node.value)
        got = _SHORT.get(type(value), "!!str")
        if got != tag and not (tag == "!!float" and got == "!!int"):
            raise GoYAMLError(f"yaml: cannot decode {got} `{node.value}` as a {tag}")
        return _plain(loader, node)
    return construct


def _unresolved(loader: GoYAMLLoader, node: yaml.Node) -> Any:
    """A tag go-yaml cannot resolve (`!foo`: resolve.go `resolvableTag`), ignored: a scalar its text, a collection
    read as if untagged."""
    if isinstance(node, yaml.ScalarNode):
        return node.value
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_mapping(node, deep=True)


GoYAMLLoader.add_constructor(_GO_PLAIN, _plain)
GoYAMLLoader.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: str(node.value))
GoYAMLLoader.add_constructor("tag:yaml.org,2002:binary", _binary)
for _tag in (None, "tag:yaml.org,2002:set", "tag:yaml.org,2002:omap", "tag:yaml.org,2002:pairs"):
    GoYAMLLoader.add_constructor(_tag, _unresolved)
for _name in ("int", "float", "bool", "null"):
    GoYAMLLoader.add_constructor(f"tag:yaml.org,2002:{_name}", _explicit(f"!!{_name}"))


class PureGoYAMLLoader(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser,  # type: ignore[misc]
                       _RedefiningComposer, GoYAMLLoader):
    """`GoYAMLLoader` on PyYAML's Python parser and a composer that lets an anchor be defined again (the C
    composer refuses it): for the documents that do that, read as go-yaml reads them."""

    def __init__(self, stream: str):
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)

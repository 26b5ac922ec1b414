"""structured-merge-diff's check of a value against its type (v4.6.0 `typed/validate.go`, `typed/helpers.go`,
`fieldpath/element.go` `PathElement.String`, `value/value.go` `ToString`): what `AsTyped` answers for an
applied configuration that does not type, in smd's words.

The value is what sigs.k8s.io/yaml decodes an apply body into (every number a float64, so a number prints as
Go prints a float64 and its `%T` is `float64`). Each error carries its path (`.spec.replicas`,
`.spec.containers[name="app"].ports`, `.args[0]`, `[="x"]`); several are joined as `ValidationErrors.Error`
joins them (`errors:` and one indented line each). Upstream walks a map in Go's random order, stopping at the
first undeclared field; here a map is walked in its keys' order.
"""
from __future__ import annotations

from typing import Any

from ..goport.gofmt import format_float, go_type, plain_v, sharp_v
from ..goport.gonet.strconv import quote
from .smdschema import BOOLEAN, NUMERIC, STRING, UNTYPED, Atom, ListAtom, MapAtom, Ref

Errors = list[tuple[str, str]]   # (path, message)


def validate(value: Any, root: Ref) -> str | None:
    """`TypedValue.Validate` of `value` (`AsTyped`): None when it types, else smd's error text."""
    errs = _walk(value, root)
    if not errs:
        return None
    lines = [f"{path}: {msg}" if path else msg for path, msg in errs]
    return lines[0] if len(lines) == 1 else "\n".join(["errors:"] + ["  " + line for line in lines])


def _prefixed(errs: Errors, prefix: str) -> Errors:
    return [(prefix + path, msg) for path, msg in errs]


def _walk(value: Any, ref: Ref) -> Errors:
    """`resolveSchema` + `deduceAtom` + `handleAtom`."""
    atom = _deduce(ref.resolve(), value)
    if atom.map is not None:
        return _map(atom.map, value)
    if atom.scalar is not None:
        return _scalar(atom.scalar, value)
    if atom.list is not None:
        return _list(atom.list, value)
    return [("", "schema error: invalid atom: inlined")]


def _deduce(atom: Atom, value: Any) -> Atom:
    if isinstance(value, (bool, int, float, str)):
        if atom.scalar is not None:
            return Atom(atom.scalar)
    elif isinstance(value, list):
        if atom.list is not None:
            return Atom(list=atom.list)
    elif isinstance(value, dict):
        if atom.map is not None:
            return Atom(map=atom.map)
    return atom


def _scalar(kind: str, v: Any) -> Errors:
    """`validateScalar`."""
    if v is None:
        return []
    scalar = isinstance(v, (bool, int, float, str))
    number = isinstance(v, (int, float)) and not isinstance(v, bool)
    if kind == NUMERIC and not number:
        return [("", f"expected numeric (int or float), got {go_type(_go(v))}")]
    if kind == STRING and not isinstance(v, str):
        return [("", f"expected string, got &value.valueUnstructured{{Value:{sharp_v(_go(v))}}}")]
    if kind == BOOLEAN and not isinstance(v, bool):
        return [("", f"expected boolean, got {_pointer_v(v)}")]
    if kind == UNTYPED and not scalar:
        return [("", f"expected any scalar, got {_pointer_v(v)}")]
    return []


def _list(t: ListAtom, v: Any) -> Errors:
    """`doList` + `visitListItems` (duplicates refused: the applied object never allows them)."""
    if v is None:
        return []
    if not isinstance(v, list):
        return [("", go_sprintf(f"expected list, got {_pointer_v(v)}"))]
    errs: Errors = []
    seen: set[str] = set()
    for i, child in enumerate(v):
        if t.associative:
            pe, problem = _item_element(t, child)
            if problem is not None:
                errs.append(("", f"element {i}: {problem}"))
                return errs  # without its path element nothing deeper can be reported
            if pe in seen:
                errs.append(("", f"duplicate entries for key {pe}"))
            seen.add(pe)
        else:
            pe = f"[{i}]"
        errs += _prefixed(_walk(child, t.element), pe)
    return errs


def _map(t: MapAtom, v: Any) -> Errors:
    """`doMap` + `visitMapItems`."""
    if v is None:
        return []
    if not isinstance(v, dict):
        return [("", go_sprintf(f"expected map, got {_pointer_v(v)}"))]
    errs: Errors = []
    for key, child in v.items():
        declared = t.fields.get(key)
        ref = declared[0] if declared is not None else t.element
        if ref is None:
            errs.append(("." + key, "field not declared in schema"))
            break
        errs += _prefixed(_walk(child, ref), "." + key)
    return errs


def _item_element(t: ListAtom, child: Any) -> tuple[str, str | None]:
    """`listItemToPathElement`: the item's path element as `PathElement.String` prints it, or the reason it has
    none."""
    if t.keys:
        if child is None:
            return "", "associative list with keys may not have a null element"
        if not isinstance(child, dict):
            return "", "associative list with keys may not have non-map elements"
        element = t.element.resolve()
        parts = []
        for name in sorted(t.keys):
            if name in child:
                parts.append(f"{name}={to_string(child[name])}")
                continue
            default = None
            if element.map is None:
                return "", f"couldn't find default value for {name}: associative list may not have non-map types"
            declared = element.map.fields.get(name)
            default = declared[1] if declared is not None else None
            if default is None:
                return "", (f"associative list with keys has an element that omits key field {quote(name)} "
                            "(and doesn't have default value)")
            parts.append(f"{name}={to_string(default)}")
        return "[" + ",".join(parts) + "]", None
    if isinstance(child, dict):
        return "", "associative list without keys has an element that's a map type"
    if isinstance(child, list):
        return "", "not supported: associative list with lists as elements"
    if child is None:
        return "", "associative list without keys has an element that's an explicit null"
    return f"[={to_string(child)}]", None


def _go(v: Any) -> Any:
    """The value as sigs.k8s.io/yaml decodes it: every number a float64."""
    if isinstance(v, bool) or not isinstance(v, (int, float, dict, list)):
        return v
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, dict):
        return {k: _go(x) for k, x in v.items()}
    return [_go(x) for x in v]


def _pointer_v(v: Any) -> str:
    """`%v` of a `value.Value` (a `*valueUnstructured`): `&{<%v of the value>}`."""
    return "&{" + plain_v(_go(v)) + "}"


def to_string(v: Any) -> str:
    """`value.ToString`: strings `%q`, numbers as Go prints a float64, lists `[a,b]`, maps `k=v` run together."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return format_float(float(v))
    if isinstance(v, str):
        return quote(v)
    if isinstance(v, list):
        return "[" + ",".join(to_string(x) for x in v) + "]"
    if isinstance(v, dict):
        return "".join(f"{k}={to_string(x)}" for k, x in v.items())
    return "{{undefined}}"


def go_sprintf(text: str) -> str:
    """`fmt.Sprintf(text)` with no arguments (smd passes `err.Error()` as the format of `errorf`): `%%` is a
    percent sign, any other verb prints `%!<verb>(MISSING)`, a trailing `%` `%!(NOVERB)`."""
    if "%" not in text:
        return text
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch != "%":
            out.append(ch)
            i += 1
            continue
        j = i + 1
        while j < n and text[j] in "+-# 0":
            j += 1
        while j < n and (text[j].isdigit() or text[j] == "."):
            j += 1
        if j >= n:
            out.append("%!(NOVERB)")
            break
        verb = text[j]
        out.append("%" if verb == "%" else f"%!{verb}(MISSING)")
        i = j + 1
    return "".join(out)

"""Field paths and sets, and their FieldsV1 encoding (structured-merge-diff `fieldpath`).

A path is a tuple of serialised path elements, exactly as FieldsV1 spells them: `f:<field>`,
`k:<json of the list-map keys>`, `v:<json of a set element>`, `i:<index>`. A set is a frozenset of *member*
paths; the intermediate nodes of its FieldsV1 tree are implied (`.` marks a node that is itself a member).
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Iterable

Path = tuple[str, ...]
FieldSet = frozenset[Path]
_RANK = {"f": 0, "k": 1, "v": 2, "i": 3}  # `PathElement.Compare`: field < key < value < index


def field(name: str) -> str:
    return "f:" + name


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode
"""One encoder for every key and value element (`json.dumps` with options builds a new one per call)."""


def _json(value: Any) -> str:
    return _ENCODE(value)


def key(fields: dict[str, Any]) -> str:
    """A list-map item's element: its key fields, sorted by name (`KeyByFields`)."""
    return "k:" + _json(dict(sorted(fields.items())))


def value(v: Any) -> str:
    return "v:" + _json(v)


def index(i: int) -> str:
    return f"i:{i}"


def _order(pe: str) -> tuple[int, Any]:
    kind, rest = pe[0], pe[2:]
    return (_RANK.get(kind, 4), int(rest) if kind == "i" and rest.isdigit() else rest)


def element_string(pe: str) -> str:
    """`PathElement.String`: `.name`, `[k="v",n=1]`, `[="v"]`, `[0]`."""
    kind, rest = pe[0], pe[2:]
    if kind == "f":
        return "." + rest
    if kind == "k":
        try:
            keys = json.loads(rest)
        except ValueError:
            return "{{invalid path element}}"
        return "[" + ",".join(f"{k}={_go_value(v)}" for k, v in keys.items()) + "]"
    if kind == "v":
        try:
            return f"[={_go_value(json.loads(rest))}]"
        except ValueError:
            return "{{invalid path element}}"
    return f"[{rest}]"


def _go_value(v: Any) -> str:
    """`value.ToString`: strings quoted (%q), numbers and booleans bare, null `null`."""
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v) if isinstance(v, (int, float)) else _json(v)


def path_string(path: Path) -> str:
    """`Path.String`: `.data.key`, `.spec.containers[name="app"].image`."""
    return "".join(element_string(pe) for pe in path)


def iterate_sorted(paths: Iterable[Path]) -> list[Path]:
    """Paths in the order `Set.Iterate` yields them: depth-first, members before children, elements sorted."""
    return sorted(paths, key=lambda p: [_order(pe) for pe in p])


def to_fields_v1(paths: Iterable[Path]) -> dict[str, Any]:
    """The FieldsV1 tree: children sorted as upstream serialises them, `.` first for member nodes.

    Every write re-encodes every manager's set, mostly unchanged: the tree is built once per distinct set and
    handed out as a fresh copy (json.loads of the cached text, far cheaper than rebuilding it)."""
    return json.loads(_fields_v1_text(paths if isinstance(paths, frozenset) else frozenset(paths)))


@lru_cache(maxsize=2048)
def _fields_v1_text(paths: FieldSet) -> str:
    return json.dumps(_build(paths), separators=(",", ":"))


def _build(paths: Iterable[Path]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    members: set[Path] = set()
    for p in paths:
        if not p:
            continue
        members.add(p)
        node = tree
        for pe in p:
            node = node.setdefault(pe, {})
    return _render(tree, (), members)


def _render(node: dict[str, Any], prefix: Path, members: set[Path]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pe in sorted(node, key=_order):
        path = prefix + (pe,)
        child = _render(node[pe], path, members)
        if child and path in members:
            child = {".": {}} | child
        out[pe] = child
    return out


def from_fields_v1(tree: Any) -> FieldSet:
    """Parse a FieldsV1 tree; anything malformed raises ValueError (upstream: `DecodeManagedFields` fails).
    Parsed once per distinct tree (keyed by its JSON text): every write decodes the live object's managers."""
    if not isinstance(tree, dict):
        raise ValueError("FieldsV1 must be an object")
    try:
        text = json.dumps(tree, separators=(",", ":"))
    except (TypeError, ValueError):
        text = None  # not JSON-encodable: parse it (and fail) without the cache
    return _parsed(text) if text is not None else _parse_tree(tree)


@lru_cache(maxsize=2048)
def _parsed(text: str) -> FieldSet:
    return _parse_tree(json.loads(text))


def _parse_tree(tree: dict[str, Any]) -> FieldSet:
    out: set[Path] = set()
    _parse(tree, (), out)
    return frozenset(out)


def _parse(node: dict[str, Any], prefix: Path, out: set[Path]) -> None:
    for pe, child in node.items():
        if pe == ".":
            if prefix:
                out.add(prefix)
            continue
        if not isinstance(child, dict) or len(pe) < 2 or pe[1] != ":" or pe[0] not in _RANK:
            raise ValueError(f"invalid path element {pe!r}")
        if pe[0] in "kv":
            json.loads(pe[2:])
        if not child:
            out.add(prefix + (pe,))
        else:
            _parse(child, prefix + (pe,), out)


def under(paths: Iterable[Path], top: Iterable[str]) -> FieldSet:
    """The paths at or below the given top-level fields (`RecursiveDifference` helpers)."""
    tops = {field(t) for t in top}
    return frozenset(p for p in paths if p and p[0] in tops)

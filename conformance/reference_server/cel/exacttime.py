"""Durations and timestamps of a custom resource's fields read to the nanosecond, as cel-go reads them
(k8s.io/apiserver/pkg/cel/common/values.go `UnstructuredToVal`: a `date-time` string is `strfmt.ParseDateTime`'s
time, a `duration` string `strfmt.ParseDuration`'s, both with nanoseconds).

cel-rust takes a timestamp or duration from Python only as `datetime`/`timedelta`, which stop at microseconds. So
registry/crdrules/values.py hands a value with finer digits over as its exact text, and the rule is compiled with
the schema's paths to such fields (`TimePaths`): desugar.py reads each field access whose path ends at one
through `wrap_source`, which converts a text with cel-rust's own (exact) `timestamp()`/`duration()` and leaves
anything else (a `datetime`, null) as it is.

A path is a tuple of steps from the rule's `self` (and `oldSelf`, the same schema): a property's escaped name,
`#` for a list's items, `*` for a map's values (`additionalProperties`). A field is followed through selections,
indexes, the macros' and `cel.bind`'s variables and `optional.of(oldSelf).value()` (`optionalOldSelf`), and a
list of such values read whole (`x in self.times`) has each item converted, as is an optional's `value()` or
`orValue()` (`self.?t.value()`). A map, list or object holding such fields compared whole (`self == oldSelf`) is
compared by `exact_equal`, its fields read as instants and lengths of time as cel-go's `Equal` reads them (the same
instant at another offset is equal); a value reached otherwise (handed to a function, an optional compared whole)
is the text itself. `cost_view` gives the runtime cost walk (runtimecost.py) such fields as the timestamps and
durations cel-go prices (a comparison 1, not a string's)."""
from __future__ import annotations

import datetime
import json
from typing import Any

from ..goport.godur import parse_duration
from .libs.conversions import parse_rfc3339
from .libs.mapkeys import deep_equal
from .parser import Node, children, optional_chain as _optional_chain

# a path (steps from `self`) to a `date-time` or `duration` field, and which of the two it holds
TimePaths = frozenset[tuple[tuple[str, ...], str]]
ITEMS, VALUES = "#", "*"
ROOTS = ("self", "oldSelf", "__oldSelf")
_ONE_VAR = frozenset({"all", "exists", "exists_one", "existsOne", "map", "filter"})
_TWO_VAR = frozenset({"all", "exists", "existsOne", "exists_one", "transformList", "transformMap",
                      "transformMapEntry"})
_CONVERSION = {"timestamp": "timestamp", "duration": "duration"}


LIST = "list:"  # a mark's prefix: a list of such values, read whole (`x in self.times`)
EQUAL = "equal:"  # a mark's prefix: `a == b` or `a != b` of values holding such fields (JSON of their paths)


def wrap_source(text: str, kind: str) -> str:
    """CEL reading `text`'s value exactly: a string through `timestamp()`/`duration()`, any other value as is; of
    a list (`kind` `list:...`), each item so."""
    if kind.startswith(LIST):
        item = f"type(__em) == string ? {_CONVERSION[kind[len(LIST):]]}(__em) : __em"
        return f"[{text}].map(__el, type(__el) == list ? __el.map(__em, {item}) : __el)[0]"
    return f"[{text}].map(__et, type(__et) == string ? {_CONVERSION[kind]}(__et) : __et)[0]"


def equal_source(left: str, right: str, mark: str, negated: bool) -> str:
    """CEL comparing `left` and `right` (sources) as cel-go does, the fields `mark` names read exactly."""
    call = f"__exact_equal({left}, {right}, '{mark[len(EQUAL):]}')"
    return f"!{call}" if negated else call


Suffixes = list[tuple[tuple[str, ...], str]]


def _exact(value: Any, suffixes: Suffixes, leaf: Any) -> Any:
    """`value` with each field at one of `suffixes` (paths from it, and their kinds) replaced by `leaf(v, kind)`."""
    here = next((kind for steps, kind in suffixes if not steps), None)
    if here is not None:
        return leaf(value, here)
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            subs = [(steps[1:], kind) for steps, kind in suffixes if steps and steps[0] in (k, VALUES)]
            out[k] = _exact(v, subs, leaf) if subs else v
        return out
    if isinstance(value, list):
        subs = [(steps[1:], kind) for steps, kind in suffixes if steps and steps[0] == ITEMS]
        return [_exact(v, subs, leaf) for v in value] if subs else value
    return value


_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_MICRO = datetime.timedelta(microseconds=1)


def _nanos(value: Any, kind: str) -> Any:
    """A field's instant (`timestamp`) or length (`duration`) in nanoseconds, tagged by its kind; its exact text
    read; anything else (null, a text that is neither) as it is."""
    try:
        if isinstance(value, str):
            if kind == "timestamp":
                parsed = parse_rfc3339(value)
                return value if parsed is None else (kind, parsed[0] * 10**9 + parsed[1])
            return (kind, parse_duration(value))
        if isinstance(value, datetime.datetime):
            return (kind, (value - _EPOCH) // _MICRO * 1000)
        if isinstance(value, datetime.timedelta):
            return (kind, value // _MICRO * 1000)
    except (ValueError, OverflowError):
        pass
    return value


def exact_equal(left: Any, right: Any, spec: str) -> bool:
    """cel-go's `Equal` of two values whose fields at `spec`'s paths (JSON) are timestamps or durations that may
    have crossed as exact texts."""
    suffixes = [(tuple(steps), kind) for steps, kind in json.loads(spec)]
    return deep_equal(_exact(left, suffixes, _nanos), _exact(right, suffixes, _nanos)) != 0


def _stand_in(value: Any, kind: str) -> Any:
    """What the cost walk reads for a field: an exact text as the `datetime`/`timedelta` it truncates to."""
    nanos = _nanos(value, kind) if isinstance(value, str) else None
    if not isinstance(nanos, tuple):
        return value
    micros = datetime.timedelta(microseconds=nanos[1] // 1000)
    return _EPOCH + micros if kind == "timestamp" else micros


def cost_view(activation: dict[str, Any], paths: TimePaths) -> dict[str, Any]:
    """`activation` with the exact texts of `self`'s and `oldSelf`'s time fields as timestamps and durations (to
    the microsecond: the runtime cost walk prices their types, not their digits)."""
    if not paths:
        return activation
    suffixes = list(paths)
    return {k: _exact(v, suffixes, _stand_in) if k in ROOTS else v for k, v in activation.items()}


FUNCTIONS = {"__exact_equal": exact_equal}


class _Marker:
    def __init__(self, paths: TimePaths):
        self.leaves = dict(paths)
        self.prefixes = {path[:i] for path in self.leaves for i in range(len(path) + 1)}
        self.marks: dict[int, str] = {}

    def step(self, path: tuple[str, ...] | None, *steps: str) -> tuple[str, ...] | None:
        """`path` followed by the first of `steps` that leads to a time field."""
        if path is None:
            return None
        return next((path + (s,) for s in steps if path + (s,) in self.prefixes), None)

    def path(self, node: Node, env: dict[str, tuple[str, ...] | None]) -> tuple[str, ...] | None:
        """The path of the value `node` reads (of the optional's value, in an optional chain: `self.?t`)."""
        if node.kind == "ident":
            return env.get(node.value)
        if node.kind == "select" and node.target is not None:
            return self.step(self.path(node.target, env), node.value, VALUES)
        if node.kind == "index" and node.target is not None:
            base = self.path(node.target, env)
            key = node.args[0]
            if key.kind == "lit" and key.value[0] == "string":
                return self.step(base, key.value[1], VALUES)
            return self.elements(base)
        if node.kind == "call" and node.value in ("value", "orValue") and node.target is not None:
            return self.unwrapped(node, env)
        return None

    def unwrapped(self, node: Node, env: dict[str, tuple[str, ...] | None]) -> tuple[str, ...] | None:
        """The path of `optional.of(x).value()` (`oldSelf` under `optionalOldSelf`, compiler.py), or of
        `.orValue(y)` where `y` has the same path."""
        made = node.target
        if _optional_chain(made):  # `self.?t.value()`, `.orValue(d)`: the value, or the default (not a text)
            return self.path(made, env)
        if made is None or made.kind != "call" or made.value != "of" or len(made.args) != 1 \
                or made.target is None or made.target.kind != "ident" or made.target.value != "optional":
            return None
        inner = self.path(made.args[0], env)
        if node.value == "value" and not node.args:
            return inner
        return inner if len(node.args) == 1 and self.path(node.args[0], env) == inner else None

    def elements(self, path: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """The path of a list's items or a map's values."""
        return self.step(path, ITEMS, VALUES)

    def held_fields(self, node: Node, env: dict[str, tuple[str, ...] | None]) -> list[tuple[tuple[str, ...], str]]:
        """The time fields a value read whole holds (paths from it), unless it is one, or a list of them (those
        are converted where they are read)."""
        found = None if _optional_chain(node) else self.path(node, env)
        if found is None or found in self.leaves or found + (ITEMS,) in self.leaves or found not in self.prefixes:
            return []
        return [(leaf[len(found):], kind) for leaf, kind in self.leaves.items() if leaf[:len(found)] == found]

    def walk(self, node: Node | None, env: dict[str, tuple[str, ...] | None], receiver: bool = False) -> None:
        """Mark the reads under `node`; `receiver`: its value is selected from, indexed, iterated by a macro or
        sized, never read whole (a list of times is then left as it is)."""
        if node is None:
            return
        if node.kind in ("ident", "select", "index"):
            found = None if _optional_chain(node) else self.path(node, env)
            if found is not None and found in self.leaves:
                self.marks[id(node)] = self.leaves[found]
                return
            if found is not None and not receiver and found + (ITEMS,) in self.leaves:
                self.marks[id(node)] = LIST + self.leaves[found + (ITEMS,)]
            self.walk(node.target, env, True)
            for arg in node.args:
                self.walk(arg, env)
            return
        if node.kind == "binary" and node.value in ("_==_", "_!=_"):
            suffixes = sorted({pair for arg in node.args for pair in self.held_fields(arg, env)})
            if suffixes:
                self.marks[id(node)] = EQUAL + json.dumps(suffixes, separators=(",", ":"))
        if node.kind == "call":
            args, target = node.args, node.target
            if node.value in ("value", "orValue") and target is not None and _optional_chain(target):
                found = self.path(node, env)
                if found is not None and found in self.leaves:  # `self.?t.value()`
                    self.marks[id(node)] = self.leaves[found]
            if node.value == "size" and len(args) + (target is not None) == 1:
                self.walk(target or args[0], env, True)
                return
            if target is None and node.value == "has" and len(args) == 1 and args[0].kind == "select":
                self.walk(args[0].target, env)  # a presence test reads no value
                return
            if target is not None and node.value in _TWO_VAR and len(args) >= 3 and args[0].kind == "ident" \
                    and args[1].kind == "ident" and (node.value.startswith("transform") or len(args) == 3):
                self.walk(target, env, True)
                inner = {**env, args[0].value: None, args[1].value: self.elements(self.path(target, env))}
                for a in args[2:]:
                    self.walk(a, inner)
                return
            if target is not None and node.value in _ONE_VAR and len(args) in (2, 3) and args[0].kind == "ident":
                self.walk(target, env, True)
                # a list's items; a map's macro variable is its key: a string
                inner = {**env, args[0].value: self.step(self.path(target, env), ITEMS)}
                for a in args[1:]:
                    self.walk(a, inner)
                return
            if target is not None and target.kind == "ident" and target.value == "cel" and node.value == "bind" \
                    and len(args) == 3 and args[0].kind == "ident":
                self.walk(args[1], env)
                self.walk(args[2], {**env, args[0].value: self.path(args[1], env)})
                return
        for child in children(node):
            self.walk(child, env)


def mark(tree: Node, paths: TimePaths) -> tuple[dict[int, str], frozenset[int]]:
    """The nodes of `tree` (by `id`) that read a `date-time` or `duration` field and which of the two; and the
    nodes that hold such a node (themselves included), which the rewrite cannot copy as they are."""
    if not paths:
        return {}, frozenset()
    marker = _Marker(paths)
    marker.walk(tree, {root: () for root in ROOTS})
    if not marker.marks:
        return {}, frozenset()
    held: set[int] = set()

    def holds(node: Node | None) -> bool:
        if node is None:
            return False
        found = id(node) in marker.marks
        for child in children(node):
            found = holds(child) or found
        if found:
            held.add(id(node))
        return found
    holds(tree)
    return marker.marks, frozenset(held)

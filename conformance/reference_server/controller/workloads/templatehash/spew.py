"""go-spew's `%#v` (`github.com/davecgh/go-spew/spew/format.go` at d8f796af33cc, the version kubernetes pins) of a
Go value described by the type model (`model.py`), with the ConfigState `pkg/util/hash/hash.go` uses
(`DisableMethods`, `SortKeys`; `Indent` and `SpewKeys` do not change `%#v` of these types).

Ported rule by rule from `formatState.format`/`formatPtr`: a value's type in parentheses unless the previous
step set `ignoreNextType` (slice elements, map keys and values, a pointer's target); struct fields as
`Name:value` separated by spaces; strings unquoted; nil slices, maps and pointers as `<nil>` (a nil pointer
after its type, `(*int64)<nil>`); a non-nil pointer as `(*T)` then its target, or `<*>` where types are
ignored; map keys sorted (string kinds bytewise). A nil pointer whose type is ignored leaves `ignoreNextType`
set, so the next struct field is printed without its type, as upstream's code does.
"""
from __future__ import annotations

from typing import Any

from .model import Go, GoType, Value


class Formatter:
    """One `%#v` rendering: the output pieces and go-spew's `ignoreNextType` flag."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.ignore_next_type = False

    def text(self) -> str:
        return "".join(self.out)

    def format(self, t: GoType, v: Value) -> None:
        if t.decoder is not None and not isinstance(v, Go):  # an absent value too (a pointer's nil is above)
            v = t.decoder(v)
        kind = t.kind
        if kind == "ptr":
            self._ptr(t, v)
            return
        if not self.ignore_next_type:
            self.out.append(f"({t.name})")
        self.ignore_next_type = False
        if kind == "bool":
            self.out.append("true" if v is True else "false")
        elif kind in INTS:
            self.out.append(str(int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0))
        elif kind == "string":
            self.out.append(v if isinstance(v, str) else "")
        elif kind == "slice":
            self._slice(t, v)
        elif kind == "map":
            self._map(t, v)
        elif kind == "struct":
            self._struct(t, v)
        else:  # floats and the rest: no field of a pod template has them
            raise TypeError(f"go-spew: kind {kind} is not modelled")

    def _ptr(self, t: GoType, v: Value) -> None:
        if v is None and self.ignore_next_type:
            self.out.append("<nil>")  # ignoreNextType stays set
            return
        if self.ignore_next_type:
            self.out.append("<*>")
        else:  # nil: indirects 0 and the pointer's own type; else one indirection and the target's type
            self.out.append(f"({t.name})")
        if v is None:
            self.out.append("<nil>")
            return
        self.ignore_next_type = True
        self.format(t.elem, v)

    def _slice(self, t: GoType, v: Value) -> None:
        if not isinstance(v, list) or not v:
            self.out.append("<nil>")
            return
        self.out.append("[")
        for i, item in enumerate(v):
            if i:
                self.out.append(" ")
            self.ignore_next_type = True
            self.format(t.elem, item)
        self.out.append("]")

    def _map(self, t: GoType, v: Value) -> None:
        if not isinstance(v, dict) or not v:
            self.out.append("<nil>")
            return
        self.out.append("map[")
        for i, key in enumerate(sorted(v, key=lambda k: str(k).encode())):
            if i:
                self.out.append(" ")
            self.ignore_next_type = True
            self.format(t.key, key)
            self.out.append(":")
            self.ignore_next_type = True
            self.format(t.elem, v[key])
        self.out.append("]")

    def _struct(self, t: GoType, v: Value) -> None:
        self.out.append("{")
        fields = v if isinstance(v, Go) else t.go_fields(v)
        for i, (name, ftype) in enumerate(t.fields):
            if i:
                self.out.append(" ")
            self.out.append(f"{name}:")
            self.format(ftype, fields.get(name))
        self.out.append("}")


INTS = frozenset({"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
                  "uintptr"})


def sprint(t: GoType, v: Any) -> str:
    """`spew.ConfigState{...}.Sprintf("%#v", v)` of a value of type `t`."""
    f = Formatter()
    f.format(t, v)
    return f.text()


__all__ = ["Formatter", "sprint"]

"""Walks of JSON objects under a `Schema` (structured-merge-diff `typed`): the field set of an applied
configuration (`ToFieldSet`), the comparison of two objects (`Compare`), the apply merge (`Merge`) and the
removal of paths (`RemoveItems`)."""
from __future__ import annotations

from dataclasses import dataclass, field as dc_field
from typing import Any

from ..storage.clone import clone
from . import fieldpath as fp
from .fieldpath import Path
from .schema import ATOMIC, MAP, SET, ListType, Schema
from .smdschema import Ref

_MISSING: Any = object()


class SchemaError(ValueError):
    """An object the schema cannot type (a list-map item without its key, duplicate keys)."""


def item_element(lt: ListType, item: Any, i: int) -> str:
    """The path element of one list item: `k:` for list-maps, `v:` for sets."""
    if lt.kind == SET:
        return fp.value(item)
    if lt.kind == MAP:
        if not isinstance(item, dict):
            raise SchemaError("associative list with keys has an element that is not a map type")
        defaults = dict(lt.defaults)
        keys = {}
        for k in lt.keys:
            if k in item and item[k] is not None:
                keys[k] = item[k]
            elif k in defaults:
                keys[k] = defaults[k]
            else:
                raise SchemaError(f"associative list with keys has an element that omits key field {k!r}")
        return fp.key(keys)
    return fp.index(i)


def _items(lt: ListType, items: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, item in enumerate(items):
        pe = item_element(lt, item, i)
        if pe in out:
            raise SchemaError(f"duplicate entries for key {fp.element_string(pe)}")
        out[pe] = item
    return out


def _granular_list(schema: Schema, names: tuple[str, ...], value: Any) -> ListType | None:
    if not isinstance(value, list):
        return None
    lt = schema.list_type(names)
    if lt.kind == ATOMIC:
        return None
    try:  # a list the schema cannot key (an item without its key, duplicates) is compared whole
        _items(lt, value)
    except SchemaError:
        return None
    return lt


# ---- ToFieldSet ------------------------------------------------------------------------------------------
def field_set(obj: dict[str, Any], schema: Schema) -> frozenset[Path]:
    """Every leaf of an applied configuration, plus every list-map/set item, every empty map and every key its
    map type does not declare (`ToFieldSet`; smd v4.6.0 typed/tofieldset.go `visitMapItems` inserts a field whose
    value is `null` or a map of no fields, `"labels": {}` owns `f:labels`, and one `FindField` does not find, an
    object under `x-kubernetes-preserve-unknown-fields` or `additionalProperties` owning its own `.`)."""
    out: set[Path] = set()
    _fs(obj, (), (), schema, out, schema.types().root)
    return frozenset(out)


def _fs(v: Any, path: Path, names: tuple[str, ...], schema: Schema, out: set[Path], ref: Ref | None) -> None:
    if isinstance(v, dict) and not schema.atomic_map(names):
        if not v and path:
            out.add(path)
        mt = ref.resolve().map if ref is not None else None
        for k, child in v.items():
            declared = mt.fields.get(k) if mt is not None else None
            sub = declared[0] if declared is not None else mt.element if mt is not None else None
            _fs(child, path + (fp.field(k),), names + (k,), schema, out, sub)
            if declared is None and mt is not None:
                out.add(path + (fp.field(k),))
        return
    lt = _granular_list(schema, names, v)
    if lt is None:
        if path:
            out.add(path)
        return
    lst = ref.resolve().list if ref is not None else None
    element = lst.element if lst is not None else None
    for pe, item in _items(lt, v).items():
        out.add(path + (pe,))
        if lt.kind == MAP:
            _fs(item, path + (pe,), names, schema, out, element)


# ---- Compare ---------------------------------------------------------------------------------------------
@dataclass
class Comparison:
    added: set[Path] = dc_field(default_factory=set)
    modified: set[Path] = dc_field(default_factory=set)
    removed: set[Path] = dc_field(default_factory=set)

    def drop_under(self, tops: frozenset[str]) -> None:
        """`FilterFields(ignored)`: forget changes below the reset fields (e.g. `status` of the main resource)."""
        if tops:
            for s in (self.added, self.modified, self.removed):
                s.difference_update(fp.under(s, tops))


def compare(old: Any, new: Any, schema: Schema) -> Comparison:
    c = Comparison()
    _cmp(old, new, (), (), schema, c)
    return c


def _shape(v: Any, names: tuple[str, ...], schema: Schema) -> str:
    if v is _MISSING:
        return "missing"
    if isinstance(v, dict) and not schema.atomic_map(names):
        return "map"
    return "list" if _granular_list(schema, names, v) is not None else "leaf"


def _cmp(a: Any, b: Any, path: Path, names: tuple[str, ...], schema: Schema, c: Comparison) -> None:
    if a is not _MISSING and type(a) is type(b) and a == b:
        return  # an unchanged subtree adds, removes and modifies nothing (most of an object on most updates)
    sa, sb = _shape(a, names, schema), _shape(b, names, schema)
    if a is None and b and sb in ("map", "list"):  # structured-merge-diff: a null field beside a non-empty
        sa = "missing"                               # granular value is descended into, but was there (no `.`)
    elif b is None and a and sa in ("map", "list"):
        sb = "missing"
    if {sa, sb} - {"missing"} not in ({"map"}, {"list"}):
        # a leaf (scalar, atomic list or map) on at least one side: rule `a` of `Compare`
        if a is _MISSING:
            c.added.add(path)
        elif b is _MISSING:
            c.removed.add(path)
        elif a != b:
            c.modified.add(path)
        return
    da = sa == "map" or sb == "map"
    # a granular map or list on both (or one) sides: descend, then rule `b` (the post-item hook)
    if da:
        ma = a if sa == "map" else {}
        mb = b if sb == "map" else {}
        for k in list(ma) + [k for k in mb if k not in ma]:
            _cmp(ma.get(k, _MISSING), mb.get(k, _MISSING), path + (fp.field(k),), names + (k,), schema, c)
    else:
        lt = schema.list_type(names)
        ia = _items(lt, a) if sa == "list" else {}
        ib = _items(lt, b) if sb == "list" else {}
        for pe in list(ia) + [pe for pe in ib if pe not in ia]:
            x, y = ia.get(pe, _MISSING), ib.get(pe, _MISSING)
            if lt.kind == SET:
                if x is _MISSING:
                    c.added.add(path + (pe,))
                elif y is _MISSING:
                    c.removed.add(path + (pe,))
            else:
                _cmp(x, y, path + (pe,), names, schema, c)
    if path:
        if a is _MISSING:
            c.added.add(path)
        elif b is _MISSING:
            c.removed.add(path)


# ---- Merge -----------------------------------------------------------------------------------------------
def merge(live: Any, config: Any, schema: Schema) -> Any:
    """The live object with the applied configuration merged in (`TypedValue.Merge`): granular maps merge
    by key, list-maps by item key, sets by element; scalars and atomic values are replaced."""
    return _merge(live, config, (), schema)


def _merge(lv: Any, cv: Any, names: tuple[str, ...], schema: Schema) -> Any:
    if isinstance(lv, dict) and isinstance(cv, dict) and not schema.atomic_map(names):
        out = dict(lv)
        for k, v in cv.items():
            out[k] = _merge(lv[k], v, names + (k,), schema) if k in lv else clone(v)
        return out
    lt = _granular_list(schema, names, cv)
    if lt is not None and isinstance(lv, list):
        try:
            live_items = _items(lt, lv)
        except SchemaError:
            return clone(cv)
        cfg_items = _items(lt, cv)
        out_items = dict(live_items)
        for pe, item in cfg_items.items():
            if pe in live_items and lt.kind == MAP:
                out_items[pe] = _merge(live_items[pe], item, names, schema)
            elif pe not in live_items:
                out_items[pe] = clone(item)
        return list(out_items.values())
    return clone(cv)


# ---- RemoveItems -----------------------------------------------------------------------------------------
def remove(obj: dict[str, Any], path: Path, schema: Schema) -> bool:
    """Remove the value at `path` (a field, a list-map item or a set element); False when absent."""
    parent: Any = obj
    names: tuple[str, ...] = ()
    for n, pe in enumerate(path):
        last = n == len(path) - 1
        if pe.startswith("f:"):
            if not isinstance(parent, dict) or pe[2:] not in parent:
                return False
            if last:
                del parent[pe[2:]]
                return True
            parent, names = parent[pe[2:]], names + (pe[2:],)
            continue
        if not isinstance(parent, list):
            return False
        lt = schema.list_type(names)
        found = None
        for i, item in enumerate(parent):
            try:
                if item_element(lt, item, i) == pe:
                    found = i
                    break
            except SchemaError:
                return False
        if found is None:
            return False
        if last:
            del parent[found]
            return True
        parent = parent[found]
    return False


def get(obj: Any, path: Path, schema: Schema) -> Any:
    """The value at `path`, or `_MISSING`."""
    cur, names = obj, ()
    for pe in path:
        if pe.startswith("f:"):
            if not isinstance(cur, dict) or pe[2:] not in cur:
                return _MISSING
            cur, names = cur[pe[2:]], names + (pe[2:],)
            continue
        if not isinstance(cur, list):
            return _MISSING
        lt = schema.list_type(names)
        try:
            cur = next((item for i, item in enumerate(cur) if item_element(lt, item, i) == pe), _MISSING)
        except SchemaError:
            return _MISSING
        if cur is _MISSING:
            return _MISSING
    return cur


MISSING = _MISSING

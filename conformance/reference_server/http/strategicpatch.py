"""Strategic merge patch, as kube-apiserver applies one (`apimachinery/pkg/util/strategicpatch/patch.go`,
`StrategicMergeMapPatch` with `MergeParallelList` and `IgnoreUnmatchedNulls`; errors as
`handlers/patch.go`'s `interpretStrategicMergePatchError` maps them).

Each field's strategy and merge key come from the kind's published schema (`wire.patchmeta`): lists with
`merge` merge by their key (maps) or as sets (scalars), other lists are replaced, maps merge unless their
strategy is `replace`. Directives: `$patch` (`replace`, `delete`; `merge` is refused in lists), `$retainKeys`,
`$setElementOrder/<list>`, `$deleteFromPrimitiveList/<list>`. Merged lists follow upstream's order: items of
the patch (or of `$setElementOrder`) first in the patch's order, interleaved with the live-only items in
their live order. Errors upstream leaves untranslated are its 500s; directive keys never reach storage
(upstream's typed decode drops them).
"""
from __future__ import annotations

import copy
import json
from typing import Any

from .. import apierrors as E
from ..wire.patchmeta import Node
from .decode import go_map_format

DIRECTIVE = "$patch"
RETAIN_KEYS = "$retainKeys"
DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"
SET_ELEMENT_ORDER = "$setElementOrder"


# ---- errors ------------------------------------------------------------------------------------------------
def _internal(msg: str) -> E.StatusError:
    """An error `ErrorToAPIStatus` does not know: 500, no reason, the error's text."""
    return E.StatusError(E.status_dict(500, None, msg))


def _unprocessable(msg: str) -> E.StatusError:
    """`NewGenericServerResponse(422, "", {}, "", err.Error(), 0, false)` (handlers/patch.go
    `interpretStrategicMergePatchError`: ErrNoListOfLists, ErrPatchContentNotMatchRetainKeys): with
    isUnexpectedResponse false it carries no cause, so `msg` never reaches the client."""
    del msg
    return E.StatusError(E.status_dict(422, "Invalid", "the server rejected our request due to an error in our "
                                       "request", {}))


_GO_TYPES = {dict: "map[string]interface {}", list: "[]interface {}", bool: "bool", int: "int64",
             float: "float64", str: "string"}


def _go_type(v: Any) -> str:
    """`reflect.TypeOf` of a decoded JSON value (numbers as `UnmarshalCaseSensitivePreserveInts` keeps them)."""
    return _GO_TYPES.get(type(v), "<nil>")


def _bad_arg_type(expected: str, actual: Any) -> E.StatusError:
    return _internal(f"expected a {expected}, but received a {_go_type(actual)}")


def _no_merge_key(m: dict[str, Any], key: str) -> E.StatusError:
    return _internal(f"map: {go_map_format(m)} does not contain declared merge key: {key}")


def _bad_patch_type(directive: Any, m: dict[str, Any]) -> E.StatusError:
    return _internal(f"unknown patch type: {go_map_format(directive)} in map: {go_map_format(m)}")


# ---- helpers -----------------------------------------------------------------------------------------------
def strip_directives(value: Any) -> Any:
    """A copy of a patch value taken as is, without `$`-keys (the typed decode upstream drops them)."""
    if isinstance(value, dict):
        return {k: strip_directives(v) for k, v in value.items() if not k.startswith("$")}
    if isinstance(value, list):
        return [strip_directives(v) for v in value]
    return value


_DROP = object()


def _new_value(value: Any, discard_nulls: bool = True) -> Any:
    """A value the live object lacks: `discardNullValuesFromPatch` (nulls in its maps go), then
    `removeDirectives` (a map carrying `$patch` goes, from a map or a list), then the typed decode."""
    if isinstance(value, dict):
        if DIRECTIVE in value:
            return _DROP
        out = {}
        for k, v in value.items():
            if k.startswith("$") or (v is None and discard_nulls):
                continue
            kept = _new_value(v, discard_nulls)
            if kept is not _DROP:
                out[k] = kept
        return out
    if isinstance(value, list):
        return [kept for v in value if (kept := _new_value(v, discard_nulls)) is not _DROP]
    return value


def _same(a: Any, b: Any) -> bool:
    """Go's `==` on interface values: equal type and value."""
    return _go_type(a) == _go_type(b) and a == b


def _ident(v: Any) -> tuple[str, Any]:
    """A hashable stand-in for `_same` (lists are looked up through dictionaries, never scanned per item:
    a hostile patch of a long list must not cost quadratic time)."""
    t = _GO_TYPES.get(type(v), "<nil>")
    if t[0] in "m[":
        return t, json.dumps(v, sort_keys=True)
    return t, v


def _positions(items: list[Any], merge_key: str, kind: str) -> dict[tuple[str, Any], int]:
    """`index` for every item at once: identity → first position."""
    out: dict[tuple[str, Any], int] = {}
    for i, v in enumerate(items):
        out.setdefault(_ident(_key_of(v, merge_key, kind)), i)
    return out


def _strategy(node: Node) -> str:
    """`extractRetainKeysPatchStrategy`: the strategy besides `retainKeys`."""
    s = node.strategies
    if len(s) == 1:
        return "" if s[0] == "retainKeys" else s[0]
    if len(s) == 2 and "retainKeys" in s:
        return s[1] if s[0] == "retainKeys" else s[0]
    if len(s) > 1:
        raise _internal(f"unexpected patch strategy: [{' '.join(s)}]")
    return ""


def _extract_key(key: str, prefix: str) -> str:
    head, sep, rest = key.partition("/")
    if not sep or head != prefix:
        raise E.bad_request("invalid patch format of primitive list" if prefix == DELETE_FROM_PRIMITIVE_LIST
                            else "invalid patch format of setElementOrder list")
    return rest


def _element_kind(*lists: list[Any]) -> str:
    """`sliceElementType`: every element one type, not a list ("map" or the scalar's Go type)."""
    prev: str | None = None
    for lst in lists:
        for v in lst:
            t = _go_type(v)
            if prev is None:
                if isinstance(v, list):
                    raise _unprocessable("lists of lists are not supported")
                prev = t
            elif t != prev:
                raise _internal("list element types are not identical: "
                                + go_map_format([x for x in lists]))
    if prev is None:
        raise _internal("no elements in any of the given slices")
    return "map" if prev.startswith("map") else prev


def _key_of(item: Any, merge_key: str, kind: str) -> Any:
    """`index`'s value function: the merge key's value of a map, the item itself otherwise."""
    if kind == "map":
        return item.get(merge_key) if isinstance(item, dict) else None
    return item


def _keyed(items: list[Any], merge_key: str) -> dict[tuple[str, Any], int]:
    """`findMapInSliceBasedOnKeyValue` for every key at once: merge-key value → first position."""
    out: dict[tuple[str, Any], int] = {}
    for i, v in enumerate(items):
        if not isinstance(v, dict):
            raise _internal(f"value for key {i} is not a map.")
        if merge_key in v:
            out.setdefault(_ident(v[merge_key]), i)
    return out


def _check_merge_keys(merge_key: str, *lists: list[Any]) -> None:
    """`validateMergeKeyInLists`."""
    for lst in lists:
        for item in lst:
            if not isinstance(item, dict):
                raise _bad_arg_type("map[string]interface {}", item)
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)


def _normalize_slice_order(to_sort: list[Any], order: list[Any], merge_key: str, kind: str) -> list[Any]:
    """`normalizeSliceOrder`: sort by position in `order` (items marked for deletion last)."""
    to_delete: list[Any] = []
    if kind == "map":
        _check_merge_keys(merge_key, to_sort, order)
        keep = [v for v in to_sort if v.get(DIRECTIVE) != "delete"]
        to_delete = [v for v in to_sort if v.get(DIRECTIVE) == "delete"]
        to_sort = keep
    where = _positions(order, merge_key, kind)
    positions = [where.get(_ident(_key_of(v, merge_key, kind)), -1) for v in to_sort]
    if all(p >= 0 for p in positions):  # (every caller's items are in `order`)
        to_sort = [to_sort[i] for _, i in sorted((p, i) for i, p in enumerate(positions))]
    return to_sort + to_delete


def _merge_sorted(left: list[Any], right: list[Any], server_order: list[Any], merge_key: str,
                  kind: str) -> list[Any]:
    """`mergeSortedSlice`: live-only items (left) woven into the patch's items (right) by their live order."""
    out: list[Any] = []
    where = _positions(server_order, merge_key, kind)
    i = j = 0
    while i < len(left) or j < len(right):
        if i >= len(left):
            out.append(right[j])
            j += 1
        elif j >= len(right):
            out.append(left[i])
            i += 1
        else:
            li = where.get(_ident(_key_of(left[i], merge_key, kind)), -1)
            ri = where.get(_ident(_key_of(right[j], merge_key, kind)), -1)
            if li >= 0 and ri >= 0 and li < ri:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
    return out


def _normalize_element_order(patch: list[Any], server_only: list[Any], patch_order: list[Any],
                             server_order: list[Any], merge_key: str, kind: str) -> list[Any]:
    patch = _normalize_slice_order(patch, patch_order, merge_key, kind)
    server_only = _normalize_slice_order(server_only, server_order, merge_key, kind)
    return _merge_sorted(server_only, patch, server_order, merge_key, kind)


def _partition(merged: list[Any], by: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    """`partitionPrimitivesByPresentInList` / `partitionMapsByPresentInList`."""
    in_patch: list[Any] = []
    server_only: list[Any] = []
    present: Any = None
    for v in merged:
        if merge_key:
            if not isinstance(v, dict):
                raise _bad_arg_type("map[string]interface {}", v)
            if merge_key not in v:
                raise _no_merge_key(v, merge_key)
            if present is None:
                present = _keyed(by, merge_key)
            found = _ident(v[merge_key]) in present
        else:
            if present is None:
                present = {_ident(x) for x in by}
            found = _ident(v) in present
        (in_patch if found else server_only).append(v)
    return in_patch, server_only


# ---- the merge ---------------------------------------------------------------------------------------------
def merge_map(original: dict[str, Any] | None, patch: dict[str, Any], node: Node) -> dict[str, Any]:
    """`mergeMap`. `original` is changed in place (callers pass a copy) and returned; `patch` is not."""
    if DIRECTIVE in patch:
        directive = patch[DIRECTIVE]
        if directive == "replace":
            return strip_directives({k: v for k, v in patch.items() if k != DIRECTIVE})
        if directive == "delete":
            return {}
        raise _bad_patch_type(directive, patch)
    if original is None:
        original = {}
    patch = dict(patch)
    _apply_retain_keys(original, patch)
    _merge_element_orders(original, patch, node)
    for k, v in patch.items():
        delete_list = False
        if k.startswith(DELETE_FROM_PRIMITIVE_LIST):
            k = _extract_key(k, DELETE_FROM_PRIMITIVE_LIST)
            delete_list = True
        elif k.startswith("$"):
            continue  # an unknown directive-like key: a field the typed decode drops
        if v is None:
            original.pop(k, None)
            continue
        if k not in original or _go_type(original[k]) != _go_type(v):
            if not delete_list:
                kept = _new_value(v)
                if kept is _DROP:
                    original.pop(k, None)
                else:
                    original[k] = kept
            continue
        current = original[k]
        child = node.field(k)
        strategy = _strategy(child)
        if isinstance(v, dict):
            original[k] = strip_directives(v) if strategy == "replace" else merge_map(current, v, child)
        elif isinstance(v, list):
            original[k] = _merge_slice_handler(current, v, child, strategy, delete_list)
        else:
            original[k] = v
    return original


def _merge_slice_handler(original: list[Any], patch: list[Any], node: Node, strategy: str,
                         delete_list: bool) -> list[Any]:
    if strategy != "merge" and not delete_list:  # a deletion list applies whatever the field's strategy
        return strip_directives(patch)
    return _merge_slice(original, patch, node, delete_list)


def _merge_slice(original: list[Any], patch: list[Any], node: Node, delete_list: bool) -> list[Any]:
    """`mergeSlice`."""
    if not original and not patch:
        return original
    kind = _element_kind(original, patch)
    merge_key = node.merge_key
    if kind != "map":
        if delete_list:
            gone = {_ident(d) for d in patch}
            return [x for x in original if _ident(x) not in gone]
        merged: list[Any] = []
        seen: set[tuple[str, Any]] = set()
        for x in original + patch:
            if _ident(x) not in seen:
                seen.add(_ident(x))
                merged.append(x)
        order_by = patch
    else:
        if not merge_key:
            raise _internal(f"cannot merge lists without merge key for type {node.items().go_kind()}")
        original, plain = _merge_special_elements(original, patch, merge_key)
        merged = _merge_plain_elements(original, plain, merge_key, node.items())
        order_by = plain
    in_patch, server_only = _partition(merged, order_by, merge_key if kind == "map" else "")
    return _normalize_element_order(in_patch, server_only, order_by, original, merge_key if kind == "map" else "",
                                    kind)


def _merge_special_elements(original: list[Any], patch: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    """`mergeSliceWithSpecialElements`: `$patch: delete` items remove their match, `$patch: replace` makes the
    patch's other items the list."""
    plain: list[Any] = []
    replace = False
    for v in patch:
        if DIRECTIVE not in v:
            plain.append(v)
            continue
        directive = v[DIRECTIVE]
        if directive == "delete":
            if merge_key not in v:
                raise _no_merge_key(v, merge_key)
            _keyed(original, merge_key)  # (every item must be a map)
            gone = _ident(v[merge_key])
            original = [o for o in original if not (merge_key in o and _ident(o[merge_key]) == gone)]
        elif directive == "replace":
            replace = True
        elif directive == "merge":
            raise _internal("merging lists cannot yet be specified in the patch")
        else:
            raise _bad_patch_type(directive, v)
    if replace:
        return [strip_directives(v) for v in plain], []
    return original, plain


def _merge_plain_elements(original: list[Any], patch: list[Any], merge_key: str, node: Node) -> list[Any]:
    """`mergeSliceWithoutSpecialElements`: an item matching by merge key merges, others are appended."""
    original = list(original)
    where = _keyed(original, merge_key)
    for v in patch:
        if merge_key not in v:
            raise _no_merge_key(v, merge_key)
        i = where.get(_ident(v[merge_key]), -1)
        if i >= 0:
            original[i] = merge_map(copy.deepcopy(original[i]), v, node)
        else:
            where[_ident(v[merge_key])] = len(original)
            original.append(strip_directives(v))
    return original


def _apply_retain_keys(original: dict[str, Any], patch: dict[str, Any]) -> None:
    """`applyRetainKeysDirective`: keep only the listed keys; every key the patch sets must be listed."""
    if RETAIN_KEYS not in patch:
        return
    keys = patch.pop(RETAIN_KEYS)
    if not isinstance(keys, list):
        raise E.bad_request("invalid patch format of retainKeys")
    listed = {_ident(x) for x in keys}
    for k, v in patch.items():
        if v is None or k.startswith(DELETE_FROM_PRIMITIVE_LIST) or k.startswith(SET_ELEMENT_ORDER):
            continue
        if _ident(k) not in listed:
            raise E.bad_request("invalid patch format of retainKeys")
    for k in list(original):
        if _ident(k) not in listed:
            del original[k]


def _validate_order(patch_list: list[Any], order: list[Any], merge_key: str) -> None:
    """`validatePatchWithSetOrderList`: the patch's items appear in `$setElementOrder`'s relative order."""
    if not order or not patch_list:
        return
    if merge_key:
        for v in patch_list:
            if not isinstance(v, dict):
                raise _bad_arg_type("map[string]interface {}", v)
        non_delete = [v for v in patch_list if v.get(DIRECTIVE) != "delete"]
    else:
        non_delete = list(patch_list)
    pi = oi = 0
    while pi < len(non_delete) and oi < len(order):
        item = non_delete[pi]
        if isinstance(item, dict) and DIRECTIVE in item:
            pi += 1
            continue
        if merge_key:
            for side in (item, order[oi]):
                if not isinstance(side, dict):
                    raise _bad_arg_type("map[string]interface {}", side)
                if merge_key not in side:
                    raise _no_merge_key(side, merge_key)
            equal = _same(item[merge_key], order[oi][merge_key])
        else:
            equal = _same(item, order[oi])
        if equal:
            pi += 1
        oi += 1
    if pi < len(non_delete) and oi >= len(order):
        raise _internal(f"The order in patch list:\n{go_map_format(patch_list)}\n doesn't match "
                        f"{SET_ELEMENT_ORDER} list:\n{go_map_format(order)}\n")


def _merge_element_orders(original: dict[str, Any], patch: dict[str, Any], node: Node) -> None:
    """`mergePatchIntoOriginal`: each `$setElementOrder/<list>` merges its list and imposes its order."""
    for key in [k for k in patch if k.startswith(SET_ELEMENT_ORDER)]:
        order = patch.pop(key)
        if not isinstance(order, list):
            raise _bad_arg_type("[]interface {}", order)
        name = _extract_key(key, SET_ELEMENT_ORDER)
        found_original, found_patch = name in original, name in patch
        original_list: list[Any] = []
        patch_list: list[Any] = []
        if found_original:
            if not isinstance(original[name], list):
                raise _bad_arg_type("[]interface {}", original[name])
            original_list = original[name]
        if found_patch:
            if not isinstance(patch[name], list):
                raise _bad_arg_type("[]interface {}", patch[name])
            patch_list = patch[name]
        child = node.field(name)
        strategy, merge_key = _strategy(child), child.merge_key
        _validate_order(patch_list, order, merge_key)
        if found_original and not found_patch:
            merged = original_list
        elif found_patch and not found_original:
            merged = _new_value(patch_list, discard_nulls=False)
        elif found_original and found_patch:
            merged = _merge_slice_handler(original_list, patch_list, child, strategy, False)
        else:
            continue
        kind = _element_kind(original_list, patch_list)
        in_order, server_only = _partition(merged, order, merge_key)
        original[name] = _normalize_element_order(in_order, server_only, order, original_list, merge_key, kind)
        patch.pop(name, None)


def strategic_merge_patch(original: dict[str, Any], patch: dict[str, Any], root: Node) -> dict[str, Any]:
    """`StrategicMergeMapPatch(original, patch, <the kind's schema>)` on a copy of `original`."""
    return merge_map(copy.deepcopy(original), patch, root)

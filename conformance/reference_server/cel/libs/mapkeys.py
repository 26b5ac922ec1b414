"""A map indexed or searched by a number of another numeric type, as cel-go finds it (cel-go v0.23.2
`common/types/map.go` `refValMapAccessor.Find`, `common/types/overflow.go` `doubleToInt64Lossless`,
`doubleToUint64Lossless`, `int64ToUint64Lossless`, `uint64ToInt64Lossless`; `interpreter/attributes.go` `refQualify`
and `missingKey`).

cel-go looks the key up as given, then: a double as the int it equals exactly, else as that uint; an int as the
uint it equals (not negative); a uint as the int it equals (within int64). Not found: `no such key: <key>` (`%v`: a
double in `strconv`'s shortest `g` form). cel-rust finds only a key of the same type and refuses a double key
outright; desugar.py rewrites `m[k]` (when cel-rust refused it), and `k in m` and `a == b` (`baseMap.Equal`: each
key found by `Find`) where the expression can make a map with numeric keys, into the lookups below. The map itself never crosses to Python: its values may be durations or
timestamps, which Python would hold only to the microsecond."""
from __future__ import annotations

import math

from ...gofmt import format_float
from .values import LibraryError

_TWO_63, _TWO_64 = float(1 << 63), float(1 << 64)

# cel-go's lookups after the key's own: the candidates come from `__lossless_keys` (a double's int and uint, each
# or null), and the uint one is made a uint in CEL (Python's ints cross as CEL ints)
_DOUBLE_KEYS = "[__lossless_keys({k})].map(__ek, {found})[0]"
_INT_HIT = "__ek[0] != null && __ek[0] in {m}"
_UINT_HIT = "__ek[1] != null && uint(__ek[1]) in {m}"
_INT_AS_UINT = "type({k}) == int && {k} >= 0 && uint({k}) in {m}"
_UINT_AS_INT = "type({k}) == uint && {k} <= 9223372036854775807u && int({k}) in {m}"


def lossless_keys(key: float) -> list[int | None]:
    """`doubleToInt64Lossless` and `doubleToUint64Lossless` of `key`: the int and the uint it equals exactly (the
    uint as a Python int), each None when there is none."""
    if math.isnan(key) or math.isinf(key) or key != int(key):
        return [None, None]
    as_int = int(key) if -_TWO_63 < key < _TWO_63 else None
    as_uint = int(key) if 0 <= key < _TWO_64 else None
    return [as_int, as_uint]


def no_key(key: object) -> object:
    """`missingKey(key)`: `no such key: <key>`, the key printed as Go's `%v` prints it."""
    text = format_float(key) if isinstance(key, float) else str(key)
    raise LibraryError(f"no such key: {text}")


def index_source(m: str, k: str) -> str:
    """CEL that reads map `m` at numeric key `k` (both bound names) as cel-go's `Find` does."""
    double = _DOUBLE_KEYS.format(k=k, found=f"{_INT_HIT.format(m=m)} ? {m}[__ek[0]] : {_UINT_HIT.format(m=m)} ? "
                                            f"{m}[uint(__ek[1])] : __no_key({k})")
    return (f"type({k}) == double ? {double} : {k} in {m} ? {m}[{k}] : "
            f"{_INT_AS_UINT.format(k=k, m=m)} ? {m}[uint({k})] : "
            f"{_UINT_AS_INT.format(k=k, m=m)} ? {m}[int({k})] : {m}[{k}]")


def contains_source(k: str, m: str) -> str:
    """CEL for `k in m` (both bound names) where `m` may be a map and `k` a number: cel-go's `Contains` (`Find`)."""
    double = _DOUBLE_KEYS.format(k=k, found=f"{_INT_HIT.format(m=m)} || {_UINT_HIT.format(m=m)}")
    return (f"type({m}) == map && type({k}) == double ? {double} : {k} in {m} || type({m}) == map && "
            f"({_INT_AS_UINT.format(k=k, m=m)} || {_UINT_AS_INT.format(k=k, m=m)})")


def equal_source(a: str, b: str) -> str:
    """CEL for `a == b` (both bound names) where both may be maps: cel-go's `baseMap.Equal`, each key of `a`
    found in `b` by `Find` and the values equal (a value that is itself such a map compares by cel-rust's own
    equality)."""
    found = contains_source("__ek2", b)
    value = index_source(b, "__ek2")
    return (f"type({a}) == map && type({b}) == map ? size({a}) == size({b}) && "
            f"{a}.all(__ek2, ({found}) && ({value}) == {a}[__ek2]) : {a} == {b}")


FUNCTIONS = {"__lossless_keys": lossless_keys, "__no_key": no_key}

"""A map indexed or searched by a number of another numeric type, as cel-go finds it (cel-go v0.23.2
`common/types/map.go` `refValMapAccessor.Find`, `common/types/overflow.go` `doubleToInt64Lossless`,
`doubleToUint64Lossless`, `int64ToUint64Lossless`, `uint64ToInt64Lossless`; `interpreter/attributes.go` `refQualify`
and `missingKey`).

cel-go looks the key up as given, then: a double as the int it equals exactly, else as that uint; an int as the
uint it equals (not negative); a uint as the int it equals (within int64). Not found: `no such key: <key>` (`%v`: a
double in `strconv`'s shortest `g` form). cel-rust finds only a key of the same type and refuses a double key
outright; desugar.py rewrites `m[k]` (when cel-rust refused it), and `k in m` and `a == b` (`baseMap.Equal`: each
key found by `Find`, at any depth: `deep_equal`) where the expression can make a map with numeric keys, into the
lookups below. A map crosses to Python only to be compared (`deep_equal`), which gives up on the timestamps and
durations Python would hold only to the microsecond."""
from __future__ import annotations

import math
from datetime import datetime, timedelta

from ...goport.gofmt import format_float
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
    found in `b` by `Find` and the values equal (`Equal` again, at any depth: `deep_equal`, which answers for
    values Python holds exactly, and otherwise leaves the top level to the lookups above and what lies below it
    to cel-rust's own equality). Two lists compare as cel-go's `baseList.Equal` the same way."""
    found = contains_source("__ek2", b)
    value = index_source(b, "__ek2")
    top = (f"size({a}) == size({b}) && "
           f"{a}.all(__ek2, ({found}) && ({value}) == {a}[__ek2])")
    return (f"type({a}) == map && type({b}) == map || type({a}) == list && type({b}) == list ? {a} == {b} || "
            f"[__deep_equal({a}, {b})].map(__eq, __eq < 0 ? type({a}) == map && {top} : __eq == 1)[0] : "
            f"{a} == {b}")


def deep_equal(a: object, b: object) -> int:
    """cel-go's `Equal` over two values as they crossed from cel-rust (a uint as a Python int): 1 equal, 0 not,
    -1 when the only doubt left is a timestamp or duration that Python holds to the microsecond and finds equal
    there (cel-rust's own equality then answers). Numbers of different types compare as `float64`s
    (`compareIntDouble` and its kin), a bool equals only a bool, and a map's key is found whatever its numeric
    type; as in cel-go, one unequal element makes the whole unequal."""
    if isinstance(a, (datetime, timedelta)) or isinstance(b, (datetime, timedelta)):
        return -1 if type(a) is type(b) and a == b else 0
    if isinstance(a, bool) or isinstance(b, bool):
        return int(type(a) is type(b) and a == b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return int(float(a) == float(b) if type(a) is not type(b) else a == b)
    if isinstance(a, list) and isinstance(b, list):
        return _all(len(a) == len(b), (deep_equal(x, y) for x, y in zip(a, b)))
    if isinstance(a, dict) and isinstance(b, dict):
        keyed = {(type(k) is bool, k): v for k, v in b.items()}
        missing = object()
        pairs = ((v, keyed.get((type(k) is bool, k), missing)) for k, v in a.items())
        return _all(len(a) == len(b), (0 if w is missing else deep_equal(v, w) for v, w in pairs))
    return int(type(a) is type(b) and a == b)


def _all(same_size: bool, answers) -> int:  # type: ignore[no-untyped-def]
    if not same_size:
        return 0
    out = 1
    for answer in answers:
        if answer == 0:
            return 0
        out = min(out, answer)
    return out


FUNCTIONS = {"__lossless_keys": lossless_keys, "__no_key": no_key, "__deep_equal": deep_equal}

"""The Kubernetes CEL functions policies commonly call, in Python, with upstream's semantics where cheap:

- lists (`staging/src/k8s.io/apiserver/pkg/cel/library/lists.go`): `isSorted`, `sum`, `min`, `max`, `indexOf`,
  `lastIndexOf`;
- regex (`library/regex.go`): `find`, `findAll`, and cel-go's `matches` (`common/types/string.go`), all Go's
  `regexp` (goregexp/; `matches` reaches here as `__matches`, desugar.py);
- cel-go's strings extension (`ext.Strings`, which the Kubernetes environment includes): `charAt`, `indexOf`,
  `lastIndexOf`, `lowerAscii`, `upperAscii`, `replace`, `split`, `substring`, `trim`, `join`, `format` and
  `strings.quote` (`libs/strformat.py`).

The other libraries of 1.33's base environment are in `libs/` (quantity, IP/CIDR, URLs, format, cel-go's sets, the
authorizer's) and merged here (semver too). Not served, as 1.33 does not declare them (apiserver v0.33.0's
`environment/base.go`): an `image` library (later releases), cel-go's `math`, `cel.bind`; the checker refuses an
expression that calls them (`undeclared reference`), as upstream. Receiver-style calls (`l.sum()`) reach these as `sum(l)`: one Python function per name, dispatching on
the receiver's type."""
from __future__ import annotations

from typing import Any, Callable

from ..goport import goregexp
from ..goport.gofmt import format_float
from . import desugar as _desugar
from .libs import authz as _authz, format as _format, net as _net, quantity as _quantity, semver as _semver
from .libs import conversions as _conversions, sets as _sets
from .libs import strformat as _strformat, url as _url
from .libs.guards import guarded
from .libs.values import QUANTITY, SEMVER, LibraryError as _Err, by_receiver


def _list(value: Any, fn: str) -> list[Any]:
    if not isinstance(value, (list, tuple)):
        raise _Err(f"no such overload: {fn}")
    return list(value)


def is_sorted(value: Any) -> bool:
    items = _list(value, "isSorted")
    return all(items[i] <= items[i + 1] for i in range(len(items) - 1))


def list_sum(value: Any) -> Any:
    items = _list(value, "sum")
    if not items:
        return 0
    total = items[0]
    for x in items[1:]:
        total = total + x
    return total


def list_min(value: Any) -> Any:
    items = _list(value, "min")
    if not items:
        raise _Err("min called on empty list")
    return min(items)


def list_max(value: Any) -> Any:
    items = _list(value, "max")
    if not items:
        raise _Err("max called on empty list")
    return max(items)


def index_of(value: Any, sub: Any, offset: int = 0) -> int:
    if isinstance(value, str):
        if not isinstance(sub, str):
            raise _Err("no such overload: indexOf")
        if offset < 0 or offset > len(value):
            raise _Err(f"index out of range: {offset}")
        return value.find(sub, offset)
    items = _list(value, "indexOf")
    return next((i for i, x in enumerate(items) if x == sub), -1)


def last_index_of(value: Any, sub: Any, offset: int | None = None) -> int:
    if isinstance(value, str):
        if not isinstance(sub, str):
            raise _Err("no such overload: lastIndexOf")
        if offset is None:
            return value.rfind(sub)
        if offset < 0 or offset > len(value):
            raise _Err(f"index out of range: {offset}")
        return value.rfind(sub, 0, offset + len(sub))
    items = _list(value, "lastIndexOf")
    return next((i for i in range(len(items) - 1, -1, -1) if items[i] == sub), -1)


def _regex(pattern: str) -> goregexp.Regexp:
    try:
        return goregexp.compile(pattern)
    except goregexp.GoRegexpError as exc:
        raise _Err(f"Illegal regular expression: {exc}") from None


def _strings(fn: str, *values: Any) -> None:
    if not all(isinstance(v, str) for v in values):
        raise _Err(f"no such overload: {fn}")


def find(value: str, pattern: str) -> str:
    _strings("find", value, pattern)
    return _regex(pattern).find(value) or ""


def find_all(value: str, pattern: str, limit: int = -1) -> list[str]:
    _strings("findAll", value, pattern)
    return _regex(pattern).find_all(value, limit)


def matches(value: str, pattern: str) -> bool:
    """cel-go's `String.Match`: `regexp.MatchString`, its error's own text when the pattern does not compile."""
    _strings("matches", value, pattern)
    try:
        return goregexp.compile(pattern).search(value)
    except goregexp.GoRegexpError as exc:
        raise _Err(str(exc)) from None


def char_at(value: str, i: int) -> str:
    if i < 0 or i > len(value):
        raise _Err(f"index out of range: {i}")
    return value[i:i + 1]


def _ascii(value: str, upper: bool) -> str:
    return "".join((c.upper() if upper else c.lower()) if c.isascii() else c for c in value)


def replace(value: str, old: str, new: str, n: int = -1) -> str:
    return value.replace(old, new, n)


def split(value: str, sep: str, n: int = -1) -> list[str]:
    if n == 0:
        return []
    if sep == "":
        chars = list(value)
        return chars if n < 0 or n >= len(chars) else chars[:n - 1] + ["".join(chars[n - 1:])]
    return value.split(sep, n - 1 if n > 0 else -1)


def substring(value: str, start: int, end: int | None = None) -> str:
    end = len(value) if end is None else end
    if start < 0 or start > len(value):
        raise _Err(f"index out of range: {start}")
    if end < start or end > len(value):
        raise _Err(f"index out of range: {end}")
    return value[start:end]


def join(value: Any, sep: str = "") -> str:
    """`joinValSeparator`: an element that is not a string is `join: invalid input: <%v of it>`."""
    items = _list(value, "join")
    for x in items:
        if not isinstance(x, str):
            text = format_float(x) if isinstance(x, float) else str(x).lower() if isinstance(x, bool) else str(x)
            raise _Err(f"join: invalid input: {text}")
    return sep.join(items)


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "isSorted": is_sorted, "sum": list_sum, "min": list_min, "max": list_max,
    "indexOf": index_of, "lastIndexOf": last_index_of,
    "find": find, "findAll": find_all, "__matches": matches,
    "charAt": char_at, "lowerAscii": lambda v: _ascii(v, False), "upperAscii": lambda v: _ascii(v, True),
    "replace": replace, "split": split, "substring": substring, "trim": lambda v: v.strip(), "join": join,
    **_quantity.FUNCTIONS, **_net.FUNCTIONS, **_url.FUNCTIONS, **_format.FUNCTIONS, **_sets.FUNCTIONS,
    **_desugar.FUNCTIONS, **_semver.FUNCTIONS, **_strformat.FUNCTIONS, **_authz.FUNCTIONS,
    **_conversions.FUNCTIONS,
    # the comparisons Quantity and Semver both declare
    **{name: by_receiver(name, {QUANTITY: _quantity.FUNCTIONS[name], SEMVER: _semver.FUNCTIONS[name]})
       for name in ("isGreaterThan", "isLessThan", "compareTo")},
}
# each public one behind cel-go's invocation guard (libs/guards.py); the rewrites' own (`__...`) as they are
FUNCTIONS: dict[str, Callable[..., Any]] = {
    name: fn if name.startswith("__") else guarded(name, fn) for name, fn in _FUNCTIONS.items()}

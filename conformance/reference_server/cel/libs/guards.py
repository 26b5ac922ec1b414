"""cel-go's invocation guards around library functions (cel-go v0.23.2 `common/decls/decls.go`: `guardedUnaryOp`,
`guardedBinaryOp`, `guardedFunctionOp`, the dispatcher `Bindings` builds over several overloads, and
`MaybeNoSuchOverload`; `common/types/types.go` `defaultIsAssignableRuntimeType`).

A library function called with arguments no overload of it takes at run time (a `dyn` value, a field the schema
leaves untyped) is refused before it runs, as `no such overload: <function>(<argument types>)`, the types as
`ref.Val.Type().TypeName()` prints them (`int`, `list`, `kubernetes.Quantity`). A list or map argument matches by
its first element (or entry) only, as cel-go checks it; an argument that passed the guard and still does not fit
inside (a later element of a list) is the function's own `no such overload` (`MaybeNoSuchOverloadErr`). Python
holds a uint as an int, so an int and a uint are not told apart here."""
from __future__ import annotations

import datetime
import functools
from collections.abc import Callable
from typing import Any

from .values import TYPE_KEY, LibraryError, runtime_type

_PLAIN = ((bool, ("bool",)), (int, ("int", "uint")), (float, ("double",)), (str, ("string",)),
          (bytes, ("bytes",)), ((list, tuple), ("list",)), (datetime.datetime, ("google.protobuf.Timestamp",)),
          (datetime.timedelta, ("google.protobuf.Duration",)))


def _names(value: Any) -> tuple[str, ...]:
    if value is None:
        return ("null_type",)
    if isinstance(value, dict):
        return (value[TYPE_KEY],) if TYPE_KEY in value else ("map",)
    return next((names for cls, names in _PLAIN if isinstance(value, cls)), ())


def _assignable(param: Any, value: Any) -> bool:
    """`IsAssignableRuntimeType`: a type parameter or dyn takes anything; else the names agree, and a list's
    first element (a map's first key and its value) is assignable to the element (key, value) type."""
    if param.name in ("dyn", "?") or len(param.name) == 1:  # A, B: cel-go's TypeParamKind
        return True
    if param.name not in _names(value):
        return False
    if param.name == "list" and param.params and value:
        return _assignable(param.params[0], value[0])
    if param.name == "map" and param.params and value and TYPE_KEY not in value:
        key = next(iter(value))
        return _assignable(param.params[0], key) and _assignable(param.params[1], value[key])
    return True


@functools.lru_cache(maxsize=1)
def _declared() -> dict[str, list[Any]]:
    """The checker's declarations of 1.33's libraries, read only once a call has failed."""
    from ..checker import LIBRARY
    return LIBRARY


def takes(name: str, args: tuple[Any, ...]) -> bool:
    """Whether an overload of library function `name` takes `args` (the receiver first) at run time."""
    overloads = _declared().get(name)
    if overloads is None:
        return True
    return any(len(o.params) == len(args) and all(_assignable(p, a) for p, a in zip(o.params, args))
               for o in overloads)


def guarded(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` (library function `name`) behind cel-go's guard: consulted only when `fn` fails on a mistyped
    argument, so a call that works costs nothing more than the wrapper."""
    def call(*args: Any) -> Any:
        try:
            return fn(*args)
        except (TypeError, AttributeError, LibraryError) as exc:
            if isinstance(exc, LibraryError) and not str(exc).startswith("no such overload"):
                raise
            if not takes(name, args):
                raise LibraryError(f"no such overload: {name}({', '.join(runtime_type(a) for a in args)})") \
                    from None
            if isinstance(exc, LibraryError):
                raise
            raise LibraryError("no such overload") from None
    call.__name__ = getattr(fn, "__name__", name)
    return call

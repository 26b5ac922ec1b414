"""The opaque types of the Kubernetes CEL libraries (`staging/src/k8s.io/apiserver/pkg/cel/types.go`:
`kubernetes.Quantity`, `net.IP`, `net.CIDR`, `kubernetes.URL`, `kubernetes.NamedFormat`, `kubernetes.Semver`) as the
engine carries them.

cel-rust converts only plain data across the Python boundary, so a value is a map tagged with its type name under a
key no Kubernetes field has; its other entries are the value in a canonical form, so the engine's map equality is the
type's own `Equal` (two quantities of equal value, two IPs of the same address)."""
from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from ...goport.gonet.strconv import quote

TYPE_KEY = "@cel.type"
QUANTITY, IP, CIDR, URL, FORMAT, SEMVER = ("kubernetes.Quantity", "net.IP", "net.CIDR", "kubernetes.URL",
                                           "kubernetes.NamedFormat", "kubernetes.Semver")


class LibraryError(ValueError):
    """An evaluation error of a library function; `str()` is cel-go's error text."""


def wrap(type_name: str, **fields: Any) -> dict[str, Any]:
    return {TYPE_KEY: type_name, **fields}


def type_name(value: Any) -> str | None:
    """The opaque type of `value`, or None for plain CEL data."""
    return value.get(TYPE_KEY) if isinstance(value, dict) else None


_PLAIN_TYPES = ((bool, "bool"), (int, "int"), (float, "double"), (str, "string"), (bytes, "bytes"),
                ((list, tuple), "list"), (dict, "map"), (datetime.datetime, "google.protobuf.Timestamp"),
                (datetime.timedelta, "google.protobuf.Duration"))


def runtime_type(value: Any) -> str:
    """The type name cel-go prints for a value in its runtime errors (`ref.Val.Type()`): the library type of an
    opaque value, else the CEL type of the plain data the engine returned."""
    if value is None:
        return "null_type"
    opaque = type_name(value)
    if opaque:
        return opaque
    return next((name for cls, name in _PLAIN_TYPES if isinstance(value, cls)), type(value).__name__)


def unwrap(value: Any, expected: str, function: str) -> dict[str, Any]:
    """`value` as `expected`; anything else is cel-go's `no such overload` for `function`."""
    if type_name(value) != expected:
        raise LibraryError(f"no such overload: {function}")
    return value


def go_quote(text: str) -> str:
    """Go's `strconv.Quote` (`%q`) for the texts these errors print."""
    return quote(text)


def by_receiver(name: str, overloads: dict[str, Callable[..., Any]]) -> Callable[..., Any]:
    """One function for a member name two libraries declare (`compareTo` of Quantity and of Semver), chosen by
    the receiver's type."""
    def call(receiver: Any, *args: Any) -> Any:
        fn = overloads.get(type_name(receiver) or "")
        if fn is None:
            raise LibraryError(f"no such overload: {name}")
        return fn(receiver, *args)
    return call

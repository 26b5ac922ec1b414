"""The parameter codec's conversions of query values, as every handler decodes its options.

Follows apimachinery `pkg/runtime/conversion.go` (v0.33): a handler decodes its options struct with
`ParameterCodec.DecodeParameters` (`runtime/codec.go`), whose generated `Convert_url_Values_To_v1_*`
(`apis/meta/v1/zz_generated.conversion.go`) read only a parameter's first value, and only when the parameter is
present (even empty):
- a bool (`Convert_Slice_string_To_bool`, `..._To_Pointer_bool`) is false only for `0` or `false` (any case):
  `?watch`, `?watch=` and `?watch=yes` are true; a pointer bool is set as soon as the parameter is present;
- an int64 (`Convert_Slice_string_To_int64`, `..._To_Pointer_int64`) is `strconv.ParseInt(s, 10, 64)`, whose
  error (`strconv.ParseInt: parsing "abc": invalid syntax`, `...: value out of range`) the handler answers as
  `errors.NewBadRequest(err.Error())` (endpoints/handlers get.go, create.go, update.go, patch.go, delete.go);
  an empty value is no exception (`?limit=` is a 400);
- a string is taken as it is.

`strconv.NumError.Error()` quotes the text with `strconv.Quote` (go/src/strconv/atoi.go).
"""
from __future__ import annotations

import re
from typing import Any, Mapping

from . import apierrors as E
from .goport.gonet.strconv import quote

_DECIMAL = re.compile(r"[+-]?[0-9]+\Z", re.ASCII)  # base 10: no `_`, no spaces, ASCII digits only
_INT64 = 1 << 63


class NumError(ValueError):
    """`strconv.NumError`: its text is `strconv.<Func>: parsing <%q of the text>: <why>`."""


def parse_int(text: str, func: str = "ParseInt", bits: int = 64) -> int:
    """`strconv.ParseInt(text, 10, bits)` (`func="Atoi"`: `strconv.Atoi`, whose errors name Atoi)."""
    if not _DECIMAL.match(text):
        raise NumError(f"strconv.{func}: parsing {quote(text)}: invalid syntax")
    n = int(text)
    limit = 1 << (bits - 1)
    if not -limit <= n < limit:
        raise NumError(f"strconv.{func}: parsing {quote(text)}: value out of range")
    return n


def first(query: Mapping[str, Any], key: str) -> str | None:
    """The parameter's first value (`values[0]`), None when absent (a multidict's `get` is its first value)."""
    value = query.get(key)
    if isinstance(value, (list, tuple)):  # a plain dict of lists (url.Values-shaped)
        return str(value[0]) if value else None
    return value


def go_bool(value: str | None) -> bool:
    """`Convert_Slice_string_To_bool` of the first value (None: absent, false)."""
    return value is not None and value != "0" and value.casefold() != "false"  # strings.EqualFold


def flag(query: Mapping[str, Any], key: str) -> bool:
    """A bool option (`watch`, `allowWatchBookmarks`): present and neither `0` nor `false`."""
    return go_bool(first(query, key))


def optional_flag(query: Mapping[str, Any], key: str) -> bool | None:
    """A `*bool` option (`orphanDependents`, `force`, `sendInitialEvents`): None when absent."""
    value = first(query, key)
    return None if value is None else go_bool(value)


def int64_value(value: str) -> int:
    """An int64 option's value, or the handler's BadRequest with strconv's text."""
    try:
        return parse_int(value)
    except NumError as exc:
        raise E.bad_request(str(exc)) from None


def optional_int64(query: Mapping[str, Any], key: str) -> int | None:
    """A `*int64` option (`timeoutSeconds`, `gracePeriodSeconds`): None when absent, else `int64_value`."""
    value = first(query, key)
    return None if value is None else int64_value(value)

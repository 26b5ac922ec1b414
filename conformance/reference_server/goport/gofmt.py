"""Go's formatting of values where a client reads it: `strconv.FormatFloat(f, 'g', -1, 64)`, which cel-go's
`string(double)` and `format` (cel/libs/strformat.py) and Prometheus' text encoder (metrics/registry.py) both use;
and `fmt`'s `%q` / `%#v` of strings and slices, which `field.Error.ErrorBody` prints a bad value with
(staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go: a string `%q`, a slice `%#v`).

Follows go/src/fmt/print.go (`printValue`: a slice under `%#v` is its type, then `(nil)` or `{` its elements
joined by `, ` `}`; under `%q` / `%v` `[` its elements joined by a space `]`) and format.go (`fmtQ`: `%#v` clears
the `#` flag before a string is printed, so it is always `strconv.Quote`, never backquoted)."""
from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from .gonet.strconv import quote as go_quote  # `strconv.Quote`: `%q`, and `%#v` of a string

__all__ = ["format_float", "go_quote", "go_type", "plain_v", "q_strings", "sharp_v", "sharp_v_ints", "sharp_v_string_map",
           "sharp_v_strings"]


def format_float(f: float) -> str:
    """`strconv.FormatFloat(f, 'g', -1, 64)`: the shortest digits, an exponent below 1e-4 or from 1e6 up."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if f == 0:
        return "-0" if math.copysign(1, f) < 0 else "0"
    sign, digits, exp = Decimal(repr(f)).normalize().as_tuple()
    text = "".join(map(str, digits))
    point = len(text) + int(exp)  # position of the decimal point within the digits
    if point - 1 < -4 or point - 1 >= 6:  # shortest: `eprec = 6`
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        e = point - 1
        out = f"{mantissa}e{'-' if e < 0 else '+'}{abs(e):02d}"
    elif point <= 0:
        out = "0." + "0" * -point + text
    elif point >= len(text):
        out = text + "0" * (point - len(text))
    else:
        out = text[:point] + "." + text[point:]
    return ("-" if sign else "") + out


def sharp_v(value: object) -> str:
    """`fmt.Sprintf("%#v", v)` of a decoded JSON value (`interface{}` holding maps, slices, strings, int64s,
    float64s, bools, nil): what `field.Invalid` prints for a map or a slice, e.g. a CRD schema's `default`."""
    if isinstance(value, dict):
        return "map[string]interface {}{" + ", ".join(
            f"{go_quote(str(k))}:{sharp_v(value[k])}" for k in sorted(value)) + "}"
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(sharp_v(v) for v in value) + "}"
    if value is None:
        return "interface {}(nil)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, int):
        return str(value)
    return go_quote(str(value))


def sharp_v_strings(values: Sequence[Any] | None, type_name: str = "[]string") -> str:
    """`%#v` of a slice of a string type (`[]string`, `[]core.ResourceQuotaScope`, ...): `[]string{"a", "b"}`,
    each element `strconv.Quote`d; a nil slice (None, or anything that is not a list) `[]string(nil)`; an empty
    one `[]string{}`."""
    if not isinstance(values, (list, tuple)):
        return type_name + "(nil)"
    return type_name + "{" + ", ".join(go_quote(str(v)) for v in values) + "}"


def sharp_v_string_map(value: Any, type_name: str = "map[string]string") -> str:
    """`%#v` of a `map[string]string`: `map[string]string{"a":"1", "b":"2"}`, keys sorted as fmt sorts them, each
    key and value `strconv.Quote`d; a nil map (None, or anything that is not a dict) `map[string]string(nil)`."""
    if not isinstance(value, dict):
        return type_name + "(nil)"
    return type_name + "{" + ", ".join(f"{go_quote(str(k))}:{go_quote(str(v))}" for k, v in sorted(value.items())) \
        + "}"


def sharp_v_ints(values: Sequence[Any] | None, type_name: str = "[]int32") -> str:
    """`%#v` of a slice of integers: `[]int32{1, 2}`; nil `[]int32(nil)`."""
    if not isinstance(values, (list, tuple)):
        return type_name + "(nil)"
    return type_name + "{" + ", ".join(str(v) for v in values) + "}"


def q_strings(values: Sequence[Any] | None) -> str:
    """`%q` of a `[]string`: `["a" "b"]`, each element `strconv.Quote`d (a nil or empty slice `[]`)."""
    return "[" + " ".join(go_quote(str(v)) for v in values or ()) + "]"


def go_type(v: object) -> str:
    """`fmt.Sprintf("%T", v)` of a decoded JSON value (`interface{}` holding maps, slices, strings, int64s,
    float64s, bools, nil)."""
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int64"
    if isinstance(v, float):
        return "float64"
    if isinstance(v, str):
        return "string"
    return "map[string]interface {}" if isinstance(v, dict) else "[]interface {}"


def plain_v(v: object) -> str:
    """`fmt.Sprintf("%v", v)` of a decoded JSON value (maps print their keys sorted, as fmt does)."""
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return format_float(v)
    if isinstance(v, dict):
        return "map[" + " ".join(f"{k}:{plain_v(v[k])}" for k in sorted(v)) + "]"
    if isinstance(v, list):
        return "[" + " ".join(plain_v(x) for x in v) + "]"
    return str(v)

"""Go's formatting of values where a client reads it: `strconv.FormatFloat(f, 'g', -1, 64)`, which cel-go's
`string(double)` and `format` (cel/libs/strformat.py) and Prometheus' text encoder (metrics/registry.py) both use."""
from __future__ import annotations

import math
from decimal import Decimal


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
            f"{_go_quote(str(k))}:{sharp_v(value[k])}" for k in sorted(value)) + "}"
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
    return _go_quote(str(value))


def _go_quote(s: str) -> str:
    """`strconv.Quote` (`%q`)."""
    from .gonet.strconv import quote
    return quote(s)


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

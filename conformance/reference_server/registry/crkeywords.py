"""A custom resource schema's value keywords: `maxLength`, `minLength`, `pattern`; `multipleOf`, `maximum`,
`minimum` (and their `exclusive` flags); `minItems`, `maxItems`, `uniqueItems`; `maxProperties`, `minProperties`.

Follows kube-openapi's validators (`pkg/validation/validate/validator.go`: stringValidator, numberValidator,
sliceValidator, objectValidator; `validate/values.go`) with their messages (`pkg/validation/errors/schema.go`:
`<path> in body should be at most 3 chars long`, ...), turned into field errors as apiextensions-apiserver's
`kubeOpenAPIResultToFieldErrors` does (`apiserver/validation/validation.go`): maxLength is `field.TooLong`,
maxItems and maxProperties `field.TooMany`, the others `field.Invalid` of the value kube-openapi records. A
`pattern` is Go's regexp (`goregexp/`: `$` is the end of the text, Perl classes ASCII, linear time).
"""
from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from ..goport import goregexp
from ..apierrors import FieldError, field_invalid
from .correlation import deep_equal


def go_v(number: float | int) -> str:
    """Go's `%v` of an int64 or a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`: exponent form below 1e-4 and
    from 1e+06 on, as `1e+06`)."""
    if isinstance(number, int):
        return str(number)
    if math.isinf(number):
        return "+Inf" if number > 0 else "-Inf"
    if number == 0:
        return "0"
    sign, digits, exp = Decimal(repr(number)).normalize().as_tuple()
    text = "".join(str(d) for d in digits)
    point = len(text) + int(exp)  # position of the decimal point in `text`
    minus = "-" if sign else ""
    if point - 1 < -4 or point - 1 >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        e = point - 1
        return f"{minus}{mantissa}e{'-' if e < 0 else '+'}{abs(e):02d}"
    if point <= 0:
        return f"{minus}0.{'0' * -point}{text}"
    if point >= len(text):
        return f"{minus}{text}{'0' * (point - len(text))}"
    return f"{minus}{text[:point]}.{text[point:]}"


def _pattern_failure(value: str, pattern: str) -> str | None:
    """kube-openapi's `validate.Pattern`: the pattern `should match` names, None when `value` matches; a pattern
    Go refuses (a stored CRD's, ratcheted) fails every value, named `<pattern>, but pattern is invalid: <error>`."""
    try:
        rx = goregexp.compile(pattern)
    except goregexp.GoRegexpError as exc:
        return f"{pattern}, but pattern is invalid: {exc}"
    return None if rx.search(value) else pattern


def _json_integer(f: float) -> bool:
    """swag's `IsFloat64AJSONInteger`: integral, or within a relative 1e-9 of it."""
    if math.isnan(f) or math.isinf(f):
        return False
    g = float(int(f))
    return f == g or abs(f - g) / min(abs(f) + abs(g), 1.7976931348623157e308) < 1e-9


def string_errors(value: str, schema: dict[str, Any], where: str) -> list[FieldError]:
    errs: list[FieldError] = []
    length = len(value)  # runes (utf8.RuneCountInString)
    if isinstance(schema.get("maxLength"), int) and length > schema["maxLength"]:
        errs.append(FieldError("FieldValueTooLong", where,
                               f"Too long: may not be more than {schema['maxLength']} bytes"))
    if isinstance(schema.get("minLength"), int) and length < schema["minLength"]:
        errs.append(field_invalid(where, value, f"{where} in body should be at least {schema['minLength']} chars "
                                                "long"))
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and pattern:
        failed = _pattern_failure(value, pattern)
        if failed is not None:
            errs.append(field_invalid(where, value, f"{where} in body should match '{failed}'"))
    return errs


def number_errors(value: int | float, schema: dict[str, Any], where: str) -> list[FieldError]:
    """An int64 value meets int64 limits (a fractional limit truncated, as `MaximumNativeType` converts it)."""
    errs: list[FieldError] = []
    factor = schema.get("multipleOf")
    if isinstance(factor, (int, float)) and not isinstance(factor, bool):
        if factor <= 0:
            errs.append(field_invalid(where, factor, f"factor MultipleOf declared for {where} must be positive: "
                                                     f"{go_v(factor)}"))
        elif isinstance(value, int) and float(factor).is_integer():
            if value % int(factor):
                errs.append(field_invalid(where, value, f"{where} in body should be a multiple of {int(factor)}"))
        else:
            mult = 1 / factor * value if factor < 1 else value / factor
            if not _json_integer(mult):
                errs.append(field_invalid(where, value, f"{where} in body should be a multiple of "
                                                        f"{go_v(float(factor))}"))
    for key, word, beyond in (("maximum", "less", lambda v, lim, x: v >= lim if x else v > lim),
                              ("minimum", "greater", lambda v, lim, x: v <= lim if x else v < lim)):
        limit = schema.get(key)
        if not isinstance(limit, (int, float)) or isinstance(limit, bool):
            continue
        exclusive = schema.get(f"exclusive{key.capitalize()}") is True
        shown: int | float = int(limit) if isinstance(value, int) else float(limit)
        if beyond(value, shown, exclusive):
            bound = "than" if exclusive else "than or equal to"
            errs.append(field_invalid(where, value, f"{where} in body should be {word} {bound} {go_v(shown)}"))
    return errs


def array_errors(value: list[Any], schema: dict[str, Any], where: str) -> list[FieldError]:
    errs: list[FieldError] = []
    size = len(value)
    if isinstance(schema.get("minItems"), int) and size < schema["minItems"]:
        errs.append(field_invalid(where, size, f"{where} in body should have at least {schema['minItems']} items"))
    if isinstance(schema.get("maxItems"), int) and size > schema["maxItems"]:
        errs.append(FieldError("FieldValueTooMany", where,
                               f"Too many: {size}: must have at most {schema['maxItems']} items"))
    if schema.get("uniqueItems") is True and any(deep_equal(value[i], value[j]) for i in range(size)
                                                 for j in range(i + 1, size)):
        errs.append(field_invalid(where, "", f"{where} in body shouldn't contain duplicates"))
    return errs


def object_errors(value: dict[str, Any], schema: dict[str, Any], where: str) -> list[FieldError]:
    """kube-openapi records the limit as the error's value: `Too many: <max>: must have at most <max> items`."""
    errs: list[FieldError] = []
    size = len(value)
    least, most = schema.get("minProperties"), schema.get("maxProperties")
    if isinstance(most, int) and size > most:
        errs.append(FieldError("FieldValueTooMany", where, f"Too many: {most}: must have at most {most} items"))
    if isinstance(least, int) and size < least:
        errs.append(field_invalid(where, least, f"{where} in body should have at least {least} properties"))
    return errs

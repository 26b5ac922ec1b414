"""`resource.Quantity` (`staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go`): parsing, the canonical
`String()`, arithmetic. Shared by the registry (ResourceQuota validation) and admission (quota, LimitRanger).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

# ---------------------------------------------------------------------------------------------------------
# resource.Quantity
# ---------------------------------------------------------------------------------------------------------

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

# quantity.go: splitREString / the error text of ErrFormatWrong
QUANTITY_RE = re.compile(r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$")
_NUMBER = re.compile(r"[+-]?[0-9]*(?:\.[0-9]*)?")  # parseQuantityString's sign, numerator and denominator
_BIN = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DEC = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DEC_BY_EXP = {v: k for k, v in _DEC.items()}
_BIN_BY_EXP = {v // 10: k for k, v in _BIN.items()}
_NANO = Fraction(1, 10 ** 9)
MAX_INT64 = 2 ** 63 - 1
MAX_MILLI_VALUE = MAX_INT64 // 1000  # resource.MaxMilliValue
# Exact arithmetic here costs what the number's digits cost (quadratic in CPython, which also refuses to print an
# int of more than 4,300 digits), on the event loop: a quantity of more significant digits, or a decimal exponent
# further from 0, is refused as unparseable, where upstream's inf.Dec takes it (README, Known gaps).
MAX_DIGITS = 4000


class QuantityError(ValueError):
    """`resource.ErrFormatWrong` / `ErrSuffix`; callers turn it into their own validation error."""


@dataclass(frozen=True)
class Quantity:
    """An exact value and the format its canonical string uses (upstream `resource.Quantity`)."""

    value: Fraction
    format: str = DECIMAL_SI

    @staticmethod
    def parse(text: Any) -> "Quantity":
        """`resource.ParseQuantity`; numbers in JSON are accepted as their decimal text, as upstream does."""
        if isinstance(text, Quantity):
            return text
        if isinstance(text, bool) or not isinstance(text, (str, int, float)):
            raise QuantityError("quantities must match the regular expression "
                                "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
        s = str(text) if not isinstance(text, float) else repr(text)
        err = parse_error(s)
        if err:
            raise QuantityError(err)
        m = _NUMBER.match(s)
        num, suffix = m.group(0), s[m.end():]
        sign = -1 if num.startswith("-") else 1
        digits = num.lstrip("+-")
        whole, _, frac = digits.partition(".")  # "", "." and "1." are numbers to ParseQuantity
        whole, frac = whole.lstrip("0"), frac.rstrip("0")  # the same value
        if len(whole) + len(frac) > MAX_DIGITS:
            raise QuantityError(FORMAT_WRONG)
        mantissa = Fraction(int(whole or "0")) + (Fraction(int(frac), 10 ** len(frac)) if frac else 0)
        if suffix in _BIN:
            fmt, factor = BINARY_SI, Fraction(2 ** _BIN[suffix])
        elif suffix in _DEC:
            fmt, factor = DECIMAL_SI, Fraction(10) ** _DEC[suffix]
        elif re.fullmatch(r"[eE][-+]?[0-9]+", suffix):
            exponent = (int(suffix[1:]) + 2 ** 31) % 2 ** 32 - 2 ** 31  # suffix.go: `int32(parsed)`, wrapped
            if abs(exponent) > MAX_DIGITS:
                raise QuantityError(FORMAT_WRONG)
            fmt, factor = DECIMAL_EXPONENT, Fraction(10) ** exponent
        else:
            raise QuantityError("unable to parse quantity's suffix")
        value = mantissa * factor
        # Quantities are limited to nano precision; smaller fractions round up (away from zero).
        value = Fraction(math.ceil(value / _NANO)) * _NANO
        if fmt == BINARY_SI and 0 < value < 1:
            fmt = DECIMAL_SI  # quantity.go: "This avoids rounding and hopefully confusion, too."
        return Quantity(sign * value, fmt)

    @staticmethod
    def from_int(n: int) -> "Quantity":
        return Quantity(Fraction(n), DECIMAL_SI)

    def add(self, other: "Quantity") -> "Quantity":
        """`Quantity.Add`: the receiver's format wins unless the receiver is zero."""
        fmt = other.format if self.value == 0 else self.format
        return Quantity(self.value + other.value, fmt)

    def sub(self, other: "Quantity") -> "Quantity":
        fmt = other.format if self.value == 0 else self.format
        return Quantity(self.value - other.value, fmt)

    def cmp(self, other: "Quantity") -> int:
        return (self.value > other.value) - (self.value < other.value)

    def int_value(self) -> int:
        """`Quantity.Value()`: rounded up, away from zero."""
        return _ceil_away(self.value)

    def milli_value(self) -> int:
        """`Quantity.MilliValue()`: rounded up, away from zero."""
        return _ceil_away(self.value * 1000)

    def __str__(self) -> str:
        return self.canonical()

    def canonical(self) -> str:
        """`Quantity.String()` = `CanonicalizeBytes`: what JSON carries and what every message prints."""
        if self.value == 0:
            return "0"
        fmt = self.format
        if fmt == BINARY_SI:
            if -1024 < self.value < 1024 or self.value.denominator != 1:
                fmt = DECIMAL_SI
        if fmt == BINARY_SI:
            n, exp = int(self.value), 0
            while n % 1024 == 0 and exp < 6:
                n //= 1024
                exp += 1
            return f"{n}{_BIN_BY_EXP.get(exp, '')}"
        # AsCanonicalBytes: mantissa without trailing zeros, exponent lowered to a multiple of 3.
        n = int(self.value / _NANO)  # exact: values are multiples of 1n
        exp = -9
        while n % 10 == 0:
            n //= 10
            exp += 1
        r = exp % 3
        if r:
            n *= 10 ** r
            exp -= r
        if fmt == DECIMAL_EXPONENT:
            return f"{n}" if exp == 0 else f"{n}e{exp}"
        while exp > 18:
            n *= 1000
            exp -= 3
        return f"{n}{_DEC_BY_EXP[exp]}"


def _ceil_away(v: Fraction) -> int:
    return math.ceil(v) if v >= 0 else math.floor(v)


def parse_quantity(text: Any) -> Quantity:
    return Quantity.parse(text)


def canonical(text: Any) -> str:
    """The canonical form of a quantity string, e.g. `1000m` → `1`, `0.5` → `500m`, `1024Mi` → `1Gi`."""
    return Quantity.parse(text).canonical()


def go_string(raw: Any) -> str:
    """`Quantity.String()` (and `MarshalJSON`) of a quantity decoded from `raw` (a string's trimmed text, or a
    JSON number's): the text itself where `ParseQuantity` kept it (`1.500`, `2.50e-1`, `+1`: its int64 path's
    "canonical form" test, which looks at the digits only), else the canonical form (`1000m` is `1`)."""
    text = raw.strip() if isinstance(raw, str) else repr(raw) if isinstance(raw, float) else str(raw)
    q = Quantity.parse(text)  # QuantityError for a text ParseQuantity refuses
    fast = int64_amount(text)
    return fast[2] if fast and fast[2] else q.canonical()


FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
SUFFIX_WRONG = "unable to parse quantity's suffix"
_DIGITS = frozenset("0123456789")


def _suffix_ok(suffix: str) -> bool:
    """`quantitySuffixer.interpret`: a decimal or binary SI suffix, or e/E and an int64 exponent."""
    if suffix in _DEC or suffix in _BIN:
        return True
    if len(suffix) > 1 and suffix[0] in "eE":
        rest = suffix[1:]
        digits = rest[1:] if rest[:1] in "+-" else rest
        significant = digits.lstrip("0")  # strconv.ParseInt takes leading zeros
        return bool(digits) and set(digits) <= _DIGITS and len(significant) <= 19 and \
            int(rest[:1] + significant if rest[:1] == "-" else significant or "0") in range(-2**63, 2**63)
    return False


def parse_error(text: str) -> str | None:
    """The error of `ParseQuantity(text)` (`parseQuantityString`'s scan, then the suffix), or None. Not the
    regular expression its message quotes: upstream accepts `.`, `1.` and `+.5`, and so does this."""
    if not text:
        return FORMAT_WRONG
    pos, end = (1 if text[0] in "+-" else 0), len(text)
    while pos < end and text[pos] in _DIGITS:  # leading zeros, then the numerator
        pos += 1
    if pos < end and text[pos] == ".":
        pos += 1
        while pos < end and text[pos] in _DIGITS:
            pos += 1
    start = pos
    while pos < end and text[pos] in "eEinumkKMGTP":
        pos += 1
    if pos < end:
        if text[pos] in "+-":
            pos += 1
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        if pos < end:
            return FORMAT_WRONG
    if not _suffix_ok(text[start:]):
        return SUFFIX_WRONG
    return FORMAT_WRONG if _beyond_bounds(text[:start], text[start:]) else None


def _beyond_bounds(number: str, suffix: str) -> bool:
    """Whether `Quantity.parse` refuses the quantity for its cost (`MAX_DIGITS`), not for its syntax."""
    whole, _, frac = number.lstrip("+-").partition(".")
    if len(whole.lstrip("0")) + len(frac.rstrip("0")) > MAX_DIGITS:
        return True
    if suffix[:1] in ("e", "E") and suffix not in _BIN:  # (`Ei` is exbi; `E` alone exa)
        return len(suffix) > 1 and abs((int(suffix[1:]) + 2 ** 31) % 2 ** 32 - 2 ** 31) > MAX_DIGITS
    return False


def int64_amount(text: str) -> tuple[int, int, str, str] | None:
    """`ParseQuantity`'s int64 path: (value, scale, the kept string or "", format), or None for the inf.Dec one:
    the fields of the `resource.Quantity` it returns (`i.value`, `i.scale`, the cached `s`, `Format`)."""
    if text == "0":
        return 0, 0, "0", "DecimalSI"
    i, positive = 0, True
    if text[:1] in "+-":
        positive, i = text[0] == "+", 1
    while i < len(text) and text[i] == "0":
        i += 1
    j = i
    while j < len(text) and text[j].isdigit() and text[j].isascii():
        j += 1
    num, denom = text[i:j] or "0", ""
    if j < len(text) and text[j] == ".":
        k = j + 1
        while k < len(text) and text[k].isdigit() and text[k].isascii():
            k += 1
        denom, j = text[j + 1:k], k
    suffix = text[j:]
    if suffix in _DEC:
        fmt, exponent = "DecimalSI", _DEC[suffix]
    elif suffix in _BIN:
        fmt, exponent = "BinarySI", _BIN[suffix]
    elif suffix[:1] in ("e", "E") and suffix[1:].lstrip("+-").isdigit():
        fmt, exponent = "DecimalExponent", int(suffix[1:])
    else:
        return None
    mantissa = 1
    if fmt == "BinarySI":
        if denom:
            return None
        mantissa = 1 << exponent
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        scale = 0
    else:
        precision = 18 - (len(num) + len(denom))
        scale = exponent
    if precision < 0:
        return None
    scale -= len(denom)
    if scale < -9:
        return None
    shifted = num + denom
    value = int(shifted) * mantissa
    if value > MAX_INT64:
        return None
    result = value if positive else -value
    if fmt == "BinarySI":
        keep = exponent % 10 == 0 and int(shifted) & 0x07 != 0
    else:
        keep = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
    return result, scale, text if keep else "", fmt

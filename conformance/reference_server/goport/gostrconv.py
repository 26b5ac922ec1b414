"""Go's `strconv.ParseFloat(s, bitSize)`, for every place upstream reads a float from text: CEL's `double()`
(cel/libs/conversions.py), an Accept clause's `q` (goautoneg, 32 bits: wire/goautoneg.py) and an Accept-Encoding
coding's `q` (gziphandler, 64 bits: http/openapi.py). What Go accepts (`1`, `.5`, `5.`, `1e-1`, the hex form
`0x1p-1`, `1_0`, `inf`, `+Infinity`, `NaN`, case-insensitive) and refuses (spaces, a signed NaN, `infin`, `1__0`,
anything after the number) differs from Python's `float()`, which strips spaces.
"""
from __future__ import annotations

import math
import re
import struct

__all__ = ["parse_float"]

# decimal or (with a `p` exponent) hexadecimal, `_` between digits; `inf`, `infinity` (signed) and `nan`
# (unsigned) in any case
_DEC_FLOAT = re.compile(r"[+-]?(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][+-]?[0-9][0-9_]*)?", re.ASCII)
_HEX_FLOAT = re.compile(r"[+-]?0[xX](?:[0-9a-fA-F_]+\.?[0-9a-fA-F_]*|\.[0-9a-fA-F_]+)[pP][+-]?[0-9][0-9_]*",
                        re.ASCII)
_SPECIAL = re.compile(r"[+-]?(?:inf|infinity)|nan", re.ASCII | re.IGNORECASE)


def _underscore_ok(s: str) -> bool:
    """strconv's `underscoreOK`: each `_` between digits (a base prefix counts as one)."""
    saw, i = "^", 0
    if s[:1] in ("+", "-"):
        s = s[1:]
    hexa = False
    if len(s) >= 2 and s[0] == "0" and s[1].lower() in "box":
        i, saw, hexa = 2, "0", s[1].lower() == "x"
    for c in s[i:]:
        if c.isdigit() or (hexa and c.lower() in "abcdef"):
            saw = "0"
        elif c == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
    return saw != "_"


def _parse64(text: str) -> tuple[float, bool]:
    if _SPECIAL.fullmatch(text):
        return float(text), True
    hexa = _HEX_FLOAT.fullmatch(text)
    if not hexa and not _DEC_FLOAT.fullmatch(text):
        return 0.0, False
    if "_" in text:
        if not _underscore_ok(text):
            return 0.0, False
        text = text.replace("_", "")
    mantissa = re.split("[pP]" if hexa else "[eE]", text.lstrip("+-"))[0][2 if hexa else 0:]
    if not any(c.isdigit() or (hexa and c in "abcdefABCDEF") for c in mantissa):
        return 0.0, False
    try:
        f = float.fromhex(text) if hexa else float(text)
    except OverflowError:
        return (-math.inf if text.startswith("-") else math.inf), False
    return f, not math.isinf(f)


def parse_float(text: str, bits: int = 64) -> tuple[float, bool]:
    """(value, ok) as `strconv.ParseFloat(text, bits)` answers: a syntax error is (0, False), a value past the
    type's range (±Inf, False), an underflow 0 without an error; a 32-bit value is rounded to float32 (through
    float64)."""
    value, ok = _parse64(text)
    if not ok or bits != 32 or math.isinf(value) or math.isnan(value):
        return value, ok
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0], True
    except OverflowError:
        return math.copysign(math.inf, value), False

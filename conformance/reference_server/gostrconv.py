"""Go's `strconv.ParseFloat(s, bitSize)` for the header values upstream reads with it: an Accept clause's `q`
(goautoneg, 32 bits: wire/goautoneg.py) and an Accept-Encoding coding's `q` (gziphandler, 64 bits:
http/openapi.py). What Go accepts (`1`, `.5`, `5.`, `1e-1`, the hex form `0x1p-1`, `inf`, `+Infinity`, `NaN`,
case-insensitive, `1_0`) and refuses (spaces, a signed NaN, `infin`, `1__0`, anything after the number) differs
from Python's `float()`, which strips spaces.
"""
from __future__ import annotations

import math
import re
import struct

__all__ = ["parse_float"]

_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEX = re.compile(r"([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+))[pP]([+-]?[0-9]+)")
_SPECIAL = re.compile(r"(?i)([+-]?)(inf|infinity)|nan")


def parse_float(text: str, bits: int = 64) -> tuple[float, bool]:
    """(value, ok) as `strconv.ParseFloat(text, bits)` answers: a syntax error is (0, False), a value past the
    type's range (±Inf, False); a 32-bit value is rounded to float32 (through float64); underscores between digits
    (`1_0`) are read as `readFloat` reads them (`underscoreOK`)."""
    special = _SPECIAL.fullmatch(text)
    if special is None and "_" in text:
        if not _underscore_ok(text):
            return 0.0, False
        text = text.replace("_", "")
    if special is not None:
        if special.group(2) is None:
            return math.nan, True
        return (-math.inf if special.group(1) == "-" else math.inf), True
    if _DECIMAL.fullmatch(text):
        value = float(text)
    else:
        hexa = _HEX.fullmatch(text)
        if hexa is None:
            return 0.0, False
        sign, mantissa, exponent = hexa.groups()
        try:
            value = float.fromhex(f"{sign}0x{mantissa}p{exponent}")
        except OverflowError:
            return (-math.inf if sign == "-" else math.inf), False
    if math.isinf(value):
        return value, False
    if bits == 32:
        try:
            value = struct.unpack("<f", struct.pack("<f", value))[0]
        except OverflowError:
            return math.copysign(math.inf, value), False
    return value, True


def _underscore_ok(s: str) -> bool:
    """`underscoreOK`: an underscore only between digits, or between a base prefix and a digit."""
    saw = "^"
    i = 0
    if s[:1] in ("+", "-"):
        s = s[1:]
    hexa = False
    if len(s) >= 2 and s[0] == "0" and s[1].lower() in "box":
        i, saw, hexa = 2, "0", s[1].lower() == "x"
    while i < len(s):
        c = s[i]
        if c.isdigit() and c.isascii() or hexa and c.lower() in "abcdef":
            saw = "0"
        elif c == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
        i += 1
    return saw != "_"

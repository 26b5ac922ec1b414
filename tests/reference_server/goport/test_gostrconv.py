"""`gostrconv.py`: Go's `strconv.ParseFloat` (the values checked against Go's own)."""
from __future__ import annotations

import math

import pytest

from conformance.reference_server.goport.gostrconv import parse_float


@pytest.mark.parametrize("text, bits, value, ok", [
    ("1", 32, 1.0, True), ("0.5", 32, 0.5, True), (".5", 32, 0.5, True), ("5.", 32, 5.0, True),
    ("0x1p-1", 32, 0.5, True), ("1e-1", 32, 0.10000000149011612, True), ("1e-1", 64, 0.1, True),
    ("inf", 32, math.inf, True), ("-Infinity", 64, -math.inf, True), ("1e39", 32, math.inf, False),
    ("1e39", 64, 1e39, True), ("1e400", 64, math.inf, False), ("3.4028235e38", 32, 3.4028234663852886e38, True),
    (" 0.5", 32, 0.0, False), ("0.5 ", 64, 0.0, False), ("+nan", 32, 0.0, False), ("1_0", 64, 10.0, True), ("1__0", 64, 0.0, False), ("_1", 64, 0.0, False),
    ("1_.5", 64, 0.0, False), ("0x_1p0", 64, 1.0, True),
    ("infin", 32, 0.0, False), ("", 64, 0.0, False), ("0.5x", 64, 0.0, False), ("1e-400", 64, 0.0, True),
])
def test_parse_float(text: str, bits: int, value: float, ok: bool) -> None:
    assert parse_float(text, bits) == (value, ok)


def test_nan() -> None:
    value, ok = parse_float("NaN", 32)
    assert math.isnan(value) and ok

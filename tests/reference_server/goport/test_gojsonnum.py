"""gojsonnum.py: encoding/json's float formatting and util/json's reading of numbers a float64 cannot hold."""
from __future__ import annotations

import json

import pytest

from conformance.reference_server.goport import gojsonnum as G
from conformance.reference_server.wire.textdecode import loads_json


@pytest.mark.parametrize("literal,go", [
    ("2.0", "2"), ("1e21", "1e+21"), ("1e-7", "1e-7"), ("100000000000000000000.0", "100000000000000000000"),
    ("0.00001", "0.00001"), ("0.000001", "0.000001"), ("1.5e20", "150000000000000000000"), ("1e2", "100"),
    ("0.1", "0.1"), ("-0.0", "-0"), ("1.5e-10", "1.5e-10"), ("123456789.125", "123456789.125"),
    ("1e16", "10000000000000000"), ("-2.5e-7", "-2.5e-7"), ("1.2345678901234567e22", "1.2345678901234568e+22"),
])
def test_floats_are_written_as_encoding_json_writes_them(literal: str, go: str) -> None:
    value = loads_json(f'{{"a":{literal},"b":[{literal}]}}'.encode())
    assert G.encode(value) == f'{{"a":{go},"b":[{go}]}}'


def test_numbers_no_float64_holds_keep_their_literal() -> None:
    for literal in ("1e400", "-1e400", "1" * 400, "-" + "9" * 5000):  # (past Python's 4300-digit int limit)
        value = loads_json(f'{{"x":{{"y":[1,{literal}]}}}}'.encode())
        found = G.first_overflow(value)
        assert found is not None and found.literal == literal
        assert G.overflow_error(found) == f"json: cannot unmarshal number {literal} into Go value of type float64"
        assert G.encode_raw_literals(value) == f'{{"x":{{"y":[1,{literal}]}}}}'
        assert G.overflow_seen()
    big = loads_json(b'{"a":9223372036854775808,"b":9223372036854775807}')
    assert isinstance(big["a"], float) and big["b"] == 2 ** 63 - 1  # util/json: past int64, a float64
    assert G.encode(big) == '{"a":9223372036854776000,"b":9223372036854775807}'
    assert G.first_overflow(big) is None


def test_an_infinity_is_never_written() -> None:
    G.note_float(float("inf"))
    assert json.loads(G.encode({"a": float("inf"), "b": [float("nan")]})) == {"a": None, "b": [None]}


def test_answers_without_floats_are_python_s_text() -> None:
    text = '{"a":"v1.0,","b":"web-01","c":0.5,"d":1e-10}'
    assert G.encode(json.loads(text), text) == text

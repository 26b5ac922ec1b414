"""A map indexed or searched by a number of another numeric type (cel/libs/mapkeys.py, the rewrites of `m[k]` and
`k in m` in cel/desugar.py, the engine's second run in cel/engine.py), as cel-go v0.23.2's `refValMapAccessor.Find`
(`common/types/map.go`) and `refQualify`'s `missingKey` (`interpreter/attributes.go`) read it: the key as given,
then a double as the int it equals exactly, else as that uint; an int as the uint it equals; a uint as the int."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.reference_server.cel import EvalError, compile_expression
from conformance.reference_server.cel.libs.mapkeys import lossless_keys


def run(expression: str, **activation: Any) -> Any:
    try:
        return compile_expression(expression, activation).evaluate(activation)
    except EvalError as exc:
        return f"error: {exc}"


@pytest.mark.parametrize("expression, expected", [
    ("{1: 'a'}[dyn(1.0)]", "a"),
    ("{1: 'a'}[dyn(1u)]", "a"),
    ("{1u: 'a'}[dyn(1)]", "a"),
    ("{1u: 'a'}[dyn(1.0)]", "a"),
    ("{1: 'a', 1u: 'b'}[dyn(1u)]", "b"),  # the key as given first
    ("{1: 'a', 1u: 'b'}[dyn(1.0)]", "a"),  # a double as an int first
    ("{1: 'a'}[dyn(1.5)]", "error: no such key: 1.5"),
    ("{1: 'a'}[dyn(2u)]", "error: no such key: 2"),
    ("{1u: 'a'}[dyn(-1)]", "error: no such key: -1"),
    ("{1: 'a'}[dyn(1e30)]", "error: no such key: 1e+30"),
    ("{'a': 1}[dyn(1.0)]", "error: no such key: 1"),
    ("{'a': 1}['b']", "error: no such key: b"),
    ("[1, 2].transformMap(i, v, v)[dyn(1u)]", 2),
])
def test_map_index(expression, expected):
    assert run(expression) == expected


@pytest.mark.parametrize("expression, expected", [
    ("dyn(1.0) in {1: 'a'}", True),
    ("dyn(1.0) in {1u: 'a'}", True),
    ("dyn(1u) in {1: 'a'}", True),
    ("dyn(1) in {1u: 'a'}", True),
    ("dyn(1.5) in {1: 'a'}", False),
    ("dyn(-1) in {1u: 'a'}", False),
    ("dyn(9223372036854775808u) in {1: 'a'}", False),
    ("dyn('a') in {1: 'a'}", False),
    ("x in {1: 'a'}", True),
    ("dyn(1u) in [1, 2]", True),  # lists: heterogeneous equality, cel-rust's own
    ("dyn(1.0) in [1]", True),
])
def test_in(expression, expected):
    assert run(expression, x=1.0) == expected


def test_lossless_keys_follow_overflow_go():
    """`doubleToInt64Lossless`/`doubleToUint64Lossless`: whole, finite, -2^63 < d < 2^63 (uint: 0 <= d < 2^64)."""
    assert lossless_keys(1.0) == [1, 1]
    assert lossless_keys(-1.0) == [-1, None]
    assert lossless_keys(1.5) == [None, None]
    assert lossless_keys(float(1 << 63)) == [None, 1 << 63]
    assert lossless_keys(-float(1 << 63)) == [None, None]
    assert lossless_keys(float("nan")) == [None, None]
    assert lossless_keys(float("inf")) == [None, None]


@pytest.mark.parametrize("expression, expected", [
    ("{1: 'a'} == dyn({1u: 'a'})", True),  # baseMap.Equal: each key found by Find, the values equal
    ("{1: 'a'} != dyn({1u: 'a'})", False),
    ("{1u: 'a', 2u: 'b'} == dyn({2: 'b', 1: 'a'})", True),
    ("{1: 'a'} == dyn({1u: 'b'})", False),
    ("{1: 'a', 2: 'b'} == dyn({1u: 'a'})", False),
    ("[1].map(x, {x: x})[0] == {1u: 1}", True),
    ("{1: 'a'} == dyn([1])", False),
    ("{'x': 1} == {'x': 1}", True),
    # `Equal` at every depth: the values of maps and the elements of lists compared as the top is
    ("{1: {2: 'a'}} == dyn({1u: {2u: 'a'}})", True),
    ("{1: {2: 'a'}} != dyn({1u: {2u: 'a'}})", False),
    ("{1: [{2: 'a'}]} == dyn({1u: [{2u: 'a'}]})", True),
    ("[{1: 'a'}] == dyn([{1u: 'a'}])", True),
    ("{1: {2: 'a'}} == dyn({1u: {2u: 'b'}})", False),
    ("{1: {2: 1}} == dyn({1u: {2u: 1.0}})", True),
    ("{1: {true: 1}} == dyn({1u: {1: 1}})", False),  # a bool key is never a number
    ("{1: {2: 0.0/0.0}} == dyn({1u: {2u: 0.0/0.0}})", False),
    ("{1: {2: duration('1ns')}} == dyn({1u: {2u: duration('2us')}})", False),
    ("{1: {2: duration('1ns')}, 3: 1} == dyn({1u: {2u: duration('1ns')}, 3u: 2})", False),
    ("{1: duration('1ns')} == dyn({1u: duration('2ns')})", False),  # the top level keeps nanoseconds
    ("{1: duration('1ns')} == dyn({1u: duration('1ns')})", True),
])
def test_map_equality(expression, expected):
    assert run(expression) == expected

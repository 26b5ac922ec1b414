"""The parameter codec's conversions (paramcodec.py, after apimachinery runtime/conversion.go v0.33): bools false
only for `0`/`false`, int64s as `strconv.ParseInt(s, 10, 64)` with its `%q`-quoted errors."""
from __future__ import annotations

import pytest
from multidict import MultiDict

from conformance.reference_server import paramcodec as C
from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.goport.gonet.strconv import quote


@pytest.mark.parametrize("value, expected", [
    (None, False), ("0", False), ("false", False), ("FALSE", False), ("False", False),
    ("", True), ("1", True), ("true", True), ("yes", True), ("no", True), ("off", True), ("00", True),
])
def test_a_bool_is_false_only_for_0_or_false(value, expected):
    assert C.go_bool(value) is expected


def test_a_pointer_bool_is_set_by_presence():
    assert C.optional_flag(MultiDict(), "force") is None
    assert C.optional_flag(MultiDict(force=""), "force") is True
    assert C.optional_flag(MultiDict(force="0"), "force") is False


def test_only_the_first_value_counts():
    q = MultiDict([("watch", "false"), ("watch", "true"), ("limit", "5"), ("limit", "x")])
    assert C.flag(q, "watch") is False and C.optional_int64(q, "limit") == 5
    assert C.first({"limit": ["7", "x"]}, "limit") == "7"


@pytest.mark.parametrize("text, value", [("5", 5), ("+5", 5), ("-0", 0), ("007", 7),
                                         (str((1 << 63) - 1), (1 << 63) - 1), (str(-(1 << 63)), -(1 << 63))])
def test_parse_int_takes_what_parseint_takes(text, value):
    assert C.parse_int(text) == value


@pytest.mark.parametrize("text, why", [
    ("", "invalid syntax"), ("abc", "invalid syntax"), (" 5", "invalid syntax"), ("5 ", "invalid syntax"),
    ("1_000", "invalid syntax"), ("٣", "invalid syntax"), ("0x10", "invalid syntax"), ("+", "invalid syntax"),
    ("1.0", "invalid syntax"), (str(1 << 63), "value out of range"), (str(-(1 << 63) - 1), "value out of range"),
])
def test_parse_int_refuses_as_parseint(text, why):
    with pytest.raises(C.NumError) as exc:
        C.parse_int(text)
    assert str(exc.value) == f"strconv.ParseInt: parsing {quote(text)}: {why}"


def test_the_refused_text_is_go_quoted():
    with pytest.raises(C.NumError) as exc:
        C.parse_int('a"\tb', "Atoi")
    assert str(exc.value) == 'strconv.Atoi: parsing "a\\"\\tb": invalid syntax'


def test_an_int64_option_error_is_the_handlers_bad_request():
    with pytest.raises(StatusError) as exc:
        C.optional_int64(MultiDict(limit=""), "limit")
    assert exc.value.status["code"] == 400 and exc.value.status["reason"] == "BadRequest"
    assert exc.value.status["message"] == 'strconv.ParseInt: parsing "": invalid syntax'
    assert C.optional_int64(MultiDict(), "limit") is None

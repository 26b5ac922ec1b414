"""gofmt.py's `%q` / `%#v` of strings and slices: byte for byte what Go's fmt prints (the expected texts were
printed by `go run` of `fmt.Printf("%#v", ...)` and `fmt.Printf("%q", ...)`), the one renderer every
`field.Invalid` message with a string slice uses."""
from __future__ import annotations

import pytest

from conformance.reference_server.goport.gofmt import go_quote, plain_v, q_strings, sharp_v_ints, sharp_v_strings


@pytest.mark.parametrize("text, shown", [
    ("\a\b\f\n\r\t\v", r'"\a\b\f\n\r\t\v"'),  # the named escapes
    ("\x00\x1f\x7f", r'"\x00\x1f\x7f"'),  # other ASCII controls as \xNN
    ("\udcff\udcc3", r'"\xff\xc3"'),  # bytes that are not UTF-8 (surrogateescape) as \xNN
    ("é\u00ad\u200b", r'"é\u00ad\u200b"'),  # a printable letter kept; a format character (not IsPrint) as \uNNNN
    ("日本", '"日本"'),
    ("\U0001F600\U000E0001", r'"😀\U000e0001"'),  # a printable symbol kept; a tag character as \UNNNNNNNN
    ("\u0378", r'"\u0378"'),  # unassigned
    ('"\\`', r'"\"\\`"'),  # `%#v` clears `#`: never backquoted
])
def test_go_quote_is_strconv_quote(text: str, shown: str) -> None:
    assert go_quote(text) == shown


def test_sharp_v_of_string_slices() -> None:
    assert sharp_v_strings(None) == "[]string(nil)"
    assert sharp_v_strings([]) == "[]string{}"
    assert sharp_v_strings(["a\tb", "é\x01"]) == r'[]string{"a\tb", "é\x01"}'
    assert sharp_v_strings(["Ingress", "é\x01"], "[]networking.PolicyType") == \
        r'[]networking.PolicyType{"Ingress", "é\x01"}'
    assert sharp_v_strings("not a list") == "[]string(nil)"  # what would not have decoded into a slice


def test_q_and_v_of_string_slices_and_sharp_v_of_ints() -> None:
    assert q_strings(["a b", "é\x01"]) == r'["a b" "é\x01"]'
    assert q_strings(None) == "[]"
    assert plain_v(["a b", "c"]) == "[a b c]"
    assert sharp_v_ints([1, 2]) == "[]int32{1, 2}"
    assert sharp_v_ints(None) == "[]int32(nil)"
    assert sharp_v_ints([], "[]int64") == "[]int64{}"

"""quantity.py: `resource.ParseQuantity`'s exponent read as suffix.go reads it (`int32(parsed)`), and the bound that
keeps exact arithmetic off a stalled event loop (a quantity of thousands of digits is refused as unparseable)."""
from __future__ import annotations

import pytest

from conformance.reference_server.quantity import FORMAT_WRONG, SUFFIX_WRONG, Quantity, QuantityError, parse_error


@pytest.mark.parametrize("text, canonical", [
    ("1e4294967296", "1"),  # int32(4294967296) is 0
    ("1e4294967295", "100e-3"),  # int32 wraps to -1
    ("1e-0000000000000000000000001", "100e-3"),  # ParseInt takes leading zeros
    ("001.5000", "1500m"),
    ("1e3999", "1e3999"),
    ("1Ei", "1Ei"),  # a binary suffix, not an exponent
    ("2E", "2E"),
])
def test_exponents_as_go_reads_them(text, canonical):
    assert parse_error(text) is None
    assert Quantity.parse(text).canonical() == canonical


@pytest.mark.parametrize("text, error", [
    ("1e9223372036854775808", SUFFIX_WRONG),  # beyond int64: ParseInt's error
    ("1e" + "9" * 5000, SUFFIX_WRONG),
    ("1" + "0" * 5000, FORMAT_WRONG),  # the cost bound, not Go's answer (README, Known gaps)
    ("0." + "0" * 5000 + "1", FORMAT_WRONG),
    ("1e999999999", FORMAT_WRONG),
])
def test_unreadable_or_too_costly_quantities_are_refused_at_once(text, error):
    assert parse_error(text) == error
    with pytest.raises(QuantityError):
        Quantity.parse(text)


def test_a_huge_exponent_over_http_is_answered_at_once(http, url, namespaces):
    """A quota of `1e999999999` cpu: refused as unparseable (upstream computes a billion-digit number), the
    server answering the next request as it did."""
    ns = namespaces.create()["metadata"]["name"]
    body = {"metadata": {"name": "q"}, "spec": {"hard": {"cpu": "1e999999999"}}}
    r = http.post(f"{url}/api/v1/namespaces/{ns}/resourcequotas", json=body)
    assert r.status_code == 400 and FORMAT_WRONG in r.json()["message"], r.text
    assert http.get(f"{url}/api/v1/namespaces/{ns}").status_code == 200

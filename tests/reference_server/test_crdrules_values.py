"""registry/crdrules/values.py: a `format: duration` string as kube-openapi's `strfmt.ParseDuration` (the version
1.33 pins) reads it: Go's grammar first (godur.py), else every `<n> <unit>` found in it, strfmt's units included; a
`timedelta`, or with digits finer than a microsecond the exact text cel-rust's `duration()` reads
(cel/exacttime.py)."""
from __future__ import annotations

from datetime import timedelta

import pytest
import requests

from conformance.reference_server.registry.crdrules.values import to_cel

from .test_crd_rules import gadget, served, spec_schema, srv  # noqa: F401 (srv: the module's server fixture)

DURATION = {"type": "string", "format": "duration"}


@pytest.mark.parametrize("text,want", [
    (".5s", timedelta(milliseconds=500)), ("-1.5h", timedelta(hours=-1.5)), ("0", timedelta(0)),
    ("1d", timedelta(days=1)), ("1w2d", timedelta(days=9)), ("2 hours", timedelta(hours=2)),
    ("3 Days 4 hrs", timedelta(days=3)),              # `hrs` matches no variant: skipped
    ("1.5d", timedelta(days=5)),                       # not anchored: `5d`
    ("-1d", timedelta(days=1)),                        # the sign is not strfmt's
    ("in 10 minutes", timedelta(minutes=10)), ("5 nanos", "0s5ns"), ("90 secs", timedelta(seconds=90)),
    ("9223372036854775807ns", "9223372036s854775807ns"), ("-1500ns", "-0s1500ns"),
])
def test_strfmt_durations(text, want):
    assert to_cel(text, DURATION) == want


@pytest.mark.parametrize("text", ["", "d", "1.5", "5 fortnights", "99999999999999999999d"])
def test_what_strfmt_refuses_stays_a_string(text):
    assert to_cel(text, DURATION) == text


def test_int64_wraps_as_go_does():
    # 106752 days is past int64 nanoseconds (106751.99 days): Go's multiplication wraps negative
    wrapped = (106752 * 86400 * 10**9 + 2**63) % 2**64 - 2**63
    assert wrapped % 1000  # finer than microseconds: the exact text
    seconds, nanos = divmod(abs(wrapped), 10**9)
    assert to_cel("106752d", DURATION) == f"-{seconds}s{nanos}ns"


def test_a_custom_resource_duration_in_days_reaches_the_rule(srv):  # noqa: F811
    coll = served(srv, spec_schema({"every": DURATION}, [
        {"rule": "self.every == duration('48h')", "message": "every must be two days"}]))
    made = requests.post(coll, json=gadget(coll, "g1", {"every": "1 day 24 hours"}))
    assert made.status_code == 201, made.text
    refused = requests.post(coll, json=gadget(coll, "g2", {"every": "1 week"}))
    assert refused.status_code == 422
    assert refused.json()["message"].endswith('spec: Invalid value: "object": every must be two days')

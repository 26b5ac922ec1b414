"""Failure categories and short messages."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from conformance.report.outcome import categorise, crash_message, describe_failure, exception_type, shorten


@pytest.mark.parametrize(("message", "expected"), [
    ("AssertionError: expected 405, got 404", "violation"),
    ("assert 404 == 405", "violation"),
    ("Failed: server returned garbage", "violation"),
    ("conformance.wait.WaitTimeout: namespace x still present after 60 s", "timeout"),
    ("WaitTimeout: namespace x still present", "timeout"),
    ("conformance.client.TargetUnreachable: connection refused", "harness"),
    ("requests.exceptions.ConnectionError: HTTPSConnectionPool(host='x')", "harness"),
    ("KeyError: 'metadata'", "harness"),
])
def test_categorise(message: str, expected: str) -> None:
    assert categorise(message) == expected


def test_exception_type() -> None:
    assert exception_type("conformance.wait.WaitTimeout: x") == "WaitTimeout"
    assert exception_type("assert 1 == 2") == "AssertionError"


def test_shorten_strips_prefix_and_caps() -> None:
    assert shorten("AssertionError: boom") == "boom"
    assert shorten("conformance.wait.WaitTimeout: waited") == "WaitTimeout: waited"
    long = "\n".join(f"line {i}" for i in range(40))
    assert shorten(long).endswith("(28 more lines)")


def test_crash_message_variants() -> None:
    assert crash_message(("f.py", 3, "Skipped: not for design")) == "not for design"
    repr_ = SimpleNamespace(reprcrash=SimpleNamespace(message="AssertionError: x"))
    assert crash_message(repr_) == "AssertionError: x"
    assert crash_message("worker 'gw0' crashed while running 't::x'") == "worker 'gw0' crashed while running 't::x'"


def test_describe_failure_from_text_only_longrepr() -> None:
    report = SimpleNamespace(longrepr="Traceback...\nE   conformance.wait.WaitTimeout: gone never", longreprtext="")
    message, category = describe_failure(report)
    assert category == "timeout" and "gone never" in message

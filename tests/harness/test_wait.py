"""Waiter: watch-driven waits, polling fallback, timeout scaling and the last-seen message."""

from __future__ import annotations

import time

import pytest

from conformance.endpoints import Paths
from conformance.wait import WaitTimeout, Waiter, describe_object, set_timeout_scale


@pytest.fixture
def waiter(client):
    return Waiter(client, Paths("kubernetes"), poll_interval=0.2)


def test_phase_and_gone(client, waiter):
    assert client.post("/api/v1/namespaces", {"metadata": {"name": "w1"}}).status_code == 201
    assert waiter.namespace_phase("w1", "Active", timeout=5)["metadata"]["name"] == "w1"
    client.delete("/api/v1/namespaces/w1")
    waiter.namespace_gone("w1", timeout=5)


def test_until_sees_later_change(client, waiter, fake):
    client.post("/api/v1/namespaces", {"metadata": {"name": "w2"}})
    client.put("/api/v1/namespaces/w2", {"metadata": {"name": "w2", "labels": {"x": "y"}}})
    obj = waiter.until("/api/v1/namespaces/w2", lambda o: (o["metadata"].get("labels") or {}).get("x") == "y",
                       "label x=y", timeout=5)
    assert obj["metadata"]["labels"]["x"] == "y"


def test_timeout_message_names_last_state(client, waiter):
    client.post("/api/v1/namespaces", {"metadata": {"name": "stuck"}, "spec": {"finalizers": ["example.com/hold"]}})
    client.delete("/api/v1/namespaces/stuck")
    started = time.monotonic()
    with pytest.raises(WaitTimeout) as exc:
        waiter.namespace_gone("stuck", timeout=0.8)
    assert time.monotonic() - started < 5
    msg = str(exc.value)
    assert "namespace stuck to be gone" in msg
    assert "phase=Terminating" in msg and "example.com/hold" in msg and "deletionTimestamp=" in msg
    assert exc.value.last_seen["metadata"]["name"] == "stuck"


def test_timeout_scale(client, waiter):
    set_timeout_scale(0.25)
    started = time.monotonic()
    with pytest.raises(WaitTimeout, match="timed out after 0.5s"):
        waiter.until("/api/v1/namespaces/never", lambda o: True, "never", timeout=2)
    assert time.monotonic() - started < 1.5


def test_polling_fallback_without_watch(client, fake):
    fake.serve_watch = False
    w = Waiter(client, Paths("kubernetes"), poll_interval=0.1)
    client.post("/api/v1/namespaces", {"metadata": {"name": "p1"}})
    client.delete("/api/v1/namespaces/p1")
    w.namespace_gone("p1", timeout=5)
    assert w.use_watch is False


def test_absent_object_message(client, waiter):
    with pytest.raises(WaitTimeout, match=r"last seen: absent \(404\)"):
        waiter.namespace_phase("missing", "Active", timeout=0.3)


def test_describe_object_conditions():
    text = describe_object({"kind": "Namespace", "metadata": {"name": "n", "finalizers": ["a/b"]},
                            "spec": {"finalizers": ["kubernetes"]},
                            "status": {"phase": "Terminating", "conditions": [
                                {"type": "NamespaceContentRemaining", "status": "True", "message": "1 left"}]}})
    assert "metadata.finalizers=['a/b']" in text and "NamespaceContentRemaining=True (1 left)" in text

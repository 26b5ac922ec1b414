"""Waiter: watch-driven waits, polling fallback, timeout scaling and the last-seen message."""

from __future__ import annotations

import time

import pytest

from conformance.endpoints import Paths
from conformance.wait import (WaitHopeless, WaitTimeout, Waiter, describe_object, gone, no_controller_for_content,
                             set_timeout_scale, terminating_without_finalizers)


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
    set_timeout_scale(0.025)
    started = time.monotonic()
    with pytest.raises(WaitTimeout, match="timed out after 0.5s"):
        waiter.until("/api/v1/namespaces/never", lambda o: True, "never", timeout=20)
    assert time.monotonic() - started < 10  # scaled: well short of the 20 s asked (a loaded machine adds seconds)


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


# --------------------------------------------------------------------------------------------- giving up early
def test_gives_up_at_once_when_the_object_is_gone(client, waiter):
    started = time.monotonic()
    with pytest.raises(WaitHopeless) as exc:
        waiter.until("/api/v1/namespaces/never", lambda o: True, "a label", timeout=30, give_up=gone)
    assert time.monotonic() - started < 15  # gave up, long before the timeout (a loaded machine adds seconds)
    assert isinstance(exc.value, WaitTimeout)  # callers catching WaitTimeout still work
    assert "gave up after" in str(exc.value) and "it is gone (404)" in str(exc.value)
    assert "a label" in str(exc.value)


def test_gives_up_when_another_object_makes_success_impossible(client, waiter):
    client.post("/api/v1/namespaces", {"metadata": {"name": "held"}, "spec": {"finalizers": ["example.com/hold"]}})
    started = time.monotonic()
    with pytest.raises(WaitHopeless, match="namespace gone-ns is gone"):
        waiter.until("/api/v1/namespaces/held", lambda o: False, "the controller", timeout=30,
                     also=[("/api/v1/namespaces/gone-ns", no_controller_for_content("gone-ns"))])
    assert time.monotonic() - started < 15  # gave up, long before the timeout (a loaded machine adds seconds)


def test_a_slow_but_possible_wait_is_never_cut_short(client, waiter):
    # Terminating with `kubernetes` left: a controller may still act, so only the timeout ends the wait.
    client.post("/api/v1/namespaces", {"metadata": {"name": "slow"},
                                       "spec": {"finalizers": ["kubernetes", "example.com/hold"]}})
    client.delete("/api/v1/namespaces/slow")
    started = time.monotonic()
    with pytest.raises(WaitTimeout) as exc:
        waiter.namespace_gone("slow", timeout=1.0, give_up=terminating_without_finalizers)
    assert not isinstance(exc.value, WaitHopeless)
    assert time.monotonic() - started >= 0.9
    # ... nor while the other object still lets the controller act (an Active namespace)
    client.post("/api/v1/namespaces", {"metadata": {"name": "live"}})
    with pytest.raises(WaitTimeout) as exc:
        waiter.until("/api/v1/namespaces/live", lambda o: False, "never", timeout=0.6, give_up=gone,
                     also=[("/api/v1/namespaces/live", no_controller_for_content("live"))])
    assert not isinstance(exc.value, WaitHopeless)


def test_terminating_without_finalizers_is_a_state_nothing_changes():
    def ns(spec_fins, meta_fins=None, deleting=True):
        meta = {"name": "n", **({"deletionTimestamp": "2026-01-01T00:00:00Z"} if deleting else {})}
        if meta_fins:
            meta["finalizers"] = meta_fins
        return {"kind": "Namespace", "metadata": meta, "spec": {"finalizers": spec_fins}}

    assert terminating_without_finalizers(ns([])) is not None
    assert terminating_without_finalizers(ns(["kubernetes"])) is None       # the controller may still act
    assert terminating_without_finalizers(ns([], ["orphan"])) is None       # the garbage collector may still act
    assert terminating_without_finalizers(ns([], deleting=False)) is None   # not deleted at all
    assert terminating_without_finalizers(None) is None                     # gone: that is success


def test_progress_hook_hears_of_long_waits(client, waiter, monkeypatch):
    import conformance.wait as wait_mod

    heard = []
    monkeypatch.setattr(wait_mod, "PROGRESS_AFTER", 0.2)
    wait_mod.set_progress(heard.append)
    try:
        with pytest.raises(WaitTimeout):
            waiter.namespace_phase("missing", "Active", timeout=0.8)
        waiter.until_or_gone("/api/v1/namespaces/missing", lambda o: True, "quick", timeout=5)  # at once: silent
    finally:
        wait_mod.set_progress(None)
    assert heard, "a wait longer than PROGRESS_AFTER was not announced"
    assert all("namespace missing to reach phase Active" == p.what for p in heard)
    assert not heard[0].done and heard[0].limit == pytest.approx(0.8)
    assert heard[-1].done and heard[-1].outcome == "timed out" and heard[-1].last_seen == "absent (404)"


def test_no_controller_for_content_of_a_namespace_without_kubernetes():
    check = no_controller_for_content("n")
    deleting = {"metadata": {"name": "n", "deletionTimestamp": "t"}}
    assert check(None) and "gone" in check(None)
    assert "without the `kubernetes` finalizer" in check({**deleting, "spec": {"finalizers": []}})
    assert check({**deleting, "spec": {"finalizers": ["kubernetes"]}}) is None      # the controller may act
    assert check({"metadata": {"name": "n"}, "spec": {"finalizers": []}}) is None  # not deleted yet
    design = no_controller_for_content("n", "design")  # the design document does not tie content to `kubernetes`
    assert design({**deleting, "spec": {"finalizers": []}}) is None and design(None)

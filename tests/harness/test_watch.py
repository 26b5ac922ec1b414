"""WatchStream against the fake server: events, timeouts, resume after a drop, ERROR, clean end."""

from __future__ import annotations

import time

import pytest

from conformance.wait import WaitTimeout


def _ns(client, name, **spec):
    body = {"metadata": {"name": name}}
    if spec:
        body["spec"] = spec
    assert client.post("/api/v1/namespaces", body).status_code == 201


def test_initial_state_then_changes(client):
    _ns(client, "a")
    with client.watch("/api/v1/namespaces", params={"watch": "true"}) as w:
        assert w.status_code == 200
        first = w.next_event(5)
        assert first["type"] == "ADDED" and first["object"]["metadata"]["name"] == "a"
        client.delete("/api/v1/namespaces/a")
        events = w.until(lambda e: e["type"] == "DELETED", timeout=5, what="DELETED of a")
        assert events[-1]["object"]["metadata"]["name"] == "a"
        assert w.last_resource_version == events[-1]["object"]["metadata"]["resourceVersion"]


def test_next_event_times_out_quickly(client):
    with client.watch("/api/v1/namespaces", params={"watch": "true"}) as w:
        started = time.monotonic()
        assert w.next_event(0.3) is None
        assert time.monotonic() - started < 10  # the 0.3 s asked, not the read timeout (load adds seconds)
        assert not w.ended


def test_resume_after_dropped_connection(client, fake):
    fake.drop_watch_after = 2
    with client.watch("/api/v1/namespaces", params={"watch": "true"}) as w:
        for n in ("r1", "r2", "r3", "r4"):
            _ns(client, n)
        names = [e["object"]["metadata"]["name"] for e in
                 w.until(lambda e: e["object"]["metadata"]["name"] == "r4", timeout=10, what="r4")]
        assert names == ["r1", "r2", "r3", "r4"]
        assert w.reconnects >= 1
        assert any(o.get("resourceVersion") for o in fake.watch_opens[1:]), fake.watch_opens


def test_error_event_ends_stream(client):
    w = client.watch("/api/v1/namespaces", params={"watch": "true", "resourceVersion": "3"})
    ev = w.next_event(5)
    assert ev["type"] == "ERROR" and ev["object"]["code"] == 410
    assert w.next_event(5) is None and w.ended and w.end_reason == "error-event"
    w.close()


def test_timeout_seconds_is_a_clean_end_without_resume(client, fake):
    with client.watch("/api/v1/namespaces", params={"watch": "true", "timeoutSeconds": "1"}) as w:
        assert w.next_event(10) is None
        assert w.ended and w.end_reason == "eof" and w.reconnects == 0
        assert len(fake.watch_opens) == 1


def _buffered(w, n: int, timeout: float = 30.0) -> None:
    """Wait (polling, bounded) until the stream's reader thread has queued `n` items, without consuming them."""
    deadline = time.monotonic() + timeout
    while w._q.qsize() < n:
        assert time.monotonic() < deadline, f"fewer than {n} event(s) arrived within {timeout:.0f} s"
        time.sleep(0.01)


def test_until_timeout_lists_events(client):
    _ns(client, "u1")
    with client.watch("/api/v1/namespaces", params={"watch": "true"}) as w:
        # the ADDED is in the stream's buffer before the short wait starts (a loaded machine may take longer
        # than the 0.5 s to bring it, and the message would then list no event)
        _buffered(w, 1)
        with pytest.raises(WaitTimeout) as exc:
            w.until(lambda e: e["type"] == "DELETED", timeout=0.5, what="a deletion")
    msg = str(exc.value)
    assert "a deletion" in msg and "ADDED u1" in msg and "1 event(s)" in msg
    assert exc.value.events and isinstance(exc.value, AssertionError)


def test_non_200_watch(client, fake):
    fake.serve_watch = False
    w = client.watch("/api/v1/watch/namespaces")
    assert w.status_code == 404 and w.error_body["reason"] == "NotFound"
    assert w.next_event(1) is None and w.ended
    assert list(w) == []


def test_watch_events_are_recorded(client, recorder):
    recorder.start_test("w")
    _ns(client, "rec")
    with client.watch("/api/v1/namespaces", params={"watch": "true"}) as w:
        w.next_event(5)
    ex = [e for e in recorder.take("w") if e.endpoint == "ns-watch"][0]
    assert ex.status == 200 and ex.response_body["events"][0]["type"] == "ADDED"


def test_stream_never_shares_the_request_pool(client):
    """Closing a watch while its reader thread is mid-read must not poison the next ordinary request:
    the stream runs on a connection pool of its own (regression: a GET right after close() timed out)."""
    _ns(client, "pool")
    for _ in range(20):
        w = client.watch("/api/v1/namespaces", params={"watch": "true"})
        assert w.next_event(5) is not None
        assert w._resp._nsconform_session is not client.session
        w.close()
        assert client.get("/api/v1/namespaces/pool").status_code == 200

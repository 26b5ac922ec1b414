"""A background recording hands its result (or its exception) to the tests reading it, shows a long wait,
and its streams close when the session ends first."""

from __future__ import annotations

import threading

import pytest

from conformance import wait
from conformance.background import Background, Recordings, recording, spawn
from conformance.client.exchange import RECORDER


class FakeStream:
    """A stream whose read blocks until it is closed."""

    def __init__(self) -> None:
        self.closed = threading.Event()

    def close(self) -> None:
        self.closed.set()


def test_result_is_what_the_work_returned() -> None:
    assert Background("x", lambda closing: 42).result(5) == 42


def test_result_raises_what_the_work_raised_a_skip_too() -> None:
    def fails(closing):
        raise AssertionError("watch /x: 3 events missing")

    with pytest.raises(AssertionError, match="3 events missing"):
        Background("x", fails).result(5)

    def skips(closing):
        pytest.skip("410 Expired")

    with pytest.raises(pytest.skip.Exception, match="410 Expired"):
        Background("x", skips).result(5)


def test_close_shuts_the_streams_and_the_work_ends() -> None:
    stream = FakeStream()

    def reads(closing):
        closing(stream).closed.wait(30)
        return "ended" if stream.closed.is_set() else "still reading"

    recording = Background("x", reads)
    recording.close()
    assert recording.result(5) == "ended"


def test_a_stream_opened_after_close_is_shut_at_once() -> None:
    stream, go = FakeStream(), threading.Event()

    def opens_late(closing):
        go.wait(5)
        closing(stream)
        return stream.closed.is_set()

    recording = Background("x", opens_late)
    recording.close()
    go.set()
    assert recording.result(5) is True


def test_a_recording_past_its_limit_fails_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wait, "_SCALE", 0.01)  # limit 100 s x 0.01
    release = threading.Event()
    recording = Background("the slow one", lambda closing: release.wait(30))
    try:
        with pytest.raises(AssertionError, match="the slow one: the background recording did not end within 1 s"):
            recording.result(100)
    finally:
        release.set()


def test_a_long_wait_is_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    heard: list[wait.WaitProgress] = []
    release = threading.Event()

    def hear(progress: wait.WaitProgress) -> None:
        heard.append(progress)
        release.set()  # the recording ends once its wait was shown

    monkeypatch.setattr(wait, "PROGRESS_AFTER", 0.0)
    wait.set_progress(hear)
    try:
        recording = Background("the bookmark watch", lambda closing: release.wait(30) and "done")
        assert recording.result(10) == "done"
    finally:
        wait.set_progress(None)
        release.set()
    assert heard and heard[0].what == "the background recording of the bookmark watch"
    assert heard[-1].done and heard[-1].outcome == "met"


class FakeRequest:
    """The fixtures a recording's work asks for, and which of them were asked."""

    def __init__(self, **fixtures) -> None:
        self.fixtures, self.asked = fixtures, []

    def getfixturevalue(self, name: str):
        self.asked.append(name)
        return self.fixtures[name]


class FakeItem:
    def __init__(self, *marks: tuple) -> None:
        self.marks = [pytest.mark.background(*m).mark for m in marks]

    def iter_markers(self, name: str):
        return iter(m for m in self.marks if m.name == name)


@recording("test-sum", "the sum")
def _sum(api, paths, closing):
    return api + paths


def test_recordings_start_what_selected_tests_read_with_the_fixtures_their_work_names() -> None:
    request = FakeRequest(api=1, paths=2)
    recordings = Recordings(request)
    recordings.start_wanted([FakeItem(), FakeItem(("test-sum",)), FakeItem(("test-sum",))])
    assert request.asked == ["api", "paths"]  # started once
    assert recordings.get("test-sum").result(5) == 3
    assert recordings.get("test-sum").what == "the sum"


def test_recordings_ask_nothing_when_no_selected_test_reads_one() -> None:
    request = FakeRequest()
    Recordings(request).start_wanted([FakeItem(), FakeItem()])
    assert request.asked == []


def test_an_undeclared_recording_is_a_usage_error() -> None:
    with pytest.raises(pytest.UsageError, match="no background recording named 'nope'"):
        Recordings(FakeRequest()).get("nope")


def test_a_recordings_exchanges_go_to_its_first_reader_not_to_the_tests_meanwhile() -> None:
    mine, writers, theirs = object(), object(), object()
    go = threading.Event()

    def work(closing):
        RECORDER.record(mine)
        writer = spawn(RECORDER.record, writers)  # a thread it starts records for it too
        writer.start()
        writer.join()
        go.wait(5)
        return "done"

    RECORDER.start_test("test_other")
    try:
        recording = Background("x", work)
        RECORDER.record(theirs)
        go.set()
        RECORDER.start_test("test_reader")
        assert recording.result(5) == "done"
        assert RECORDER.take("test_other") == [theirs]
        assert RECORDER.take("test_reader") == [mine, writers]
    finally:
        RECORDER.start_test(None)

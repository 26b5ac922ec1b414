"""Group `list-watch` (history): what informers rely on under concurrency, checked like a database's history.

Several writers change this test's ConfigMaps concurrently while watches record what the server delivers;
`conformance.history` then validates the recorded history (resourceVersions opaque: compared for equality,
ordered only by delivery). Everything is narrowed to this test's label, so other tests' objects and the objects
a real cluster's controllers write into new namespaces (`kube-root-ca.crt`) are never looked at.

A real cluster cannot be made to compact on demand: tests that need a too-old resourceVersion ask for `1` and,
on a cluster that still serves it, skip with that reason. The reference server compacts its history at start
(as kube-apiserver's watch cache begins at its start), so there `1` is always too old.
"""

from __future__ import annotations

import base64
import contextlib
import json
import threading
import time
from typing import Any, Callable

import pytest

from conformance import assertions as A
from conformance.background import recording, spawn
from conformance.fixtures.content import ContentFactory
from conformance.fixtures.namespaces import TEST_LABEL
from conformance.history import Seen, Write, check_resume, check_snapshot, check_watch
from conformance.schemas import validate
from conformance.suites import HOLD, content_body, create_namespace, delete_namespace, own_label, selector_of
from conformance.wait import no_controller_for_content, scaled

RESOURCE = "configmaps"
EVENT_TIMEOUT = 30.0   # seconds (before --timeout-scale) for a history's events to arrive
QUIET = 0.3            # seconds a finished stream must stay silent (no duplicate or stray event after the last)
MARKER = "nsc-end"     # a ConfigMap written after a test's writes: its event ends the stream's quiet tail early
BOOKMARK_WATCH_S = 3   # timeoutSeconds of the bookmark watch: kube-apiserver sends a BOOKMARK 2 s before it ends
RECORDING_TIMEOUT = 4 * EVENT_TIMEOUT  # a background recording's whole life: its own waits each end sooner
TOO_OLD = "1"          # the oldest resourceVersion there is: compacted on any server that compacts
INCONSISTENT_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. You can start a new list "
    "without the continue parameter, or use the continue token in this response to retrieve the remainder of the "
    "results. Continuing with the provided token results in an inconsistent list - objects that were created, "
    "modified, or deleted between the time the first chunk was returned and now may show up in the list.")
LIST_TOO_OLD = "The resourceVersion for the provided list is too old."
STYLES = [pytest.param("param", id="watch-param"), pytest.param("path", id="watch-path")]


# --------------------------------------------------------------------------------------------- recording

def _key(obj: dict[str, Any]) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return meta.get("namespace") or "", meta.get("name") or ""


def _rv(obj: dict[str, Any]) -> str | None:
    return (obj.get("metadata") or {}).get("resourceVersion") or None


def _seen(ev: dict[str, Any]) -> Seen:
    obj = ev.get("object") or {}
    if ev.get("type") == "BOOKMARK":
        return Seen("BOOKMARK", None, _rv(obj))
    return Seen(str(ev.get("type")), _key(obj), _rv(obj), obj.get("data"))


class Recorder:
    """What the writers were acknowledged, with monotonic send/acknowledge times (thread-safe)."""

    def __init__(self, api: Any, paths: Any, content: Any, labels: dict[str, str]):
        self.api, self.paths, self.content, self.labels = api, paths, content, labels
        self.writes: list[Write] = []
        self._lock = threading.Lock()
        self.errors: list[str] = []

    def _body(self, ns: str, name: str, version: int) -> dict[str, Any]:
        body = content_body(self.content, RESOURCE, name, ns, labels=self.labels)
        body["data"] = {"v": str(version)}
        return body

    def write(self, op: str, ns: str, name: str, version: int = 0, writer: str = "",
              tolerate: tuple[int, ...] = ()) -> bool:
        """Send one write; record it when acknowledged. A status in `tolerate` (e.g. 403 in a namespace being
        deleted) is a refused write: not recorded, no change expected."""
        started = time.monotonic()
        if op == "create":
            resp = self.api.post(self.paths.content(ns, RESOURCE), self._body(ns, name, version))
        elif op == "update":  # PUT without resourceVersion: an unconditional update (both profiles have PUT)
            resp = self.api.put(self.paths.content(ns, RESOURCE, name), self._body(ns, name, version))
        else:
            resp = self.api.delete(self.paths.content(ns, RESOURCE, name))
        acked = time.monotonic()
        if resp.status_code in tolerate:
            return False
        if resp.status_code not in (200, 201, 202):
            self.errors.append(f"{op} {ns}/{name}: HTTP {resp.status_code}: {A.body_excerpt(resp)}")
            return False
        body = resp.json() if resp.content else {}
        is_object = body.get("kind") == "ConfigMap"
        with self._lock:
            self.writes.append(Write((ns, name), op, _rv(body) if is_object else None,
                                     body.get("data") if is_object and op != "delete" else None,
                                     started, acked, writer))
        return True

    def mark(self, ns: str) -> tuple[str, str] | None:
        """Write the end marker (not a recorded write: no watch check sees its event) once every write to judge
        was acknowledged, and return its key; None when the target refused it (the quiet tail alone then ends
        the stream's reading, as without a marker). Its resourceVersion follows every judged write's, so a
        watch delivers its event after theirs (watch order): once it arrived, nothing judged is still coming."""
        resp = self.api.post(self.paths.content(ns, RESOURCE), self._body(ns, MARKER, 0))
        return (ns, MARKER) if resp.status_code in (200, 201, 202) else None


SCRIPT = [("create", 0), ("create", 1), ("update", 0), ("create", 2), ("update", 1), ("update", 0),
          ("delete", 0), ("update", 2), ("update", 1), ("delete", 2)]
"""One writer's writes to its three objects (index into them); object 1 survives. Ten writes, five events in."""
HALFWAY = 5  # after this many acknowledged writes, the writer of the doomed namespace lets its deletion start


def _run_writer(rec: Recorder, ns: str, writer: str, halfway: threading.Event | None = None,
                steps: int = len(SCRIPT)) -> None:
    versions = [0, 0, 0]
    # the doomed namespace: a write may be refused (Terminating) or find its object already gone
    tolerate = tuple(range(400, 500)) if halfway is not None else ()
    try:
        for n, (op, i) in enumerate(SCRIPT[:steps]):
            versions[i] += 1
            rec.write(op, ns, f"nsc-h{i}", versions[i], writer, tolerate)
            if halfway is not None and n + 1 == HALFWAY:
                halfway.set()
    except Exception as exc:  # noqa: BLE001 - a writer thread reports, the test thread fails
        rec.errors.append(f"{writer}: {type(exc).__name__}: {exc}")
        if halfway is not None:
            halfway.set()


def concurrent_history(api: Any, paths: Any, namespaces: Any, content: Any,
                       open_watch: Callable[[list[str], str], Any]) -> tuple[list[Write], list[str], Any]:
    """Three writers in three namespaces; the third namespace is deleted half-way. `open_watch(spaces, rv)`
    opens the watch under test from the resourceVersion of a LIST taken before any write.

    Returns (the writes the watch must deliver, the namespaces, the open stream: the caller closes it)."""
    mine = own_label(namespaces)
    spaces = [create_namespace(namespaces, f"h{i}")["metadata"]["name"] for i in range(3)]
    lst = A.expect_ok(api.get(paths.all_namespaces(RESOURCE), params={"labelSelector": selector_of(mine)}))
    assert not lst["items"], f"this test's label already matches objects: {[_key(i) for i in lst['items']]}"
    stream = open_watch(spaces, lst["metadata"]["resourceVersion"])
    try:
        return _write_concurrently(api, paths, content, mine, spaces) + (stream,)
    except BaseException:
        stream.close()
        raise


def _write_concurrently(api: Any, paths: Any, content: Any, mine: dict[str, str],
                        spaces: list[str]) -> tuple[list[Write], list[str]]:
    rec = Recorder(api, paths, content, mine)
    halfway = threading.Event()
    threads = [spawn(_run_writer, rec, ns, f"writer-{i}", halfway if i == 2 else None)  # (in this context)
               for i, ns in enumerate(spaces)]
    for t in threads:
        t.start()
    assert halfway.wait(scaled(EVENT_TIMEOUT)), "the writer of the namespace to delete did not get half-way"
    doomed_at = time.monotonic()
    delete_namespace(api, paths, spaces[2])
    for t in threads:
        t.join(scaled(EVENT_TIMEOUT))
    assert not rec.errors, "writes failed: " + "; ".join(rec.errors[:5])
    # the namespace controller deletes whatever the doomed namespace still holds
    last: dict[tuple[str, str], Write] = {}
    for w in rec.writes:
        last[w.key] = w
    system = [Write(k, "delete", None, None, doomed_at, float("inf"), "namespace controller")
              for k, w in last.items() if k[0] == spaces[2] and w.op != "delete"]
    return rec.writes + system, spaces


class Recording(list):
    """The events a stream delivered (list of Seen); `marked`: the end marker's event arrived too."""

    marked = False


def collect(stream: Any, expected: int, what: str, *, resumed_on: Any = None,
            deadline: float | None = None, hopeless: Callable[[], bool] | None = None,
            settle: bool = True, marker: tuple[str, str] | None = None) -> list[Seen]:
    """Events until `expected` changes arrived (or the time is up), then until the stream is quiet.

    `resumed_on` (the target) for a resumed watch: a cluster may legitimately have dropped the history of a
    busy resource from its watch window already (410); the reference server, whose window is 10000 changes,
    may not. `deadline` (monotonic): one time limit for watches that record the same history at once.
    `hopeless()`, asked after a second without events: the missing changes can never happen (stop waiting;
    the history check then says what is missing). `settle=False`: the caller awaits the quiet tail of several
    streams at once (`settle_quietly`). `marker`: the key `Recorder.mark` returned; its event is not recorded
    and ends the reading (the changes still missing then can never arrive, and nothing stray is still coming:
    watch order delivers every earlier change before it)."""
    events = Recording()
    deadline = deadline if deadline is not None else time.monotonic() + scaled(EVENT_TIMEOUT)
    changes = 0
    while changes < expected and time.monotonic() < deadline:
        ev = stream.next_event(min(1.0, max(deadline - time.monotonic(), 0.0)))
        if ev is None:
            if stream.ended or (hopeless is not None and hopeless()):
                break
            continue
        if resumed_on is not None and resumed_on.kind != "embedded" and _expired(ev):
            pytest.skip(f"{what}: the server no longer holds the history to resume from (410 Expired): "
                        f"{(ev.get('object') or {}).get('message')}")
        _not_error(ev, what)
        validate(ev, "WatchEvent")
        if marker is not None and _key(ev.get("object") or {}) == marker:
            events.marked = True
            break
        events.append(_seen(ev))
        changes += ev.get("type") != "BOOKMARK"
    if settle:
        error = settle_quietly([(stream, events, what)], marker=marker)[0]
        if error is not None:
            raise error
    return events


def settle_quietly(recordings: list[tuple[Any, list[Seen], str]],
                   marker: tuple[str, str] | None = None) -> list[AssertionError | None]:
    """After its expected changes, each stream must stay silent for QUIET (a duplicate or stray event would
    arrive within it); its further events are added to its list. The streams are independent, so their
    silences are awaited at once (one QUIET for all of them, not one per stream); a stream that delivers
    more is watched for another QUIET after that event, as `collect` alone does. With a `marker`
    (`Recorder.mark`), a stream's tail also ends when the marker's event arrives (not recorded): by watch order
    every change before it, stray ones included, has been delivered by then. Returns, per stream, the
    assertion its events failed (an ERROR event) or None."""
    until = time.monotonic() + QUIET
    errors: list[AssertionError | None] = []
    for stream, events, what in recordings:
        try:
            while not getattr(events, "marked", False) and \
                    (ev := stream.next_event(until - time.monotonic())) is not None:
                _not_error(ev, what)
                if marker is not None and _key(ev.get("object") or {}) == marker:
                    break
                events.append(_seen(ev))
                until = max(until, time.monotonic() + QUIET)
        except AssertionError as exc:
            errors.append(exc)
        else:
            errors.append(None)
    return errors


def _expired(ev: dict[str, Any]) -> bool:
    return ev.get("type") == "ERROR" and (ev.get("object") or {}).get("code") == 410


def _not_error(ev: dict[str, Any], what: str) -> None:
    assert ev.get("type") != "ERROR", f"{what}: the server sent an ERROR event: {ev.get('object')}"


def _watch(api: Any, path: str, style: str, params: dict[str, Any]) -> Any:
    params = {k: v for k, v in params.items() if v is not None}
    if style == "param":
        params = {"watch": "true", **params}
    stream = api.watch(path, params=params, timeout_s=scaled(EVENT_TIMEOUT) * 2, resume=False)
    assert stream.status_code == 200, (
        f"GET {path} (watch {params}): expected HTTP 200 and an event stream, got HTTP {stream.status_code}: "
        f"{stream.error_body}")
    return stream


def _skip_param_style_in_design(profile: str, style: str) -> None:
    if style == "param" and profile != "kubernetes":
        pytest.skip("the design document serves watches only on /watch/ paths")


def _fail(violation: Any, what: str) -> None:
    if violation is not None:
        raise AssertionError(f"{what}: {violation}")


# --------------------------------------------------------------------------------------------- NS-LWH-001

class _Watches:
    """The watches of one concurrent history, opened together (closed together on failure); `closing` hears
    of each stream opened (the background recording's, to shut them when the session ends first)."""

    def __init__(self, closing: Callable[[Any], Any] = lambda stream: stream) -> None:
        self.open: dict[tuple[str, str], tuple[str, Any]] = {}
        self.closing = closing

    def add(self, key: tuple[str, str], path: str, stream: Any) -> Any:
        self.open[key] = (path, self.closing(stream))
        return stream

    def close(self) -> None:
        for _, stream in self.open.values():
            stream.close()


CONCURRENT = "concurrent_watches"


@recording(CONCURRENT, "the concurrent history (NS-LWH-001, NS-LWH-002)")
def _record_concurrent(api: Any, paths: Any, target: Any, profile: str, session_namespaces: Any,
                       closing: Callable[[Any], Any]) -> Any:
    """One concurrent history (three writers, one namespace deleted half-way) recorded by every watch NS-LWH-001
    and NS-LWH-002 judge, all open at once from the same LIST: the controller's deletions are awaited once per
    run, not once per watch. NS-LWH-002's resumed watches are opened here too, once the history has arrived,
    so that the quiet tail of every stream is awaited once (a stray event on the first watch fails NS-LWH-002
    on that watch before any resume is judged, as when the resumes were opened after its tail).

    Returns {(scope, style): (path, the writes it must deliver, its events — or the exception collecting them
    ended with), RESUMES: (points, their events) — or the exception (a skip too) they ended with}, or the
    exception the history itself ended with."""
    namespaces = session_namespaces
    mine = own_label(namespaces)
    watches = _Watches(closing)

    def open_watches(spaces: list[str], rv: str) -> _Watches:
        for scope in ("namespace", "all-namespaces"):
            for style in ("param", "path"):
                if style == "param" and profile != "kubernetes":
                    continue
                if scope == "namespace":  # the doomed namespace: its writer's changes and the controller's deletions
                    path = paths.content(spaces[2], RESOURCE) if style == "param" else \
                        paths.watch_content(spaces[2], RESOURCE)
                else:
                    path = paths.all_namespaces(RESOURCE) if style == "param" else paths.watch_all(RESOURCE)
                watches.add((scope, style), path, _watch(api, path, style, {"labelSelector": selector_of(mine),
                                                                             "resourceVersion": rv}))
        return watches

    try:
        writes, spaces, _ = concurrent_history(api, paths, namespaces, ContentFactory(api, paths),
                                               open_watches)
    except (AssertionError, Exception) as exc:  # noqa: BLE001 - every test using it fails on it
        watches.close()
        return exc
    recorded: dict[tuple[str, str], Any] = {}
    deadline = time.monotonic() + scaled(EVENT_TIMEOUT)  # the streams were open together: one time limit
    hopeless = _controller_never_deletes(api, paths, spaces[2], mine)
    try:
        for (scope, style), (path, stream) in watches.open.items():
            expected = [w for w in writes if w.key[0] == spaces[2]] if scope == "namespace" else writes
            try:
                events: Any = collect(stream, len(expected), f"watch {path}", deadline=deadline, hopeless=hopeless,
                                      settle=False)
            except AssertionError as exc:
                events = exc
            recorded[(scope, style)] = (path, expected, events)
        settling = [(key, watches.open[key][1], path, events) for key, (path, _, events) in recorded.items()
                    if not isinstance(events, BaseException)]
        resumes = _open_resumes(api, target, mine, recorded[RESUMED], watches)
        tails = [(stream, events, f"watch {path}") for _, stream, path, events in settling]
        if not isinstance(resumes, BaseException):
            tails += [(stream, events, f"watch {recorded[RESUMED][0]} resumed") for stream, events in resumes[1]]
        errors = settle_quietly(tails)
        for (key, _, path, _), error in zip(settling, errors):
            if error is not None:
                recorded[key] = (path, recorded[key][1], error)
        if not isinstance(resumes, BaseException):
            resumes = next((e for e in errors[len(settling):] if e is not None), None) or \
                (resumes[0], [events for _, events in resumes[1]])
        recorded[RESUMES] = resumes
    finally:
        watches.close()
    return recorded


RESUMED = ("all-namespaces", "path")  # the watch NS-LWH-002 resumes in
RESUMES = ("resumes", "")


def _resume_points(n: int) -> list[int]:
    return [p for p in sorted({0, n // 4, n // 2, (3 * n) // 4, n - 2}) if 0 <= p < n]


def _open_resumes(api: Any, target: Any, mine: dict[str, str], recording: Any,
                  watches: _Watches) -> Any:
    """NS-LWH-002's watches, resumed from several resourceVersions the first watch delivered, each with the
    changes that followed (quiet tail not yet awaited): (points, [(stream, events)]), or the exception."""
    path, _, first = recording
    if isinstance(first, BaseException):
        return first
    n = len(first)
    points = _resume_points(n)
    what = f"watch {path} resumed"
    try:
        resumed = []
        for p in points:
            stream = _watch(api, path, "path", {"labelSelector": selector_of(mine), "resourceVersion": first[p].rv})
            watches.add(("resumed", str(p)), path, stream)  # (closed with the others)
            resumed.append(stream)
        deadline = time.monotonic() + scaled(EVENT_TIMEOUT)  # independent watches: one time limit, one QUIET
        return points, [(stream, collect(stream, n - p - 1, what, resumed_on=target, deadline=deadline,
                                         settle=False)) for stream, p in zip(resumed, points)]
    except (AssertionError, Exception, pytest.skip.Exception) as exc:  # noqa: BLE001 - the test fails (or skips) on it
        return exc


def _controller_never_deletes(api: Any, paths: Any, doomed: str, mine: dict[str, str]) -> Callable[[], bool]:
    """Will the namespace controller never delete what the doomed namespace still holds? True when this
    test's objects are still stored in it while it is terminating without the `kubernetes` finalizer or
    gone: the controller deletes content only of a namespace that carries `kubernetes` and removes that
    finalizer only once the content is gone (a conformant server's deletions were then stored already, and
    only their events can still be on their way)."""
    def check() -> bool:
        if no_controller_for_content(doomed, paths.profile)(_namespace_or_none(api, paths, doomed)) is None:
            return False
        resp = api.get(paths.content(doomed, RESOURCE), params={"labelSelector": selector_of(mine)})
        return resp.status_code == 200 and bool(resp.json().get("items"))
    return check


def _namespace_or_none(api: Any, paths: Any, name: str) -> Any:
    resp = api.get(paths.namespace(name))
    return None if resp.status_code == 404 else resp.json() if resp.status_code == 200 else {}


def _recorded(recordings: Any, scope: str, style: str) -> tuple[str, list[Write], list[Seen]]:
    history = recordings.get(CONCURRENT).result(RECORDING_TIMEOUT)
    if isinstance(history, BaseException):
        raise history.with_traceback(None)
    path, writes, events = history[(scope, style)]
    if isinstance(events, BaseException):
        raise events.with_traceback(None)
    return path, writes, events


@pytest.mark.clause("NS-LWH-001")
@pytest.mark.background(CONCURRENT)
@pytest.mark.parametrize("scope", ["namespace", "all-namespaces"])
@pytest.mark.parametrize("style", STYLES)
def test_concurrent_writes_delivered_exactly_once_in_order(profile, background_recordings, scope, style):
    """Three writers, one namespace deleted half-way: the watch delivers every change once, in order, as written."""
    _skip_param_style_in_design(profile, style)
    path, writes, events = _recorded(background_recordings, scope, style)
    _fail(check_watch(writes, events), f"watch {path} from the LIST's resourceVersion "
                                       f"({len(writes)} acknowledged writes, {len(events)} events)")


# --------------------------------------------------------------------------------------------- NS-LWH-002

@pytest.mark.clause("NS-LWH-002")
@pytest.mark.background(CONCURRENT)
def test_resume_from_any_delivered_resource_version(background_recordings):
    """A watch resumed from an event's resourceVersion delivers exactly what followed it."""
    path, writes, first = _recorded(background_recordings, *RESUMED)
    _fail(check_watch(writes, first), f"watch {path} (the history to resume in)")
    resumes = background_recordings.get(CONCURRENT).result(RECORDING_TIMEOUT)[RESUMES]  # (one quiet tail for all)
    if isinstance(resumes, BaseException):
        raise resumes.with_traceback(None)
    points, later = resumes
    for p, events in zip(points, later):
        _fail(check_resume(first, p, events), f"watch {path}?resourceVersion={first[p].rv}")


# --------------------------------------------------------------------------------------------- NS-LWH-003

@pytest.mark.clause("NS-LWH-003")
def test_paginated_list_is_one_snapshot(api, paths, namespaces, content):
    """Writes between the pages of a LIST: every page together is the state at one point of the history."""
    mine = own_label(namespaces)
    rec = Recorder(api, paths, content, mine)
    spaces = [create_namespace(namespaces, f"p{i}")["metadata"]["name"] for i in range(2)]
    for ns in spaces:
        for i in range(6):
            assert rec.write("create", ns, f"nsc-p{i}", 1), rec.errors
    path = paths.all_namespaces(RESOURCE)
    base = A.expect_ok(api.get(path, params={"labelSelector": selector_of(mine)}))
    initial = {_key(o): _rv(o) or "" for o in base["items"]}
    keys = sorted(initial)
    assert len(keys) == 12, f"GET {path}?labelSelector={selector_of(mine)}: expected 12 items, got {keys}"
    rec.writes.clear()
    with _watch(api, paths.watch_all(RESOURCE), "path", {"labelSelector": selector_of(mine),
                                                          "resourceVersion": base["metadata"]["resourceVersion"]}) \
            as stream:
        listed: dict[tuple[str, str], str] = {}
        params: dict[str, Any] = {"labelSelector": selector_of(mine), "limit": 3}
        pages = 0
        while True:
            page = A.expect_ok(api.get(path, params=params))
            pages += 1
            returned = {_key(o): _rv(o) or "" for o in page["items"]}
            dup = sorted(set(returned) & set(listed))
            assert not dup, f"GET {path} (page {pages}): objects listed twice: {dup}"
            listed.update(returned)
            token = (page.get("metadata") or {}).get("continue")
            if not token:
                break
            assert pages < 20, f"GET {path}: more than 20 pages of 3 for about 12 objects"
            if pages == 1:  # after the first page: change one object it showed, then objects still to come
                done = sorted(returned)[0]
                rec.write("update", done[0], done[1], 2)
                late = keys[-1]
                rec.write("update", late[0], late[1], 2)
                rec.write("delete", keys[-3][0], keys[-3][1])
                rec.write("create", spaces[-1], "nsc-pz", 1)
                assert not rec.errors, rec.errors
            params = {"labelSelector": selector_of(mine), "limit": 3, "continue": token}
        assert pages >= 2, f"GET {path}?limit=3: one page for 12 objects (no continue token)"
        events = collect(stream, len(rec.writes), f"watch {paths.watch_all(RESOURCE)}", marker=rec.mark(spaces[-1]))
    _fail(check_watch(rec.writes, events), f"watch {paths.watch_all(RESOURCE)} (the history)")
    _fail(check_snapshot(initial, events, listed), f"GET {path}?limit=3 ({pages} pages, writes after the first)")


# --------------------------------------------------------------------------------------------- NS-LWH-004

def _doctor_token(token: str, rv: int) -> str | None:
    """Upstream's continue token (base64url JSON {"v": "meta.k8s.io/v1", "rv": N, "start": key}) with another
    rv; None when the token is not of that shape (tokens are opaque: then the test cannot age one)."""
    try:
        data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    except (ValueError, TypeError):
        return None
    if not isinstance(data, dict) or data.get("v") != "meta.k8s.io/v1" or not isinstance(data.get("rv"), int):
        return None
    data["rv"] = rv
    return base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).decode().rstrip("=")


def _skip_unless_compacted(target: Any, resp: Any, what: str) -> None:
    if resp.status_code != 410 and target.kind != "embedded":
        pytest.skip(f"{what} was served (HTTP {resp.status_code}): this server still holds history at "
                    f"resourceVersion {TOO_OLD} and a test cannot make it compact")


@pytest.mark.clause("NS-LWH-004")
def test_expired_continue_answers_410_with_inconsistent_token(api, paths, target, namespaces, content):
    """A continue token whose resourceVersion is compacted: 410 Expired, and a token for the remainder."""
    ns = create_namespace(namespaces, "exp")["metadata"]["name"]
    for i in range(4):
        content.create(ns, RESOURCE, f"nsc-e{i}")
    path = paths.content(ns, RESOURCE)
    mine = {"fieldSelector": "metadata.name!=kube-root-ca.crt"}
    first = A.expect_ok(api.get(path, params={"limit": 2, **mine}))
    token = (first.get("metadata") or {}).get("continue")
    assert token, f"GET {path}?limit=2 with 4 objects: no continue token: {first.get('metadata')}"
    aged = _doctor_token(token, int(TOO_OLD))
    if aged is None:
        pytest.skip("the continue token is not upstream's encoding, so the test cannot age it")
    resp = api.get(path, params={"limit": 2, "continue": aged, **mine})
    _skip_unless_compacted(target, resp, f"GET {path} with a continue token at resourceVersion {TOO_OLD}")
    body = A.expect_status(resp, 410, reason="Expired", message=INCONSISTENT_CONTINUE)
    remainder_token = (body.get("metadata") or {}).get("continue")
    assert remainder_token, f"the 410 answer carries no metadata.continue token: {body}"
    rest = A.expect_ok(api.get(path, params={"limit": 10, "continue": remainder_token, **mine}))
    got = [i["metadata"]["name"] for i in rest["items"]]
    assert got == ["nsc-e2", "nsc-e3"], (
        f"GET {path} with the token from the 410 answer: expected the remainder after the first page "
        f"['nsc-e2', 'nsc-e3'], got {got}")


# --------------------------------------------------------------------------------------------- NS-LWH-005

@pytest.mark.clause("NS-LWH-005")
def test_compacted_resource_version_answers_410_then_relist_recovers(api, paths, target, namespaces, content):
    """Watch and exact LIST from a compacted resourceVersion: 410; re-list, watch: every later change."""
    mine = own_label(namespaces)
    ns = create_namespace(namespaces, "cmp")["metadata"]["name"]
    path = paths.watch_content(ns, RESOURCE)
    with api.watch(path, params={"labelSelector": selector_of(mine), "resourceVersion": TOO_OLD},
                   timeout_s=scaled(EVENT_TIMEOUT), resume=False) as stream:
        if stream.status_code != 410:
            assert stream.status_code == 200, f"GET {path}?resourceVersion={TOO_OLD}: HTTP {stream.status_code}"
            ev = stream.next_event(scaled(3.0))
            if ev is None or ev.get("type") != "ERROR":
                if target.kind != "embedded":
                    pytest.skip(f"a watch from resourceVersion {TOO_OLD} was served: this server still holds "
                                f"history there and a test cannot make it compact")
                raise AssertionError(f"watch {path}?resourceVersion={TOO_OLD} (compacted): expected an ERROR "
                                     f"event with a 410 Expired Status, got {ev}")
            status = ev.get("object") or {}
            validate(status, "Status")
            assert status.get("code") == 410 and status.get("reason") == "Expired", (
                f"watch {path}?resourceVersion={TOO_OLD}: the ERROR event must carry 410 Expired, got {status}")
        else:
            body = stream.error_body if isinstance(stream.error_body, dict) else {}
            assert body.get("reason") == "Expired", f"GET {path}?resourceVersion={TOO_OLD}: 410 {body}"
    lpath = paths.content(ns, RESOURCE)
    resp = api.get(lpath, params={"resourceVersion": TOO_OLD, "resourceVersionMatch": "Exact"})
    _skip_unless_compacted(target, resp, f"GET {lpath}?resourceVersion={TOO_OLD}&resourceVersionMatch=Exact")
    A.expect_status(resp, 410, reason="Expired", message=LIST_TOO_OLD)
    # what an informer does next: re-list, watch from the list's resourceVersion, see every later change
    rv = A.expect_ok(api.get(lpath, params={"labelSelector": selector_of(mine)}))["metadata"]["resourceVersion"]
    rec = Recorder(api, paths, content, mine)
    with _watch(api, path, "path", {"labelSelector": selector_of(mine), "resourceVersion": rv}) as stream:
        _run_writer(rec, ns, "writer")
        assert not rec.errors, rec.errors
        events = collect(stream, len(rec.writes), f"watch {path}", marker=rec.mark(ns))
    _fail(check_watch(rec.writes, events), f"watch {path} after the re-list")


# --------------------------------------------------------------------------------------------- NS-LWH-007

@pytest.mark.clause("NS-LWH-007")
def test_label_selector_watch_transitions(api, paths, namespaces, content):
    """A label-selector watch: DELETED when an object stops matching, ADDED when it matches again."""
    mine = own_label(namespaces)
    ns = create_namespace(namespaces, "sel")["metadata"]["name"]
    path = paths.watch_content(ns, RESOURCE)
    selector = selector_of(mine) + ",nsconform.io/phase=in"
    rv = A.expect_ok(api.get(paths.content(ns, RESOURCE), params={"labelSelector": selector}))["metadata"][
        "resourceVersion"]
    obj_path = paths.content(ns, RESOURCE, "nsc-sel")

    def put(phase: str) -> None:
        body = content_body(content, RESOURCE, "nsc-sel", ns, labels={**mine, "nsconform.io/phase": phase})
        A.expect_ok(api.put(obj_path, body))

    with _watch(api, path, "path", {"labelSelector": selector, "resourceVersion": rv}) as stream:
        content.create(ns, RESOURCE, "nsc-sel",
                       body=content_body(content, RESOURCE, "nsc-sel", ns, labels={**mine, "nsconform.io/phase": "in"}))
        put("out")
        put("in")
        A.expect_ok(api.delete(obj_path), (200, 202))
        marker = Recorder(api, paths, content, {**mine, "nsconform.io/phase": "in"}).mark(ns)  # (it matches)
        events = collect(stream, 4, f"watch {path}?labelSelector={selector}", marker=marker)
    types = [e.type for e in events if e.type != "BOOKMARK"]
    assert types == ["ADDED", "DELETED", "ADDED", "DELETED"], (
        f"watch {path}?labelSelector={selector}: create (matches), relabel out, relabel in, delete must arrive "
        f"as ADDED, DELETED, ADDED, DELETED; got {[e.describe() for e in events]}")


@pytest.mark.clause("NS-LWH-007")
def test_field_selector_watch_transitions(api, paths, namespaces):
    """A field-selector watch (status.phase): a namespace turning Terminating leaves one selection, enters another."""
    base = {"labelSelector": namespaces.selector}
    rv = A.expect_ok(api.get(paths.namespaces(), params=base))["metadata"]["resourceVersion"]
    path = paths.namespaces()
    with _watch(api, path, "param", {**base, "fieldSelector": "status.phase=Active",
                                     "resourceVersion": rv}) as active, \
            _watch(api, path, "param", {**base, "fieldSelector": "status.phase=Terminating",
                                        "resourceVersion": rv}) as terminating:
        name = create_namespace(namespaces, "fsw", finalizers=[HOLD])["metadata"]["name"]
        delete_namespace(api, paths, name)
        mine = lambda ev: (ev.get("object") or {}).get("metadata", {}).get("name") == name  # noqa: E731
        got_active = [e for e in active.until(lambda ev: mine(ev) and ev.get("type") == "DELETED",
                                              timeout=EVENT_TIMEOUT, what=f"DELETED of {name} (now Terminating)")
                      if mine(e)]
        got_term = terminating.until(lambda ev: mine(ev), timeout=EVENT_TIMEOUT, what=f"an event of {name}")
    assert [e["type"] for e in got_active][0] == "ADDED", f"status.phase=Active watch: {got_active}"
    # (upstream's DELETED carries the last matching state, Active, with the new resourceVersion)
    assert got_term[-1]["type"] == "ADDED" and A.phase(got_term[-1]["object"]) == "Terminating", (
        f"status.phase=Terminating watch: the namespace starting to match must arrive as ADDED, got "
        f"{[(e['type'], A.phase(e.get('object') or {})) for e in got_term]}")


# --------------------------------------------------------------------------------------------- NS-LWH-008

@pytest.mark.clause("NS-LWH-008")
def test_exact_list_and_continue_with_resource_version(api, paths, namespaces, content):
    """resourceVersionMatch=Exact lists the past state; continue with a resourceVersion is a 400."""
    ns = create_namespace(namespaces, "ex")["metadata"]["name"]
    for i in range(3):
        content.create(ns, RESOURCE, f"nsc-x{i}")
    path = paths.content(ns, RESOURCE)
    names = {"fieldSelector": "metadata.name!=kube-root-ca.crt"}
    before = A.expect_ok(api.get(path, params=names))
    rv = before["metadata"]["resourceVersion"]
    obj = A.expect_ok(api.get(paths.content(ns, RESOURCE, "nsc-x0")))
    obj["data"] = {"key": "changed"}
    A.expect_ok(api.put(paths.content(ns, RESOURCE, "nsc-x0"), obj))
    content.create(ns, RESOURCE, "nsc-x9")
    exact = A.expect_ok(api.get(path, params={"resourceVersion": rv, "resourceVersionMatch": "Exact", **names}))
    want = {i["metadata"]["name"]: i["metadata"]["resourceVersion"] for i in before["items"]}
    got = {i["metadata"]["name"]: i["metadata"]["resourceVersion"] for i in exact["items"]}
    assert got == want, (f"GET {path}?resourceVersion={rv}&resourceVersionMatch=Exact: expected the state at {rv} "
                         f"{want}, got {got}")
    token = A.expect_ok(api.get(path, params={"limit": 1, **names}))["metadata"].get("continue")
    assert token, f"GET {path}?limit=1 with 4 objects: no continue token"
    resp = api.get(path, params={"limit": 1, "continue": token, "resourceVersion": rv, **names})
    A.expect_status(resp, 400, reason="BadRequest", message="specifying resource version is not allowed when using "
                                                            "continue")


# --------------------------------------------------------------------------------------------- NS-LWH-006

BOOKMARKS = "bookmark_watch"


@recording(BOOKMARKS, "the bookmark watch (NS-LWH-006)")
def _record_bookmarks(api: Any, paths: Any, target: Any, session_namespaces: Any,
                      closing: Callable[[Any], Any]) -> dict[str, Any]:
    """A watch (allowWatchBookmarks, timeoutSeconds=BOOKMARK_WATCH_S) over six writes, read until the writes'
    changes and a BOOKMARK arrived (or the server ended it without one), then a watch resumed from each
    BOOKMARK's resourceVersion, right away (a later resume could find the history compacted), with the quiet
    tail of every stream. Returns what the test judges; raises what setting up or reading ended with.
    kube-apiserver bookmarks 2 s before a watch's deadline: the second before it passes while other tests run.
    Its objects carry a test label of their own: the concurrent history lists and watches `own_label`, which
    must not match them."""
    namespaces = session_namespaces
    mine = own_label(namespaces)
    mine = {**mine, TEST_LABEL: f"{mine.get(TEST_LABEL, 'nsc')}-bm"}
    path = paths.watch_all(RESOURCE)
    ns = create_namespace(namespaces, "bm")["metadata"]["name"]
    rv = A.expect_ok(api.get(paths.all_namespaces(RESOURCE),
                             params={"labelSelector": selector_of(mine)}))["metadata"]["resourceVersion"]
    rec = Recorder(api, paths, ContentFactory(api, paths), mine)
    with closing(_watch(api, path, "path", {"labelSelector": selector_of(mine), "resourceVersion": rv,
                                            "allowWatchBookmarks": "true", "timeoutSeconds": BOOKMARK_WATCH_S})) \
            as stream:
        _run_writer(rec, ns, "writer", steps=6)
        events: list[Seen] = []
        raw: list[dict[str, Any]] = []
        expected = len(rec.writes)
        deadline = time.monotonic() + BOOKMARK_WATCH_S + scaled(EVENT_TIMEOUT)
        # until the writes' changes and a BOOKMARK arrived (kube-apiserver's comes 2 s before the deadline), or
        # the server ended the watch at timeoutSeconds without one; the quiet tail below still catches a stray event
        while not rec.errors and time.monotonic() < deadline and not (
                sum(e.type != "BOOKMARK" for e in events) >= expected and any(e.type == "BOOKMARK" for e in events)):
            ev = stream.next_event(1.0)
            if ev is None:
                if stream.ended:
                    break
                continue
            _not_error(ev, f"watch {path}")
            raw.append(ev)
            events.append(_seen(ev))
        marks = [i for i, e in enumerate(events) if e.type == "BOOKMARK"]
        marker = rec.mark(rec.writes[0].key[0]) if rec.writes else None  # after every write: ends every tail below
        with contextlib.ExitStack() as open_streams:  # the resumed watches and the first: one quiet tail for all
            later = []
            for i in marks:
                resumed = open_streams.enter_context(closing(_watch(
                    api, path, "path", {"labelSelector": selector_of(mine), "resourceVersion": events[i].rv})))
                later.append((resumed, collect(resumed, sum(1 for e in events[i + 1:] if e.type != "BOOKMARK"),
                                               f"watch {path}", resumed_on=target, settle=False, marker=marker)))
            errors = settle_quietly([(stream, events, f"watch {path}")] +
                                    [(resumed, seen, f"watch {path}") for resumed, seen in later], marker=marker)
    return {"path": path, "writes": rec.writes, "write_errors": rec.errors, "events": events, "raw": raw,
            "marks": marks, "resumed": [seen for _, seen in later], "errors": errors}


@pytest.mark.clause("NS-LWH-006")
@pytest.mark.background(BOOKMARKS)
def test_bookmark_carries_a_resumable_resource_version(background_recordings):
    """allowWatchBookmarks: a BOOKMARK is only a resourceVersion, and resuming from it loses and repeats nothing."""
    got = background_recordings.get(BOOKMARKS).result(RECORDING_TIMEOUT)
    path, events, raw, marks = got["path"], got["events"], got["raw"], got["marks"]
    assert not got["write_errors"], got["write_errors"]
    for error in got["errors"]:
        if error is not None:
            raise error
    _fail(check_watch(got["writes"], events), f"watch {path}?allowWatchBookmarks=true")
    if not marks:
        pytest.skip(f"the server sent no BOOKMARK in a {BOOKMARK_WATCH_S} s watch (bookmarks are optional)")
    for i in marks:
        obj = raw[i].get("object") or {}
        meta = obj.get("metadata") or {}
        extra = sorted(k for k in meta if k not in ("resourceVersion", "creationTimestamp", "annotations")
                       or (k == "creationTimestamp" and meta[k] is not None))
        content_keys = sorted(k for k in obj if k not in ("kind", "apiVersion", "metadata") and obj[k])
        assert meta.get("resourceVersion") and not extra and not content_keys, (
            f"watch {path}: a BOOKMARK must carry only a resourceVersion, got {obj}")
        assert obj.get("kind") in (None, "ConfigMap"), f"watch {path}: BOOKMARK of kind {obj.get('kind')!r}"
    for i, seen in zip(marks, got["resumed"]):
        _fail(check_resume(events, i, seen), f"watch {path} resumed from BOOKMARK rv={events[i].rv}")

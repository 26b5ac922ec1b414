"""The console room: word-boundary cuts, the failing-clause table, the wait lines."""

from __future__ import annotations

import pytest

from conformance.console import WaitRecorder, cut, failing_table, format_wait
from conformance.report.model import root_cause_summary, root_causes
from conformance.wait import WaitProgress


@pytest.mark.parametrize("width", [10, 25, 40, 80])
def test_cut_never_splits_a_word(width):
    text = "timed out after 90s waiting for the controller to delete /api/v1/namespaces/x/configmaps/held"
    out = cut(text, width)
    assert len(out) <= width
    if out != text:
        assert out.endswith("…")
        kept = out[:-1].split()
        words = text.split()
        assert kept[:-1] == words[:len(kept) - 1]
        last, whole = kept[-1], words[len(kept) - 1]
        # a whole word, or a path cut just after one of its `/` separators
        assert last == whole or (whole.startswith(last) and last.endswith("/"))


def test_cut_keeps_short_text_and_flattens_lines():
    assert cut("a\n  b", 10) == "a b"


def _clause(cid, status, depends=(), severity="major", message="boom"):
    return {"id": cid, "status": status, "severity": severity, "group": "g", "depends_on": list(depends),
            "tests": [{"nodeid": f"s.py::test_{cid}", "outcome": "failed" if status == "failed" else "passed",
                       "message": message}]}


def test_root_causes_follow_dependencies_transitively():
    clauses = [_clause("A", "failed"), _clause("B", "failed", ["A"]), _clause("C", "failed", ["B"]),
               _clause("D", "failed"), _clause("E", "passed", ["A"]), _clause("F", "failed", ["E"])]
    roots = root_causes(clauses)
    assert roots[0] == {"id": "A", "dependents": ["B", "C"]}
    # F depends on a clause that passed: it is a root of its own, as is D.
    assert {r["id"] for r in roots} == {"A", "D", "F"}
    run = {"clauses": clauses, "root_causes": roots}
    assert root_cause_summary(run) == "5 clauses failed; 2 of them depend on A, which failed."


def test_failing_table_names_the_root_first_and_cuts_at_words():
    long = "GET /api/v1/namespaces/nsc-lif-configmaps-2b324/configmaps/nsc-configmap: HTTP 200; the controller " \
           "removed `kubernetes` while its configmaps still exist"
    clauses = [_clause("NS-LIF-001", "failed", ["NS-FIN-001"], "critical", long),
               _clause("NS-FIN-001", "failed", severity="critical", message="expected ['kubernetes'], got []")]
    run = {"clauses": clauses, "root_causes": root_causes(clauses)}
    lines = failing_table(run, width=80)
    assert lines[0] == "2 clauses failed; 1 of them depends on NS-FIN-001, which failed."
    assert lines[2].startswith("* NS-FIN-001") and lines[3].lstrip().startswith("NS-LIF-001")
    assert all(len(line) <= 80 for line in lines)
    assert lines[3].endswith("…") and not lines[3][:-1].endswith(("configm", "contro"))


def test_wait_lines():
    running = WaitProgress("namespace x to be gone", 12.4, 90.0, "Namespace x, phase=Terminating")
    assert format_wait(running) == "waiting 12s/90s for namespace x to be gone; last seen: Namespace x, phase=Terminating"
    done = WaitProgress("namespace x to be gone", 3.04, 90.0, "absent (404)", done=True, outcome="met")
    assert format_wait(done).startswith("met after 3.0s (limit 90s): namespace x to be gone")
    rec = WaitRecorder()
    rec(running)
    rec(done)
    assert rec.take() == [format_wait(done)] and rec.take() == []


class _TW:
    fullwidth = 80
    width_of_current_line = 0

    def line(self, s=""):
        pass


class _TR:
    def __init__(self, tty=False):
        self.isatty = tty
        self._tw = _TW()
        self.lines = []
        self.rewrites = []

    def write_line(self, line, **kw):
        self.lines.append(line)

    def ensure_newline(self):
        pass

    def rewrite(self, line, **kw):
        self.rewrites.append(line)


class _PM:
    def __init__(self, tr):
        self.tr = tr

    def get_plugin(self, name):
        return self.tr if name == "terminalreporter" else None


class _Config:
    def __init__(self, tr):
        self.pluginmanager = _PM(tr)


def test_wait_console_in_a_log_writes_start_and_end_lines():
    from conformance.console import WaitConsole

    tr = _TR(tty=False)
    console = WaitConsole(_Config(tr))
    for s in (2.0, 3.0, 4.0):
        console(WaitProgress("namespace x to be gone", s, 90.0, "Namespace x, phase=Terminating"))
    console(WaitProgress("namespace x to be gone", 4.5, 90.0, "absent (404)", done=True, outcome="met"))
    # one line when it became long; none per second, and none for a short wait that was met
    assert len(tr.lines) == 1 and tr.lines[0].startswith("nsconform: waiting 2s/90s for namespace x to be gone")
    for s in (2.0, 3.0, 17.5, 18.0, 33.0):
        console(WaitProgress("y", s, 90.0, "seen"))
    console(WaitProgress("y", 40.0, 90.0, "seen", done=True, outcome="timed out"))
    assert tr.lines[1:] == ["nsconform: waiting 2s/90s for y; last seen: seen",
                            "nsconform: waiting 18s/90s for y; last seen: seen",
                            "nsconform: waiting 33s/90s for y; last seen: seen",
                            "nsconform: timed out after 40.0s (limit 90s): y; last seen: seen"]


def test_wait_console_on_a_terminal_rewrites_one_status_line():
    from conformance.console import WaitConsole

    tr = _TR(tty=True)
    console = WaitConsole(_Config(tr))
    for s in (2.0, 3.0):
        console(WaitProgress("x", s, 90.0, "seen"))
    console(WaitProgress("x", 3.2, 90.0, "seen", done=True, outcome="gave up"))
    assert tr.lines == [] and len(tr.rewrites) == 3 and "gave up after 3.2s" in tr.rewrites[-1]
    assert all(len(r) <= 79 for r in tr.rewrites)


def test_controller_prints_the_waits_a_worker_reported():
    from types import SimpleNamespace

    from conformance.console import WaitConsole

    tr = _TR(tty=False)
    console = WaitConsole(_Config(tr))
    report = SimpleNamespace(nodeid="conformance/suites/test_phase.py::test_x",
                             nsconform={"clauses": [], "exchanges": [], "waits": ["met after 6.0s (limit 90s): y"]})
    console.pytest_runtest_logreport(report)
    console.pytest_runtest_logreport(SimpleNamespace(nodeid="a::b", nsconform=None))
    assert tr.lines == ["nsconform [test_x]: met after 6.0s (limit 90s): y"]

"""A compiled pattern is matched from several threads at once (a write's rehearsal thread and the event loop may
match the same CRD `pattern`, http/rehearse.py): each thread's lazy DFA and scanners are its own, as Go's
`*regexp.Regexp` is safe for concurrent use. Shared, their state caches (dropped and rebuilt past 4,096 states)
broke under thread switches (IndexError, KeyError, wrong answers)."""
from __future__ import annotations

import random
import sys
import threading

from conformance.reference_server.goport import goregexp

PATTERN = "a(a|b){13}c"  # over random a/b text its DFA outgrows the state cache, again and again


def test_threads_matching_one_pattern_get_each_their_own_answers():
    rng = random.Random(2)
    texts = ["".join(rng.choice("ab") for _ in range(8000)) + ("a" * 14 + "c" if i % 2 else "") for i in range(6)]
    expected = [(goregexp.Regexp(PATTERN).search(t), goregexp.Regexp(PATTERN).span(t)) for t in texts]
    shared = goregexp.Regexp(PATTERN)
    wrong: list[object] = []

    def match() -> None:
        for t, want in zip(texts, expected):
            try:
                got = (shared.search(t), shared.span(t))
            except Exception as exc:  # noqa: BLE001 - what a corrupted cache raised
                got = exc
            if got != want:
                wrong.append(got)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often, inside the caches' updates
    try:
        threads = [threading.Thread(target=match) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    finally:
        sys.setswitchinterval(interval)
    assert wrong == []
    assert expected[1][0] and not expected[0][0]  # the texts do tell the answers apart

"""benchmarks/inproc.py: the in-process probe answers real GETs through the server's own protocol."""
from __future__ import annotations

from benchmarks.inproc import measure


def test_the_probe_gets_the_namespace_and_times_each_round():
    res = measure(requests=50, rounds=2)
    assert res["status_line"] == "HTTP/1.1 200 OK"
    assert len(res["cpu_us_per_get"]) == 2 and 0 < res["min"] <= res["median"]

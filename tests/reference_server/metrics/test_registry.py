"""metrics/registry.py: Go's float formatting and expfmt's text layout (families sorted, label pairs sorted,
histograms cumulated, escaping, stability prefixes, empty vectors not written, reset)."""
from __future__ import annotations

import pytest

from conformance.reference_server.metrics.registry import (RAW, STABLE, Collected, CounterVec, GaugeVec,
                                                           HistogramVec, Registry, go_float)

from .exposition import parse


@pytest.mark.parametrize("value,text", [
    (0, "0"), (1, "1"), (-1, "-1"), (42.0, "42"), (0.005, "0.005"), (1.25, "1.25"), (999999, "999999"),
    (1e6, "1e+06"), (1234567, "1.234567e+06"), (1.7635e9, "1.7635e+09"), (1.5e-05, "1.5e-05"), (0.0001, "0.0001"),
    (123456.5, "123456.5"), (float("inf"), "+Inf"), (float("-inf"), "-Inf"), (float("nan"), "NaN")])
def test_go_float(value: float, text: str) -> None:
    """strconv.FormatFloat(v, 'g', -1, 64): the exponent form from 1e+06 and below 1e-04."""
    assert go_float(value) == text


def test_layout_sorted_escaped_and_cumulative() -> None:
    reg = Registry()
    c = CounterVec("b_total", "Counts\\things\nhere.", ("zone", "code"), STABLE)
    h = HistogramVec("a_seconds", "Durations.", ("verb",), (0.1, 1))
    empty = GaugeVec("c_gauge", "Never set.", ("x",))
    plain = Collected("d_bytes", "Raw.", (), lambda: [((), 2048.0)], RAW)
    reg.add(c, h, empty, plain)
    c.inc(("b", "200"))
    c.inc(("a", "404"), 2)
    c.inc(("a", 'quote"d'))
    h.observe(("GET",), 0.05)
    h.observe(("GET",), 0.1)  # le is inclusive
    h.observe(("GET",), 5)
    text = reg.render()
    assert text == (
        '# HELP a_seconds [ALPHA] Durations.\n'
        '# TYPE a_seconds histogram\n'
        'a_seconds_bucket{verb="GET",le="0.1"} 2\n'
        'a_seconds_bucket{verb="GET",le="1"} 2\n'
        'a_seconds_bucket{verb="GET",le="+Inf"} 3\n'
        'a_seconds_sum{verb="GET"} 5.15\n'
        'a_seconds_count{verb="GET"} 3\n'
        '# HELP b_total [STABLE] Counts\\\\things\\nhere.\n'
        '# TYPE b_total counter\n'
        'b_total{code="200",zone="b"} 1\n'  # sorted by the values of the sorted label pairs (metricSorter)
        'b_total{code="404",zone="a"} 2\n'
        'b_total{code="quote\\"d",zone="a"} 1\n'
        '# HELP d_bytes Raw.\n'
        '# TYPE d_bytes gauge\n'
        'd_bytes 2048\n')
    assert set(parse(text)) == {"a_seconds", "b_total", "d_bytes"}
    reg.reset()  # DELETE /metrics
    assert reg.render() == "# HELP d_bytes Raw.\n# TYPE d_bytes gauge\nd_bytes 2048\n"


def test_duplicate_family_refused() -> None:
    reg = Registry()
    reg.add(CounterVec("x_total", "X."))
    with pytest.raises(ValueError):
        reg.add(GaugeVec("x_total", "X."))

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


def test_lazy_histogram_buckets_when_written() -> None:
    """LazyHistogramVec: values appended as they come are bucketed as HistogramVec would (a value equal to a
    bound in that bound's bucket), when written, and in bulk once a list holds FOLD_AT values."""
    from conformance.reference_server.metrics.registry import LazyHistogramVec

    lazy = LazyHistogramVec("s_bytes", "Sizes.", ("verb",), (1000, 10000))
    eager = HistogramVec("s_bytes", "Sizes.", ("verb",), (1000, 10000))
    values = [0, 999, 1000, 1001, 10000, 10001, 5]
    lazy.pending(("GET",)).extend(values)
    for v in values:
        eager.observe(("GET",), v)
    out_lazy: list[str] = []
    out_eager: list[str] = []
    lazy.render(out_lazy)
    eager.render(out_eager)
    assert out_lazy == out_eager and 's_bytes_bucket{verb="GET",le="1000"} 4' in out_lazy
    pending = lazy.pending(("GET",))
    assert pending == [] and pending is lazy.pending(("GET",))  # the same list: callers keep appending
    pending.extend([1] * LazyHistogramVec.FOLD_AT)
    lazy.fold()
    assert lazy.values[("GET",)][-1] == len(values) + LazyHistogramVec.FOLD_AT
    lazy.pending(("GET",)).append(3)
    lazy.reset()
    assert lazy.values == {} and lazy.pending(("GET",)) == []


def test_sli_duration_derived_from_the_duration() -> None:
    """latency.SliDuration: the duration's observations summed over dry_run, in the SLI's buckets; a request with
    webhook or APF time is moved to its SLI duration."""
    from conformance.reference_server.metrics.apiserver import DURATION_BUCKETS, REQUEST_LABELS
    from conformance.reference_server.metrics.latency import SliDuration

    duration = HistogramVec("d_seconds", "D.", REQUEST_LABELS, DURATION_BUCKETS)
    sli = SliDuration(duration)
    where = ("", "v1", "pods", "", "resource", "apiserver")
    for dry_run, seconds in (("", 0.001), ("All", 0.07), ("", 0.9)):
        duration.observe(("POST", dry_run) + where, seconds)
    sli.deduct(("POST", "") + where, 0.9, 0.03)  # the 0.9 s one spent 0.87 s in webhooks
    fam = parse(_render(sli))["apiserver_request_sli_duration_seconds"]
    assert [(ls["le"], v) for n, ls, v in fam.samples if n.endswith("_bucket")][:3] == [
        ("0.05", 2), ("0.1", 3), ("0.2", 3)]
    labels = {"verb": "POST", "group": "", "version": "v1", "resource": "pods", "subresource": "",
              "scope": "resource", "component": "apiserver"}
    assert fam.samples[-1] == ("apiserver_request_sli_duration_seconds_count", labels, 3)
    assert [v for n, _, v in fam.samples if n.endswith("_sum")] == [pytest.approx(0.101)]
    sli.reset()
    duration.reset()
    assert _render(sli) == ""


def _render(family: object) -> str:
    reg = Registry()
    reg.add(family)  # type: ignore[arg-type]
    return reg.render()


def test_watch_event_object_size() -> None:
    """watch.object_size: the object inside an encoded event, JSON (plus the serializer's newline) or a protobuf
    frame's raw object."""
    from conformance.reference_server.http.respond import dumps
    from conformance.reference_server.metrics.watch import object_size
    from conformance.reference_server.wire.protobuf import watch_frame

    obj = {"kind": "ConfigMap", "metadata": {"name": "é"}}
    line = dumps({"type": "MODIFIED", "object": obj}) + b"\n"
    assert object_size(line, "MODIFIED", False) == len(dumps(obj)) + 1
    for raw in (b"", b"k8s\x00" + b"x" * 300):
        assert object_size(watch_frame("ADDED", raw), "ADDED", True) == len(raw)


def test_meta_metrics_count_the_registered_families_until_a_reset() -> None:
    """component-base's meta metrics: families by stability level (raw collectors not counted, the meta
    metrics themselves counted); `DELETE /metrics` resets them as the legacy registry's other counters."""
    from conformance.reference_server.metrics.registry import BETA, meta_metrics

    reg = Registry()
    reg.add(CounterVec("a_total", "A.", ("x",), STABLE), HistogramVec("b_seconds", "B.", (), (1,)),
            Collected("c", "C.", (), lambda: [((), 1.0)], RAW))
    reg.add(*meta_metrics(reg))
    fams = parse(reg.render())
    registered = fams["registered_metrics_total"]
    assert [(ls["stability_level"], v) for _, ls, v in registered.samples] == [("ALPHA", 2), ("BETA", 3),
                                                                              ("STABLE", 1)]
    assert fams["hidden_metrics_total"].value() == 3 and fams["hidden_metrics_total"].help.startswith(f"[{BETA}]")
    reg.reset()
    fams = parse(reg.render())
    assert "registered_metrics_total" not in fams and fams["hidden_metrics_total"].value() == 0


def test_a_family_without_samples_is_not_written_labelled_or_not():
    """client_golang drops a family with no metric (`NormalizeMetricFamilies`): a process_* family whose /proc
    read failed is absent, not a HELP and TYPE with nothing under them."""
    from conformance.reference_server.metrics.registry import Collected
    out: list[str] = []
    Collected("process_open_fds", "Number of open file descriptors.", (), lambda: []).render(out)
    Collected("x_total", "X.", ("code",), lambda: []).render(out)
    assert out == []


def test_lazy_histogram_fold_keeps_a_value_appended_meanwhile() -> None:
    """A value appended to a pending list while a fold buckets it (another thread's observation) is neither lost
    nor counted twice: the fold takes the values it saw away and leaves the list to its callers."""
    from conformance.reference_server.metrics.registry import LazyHistogramVec

    lazy = LazyHistogramVec("s_bytes", "Sizes.", ("verb",), (1000,))
    pending = lazy.pending(("GET",))
    pending.extend([1, 2, 3])
    bucket = lazy._bucket

    def bucket_while_another_thread_appends(key: tuple[str, ...], values: list[float]) -> None:
        bucket(key, values)
        pending.append(2000)  # after the values were counted, before the fold finished

    lazy._bucket = bucket_while_another_thread_appends  # type: ignore[method-assign]
    lazy.fold()
    lazy._bucket = bucket  # type: ignore[method-assign]
    assert lazy.values[("GET",)][-1] == 3 and pending == [2000] and pending is lazy.pending(("GET",))
    lazy.fold()
    assert lazy.values[("GET",)][-2:] == [2006, 4]

"""A tiny metrics registry and Prometheus' text exposition format 0.0.4, as kube-apiserver's `/metrics` writes it.

Follows `k8s.io/component-base/metrics` v0.33.1 (`opts.go`: the `[STABILITY] ` prefix of a HELP text, ALPHA when
unset; `registry.go` `shouldHide`: a metric deprecated before the current minor release is not served at all) and
the encoder behind it (`github.com/prometheus/common` v0.62 `expfmt/text_create.go`, client_golang v1.22):
families sorted by name, a family's samples sorted by their label values, label pairs sorted by name (`le` last in
a histogram's buckets), numbers as Go's `strconv.FormatFloat(f, 'g', -1, 64)` (`1.7e+09`), `+Inf`, `NaN`, HELP
escaping `\\` and newlines, label values also `"`. A labelled family with no sample yet is not written.

Why not `prometheus_client`: recording must stay a dict update on the request path (a tuple of label values
as the key, nothing rendered), and the text has to be Go's (stability prefixes, Go float formatting); the
library would cost a dependency, a lock and a child object per label set for neither. Scrape-time values
(gauges read from the server's state) are `collect` callbacks.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Callable, Iterable, Iterator

from ..goport.gofmt import format_float

ALPHA, BETA, STABLE = "ALPHA", "BETA", "STABLE"
RAW = ""  # a raw Prometheus collector (process_*): no stability prefix
Sample = tuple[tuple[str, ...], float]  # (label values in the family's label order, value)


def go_float(v: float) -> str:
    """expfmt's `writeFloat`: `0` for either zero, else `strconv.FormatFloat(v, 'g', -1, 64)`."""
    return "0" if v == 0 else format_float(v)


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _escape_value(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")


class Family:
    """One metric family: name, HELP (with its stability prefix), TYPE and label names."""
    kind = "untyped"

    def __init__(self, name: str, help_text: str, labels: Iterable[str] = (), stability: str = ALPHA):
        self.name = name
        self.stability = stability
        self.help = f"[{stability}] {help_text}" if stability else help_text
        self.labels = tuple(labels)
        # rendering order: label pairs sorted by name
        self._order = sorted(range(len(self.labels)), key=lambda i: self.labels[i])

    def _label_text(self, values: tuple[str, ...], extra: str = "") -> str:
        pairs = [f'{self.labels[i]}="{_escape_value(values[i])}"' for i in self._order]
        if extra:
            pairs.append(extra)
        return "{" + ",".join(pairs) + "}" if pairs else ""

    def _sort_key(self, values: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(values[i] for i in self._order)

    def samples(self) -> list[Sample]:
        return []

    def reset(self) -> None:
        """`Reset()` (`DELETE /metrics`): counters and histograms forget their children."""

    def render(self, out: list[str]) -> None:
        samples = self.samples()
        if not samples:  # client_golang's NormalizeMetricFamilies drops a family without metrics, labelled or not
            return
        out.append(f"# HELP {self.name} {_escape_help(self.help)}")
        out.append(f"# TYPE {self.name} {self.kind}")
        for values, value in sorted(samples, key=lambda s: self._sort_key(s[0])):
            out.append(f"{self.name}{self._label_text(values)} {go_float(value)}")


class CounterVec(Family):
    """A counter per label-value tuple: `inc(key)` is one dict update."""
    kind = "counter"

    def __init__(self, name: str, help_text: str, labels: Iterable[str] = (), stability: str = ALPHA):
        super().__init__(name, help_text, labels, stability)
        self.values: dict[tuple[str, ...], float] = {}

    def inc(self, key: tuple[str, ...], amount: float = 1) -> None:
        values = self.values
        values[key] = values.get(key, 0) + amount

    def samples(self) -> list[Sample]:
        if not self.labels and not self.values:
            return [((), 0.0)]
        return list(self.values.items())

    def reset(self) -> None:
        self.values.clear()


class CodeCounterVec(Family):
    """A counter whose last label is an HTTP code, kept as {other labels: {code: count}} so that the hot path
    hashes an int, not a tuple (`cells(labels)` hands out the inner dict once)."""
    kind = "counter"

    def __init__(self, name: str, help_text: str, labels: Iterable[str], stability: str = ALPHA):
        super().__init__(name, help_text, labels, stability)
        self.values: dict[tuple[str, ...], dict[int, float]] = {}

    def cells(self, key: tuple[str, ...]) -> dict[int, float]:
        return self.values.setdefault(key, {})

    def samples(self) -> list[Sample]:
        return [(key + (str(code),), n) for key, codes in self.values.items() for code, n in codes.items()]

    def reset(self) -> None:
        self.values.clear()


class GaugeVec(CounterVec):
    """A gauge per label-value tuple (`inc` with a negative amount, or `set`)."""
    kind = "gauge"

    def set(self, key: tuple[str, ...], value: float) -> None:
        self.values[key] = value


class Collected(Family):
    """A family whose samples are read from the server's state at scrape time (`collect()`)."""

    def __init__(self, name: str, help_text: str, labels: Iterable[str], collect: Callable[[], Iterable[Sample]],
                 stability: str = ALPHA, kind: str = "gauge"):
        super().__init__(name, help_text, labels, stability)
        self.kind = kind
        self.collect = collect

    def samples(self) -> list[Sample]:
        return list(self.collect())


class HistogramVec(Family):
    """A histogram per label-value tuple: `observe(key, v)` is a bisect and three list updates; the buckets are
    cumulated when written."""
    kind = "histogram"

    def __init__(self, name: str, help_text: str, labels: Iterable[str], buckets: Iterable[float],
                 stability: str = ALPHA):
        super().__init__(name, help_text, labels, stability)
        self.bounds = tuple(buckets)
        self._les = tuple(f'le="{go_float(b)}"' for b in self.bounds) + ('le="+Inf"',)
        self.values: dict[tuple[str, ...], list[float]] = {}  # per-bucket counts (+Inf last), then sum, count

    def cells(self, key: tuple[str, ...]) -> list[float]:
        """The label set's cells (created empty), for a caller that observes in place."""
        cells = self.values.get(key)
        if cells is None:
            cells = self.values[key] = [0] * (len(self.bounds) + 3)
        return cells

    def observe(self, key: tuple[str, ...], value: float) -> None:
        cells = self.cells(key)
        cells[bisect_left(self.bounds, value)] += 1
        cells[-2] += value
        cells[-1] += 1

    def reset(self) -> None:
        self.values.clear()

    def render(self, out: list[str]) -> None:
        series = [(values, cells) for values, cells in self.values.items() if cells[-1]]  # handed out, unused: none
        if not series:
            return
        name = self.name
        out.append(f"# HELP {name} {_escape_help(self.help)}")
        out.append(f"# TYPE {name} histogram")
        n = len(self.bounds) + 1
        for values, cells in sorted(series, key=lambda s: self._sort_key(s[0])):
            total = 0
            for i in range(n):
                total += cells[i]
                out.append(f"{name}_bucket{self._label_text(values, self._les[i])} {go_float(total)}")
            labels = self._label_text(values)
            out.append(f"{name}_sum{labels} {go_float(cells[-2])}")
            out.append(f"{name}_count{labels} {go_float(cells[-1])}")


class SummaryVec(Family):
    """A summary without objectives (component-base's `SummaryOpts` with none set: client_golang writes no
    quantile, only `_sum` and `_count`) per label-value tuple; `cells(key)` is its [sum, count]."""
    kind = "summary"

    def __init__(self, name: str, help_text: str, labels: Iterable[str], stability: str = ALPHA):
        super().__init__(name, help_text, labels, stability)
        self.values: dict[tuple[str, ...], list[float]] = {}

    def cells(self, key: tuple[str, ...]) -> list[float]:
        cells = self.values.get(key)
        if cells is None:
            cells = self.values[key] = [0.0, 0]
        return cells

    def observe(self, key: tuple[str, ...], value: float) -> None:
        cells = self.cells(key)
        cells[0] += value
        cells[1] += 1

    def reset(self) -> None:
        self.values.clear()

    def render(self, out: list[str]) -> None:
        series = [(values, cells) for values, cells in self.values.items() if cells[1]]
        if not series:
            return
        name = self.name
        out.append(f"# HELP {name} {_escape_help(self.help)}")
        out.append(f"# TYPE {name} summary")
        for values, cells in sorted(series, key=lambda s: self._sort_key(s[0])):
            labels = self._label_text(values)
            out.append(f"{name}_sum{labels} {go_float(cells[0])}")
            out.append(f"{name}_count{labels} {go_float(cells[1])}")


class LazyHistogramVec(HistogramVec):
    """A histogram whose observations are appended to a per-label-set list (`pending(key)`, one `append` on the
    hot path) and bucketed in bulk (sorted, then bisected once per bound) when written, reset, or once a list
    holds FOLD_AT values (the caller checks, so memory stays bounded without a scrape)."""
    FOLD_AT = 4096

    def __init__(self, name: str, help_text: str, labels: Iterable[str], buckets: Iterable[float],
                 stability: str = ALPHA):
        super().__init__(name, help_text, labels, buckets, stability)
        self.waiting: dict[tuple[str, ...], list[float]] = {}

    def pending(self, key: tuple[str, ...]) -> list[float]:
        return self.waiting.setdefault(key, [])

    def fold(self) -> None:
        """Bucket what each list holds now. The lists stay (callers keep appending to them), so the values are
        taken away, not cleared: a copy of the first `n`, then `del values[:n]`, each one operation under the GIL,
        so a value another thread appends meanwhile (at the end) stays for the next fold."""
        for key, values in list(self.waiting.items()):  # (another thread may add a label set)
            n = len(values)
            if n:
                taken = values[:n]
                del values[:n]
                self._bucket(key, taken)

    def _bucket(self, key: tuple[str, ...], values: list[float]) -> None:
        """Add `values` (sorted here) to the label set's cells."""
        values.sort()
        cells, below = self.cells(key), 0
        for i, bound in enumerate(self.bounds):
            upto = bisect_right(values, bound, below)  # `le`: a value equal to a bound is in its bucket
            cells[i] += upto - below
            below = upto
        cells[len(self.bounds)] += len(values) - below
        cells[-2] += sum(values)
        cells[-1] += len(values)

    def reset(self) -> None:
        super().reset()
        for values in self.waiting.values():
            values.clear()

    def render(self, out: list[str]) -> None:
        self.fold()
        super().render(out)


class _MetaCounter(Collected):
    """A counter computed at scrape time until a reset, then 0 (or, labelled, without a sample)."""

    def reset(self) -> None:
        self.collect = (lambda: []) if self.labels else (lambda: [((), 0.0)])


# component-base's metrics that are registered but hidden in 1.33 (deprecated before 1.32): `hidden_metrics_total`
HIDDEN = ("apiserver_request_slo_duration_seconds",                  # deprecated 1.27.0
          "apiserver_flowcontrol_request_concurrency_limit",         # deprecated 1.30.0
          "apiserver_flowcontrol_request_concurrency_in_use")        # deprecated 1.31.0


def meta_metrics(*registries: Registry) -> tuple[Family, ...]:
    """`kubeRegistry.RegisterMetaMetrics` (`k8s.io/component-base/metrics/registry.go`, registered by
    legacyregistry): `registered_metrics_total`, a count kept across every registry, counts each family
    `lazyMetric.Create` made (every family of `registries` but the raw collectors' `process_*`, these four
    included), by stability level and deprecated version (no family served here is deprecated), read at scrape
    time; `hidden_metrics_total` the hidden ones among those this server models (`HIDDEN`); nothing is disabled
    or miscategorised. Kube-apiserver registers a few hundred families; the counts here are this server's. They
    are counters of the legacy registry, so `DELETE /metrics` resets them too (until the server restarts:
    `registered_metrics_total` then has no sample, the others are 0)."""
    def registered() -> list[Sample]:
        counts: dict[tuple[str, str], float] = {}
        for f in (f for registry in registries for f in registry):
            if f.stability != RAW:
                counts[(f.stability, "")] = counts.get((f.stability, ""), 0) + 1
        return list(counts.items())

    return (_MetaCounter("registered_metrics_total", "The count of registered metrics broken by stability level "
                         "and deprecation version.", ("stability_level", "deprecated_version"), registered, BETA,
                         "counter"),
            _MetaCounter("disabled_metrics_total", "The count of disabled metrics.", (), lambda: [((), 0.0)],
                         BETA, "counter"),
            _MetaCounter("hidden_metrics_total", "The count of hidden metrics.", (),
                         lambda: [((), float(len(HIDDEN)))], BETA, "counter"),
            _MetaCounter("cardinality_enforcement_unexpected_categorizations_total",
                         "The count of unexpected categorizations during cardinality enforcement.", (),
                         lambda: [((), 0.0)], ALPHA, "counter"))


class Registry:
    """The families one endpoint serves (`/metrics` or `/metrics/slis`)."""

    def __init__(self) -> None:
        self.families: dict[str, Family] = {}

    def add(self, *families: Family) -> None:
        for f in families:
            if f.name in self.families:
                raise ValueError(f"duplicate metric family {f.name}")
            self.families[f.name] = f

    def __iter__(self) -> Iterator[Family]:
        return iter(self.families.values())

    def reset(self) -> None:
        for f in self.families.values():
            f.reset()

    def render(self) -> str:
        out: list[str] = []
        for name in sorted(self.families):
            self.families[name].render(out)
        return "\n".join(out) + "\n" if out else ""


__all__ = ["ALPHA", "BETA", "HIDDEN", "RAW", "STABLE", "CodeCounterVec", "Collected", "CounterVec", "Family",
           "GaugeVec", "HistogramVec", "LazyHistogramVec", "Registry", "SummaryVec", "go_float", "meta_metrics"]

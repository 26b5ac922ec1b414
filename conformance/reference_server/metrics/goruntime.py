"""The `go_*` families of client_golang v1.22's Go collector (`prometheus/go_collector.go`,
`go_collector_latest.go`, `internal/go_collector_options.go`), which component-base's legacy registry registers raw
(`legacyregistry/registry.go`: `RawMustRegister(prometheus.NewGoCollector())`, so no stability prefix): the base
collector's `go_goroutines`, `go_threads`, `go_gc_duration_seconds` (a summary with the quantiles 0, .25, .5, .75, 1),
`go_memstats_last_gc_time_seconds`, `go_info{version}`; the MemStats-like `go_memstats_*` families; and the default
runtime/metrics rule (`GoCollectorDefaultRuntimeMetrics`): `go_gc_gogc_percent`, `go_gc_gomemlimit_bytes`,
`go_sched_gomaxprocs_threads`, whose HELP is Go 1.24's runtime/metrics description plus ` Sourced from <name>.`.

There is no Go runtime here, so each value is its nearest counterpart in this Python process, read at scrape time
(one /proc/self/status read per scrape, nothing on the request path):

- `go_info`: the Go version kube-apiserver v1.33.0 was built with (`.go-version`: go1.24.2, as `/version` says);
- `go_goroutines`: live threads plus the scraping event loop's asyncio tasks; `go_threads`: the OS threads
  (`Threads:`; upstream counts the threads the runtime created);
- `go_gc_duration_seconds`: the pauses of CPython's cyclic collector, timed by a `gc.callbacks` hook installed
  with the first server: quantiles over the last 256 pauses as `debug.ReadGCStats` computes them, the sum and count
  over every pause since; `go_memstats_last_gc_time_seconds` the end of the last (0 before any);
- `go_gc_gogc_percent`: 100 (GOGC's default, kube-apiserver sets none), -1 while the collector is disabled
  (GOGC=off); `go_gc_gomemlimit_bytes`: math.MaxInt64 (no limit, the default); `go_sched_gomaxprocs_threads`:
  the CPUs this process may run on (Go 1.24's GOMAXPROCS default);
- heap: `heap_alloc_bytes` = `alloc_bytes` = `heap_inuse_bytes` = the resident anonymous memory (`RssAnon`),
  `heap_sys_bytes` the data segment (`VmData`), `heap_idle_bytes` = `heap_released_bytes` their difference (not
  resident: what Go would have released), `heap_objects` pymalloc's allocated blocks, `frees_total` the objects
  the cyclic collector freed, `mallocs_total` frees plus live blocks, `alloc_bytes_total` the heap growth seen
  between scrapes (a lower bound), `next_gc_bytes` GOGC=100's goal over that heap (twice it);
- `stack_inuse_bytes` = `stack_sys_bytes` the main stack (`VmStk`); `other_sys_bytes` the resident file-backed and
  shared memory; `sys_bytes` heap + stack + other, as Go's `Sys` sums its classes; the Go allocator's own
  structures (`mspan`, `mcache`, `buck_hash`, `gc_sys`) have no counterpart and are 0.

Where /proc is missing (not Linux), the families read from it are 0; the others stay.
"""
from __future__ import annotations

import asyncio
import gc
import os
import sys
import threading
import time
from collections import deque
from typing import Callable, Iterable

from .registry import RAW, Collected, Family, Sample, _escape_help, go_float

GO_VERSION = "go1.24.2"  # kubernetes v1.33.0 `.go-version` (http/discovery.py's `/version` says the same)
MAX_INT64 = float(2 ** 63 - 1)
_RECENT = 256  # runtime's `PauseNs` ring: `debug.ReadGCStats` computes its quantiles over these
_STATUS_FIELDS = ("VmData", "VmStk", "RssAnon", "RssFile", "RssShmem", "Threads")
_GOGC = "Heap size target percentage configured by the user, otherwise 100. This value is set by the GOGC " \
        "environment variable, and the runtime/debug.SetGCPercent function. Sourced from /gc/gogc:percent."
_GOMEMLIMIT = "Go runtime memory limit configured by the user, otherwise math.MaxInt64. This value is set by the " \
              "GOMEMLIMIT environment variable, and the runtime/debug.SetMemoryLimit function. Sourced from " \
              "/gc/gomemlimit:bytes."
_GOMAXPROCS = "The current runtime.GOMAXPROCS setting, or the number of operating system threads that can execute " \
              "user-level Go code simultaneously. Sourced from /sched/gomaxprocs:threads."


class GcPauses:
    """CPython's cyclic-collector pauses, as the Go runtime keeps its GC pauses (`gc.callbacks`: start/stop)."""

    def __init__(self) -> None:
        self.recent: deque[float] = deque(maxlen=_RECENT)
        self.total = 0.0
        self.count = 0
        self.last_end = 0.0  # wall clock seconds
        self._started = 0.0

    def callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        elif self._started:
            pause = time.perf_counter() - self._started
            self._started = 0.0
            self.recent.append(pause)
            self.total += pause
            self.count += 1
            self.last_end = time.time()

    def quantiles(self) -> list[tuple[float, float]]:
        """`debug.ReadGCStats`' five `PauseQuantiles` (min, 25%, 50%, 75%, max) of the recent pauses."""
        pauses = sorted(self.recent)
        if not pauses:
            return [(q, 0.0) for q in (0.0, 0.25, 0.5, 0.75, 1.0)]
        n = len(pauses)
        return [(i / 4, pauses[n * i // 4]) for i in range(4)] + [(1.0, pauses[-1])]


_pauses: GcPauses | None = None
_lock = threading.Lock()


def gc_pauses() -> GcPauses:
    """The process's one recorder, its hook installed on first use."""
    global _pauses
    with _lock:
        if _pauses is None:
            _pauses = GcPauses()
            gc.callbacks.append(_pauses.callback)
        return _pauses


def read_status(path: str = "/proc/self/status") -> dict[str, float]:
    """The /proc status fields used here, in bytes (`kB` values) or as counts; {} where /proc is missing."""
    out: dict[str, float] = {}
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in _STATUS_FIELDS:
                    parts = rest.split()
                    out[key] = float(parts[0]) * (1024 if parts[1:] == ["kB"] else 1)
    except (OSError, ValueError, IndexError):
        return {}
    return out


def _gomaxprocs() -> float:
    try:
        return float(len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return float(os.cpu_count() or 1)


def _goroutines() -> float:
    try:
        tasks = len(asyncio.all_tasks())  # the scrape runs on the server's loop
    except RuntimeError:
        tasks = 0
    return float(threading.active_count() + tasks)


class _GcSummary(Family):
    """`go_gc_duration_seconds`: a constant summary with quantiles (`MustNewConstSummary`)."""
    kind = "summary"

    def __init__(self, pauses: GcPauses):
        super().__init__("go_gc_duration_seconds", "A summary of the wall-time pause (stop-the-world) duration in "
                         "garbage collection cycles.", (), RAW)
        self.pauses = pauses

    def render(self, out: list[str]) -> None:
        out.append(f"# HELP {self.name} {_escape_help(self.help)}")
        out.append(f"# TYPE {self.name} summary")
        for q, v in self.pauses.quantiles():
            out.append(f'{self.name}{{quantile="{go_float(q)}"}} {go_float(v)}')
        out.append(f"{self.name}_sum {go_float(self.pauses.total)}")
        out.append(f"{self.name}_count {go_float(float(self.pauses.count))}")


class GoRuntime:
    """The Go collector's families over this process (see the module docstring for each mapping)."""

    def __init__(self) -> None:
        self.pauses = gc_pauses()
        self._status: dict[str, float] = {}
        self._read_at = -1.0
        self._last_heap = -1.0
        self._alloc_total = 0.0
        self._mallocs = 0.0

    def status(self) -> dict[str, float]:
        """/proc/self/status, read once per scrape (the families of one scrape share it)."""
        now = time.monotonic()
        if now - self._read_at > 0.05:
            self._status, self._read_at = read_status(), now
            heap = self._status.get("RssAnon", 0.0)
            if self._last_heap >= 0 and heap > self._last_heap:
                self._alloc_total += heap - self._last_heap
            elif self._last_heap < 0:
                self._alloc_total = heap
            self._last_heap = heap
        return self._status

    def _field(self, name: str) -> float:
        return self.status().get(name, 0.0)

    def heap_sys(self) -> float:
        return max(self._field("VmData"), self._field("RssAnon"))

    def frees(self) -> float:
        return float(sum(s.get("collected", 0) for s in gc.get_stats()))

    def mallocs(self) -> float:
        self._mallocs = max(self._mallocs, self.frees() + sys.getallocatedblocks())  # a counter never decreases
        return self._mallocs

    def other(self) -> float:
        return self._field("RssFile") + self._field("RssShmem")

    def families(self) -> Iterable[Family]:
        yield _GcSummary(self.pauses)
        gauges: list[tuple[str, str, Callable[[], float]]] = [
            ("go_gc_gogc_percent", _GOGC, lambda: 100.0 if gc.isenabled() else -1.0),
            ("go_gc_gomemlimit_bytes", _GOMEMLIMIT, lambda: MAX_INT64),
            ("go_goroutines", "Number of goroutines that currently exist.", _goroutines),
            ("go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.",
             lambda: self.pauses.last_end),
            ("go_sched_gomaxprocs_threads", _GOMAXPROCS, _gomaxprocs),
            ("go_threads", "Number of OS threads created.", lambda: self._field("Threads")),
        ]
        memstats: list[tuple[str, str, Callable[[], float], str]] = [
            ("alloc_bytes", "Number of bytes allocated in heap and currently in use. Equals to "
             "/memory/classes/heap/objects:bytes.", lambda: self._field("RssAnon"), "gauge"),
            ("alloc_bytes_total", "Total number of bytes allocated in heap until now, even if released already. "
             "Equals to /gc/heap/allocs:bytes.", lambda: (self.status(), self._alloc_total)[1], "counter"),
            ("sys_bytes", "Number of bytes obtained from system. Equals to /memory/classes/total:byte.",
             lambda: self.heap_sys() + self._field("VmStk") + self.other(), "gauge"),
            ("mallocs_total", "Total number of heap objects allocated, both live and gc-ed. Semantically a counter "
             "version for go_memstats_heap_objects gauge. Equals to /gc/heap/allocs:objects + "
             "/gc/heap/tiny/allocs:objects.", self.mallocs, "counter"),
            ("frees_total", "Total number of heap objects frees. Equals to /gc/heap/frees:objects + "
             "/gc/heap/tiny/allocs:objects.", self.frees, "counter"),
            ("heap_alloc_bytes", "Number of heap bytes allocated and currently in use, same as "
             "go_memstats_alloc_bytes. Equals to /memory/classes/heap/objects:bytes.",
             lambda: self._field("RssAnon"), "gauge"),
            ("heap_sys_bytes", "Number of heap bytes obtained from system. Equals to "
             "/memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes + "
             "/memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.", self.heap_sys, "gauge"),
            ("heap_idle_bytes", "Number of heap bytes waiting to be used. Equals to "
             "/memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.",
             lambda: self.heap_sys() - self._field("RssAnon"), "gauge"),
            ("heap_inuse_bytes", "Number of heap bytes that are in use. Equals to /memory/classes/heap/objects:bytes "
             "+ /memory/classes/heap/unused:bytes", lambda: self._field("RssAnon"), "gauge"),
            ("heap_released_bytes", "Number of heap bytes released to OS. Equals to "
             "/memory/classes/heap/released:bytes.", lambda: self.heap_sys() - self._field("RssAnon"), "gauge"),
            ("heap_objects", "Number of currently allocated objects. Equals to /gc/heap/objects:objects.",
             lambda: float(sys.getallocatedblocks()), "gauge"),
            ("stack_inuse_bytes", "Number of bytes obtained from system for stack allocator in non-CGO "
             "environments. Equals to /memory/classes/heap/stacks:bytes.", lambda: self._field("VmStk"), "gauge"),
            ("stack_sys_bytes", "Number of bytes obtained from system for stack allocator. Equals to "
             "/memory/classes/heap/stacks:bytes + /memory/classes/os-stacks:bytes.",
             lambda: self._field("VmStk"), "gauge"),
            ("mspan_inuse_bytes", "Number of bytes in use by mspan structures. Equals to "
             "/memory/classes/metadata/mspan/inuse:bytes.", lambda: 0.0, "gauge"),
            ("mspan_sys_bytes", "Number of bytes used for mspan structures obtained from system. Equals to "
             "/memory/classes/metadata/mspan/inuse:bytes + /memory/classes/metadata/mspan/free:bytes.",
             lambda: 0.0, "gauge"),
            ("mcache_inuse_bytes", "Number of bytes in use by mcache structures. Equals to "
             "/memory/classes/metadata/mcache/inuse:bytes.", lambda: 0.0, "gauge"),
            ("mcache_sys_bytes", "Number of bytes used for mcache structures obtained from system. Equals to "
             "/memory/classes/metadata/mcache/inuse:bytes + /memory/classes/metadata/mcache/free:bytes.",
             lambda: 0.0, "gauge"),
            ("buck_hash_sys_bytes", "Number of bytes used by the profiling bucket hash table. Equals to "
             "/memory/classes/profiling/buckets:bytes.", lambda: 0.0, "gauge"),
            ("gc_sys_bytes", "Number of bytes used for garbage collection system metadata. Equals to "
             "/memory/classes/metadata/other:bytes.", lambda: 0.0, "gauge"),
            ("other_sys_bytes", "Number of bytes used for other system allocations. Equals to "
             "/memory/classes/other:bytes.", self.other, "gauge"),
            ("next_gc_bytes", "Number of heap bytes when next garbage collection will take place. Equals to "
             "/gc/heap/goal:bytes.", lambda: 2 * self._field("RssAnon"), "gauge"),
        ]
        for name, help_text, read in gauges:
            yield Collected(name, help_text, (), _one(read), RAW)
        for name, help_text, read, kind in memstats:
            yield Collected(f"go_memstats_{name}", help_text, (), _one(read), RAW, kind)
        yield Collected("go_info", "Information about the Go environment.", ("version",),
                        lambda: [((GO_VERSION,), 1.0)], RAW)


def _one(read: Callable[[], float]) -> Callable[[], list[Sample]]:
    return lambda: [((), float(read()))]


__all__ = ["GO_VERSION", "GcPauses", "GoRuntime", "gc_pauses", "read_status"]

"""The process collector's families every Go binary serves (client_golang v1.22 `prometheus/process_collector.go`,
registered raw by component-base's legacy registry, so without a stability prefix), read from `/proc/self` at
scrape time: CPU seconds, resident and virtual memory, open and maximum file descriptors, start time. Where
`/proc` is missing (not Linux) the families are left out, as client_golang's collector reports nothing it cannot
read (`process_collector_procfsenabled.go`: the network counters are the process's network namespace's `IpExt`
octets, as procfs reads `/proc/<pid>/net/netstat`; an unlimited rlimit is procfs' `unlimited`, MaxUint64). The
`go_*` families are goruntime.py's."""
from __future__ import annotations

import os
import resource
import time
from typing import Any, Iterable

from .registry import RAW, Collected, Sample

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE = resource.getpagesize()
_UNLIMITED = 18446744073709551615.0  # procfs' `parseUint("unlimited")`


def _soft_limit(which: int) -> float:
    soft = resource.getrlimit(which)[0]
    return _UNLIMITED if soft == resource.RLIM_INFINITY else float(soft)


def _ip_octets() -> tuple[float, float]:
    """(InOctets, OutOctets) of `IpExt` in /proc/self/net/netstat (a header line, then a value line)."""
    with open("/proc/self/net/netstat", encoding="ascii") as f:
        lines = [line.split() for line in f if line.startswith("IpExt:")]
    fields = dict(zip(lines[0][1:], lines[1][1:]))
    return float(fields.get("InOctets", 0)), float(fields.get("OutOctets", 0))


def _boot_time() -> float:
    with open("/proc/stat", encoding="ascii") as f:
        for line in f:
            if line.startswith("btime "):
                return float(line.split()[1])
    return time.time() - time.monotonic()


def _stat() -> list[str]:
    """/proc/self/stat's fields after the command name (field 3, `state`, first)."""
    with open("/proc/self/stat", encoding="ascii", errors="replace") as f:
        text = f.read()
    return text[text.rindex(")") + 2:].split()


class ProcessMetrics:
    """`process_*` from /proc/self."""

    def __init__(self) -> None:
        try:
            start_ticks = int(_stat()[19])  # starttime (field 22)
            self.start_time = _boot_time() + start_ticks / _TICKS
            self.available = True
        except (OSError, ValueError, IndexError):
            self.available = False

    def _one(self, pick: Any) -> list[Sample]:
        try:
            return [((), float(pick()))]
        except (OSError, ValueError, IndexError):
            return []

    def families(self) -> Iterable[Collected]:
        if not self.available:
            return
        yield Collected("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", (),
                        lambda: self._one(lambda: (int(_stat()[11]) + int(_stat()[12])) / _TICKS), RAW, "counter")
        yield Collected("process_open_fds", "Number of open file descriptors.", (),
                        lambda: self._one(lambda: len(os.listdir("/proc/self/fd"))), RAW)
        yield Collected("process_max_fds", "Maximum number of open file descriptors.", (),
                        lambda: self._one(lambda: _soft_limit(resource.RLIMIT_NOFILE)), RAW)
        yield Collected("process_virtual_memory_bytes", "Virtual memory size in bytes.", (),
                        lambda: self._one(lambda: int(_stat()[20])), RAW)
        yield Collected("process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes.",
                        (), lambda: self._one(lambda: _soft_limit(resource.RLIMIT_AS)), RAW)
        yield Collected("process_network_receive_bytes_total", "Number of bytes received by the process over the "
                        "network.", (), lambda: self._one(lambda: _ip_octets()[0]), RAW, "counter")
        yield Collected("process_network_transmit_bytes_total", "Number of bytes sent by the process over the "
                        "network.", (), lambda: self._one(lambda: _ip_octets()[1]), RAW, "counter")
        yield Collected("process_resident_memory_bytes", "Resident memory size in bytes.", (),
                        lambda: self._one(lambda: int(_stat()[21]) * _PAGE), RAW)
        yield Collected("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", (),
                        lambda: [((), self.start_time)], RAW)


__all__ = ["ProcessMetrics"]

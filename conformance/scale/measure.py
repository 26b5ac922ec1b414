"""Time the operations of one step.

Judged (per namespace): LIST of one namespace's ConfigMaps, GET of one of them, watch start (request to
response headers, from the LIST's resourceVersion) and event delivery (a create in the namespace until
its ADDED event arrives on an open watch). Reported only: a cross-namespace LIST (first page of 500,
this run's label selector) and namespace deletion (DELETE until the namespace is gone).

Every operation is timed `rounds` times, interleaved (one of each per round, so a burst of load on a
shared machine touches every operation alike), and summarised by the median. Each judged timing is
paired with a control request timed just before it, GET /version, which costs the same at any number of
namespaces: the median of op/control is the operation's cost in "control requests", and it is that
relative cost the clause compares between steps. On a 2-core machine shared with other work a request
can take 10× longer for a few seconds; both timings of a pair see the same load, so the ratio does not
move, while a LIST that scans every namespace costs more control requests at every sample. (A server
that slowed *every* request with N, /version included, would show in the raw medians, which the report
keeps, not in the verdict.) Before measuring, the server is given time to finish what the last batch
set off (controllers writing into new namespaces): `settle` times the control until it is back near
its cost before the run.
"""

from __future__ import annotations

import json
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable

import requests

if TYPE_CHECKING:
    from ..endpoints import Paths
    from .population import Population

__all__ = ["JUDGED", "REPORTED", "measure_step", "control_cost", "control_once", "settle", "relative"]

JUDGED = ("list", "get", "watch_start", "event_delivery")
REPORTED = ("cross_namespace_list", "namespace_deletion")


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def control_once(s: requests.Session, url: Callable[[str], str]) -> float:
    """Seconds of one GET /version (the control request)."""
    dt, r = _timed(lambda: s.get(url("/version"), timeout=30))
    r.content
    return dt


def control_cost(pop: "Population", samples: int = 7) -> float:
    """Median seconds of GET /version: what a request costs the target when nothing grows."""
    s = pop.session()
    return statistics.median(control_once(s, pop.client.url) for _ in range(samples))


QUIET_KINDS = ("configmaps", "serviceaccounts")
"""What controllers write into every new namespace (kube-root-ca.crt, the default ServiceAccount)."""


def _quiet_for(pop: "Population", paths: "Paths", resource: str, seconds: int) -> bool:
    """True when a watch of `resource` across namespaces, from now, sees no event for `seconds`."""
    s = pop.session()
    r = s.get(pop.client.url(paths.all_namespaces(resource)), params={"limit": "1"}, timeout=60)
    if r.status_code != 200:
        return True  # not listable here: nothing to wait for
    rv = str((r.json().get("metadata") or {}).get("resourceVersion") or "")
    params = {"watch": "true", "resourceVersion": rv, "timeoutSeconds": str(seconds),
              "allowWatchBookmarks": "false"}
    with s.get(pop.client.url(paths.all_namespaces(resource)), params=params, stream=True,
               timeout=(30, seconds + 30)) as w:
        if w.status_code != 200:
            return True
        for line in w.iter_lines():
            if line:
                return False
    return True


def settle(pop: "Population", paths: "Paths", baseline: float, timeout: float) -> dict[str, Any]:
    """Wait until what the last batch set off is done, or `timeout` seconds: the controllers that write
    into new namespaces have gone quiet (a 1 s watch of each of `QUIET_KINDS` sees nothing; on a busy
    real cluster this may never happen, and the timeout ends it) and the control request costs at most
    three times its `baseline`. Returns {"waited_s", "control_s", "settled"}."""
    t0 = time.monotonic()
    quiet = False
    with ThreadPoolExecutor(len(QUIET_KINDS), thread_name_prefix="nsconform-settle") as pool:
        while not quiet and time.monotonic() - t0 < timeout:  # every kind watched over the same second
            quiet = all(pool.map(lambda kind: _quiet_for(pop, paths, kind, 1), QUIET_KINDS))
    cost = control_cost(pop)
    while cost > 3 * baseline and time.monotonic() - t0 < timeout:
        cost = control_cost(pop)
    return {"waited_s": round(time.monotonic() - t0, 3), "control_s": cost,
            "settled": quiet and cost <= 3 * baseline}


def _watch_params(rv: str) -> dict[str, str]:
    return {"watch": "true", "resourceVersion": rv, "timeoutSeconds": "30", "allowWatchBookmarks": "false"}


def measure_step(pop: "Population", paths: "Paths", probe_ns: str, rounds: int,
                 cross_selector: str, deletion: Callable[[], float] | None
                 ) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """({operation: [seconds per round]}, {judged operation: [seconds of the control before each]}) for
    the probe namespace `probe_ns` (which holds the objects `scale-0..`); raises AssertionError naming
    the request when the target answers wrongly."""
    s = pop.session()
    url = pop.client.url
    coll = paths.content(probe_ns, "configmaps")
    samples: dict[str, list[float]] = {op: [] for op in JUDGED + REPORTED}
    controls: dict[str, list[float]] = {op: [] for op in JUDGED}

    def control(op: str) -> None:
        controls[op].append(control_once(s, url))

    def check(r: requests.Response, what: str, code: int = 200) -> None:
        if r.status_code != code:
            raise AssertionError(f"{what}: expected {code}, got {r.status_code}: {r.text[:300]}")

    for i in range(rounds):
        control("list")
        dt, r = _timed(lambda: s.get(url(coll), timeout=60))
        check(r, f"LIST {coll}")
        body = r.json()
        rv = str((body.get("metadata") or {}).get("resourceVersion") or "")
        samples["list"].append(dt)

        obj = paths.content(probe_ns, "configmaps", "scale-0")
        control("get")
        dt, r = _timed(lambda: s.get(url(obj), timeout=60))
        check(r, f"GET {obj}")
        samples["get"].append(dt)

        w = pop.client.new_session()
        try:
            control("watch_start")
            dt, stream = _timed(lambda: w.get(url(coll), params=_watch_params(rv), stream=True, timeout=(30, 30)))
            check(stream, f"WATCH {coll}")
            samples["watch_start"].append(dt)
            name = f"probe-{i}"
            body = {"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": name, "namespace": probe_ns, "labels": dict(pop.labels)}}
            lines = stream.iter_lines()
            control("event_delivery")
            t0 = time.perf_counter()
            r = s.post(url(coll), json=body, timeout=60)
            check(r, f"POST {coll} ({name})", 201)
            seen = []
            for line in lines:
                if not line:
                    continue
                ev = json.loads(line)
                seen.append(f"{ev.get('type')} {((ev.get('object') or {}).get('metadata') or {}).get('name')}")
                if ev.get("type") == "ADDED" and (ev.get("object") or {}).get("metadata", {}).get("name") == name:
                    samples["event_delivery"].append(time.perf_counter() - t0)
                    break
            else:
                raise AssertionError(f"WATCH {coll} from resourceVersion {rv} ended without the ADDED event of "
                                     f"{name}; saw: {', '.join(seen) or 'nothing'}")
            stream.close()
        finally:
            w.close()
        r = s.delete(url(paths.content(probe_ns, "configmaps", name)), timeout=60)
        check(r, f"DELETE configmap {name}")

        cross = paths.all_namespaces("configmaps")
        dt, r = _timed(lambda: s.get(url(cross), params={"labelSelector": cross_selector, "limit": "500"},
                                     timeout=120))
        check(r, f"LIST {cross}")
        samples["cross_namespace_list"].append(dt)

    if deletion is not None:
        for _ in range(min(rounds, 3)):
            samples["namespace_deletion"].append(deletion())
    return samples, controls


def relative(samples: dict[str, list[float]], controls: dict[str, list[float]]) -> dict[str, float | None]:
    """{judged operation: median of op/control over the rounds}."""
    out: dict[str, float | None] = {}
    for op in JUDGED:
        pairs = [a / c for a, c in zip(samples.get(op) or [], controls.get(op) or []) if c > 0]
        out[op] = statistics.median(pairs) if pairs else None
    return out

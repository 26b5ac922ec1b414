"""The `replicas` phase (`--only replicas`): three reference servers on one etcd serving reads against one.

Each replica is a separate process (its own GIL, its own watch cache), so reads scale with cores until the
cores run out; the generators share the same cores, which is why the figure is also given per request of
server CPU (`server_us_per_req`), the number that extrapolates to bigger machines (benchmarks/README.md).

The generator behind `replicas_rps_get_*` is `cfg.generator` (wrk when on PATH): one wrk (1 thread, 32
connections) against one replica, then three wrk at once (1 thread, 11 connections each), one per replica, so
both sides get one generator thread per replica. Python generators take a large share of the 2 cores (the raw
one ~0.4 CPU-s per server CPU-s), which caps the three-replica figure; they still run as a cross-check
(`replicas_*_raw`)."""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from . import loadgen, probes
from .procs import ServerHost, run_in_child

PATH = "/api/v1/namespaces/bench-rep"
# resourceVersion=0: "any version" — upstream's cacher serves it from the watch cache without asking etcd (what
# informers' lists do); the plain GET is a consistent read (etcd's current revision first, storage/freshness.py)
CACHED_PATH = PATH + "?resourceVersion=0"


def _reads(cfg: Any, hosts: list[ServerHost], connections: int) -> list[dict[str, Any]]:
    """One GET generator per host, all at once, `connections` split between them."""
    per = max(1, connections // len(hosts))
    specs = [{"url": h.url, "server_pid": h.pid, "connections": per, "warmup": cfg.tp_warmup,
              "duration": cfg.tp_duration, "client": cfg.py_generator, "workload": "get", "path": PATH}
             for h in hosts]
    timeout = cfg.tp_warmup + cfg.tp_duration + 60
    with ThreadPoolExecutor(len(specs)) as pool:
        return list(pool.map(lambda s: run_in_child(loadgen.run_load, s, timeout=timeout), specs))


def phase_replicas(cfg: Any, fig: dict[str, Any], det: dict[str, Any]) -> None:
    from conformance.reference_server.storage.backends import StorageConfig
    from conformance.reference_server.storage.etcdprocess import EtcdProcess

    with EtcdProcess() as etcd:
        storage = StorageConfig("etcd", (etcd.url,), "/bench-replicas")
        hosts: list[ServerHost] = []
        try:
            for _ in range(3):
                hosts.append(ServerHost(storage=storage))
            c = probes.Http(hosts[0].url)
            c.json("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                  "metadata": {"name": "bench-rep"}})
            c.close()
            for h in hosts:  # every replica's cache has it before the clock starts
                c = probes.Http(h.url)
                status, _ = c.request("GET", PATH)
                c.close()
                if status != 200:
                    raise RuntimeError(f"replica {h.url} answered {status} for {PATH}")
            one = _reads(cfg, hosts[:1], cfg.connections)  # also the warm-up of the wrk runs
            three = _reads(cfg, hosts, cfg.connections)
            wrk_one = _wrk_reads(cfg, hosts[:1], cfg.connections)
            wrk_three = _wrk_reads(cfg, hosts, cfg.connections)
            cached_one = _wrk_reads(cfg, hosts[:1], cfg.connections, CACHED_PATH)
            cached_three = _wrk_reads(cfg, hosts, cfg.connections, CACHED_PATH)
        finally:
            for h in hosts:
                h.close()
    raw = _figures(one, three)
    wrk = _figures(wrk_one, wrk_three)
    for k, v in raw.items():
        fig[f"replicas_{k}_raw"] = v
    for k, v in wrk.items():
        fig[f"replicas_{k}_wrk"] = v
    for k, v in _figures(cached_one, cached_three).items():
        fig[f"replicas_{k}_cached_wrk"] = v
    behind = wrk if cfg.generator == "wrk" and wrk["get_ratio"] is not None else raw
    if cfg.generator == "wrk" and behind is raw:
        det.setdefault("errors", {})["replicas_wrk"] = "wrk gave no figure: replicas_* from the raw generator"
    fig["replicas_rps_get_1"] = behind["rps_get_1"]
    fig["replicas_rps_get_3"] = behind["rps_get_3"]
    fig["replicas_get_ratio"] = behind["get_ratio"]
    fig["replicas_server_us_per_get"] = one[0].get("server_us_per_req")  # the raw run's (CPU over a counted window)
    det["replicas"] = {"generator": "wrk" if behind is wrk else "raw", "one": one, "three": three,
                       "wrk_one": wrk_one, "wrk_three": wrk_three, "cached_one": cached_one,
                       "cached_three": cached_three}


def _wrk_reads(cfg: Any, hosts: list[ServerHost], connections: int, path: str = PATH) -> list[dict[str, Any]]:
    """One wrk per host, all at once, `connections` split between them (empty without wrk)."""
    per = max(1, connections // len(hosts))
    return loadgen.run_wrk_many([h.url + path for h in hosts], per, int(cfg.tp_duration), [h.pid for h in hosts])


def _figures(one: list[dict[str, Any]], three: list[dict[str, Any]]) -> dict[str, Any]:
    """Sums and ratio of one run against one replica and one against three; None where a run gave no figure
    or wrk met errors (wrk counts a non-200 answer as a request)."""
    def total(runs: list[dict[str, Any]]) -> float | None:
        if not runs or any(r.get("rps") is None or (r.get("client") == "wrk" and (r["bad"] or r["errors"]))
                           for r in runs):  # the raw generator counts only 200s
            return None
        return sum(r["rps"] for r in runs)
    rps1, rps3 = total(one), total(three)
    out = {"rps_get_1": rps1, "rps_get_3": rps3, "get_ratio": rps3 / rps1 if rps1 and rps3 else None,
           "server_cpu_1": _server_cpu(one), "server_cpu_3": _server_cpu(three),
           "loadgen_cpu_1": _loadgen_cpu(one), "loadgen_cpu_3": _loadgen_cpu(three)}
    out["get_ratio_cpu_bound"] = cpu_bound_ratio(rps1, rps3, out["server_cpu_1"], out["server_cpu_3"],
                                                 out["loadgen_cpu_1"], out["loadgen_cpu_3"], os.cpu_count() or 1)
    return out


def _server_cpu(runs: list[dict[str, Any]]) -> float | None:
    return sum(r.get("server_cpu") or 0.0 for r in runs) if runs else None


def _loadgen_cpu(runs: list[dict[str, Any]]) -> float | None:
    """CPU-s/s of the generators of one run: all the wrk processes together, or the sum of the raw ones."""
    if not runs:
        return None
    if "loadgen_cpu_all" in runs[0]:
        return runs[0]["loadgen_cpu_all"]
    return sum(r.get("loadgen_cpu") or 0.0 for r in runs)


def cpu_bound_ratio(rps1: float | None, rps3: float | None, server1: float | None, server3: float | None,
                    gen1: float | None, gen3: float | None, cores: int) -> float | None:
    """The ratio an idle machine with `cores` would show, from CPU per request (steady under load, where req/s
    are the scheduler's share): R replicas serve at most R / s (one core each) and at most cores / (s + g)
    (the cores shared with the generators), s and g the servers' and generators' CPU-s per request."""
    if not (rps1 and rps3 and server1 and server3) or gen1 is None or gen3 is None:
        return None
    s1, g1, s3, g3 = server1 / rps1, gen1 / rps1, server3 / rps3, gen3 / rps3
    return min(3 / s3, cores / (s3 + g3)) / min(1 / s1, cores / (s1 + g1))

"""The `replicas` phase (`--only replicas`): three reference servers on one etcd serving reads against one.

Each replica is a separate process (its own GIL, its own watch cache), so reads scale with cores until the
cores run out; the generators share the same cores, which is why the figure is also given per request of
server CPU (`server_us_per_req`), the number that extrapolates to bigger machines (benchmarks/README.md)."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from . import loadgen, probes
from .procs import ServerHost, run_in_child

PATH = "/api/v1/namespaces/bench-rep"


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
            one = _reads(cfg, hosts[:1], cfg.connections)
            three = _reads(cfg, hosts, cfg.connections)
        finally:
            for h in hosts:
                h.close()
    rps1 = sum(r["rps"] for r in one)
    rps3 = sum(r["rps"] for r in three)
    fig["replicas_rps_get_1"] = rps1
    fig["replicas_rps_get_3"] = rps3
    fig["replicas_get_ratio"] = rps3 / rps1 if rps1 else None
    fig["replicas_server_us_per_get"] = one[0].get("server_us_per_req")
    det["replicas"] = {"one": one, "three": three}

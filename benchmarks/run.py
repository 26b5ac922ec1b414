"""`python -m benchmarks [--quick]`: suite speed, server throughput, scaling, deletion, watch fan-out, memory.

Each phase gets a fresh reference server in its own process (`procs.ServerHost`); load generators,
probes and the suite run in other processes. A phase that fails is reported and leaves its figures
null; the others still run. The last line printed is one JSON object with exactly `stats.JSON_KEYS`.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import traceback
from typing import Any, Callable

if not __package__:  # `python benchmarks/run.py` (also re-imported as __mp_main__ by spawned children)
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks import loadgen, probes, stats  # noqa: E402
from benchmarks.procs import CeilingHost, ServerHost, configmap_body, cpu_seconds, run_in_child  # noqa: E402
from benchmarks.replicas import phase_replicas  # noqa: E402

PHASES = ("suite", "throughput", "fanout", "delete", "stall", "scaling", "memory", "cluster", "etcd", "replicas")
DEFAULT_SKIP = ("cluster", "etcd", "replicas")
"""Phases run only when asked for (`--only cluster`, `--only etcd`): the cluster-like runs take minutes, not
seconds; the etcd phase needs an etcd binary and fills etcd through transactions (tens of seconds)."""


class Config:
    def __init__(self, quick: bool, duration: float | None = None, generator: str = "auto"):
        self.quick = quick
        if generator == "auto":  # the one that can saturate the ceiling on 2 cores: wrk, else the raw generator
            generator = "wrk" if loadgen.wrk_available() else "raw"
        if generator == "wrk" and not loadgen.wrk_available():
            raise SystemExit("--generator wrk: wrk is not on PATH")
        self.generator = generator  # the client behind the JSON throughput figures
        # the Python generator of the GET runs that measure CPU per request (wrk reports no CPU use)
        self.py_generator = "raw" if generator == "wrk" else generator
        self.suite_reps = 1 if quick else 3
        self.tp_warmup = 1.0 if quick else 2.0
        self.tp_duration = duration or (3.0 if quick else 10.0)
        self.connections = 32
        self.floor_n = 300 if quick else 1000
        self.list_n = 300 if quick else 1000
        self.create_n = 100 if quick else 300
        self.watch_n = 50 if quick else 200
        self.scaling_sizes = (10, 1000, 10000)
        self.per_ns = 10
        self.delete_n = 10000
        self.fan_watchers = 100
        self.fan_writes = 10 if quick else 30
        self.mem_n = 10000


# ------------------------------------------------------------------------------------------ machine
def machine() -> dict[str, Any]:
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import aiohttp

    return {"nproc": os.cpu_count(), "cpu": model, "python": platform.python_version(), "aiohttp": aiohttp.__version__,
            "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "loadavg": os.getloadavg()}


# ------------------------------------------------------------------------------------------ suite
SUMMARY = re.compile(r"(\d+ (?:passed|failed|skipped|error|errors|xfailed|xpassed|warning|warnings)(?:, )?)+ in ([0-9.]+)s")


def _bytecode_env(tmp: str) -> dict[str, str] | None:
    """The suite runs' environment where PYTHONDONTWRITEBYTECODE is set (as on the project's CI and helper
    machines): without a bytecode cache every run would recompile, and pytest re-rewrite the assertions of,
    ~450 modules (about 2.5 s of each run) that a user's installation has cached. So, as `.ci/run` does, a
    cache under `tmp` (PYTHONPYCACHEPREFIX), filled by a warm-up run. None: the environment caches already."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return None
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
    return env


def _pytest(extra: list[str], tmp: str, timeout: float = 600.0, keep_stdout: bool = False,
            env: dict[str, str] | None = None) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "pytest", "--pyargs", "conformance.suites", "-q", "-p", "no:cacheprovider",
           "--nsconform-reports", os.path.join(tmp, "reports"), *extra]
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=timeout, env=env)
    wall = time.perf_counter() - t
    tail = [ln for ln in p.stdout.splitlines() if ln.strip()][-1:] or [""]
    m = SUMMARY.search(p.stdout)
    res = {"wall_s": wall, "exit": p.returncode, "summary": tail[0].strip("= "),
           "pytest_s": float(m.group(2)) if m else None, "cmd": " ".join(cmd[1:])}
    if keep_stdout:
        res["stdout"] = p.stdout
    if p.returncode not in (0, 1) or " passed" not in p.stdout:
        # collection error, usage error, no tests: the wall time would mean nothing
        why = (p.stdout[-800:] + p.stderr[-800:]).strip()
        raise RuntimeError(f"suite run did not run the suite (exit {p.returncode}): {' '.join(cmd[3:])}\n{why}")
    return res


def installed_plugins() -> tuple[list[str], list[str]]:
    """The pytest11 plugins `pip install nsconform` brings (those of its runtime dependency closure, extras left
    out) as `-p module` options, and the names of the others this environment autoloads (the `test` extra's
    schemathesis and hypothesis: ~0.9 s of start-up a user's run does not pay)."""
    from importlib import metadata

    from packaging.requirements import InvalidRequirement, Requirement

    def canonical(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    closure: set[str] = set()
    todo = ["nsconform"]
    while todo:
        dist = canonical(todo.pop())
        if dist in closure:
            continue
        closure.add(dist)
        try:
            requires = metadata.distribution(dist).requires or []
        except metadata.PackageNotFoundError:
            continue
        for text in requires:
            try:
                req = Requirement(text)
            except InvalidRequirement:
                continue
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    keep, others = [], []
    for ep in metadata.entry_points(group="pytest11"):
        owner = canonical(ep.dist.name) if ep.dist is not None else ""
        if owner in closure:
            keep += ["-p", ep.value]
        else:
            others.append(ep.name)
    return keep, sorted(others)


def _suite_server_options() -> dict[str, Any]:
    """The plugin's embedded-server configuration (RBAC by default since the scope suites), so that the
    counted `--server` run does the same work as the embedded run."""
    import inspect

    from conformance.reference_server.embedded import start_embedded

    if "authorization" in inspect.signature(start_embedded).parameters:
        return {"authorization": "rbac"}
    return {}


def phase_suite(cfg: Config, fig: dict[str, Any], det: dict[str, Any]) -> None:
    opts = _suite_server_options()
    det["suite_server_options"] = opts
    with tempfile.TemporaryDirectory(prefix="nsconform-bench-") as tmp:
        runs: dict[str, list[dict[str, Any]]] = {"embedded": [], "embedded_xdist": [], "counted": [],
                                                 "embedded_installed": []}
        counts: list[int] = []
        env = _bytecode_env(tmp)
        plugins, others = installed_plugins()
        installed_env = {**(env if env is not None else os.environ), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        det["suite_installed_plugins"] = {"loaded": plugins[1::2], "left_out": others}
        det["suite_bytecode"] = "cached by the environment" if env is None else \
            "PYTHONDONTWRITEBYTECODE unset, PYTHONPYCACHEPREFIX=<tmp>/pycache, filled by a warm-up run"
        if env is not None:  # one quick test: imports the suites, the plugin, the server, xdist's worker side
            det["suite_warmup"] = _pytest(["-n", "1", "-k", "test_no_resource_type_named_finalize"], tmp, env=env)
        with ServerHost(**opts) as sh:
            det["counter"] = sh.counter_how
            target = ["--server", sh.url, "--include-disruptive"] + (["--token", sh.token] if sh.token else [])
            for _ in range(cfg.suite_reps):
                runs["embedded"].append(_pytest([], tmp, env=env))
                runs["embedded_installed"].append(_pytest(plugins, tmp, env=installed_env))
                runs["embedded_xdist"].append(_pytest(["-n", "2"], tmp, env=env))
                c0 = sh.call("count")
                runs["counted"].append(_pytest(target, tmp, env=env))
                counts.append(sh.call("count") - c0)
            # the floor: one sequential request to the same server, same client library as the suite
            lat = probes.requests_latency(sh.url, "/api/v1/namespaces/default", cfg.floor_n, token=sh.token)
        # the same probe against a server in this process (what the suite's embedded mode does: the
        # server thread shares the client's GIL)
        from conformance.reference_server.embedded import start_embedded

        inproc = start_embedded(**opts)
        try:
            lat_in = probes.requests_latency(inproc.url, "/api/v1/namespaces/default", cfg.floor_n,
                                             token=getattr(inproc, "token", None))
        finally:
            inproc.stop()
    med = lambda key, rs: stats.median([r[key] for r in rs if r[key] is not None])  # noqa: E731
    fig["suite_wall_s"] = med("wall_s", runs["embedded"])
    fig["suite_wall_xdist_s"] = med("wall_s", runs["embedded_xdist"])
    fig["suite_wall_installed_s"] = med("wall_s", runs["embedded_installed"])
    fig["suite_wall_counted_s"] = med("wall_s", runs["counted"])
    fig["suite_requests"] = int(stats.median(counts))
    fig["single_request_s"] = stats.median(lat)
    fig["single_request_inproc_s"] = stats.median(lat_in)
    det["suite_runs"] = runs
    det["suite_request_counts"] = counts


# ------------------------------------------------------------------------------------------ cluster-like
CONTROLLER_DELAY = 5.0
"""Seconds the namespace controller waits before each pass (`serve --controller-delay 5`): a real cluster's pace."""
ONE_BUG = "no-default-finalizer"
"""The deviation of the one-bug server: one root cause behind a dozen failing clauses."""
XDIST = 4
_DURATION = re.compile(r"^([0-9.]+)s (setup|call|teardown)\s+(\S+)", re.M)


def _durations(stdout: str) -> dict[str, float]:
    """nodeid -> seconds of its setup and call phases, from `--durations=0 -vv` (a module fixture that
    awaits a shared deletion for several tests does it in the setup of the first)."""
    out: dict[str, float] = {}
    for m in _DURATION.finditer(stdout):
        if m.group(2) in ("setup", "call"):
            out[m.group(3)] = out.get(m.group(3), 0.0) + float(m.group(1))
    return out


def delay_floor(calls: dict[str, float], delay: float, workers: int = 1) -> float:
    """The longest chain of waits a conformant run cannot avoid against a controller that acts `delay` s
    after each change: per test, the whole controller delays its setup and call phases sat through (its waits end
    as soon as the controller acted, so these are the controller's, not the harness's); serially their
    sum, with `workers` at least the sum shared out and at least the longest single test; plus one delay
    for the namespaces deleted at teardown, which can all be awaited at once at session end."""
    chains = [delay * int(t // delay) for t in calls.values()]
    if not chains:
        return delay
    return max(sum(chains) / workers, max(chains)) + delay


def _root_cause_first(stdout: str, root: str) -> bool:
    """Does the console name `root` as the probable root cause before any traceback?"""
    at = stdout.find("nsconform: failing clauses")
    if at < 0:
        return False
    tb = stdout.find("= FAILURES =")
    head = stdout[at:].splitlines()[1] if len(stdout[at:].splitlines()) > 1 else ""
    return (tb < 0 or at < tb) and (f"depend on {root}" in head or f"depends on {root}" in head)


def phase_cluster(cfg: Config, fig: dict[str, Any], det: dict[str, Any]) -> None:
    """The whole suite against a cluster-paced server (`--controller-delay 5`) and against a one-bug server
    (`--deviate no-default-finalizer`), serial and with -n 4, each with its floor."""
    opts = _suite_server_options()
    runs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="nsconform-bench-") as tmp:
        for key, extra in (("delay5", {"controller_delay": CONTROLLER_DELAY}), ("onebug", {"deviations": [ONE_BUG]})):
            with ServerHost(**opts, **extra) as sh:
                target = ["--server", sh.url, "--include-disruptive", "--durations=0", "-vv"] + (
                    ["--token", sh.token] if sh.token else [])
                for suffix, more in (("", []), ("_xdist", ["-n", str(XDIST), "--dist", "loadgroup"])):
                    c0 = sh.call("count")
                    r = _pytest(target + more, tmp, timeout=1800.0, keep_stdout=True)
                    r["requests"] = sh.call("count") - c0
                    out = r.pop("stdout")
                    r["calls"] = _durations(out)
                    # which tests failed (a conformant, only slower server should fail none)
                    r["failed"] = re.findall(r"^FAILED (\S+)", out, re.M)
                    if key == "onebug":
                        r["root_cause_first"] = _root_cause_first(out, "NS-FIN-001")
                        r["console_lines"] = out.count("\n")
                    runs[key + suffix] = r
                    fig[f"suite_{key}{suffix}_s"] = r["wall_s"]
                if key == "onebug":
                    lat = probes.requests_latency(sh.url, "/api/v1/namespaces/default", cfg.floor_n, token=sh.token)
                    single = stats.median(lat)
    serial_calls = runs["delay5"]["calls"]
    fig["suite_delay5_floor_s"] = delay_floor(serial_calls, CONTROLLER_DELAY)
    fig["suite_delay5_xdist_floor_s"] = delay_floor(serial_calls, CONTROLLER_DELAY, XDIST)
    fig["suite_onebug_floor_s"] = runs["onebug"]["requests"] * single
    fig["suite_onebug_xdist_floor_s"] = runs["onebug_xdist"]["requests"] * single / XDIST
    fig["onebug_root_cause_first"] = bool(runs["onebug"].get("root_cause_first"))
    fig["onebug_console_lines"] = runs["onebug"].get("console_lines")
    for r in runs.values():
        r["slowest_calls"] = sorted(r.pop("calls").items(), key=lambda kv: -kv[1])[:10]
    det["cluster_runs"] = runs


# ------------------------------------------------------------------------------------------ throughput
def _load(url: str, pid: int | None, cfg: Config, **spec: Any) -> dict[str, Any]:
    spec = {"url": url, "connections": cfg.connections, "warmup": cfg.tp_warmup, "duration": cfg.tp_duration,
            "client": cfg.py_generator if spec.get("workload") == "get" else "aiohttp", "server_pid": pid, **spec}
    res = run_in_child(loadgen.run_load, spec, timeout=cfg.tp_warmup + cfg.tp_duration + 60)
    if res["errors"] or res["bad"]:
        res["warning"] = f"{res['errors']} connection errors, {res['bad']} unexpected statuses"
    return res


def phase_throughput(cfg: Config, fig: dict[str, Any], det: dict[str, Any], profile_dir: str | None) -> None:
    out: dict[str, Any] = {}
    with ServerHost() as sh:
        c = probes.Http(sh.url)
        for ns in ("bench-tp", "bench-list"):
            c.json("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        for i in range(10):
            c.json("POST", "/api/v1/namespaces/bench-list/configmaps", configmap_body("bench-list", f"cm-{i}"))
        status, ns_body = c.request("GET", "/api/v1/namespaces/bench-tp")
        c.close()
        out["get_body_bytes"] = len(ns_body)
        out["get"] = _load(sh.url, sh.pid, cfg, workload="get", path="/api/v1/namespaces/bench-tp")
        out["create_delete"] = _load(sh.url, sh.pid, cfg, workload="create_delete", ns="bench-tp")
        out["list"] = _load(sh.url, sh.pid, cfg, workload="get", path="/api/v1/namespaces/bench-list/configmaps")
        other = "raw" if cfg.py_generator == "aiohttp" else "aiohttp"
        out["get_" + other] = _load(sh.url, sh.pid, cfg, workload="get", path="/api/v1/namespaces/bench-tp",
                                    client=other)
        if loadgen.wrk_available():
            out["wrk_get"] = loadgen.run_wrk(sh.url + "/api/v1/namespaces/bench-tp", cfg.connections,
                                             int(cfg.tp_duration))
    with CeilingHost(ns_body) as ch:
        out["ceiling"] = _load(ch.url, ch.pid, cfg, workload="get", path="/api/v1/namespaces/bench-tp")
        out["ceiling_" + other] = _load(ch.url, ch.pid, cfg, workload="get", path="/api/v1/namespaces/bench-tp",
                                        client=other)
        if loadgen.wrk_available():
            out["wrk_ceiling"] = loadgen.run_wrk(ch.url + "/x", cfg.connections, int(cfg.tp_duration))
    def setup(sh: ServerHost) -> None:
        c = probes.Http(sh.url)
        c.json("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bench-tp"}})
        c.close()

    spec = {"workload": "get", "path": "/api/v1/namespaces/bench-tp", "client": "raw", "connections": cfg.connections,
            "warmup": 0.5, "duration": cfg.tp_duration}
    out["profile"] = _profiled(profile_dir, "get_namespace.txt", "server loop thread: GET namespace under load "
                               "(raw generator, profiled re-run)",
                               lambda sh: run_in_child(loadgen.run_load, dict(spec, url=sh.url), timeout=120), setup)
    fig["server_rps_get"] = out["get"]["rps"]
    fig["server_rps_create_delete"] = out["create_delete"]["rps"]
    fig["server_rps_list10"] = out["list"]["rps"]
    fig["ceiling_rps_get"] = out["ceiling"]["rps"]
    fig["loadgen_cpu_ceiling"] = out["ceiling"]["loadgen_cpu"]
    fig["loadgen_cpu_get"] = out["get"]["loadgen_cpu"]
    fig["server_cpu_get"] = out["get"]["server_cpu"]
    out["get_" + cfg.py_generator] = out["get"]
    out["ceiling_" + cfg.py_generator] = out["ceiling"]
    det["generator"] = cfg.generator
    if cfg.generator == "wrk" and out.get("wrk_get") and out.get("wrk_ceiling"):
        fig["server_rps_get"] = out["wrk_get"]  # wrk's figures behind the JSON; CPU figures from the raw runs
        fig["ceiling_rps_get"] = out["wrk_ceiling"]
    elif cfg.generator == "wrk":
        det["errors"]["throughput_wrk"] = "wrk gave no figure: server_rps_get/ceiling_rps_get from the raw generator"
    fig["server_rps_get_aiohttp"] = out["get_aiohttp"]["rps"]
    fig["ceiling_rps_get_aiohttp"] = out["ceiling_aiohttp"]["rps"]
    fig["server_ceiling_ratio_aiohttp"] = stats.ratio(out["get_aiohttp"]["rps"], out["ceiling_aiohttp"]["rps"])
    fig["loadgen_cpu_ceiling_aiohttp"] = out["ceiling_aiohttp"]["loadgen_cpu"]
    fig["server_rps_get_raw"] = out["get_raw"]["rps"]
    fig["ceiling_rps_get_raw"] = out["ceiling_raw"]["rps"]
    fig["server_ceiling_ratio_raw"] = stats.ratio(out["get_raw"]["rps"], out["ceiling_raw"]["rps"])
    fig["loadgen_cpu_ceiling_raw"] = out["ceiling_raw"]["loadgen_cpu"]
    fig["server_cpu_get_raw"] = out["get_raw"]["server_cpu"]
    fig["server_us_per_get"] = out["get_raw"]["server_us_per_req"]
    fig["ceiling_us_per_get"] = out["ceiling_raw"]["server_us_per_req"]
    fig["cpu_ceiling_ratio"] = stats.ratio(fig["ceiling_us_per_get"], fig["server_us_per_get"])
    fig["wrk_rps_get"] = out.get("wrk_get")
    fig["wrk_ceiling_rps_get"] = out.get("wrk_ceiling")
    fig["wrk_server_ceiling_ratio"] = stats.ratio(out.get("wrk_get"), out.get("wrk_ceiling"))
    det["throughput"] = out


# ------------------------------------------------------------------------------------------ scaling
def phase_scaling(cfg: Config, fig: dict[str, Any], det: dict[str, Any]) -> None:
    out: dict[str, Any] = {}
    target = "bench-s-00000"
    path = f"/api/v1/namespaces/{target}/configmaps"
    with ServerHost() as sh:
        made = 0
        for size in cfg.scaling_sizes:
            pop_s = 0.0
            while made < size:
                step = min(size - made, 1000)
                r = sh.call("populate", namespaces=[f"bench-s-{i:05d}" for i in range(made, made + step)],
                            per_ns=cfg.per_ns)
                pop_s += r["seconds"]
                made += step
            c = probes.Http(sh.url)
            probes.timed(c, "GET", path, 100)  # warm
            lst = probes.timed(c, "GET", path, cfg.list_n)
            made_names: list[str] = []

            def body(i: int, size: int = size) -> dict[str, Any]:
                made_names.append(f"sc-{size}-{i}")
                return configmap_body(target, made_names[-1])

            def cleanup(i: int) -> None:
                c.request("DELETE", f"{path}/{made_names[-1]}")

            crt = probes.timed(c, "POST", path, cfg.create_n, body_fn=body, expect=201, after=cleanup)
            rv = c.json("GET", path)["metadata"]["resourceVersion"]
            ws = probes.watch_start(sh.url, f"{path}?watch=1&resourceVersion={rv}&timeoutSeconds=5", cfg.watch_n)
            ws0 = probes.watch_start(sh.url, f"{path}?watch=1&timeoutSeconds=5", cfg.watch_n)
            c.close()
            out[size] = {"populate_s": pop_s, "objects": size * cfg.per_ns, "rss_mb": sh.call("rss") / 1024,
                         "list": stats.summarize(lst), "create": stats.summarize(crt),
                         "watch_start_rv": stats.summarize(ws), "watch_start_rv0": stats.summarize(ws0)}
    lo, hi = cfg.scaling_sizes[0], cfg.scaling_sizes[-1]
    fig[f"list_s_{lo}"] = out[lo]["list"]["p50"]
    fig[f"list_s_{hi}"] = out[hi]["list"]["p50"]
    fig["create_scaling_ratio"] = stats.ratio(out[hi]["create"]["p50"], out[lo]["create"]["p50"])
    fig["watch_start_scaling_ratio"] = stats.ratio(out[hi]["watch_start_rv"]["p50"], out[lo]["watch_start_rv"]["p50"])
    det["scaling"] = out


# ------------------------------------------------------------------------------------------ delete
def _profiled(profile_dir: str | None, name: str, title: str, body: Callable[[ServerHost], Any],
              setup: Callable[[ServerHost], Any]) -> str | None:
    """Repeat a measurement on a fresh server with pyinstrument on its loop thread (never the measured
    run: the profiler slows the server several-fold)."""
    if not profile_dir:
        return None
    with ServerHost() as sh:
        setup(sh)
        if not sh.call("profile_start"):
            return None
        body(sh)
        return sh.call("profile_stop", path=os.path.join(profile_dir, name), title=title)


def phase_delete(cfg: Config, fig: dict[str, Any], det: dict[str, Any], profile_dir: str | None) -> None:
    setup = lambda sh: sh.call("populate", namespaces=["bench-del"], per_ns=cfg.delete_n)  # noqa: E731
    body = lambda sh: probes.delete_namespace_until_gone(sh.url, "bench-del", timeout=120)  # noqa: E731
    with ServerHost() as sh:
        pop = setup(sh)
        res = body(sh)
    res["populate_s"] = pop["seconds"]
    res["profile"] = _profiled(profile_dir, "delete_10k.txt", f"server loop thread: delete a namespace of "
                               f"{cfg.delete_n} configmaps (profiled re-run)", body, setup)
    fig["delete_10k_s"] = res["delete_s"]
    fig["delete_stall_ms"] = res["probe_max_ms"]
    det["delete"] = res


def phase_stall(cfg: Config, fig: dict[str, Any], det: dict[str, Any]) -> None:
    """The worst GET /version latency while a custom resource write with a long validation (Go's regexp over
    256 KiB in a CEL rule) runs: `loop_stall_ms` (the write is rehearsed off the loop, http/rehearse.py)."""
    with ServerHost() as sh:
        res = probes.expensive_write_stall(sh.url)
    fig["loop_stall_ms"] = res["probe_max_ms"]
    fig["loop_stall_write_s"] = res["write_s"]
    det["stall"] = res


# ------------------------------------------------------------------------------------------ etcd
def phase_etcd(cfg: Config, fig: dict[str, Any], det: dict[str, Any]) -> None:
    """GET/LIST/create+delete throughput of the etcd-backed server beside the in-memory one (same moment, same
    generator, so the ratio survives a noisy machine), then the 10k-namespace delete on etcd. One private etcd
    (`EtcdProcess`, no fsync) in its own process; each server keeps its keys under its own prefix."""
    from conformance.reference_server.storage.backends import StorageConfig
    from conformance.reference_server.storage.etcdprocess import EtcdProcess

    out: dict[str, Any] = {}
    with EtcdProcess() as etcd:
        for backend, opts in (("memory", {}), ("etcd", {"storage": StorageConfig("etcd", (etcd.url,), "/bench-tp")})):
            with ServerHost(**opts) as sh:
                c = probes.Http(sh.url)
                for ns in ("bench-tp", "bench-list"):
                    c.json("POST", "/api/v1/namespaces",
                           {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
                for i in range(10):
                    c.json("POST", "/api/v1/namespaces/bench-list/configmaps", configmap_body("bench-list", f"cm-{i}"))
                c.close()
                out[backend] = {
                    "get": _load(sh.url, sh.pid, cfg, workload="get", path="/api/v1/namespaces/bench-tp"),
                    "list": _load(sh.url, sh.pid, cfg, workload="get", path="/api/v1/namespaces/bench-list/configmaps"),
                    "create_delete": _load(sh.url, sh.pid, cfg, workload="create_delete", ns="bench-tp")}
        with ServerHost(storage=StorageConfig("etcd", (etcd.url,), "/bench-del")) as sh:
            pop = sh.call("populate", namespaces=["bench-del"], per_ns=cfg.delete_n)
            # the probe watches from the namespace's own RV: write it again so that RV is inside the watch
            # cache's window of 10,000 events (upstream's cacher answers an older one 410, as this one does)
            c = probes.Http(sh.url)
            ns = c.json("GET", "/api/v1/namespaces/bench-del")
            ns["metadata"].setdefault("labels", {})["bench"] = "del"
            c.request("PUT", "/api/v1/namespaces/bench-del", ns)
            c.close()
            cpu0 = (cpu_seconds(sh.pid), cpu_seconds(etcd.proc.pid))
            res = probes.delete_namespace_until_gone(sh.url, "bench-del", timeout=600)
            cpu1 = (cpu_seconds(sh.pid), cpu_seconds(etcd.proc.pid))
    res["populate_s"] = pop["seconds"]
    # CPU per deleted object, server and etcd: steadier than the wall time on a shared machine; on an idle
    # machine the wall time cannot go below (server + etcd CPU) / cores, nor below the server's CPU alone
    # (one GIL), so `etcd_delete_cpu_bound_s` is what these CPU figures allow on this machine's cores
    n = max(1, cfg.delete_n)
    res["server_cpu_ms_per_obj"] = (cpu1[0] - cpu0[0]) / n * 1e3
    res["etcd_cpu_ms_per_obj"] = (cpu1[1] - cpu0[1]) / n * 1e3
    res["cpu_bound_s"] = max(cpu1[0] - cpu0[0], (cpu1[0] - cpu0[0] + cpu1[1] - cpu0[1]) / (os.cpu_count() or 1))
    out["delete"] = res
    fig["etcd_rps_get"] = out["etcd"]["get"]["rps"]
    fig["etcd_memory_rps_get"] = out["memory"]["get"]["rps"]
    fig["etcd_get_ratio"] = stats.ratio(out["etcd"]["get"]["rps"], out["memory"]["get"]["rps"])
    fig["etcd_rps_list10"] = out["etcd"]["list"]["rps"]
    fig["etcd_list10_ratio"] = stats.ratio(out["etcd"]["list"]["rps"], out["memory"]["list"]["rps"])
    fig["etcd_rps_create_delete"] = out["etcd"]["create_delete"]["rps"]
    fig["etcd_memory_rps_create_delete"] = out["memory"]["create_delete"]["rps"]
    fig["etcd_delete_10k_s"] = res["delete_s"]
    fig["etcd_delete_stall_ms"] = res["probe_max_ms"]
    fig["etcd_delete_server_cpu_ms"] = res["server_cpu_ms_per_obj"]
    fig["etcd_delete_etcd_cpu_ms"] = res["etcd_cpu_ms_per_obj"]
    fig["etcd_delete_cpu_bound_s"] = res["cpu_bound_s"]
    det["etcd"] = out


# ------------------------------------------------------------------------------------------ fan-out
def phase_fanout(cfg: Config, fig: dict[str, Any], det: dict[str, Any], profile_dir: str | None) -> None:
    def setup(sh: ServerHost) -> None:
        c = probes.Http(sh.url)
        c.json("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bench-fan"}})
        c.close()

    body = lambda sh: probes.fanout(sh.url, "bench-fan", cfg.fan_watchers, cfg.fan_writes,  # noqa: E731
                                    server_pid=sh.pid)
    with ServerHost() as sh:
        setup(sh)
        res = body(sh)
    res["profile"] = _profiled(profile_dir, "fanout.txt", f"server loop thread: watch fan-out, {cfg.fan_watchers} "
                               f"watchers x {cfg.fan_writes} writes (profiled re-run)", body, setup)
    fig["watch_p50_ms"] = res["p50_ms"]
    fig["watch_p99_ms"] = res["p99_ms"]
    fig["watch_write_ack_ms"] = res["write_ack_p50_ms"]
    fig["watch_last_watcher_ms"] = res["last_watcher_p50_ms"]
    fig["watch_server_cpu_ms_per_write"] = res["server_cpu_ms_per_write"]
    det["fanout"] = res


# ------------------------------------------------------------------------------------------ memory
def phase_memory(cfg: Config, fig: dict[str, Any], det: dict[str, Any]) -> None:
    with ServerHost() as sh:
        r0 = sh.call("rss")
        a = sh.call("populate", namespaces=["bench-mem-a"], per_ns=cfg.mem_n)
        b = sh.call("populate", namespaces=["bench-mem-b"], per_ns=cfg.mem_n)
    per = 10000 / cfg.mem_n / 1024
    cold = (a["rss_kb"] - r0) * per
    steady = (b["rss_kb"] - a["rss_kb"]) * per
    fig["rss_mb_per_10k"] = steady
    fig["rss_mb_per_10k_cold"] = cold
    det["memory"] = {"rss_start_mb": r0 / 1024, "rss_after_first_mb": a["rss_kb"] / 1024,
                     "rss_after_second_mb": b["rss_kb"] / 1024, "n": cfg.mem_n}


# ------------------------------------------------------------------------------------------ output
ROWS: tuple[tuple[str, str], ...] = (
    ("suite_wall_s", "s, pytest subprocess, embedded server, serial"),
    ("suite_wall_xdist_s", "s, same with -n 2"),
    ("suite_wall_installed_s", "s, suite_wall_s with only the plugins `pip install nsconform` brings"),
    ("suite_wall_counted_s", "s, serial against a server process (--server), counted"),
    ("suite_requests", "HTTP requests the suite made (server-side count)"),
    ("single_request_s", "s, median sequential GET namespace (requests.Session)"),
    ("single_request_inproc_s", "s, same, server in the client's process (embedded mode)"),
    ("request_floor_s", "s, suite_requests x single_request_s"),
    ("suite_floor_ratio", "counted wall / floor"),
    ("suite_floor_ratio_embedded", "suite_wall_s / (suite_requests x single_request_inproc_s)"),
    ("server_rps_get", "req/s GET namespace, 32 conns, --generator (default wrk, else raw)"),
    ("server_rps_create_delete", "req/s POST+DELETE configmap"),
    ("server_rps_list10", "req/s list of one namespace (10 configmaps)"),
    ("ceiling_rps_get", "req/s bare aiohttp handler, same body size"),
    ("server_ceiling_ratio", "server GET / ceiling"),
    ("loadgen_cpu_get", "CPU-s/s of the Python generator (raw if wrk) vs server GET"),
    ("loadgen_cpu_ceiling", "CPU-s/s of the Python generator (raw if wrk) vs ceiling (1.0 = generator-bound)"),
    ("server_cpu_get", "CPU-s/s of the server process during GET load"),
    ("server_rps_get_raw", "req/s GET namespace, raw asyncio generator (cross-check)"),
    ("ceiling_rps_get_raw", "req/s ceiling, raw asyncio generator"),
    ("server_ceiling_ratio_raw", "server / ceiling, raw generator"),
    ("server_rps_get_aiohttp", "req/s GET namespace, aiohttp ClientSession generator (cross-check)"),
    ("ceiling_rps_get_aiohttp", "req/s ceiling, aiohttp generator (its own CPU limit on 2 cores)"),
    ("server_ceiling_ratio_aiohttp", "server / ceiling, aiohttp generator (overstated when generator-bound)"),
    ("loadgen_cpu_ceiling_aiohttp", "CPU-s/s of the aiohttp generator vs ceiling"),
    ("loadgen_cpu_ceiling_raw", "CPU-s/s of the raw generator vs ceiling"),
    ("server_cpu_get_raw", "CPU-s/s of the server under the raw generator"),
    ("server_us_per_get", "server CPU us per GET namespace (raw generator run)"),
    ("ceiling_us_per_get", "ceiling CPU us per GET (raw generator run)"),
    ("cpu_ceiling_ratio", "ceiling us / server us: the ratio robust to CPU contention"),
    ("wrk_rps_get", "req/s GET namespace by wrk (if installed)"),
    ("wrk_ceiling_rps_get", "req/s ceiling by wrk"),
    ("wrk_server_ceiling_ratio", "server / ceiling by wrk"),
    ("list_s_10", "s, median list of 10 configmaps, store of 10 namespaces x 10"),
    ("list_s_10000", "s, same, store of 10,000 namespaces x 10"),
    ("list_scaling_ratio", "t(10,000) / t(10)"),
    ("create_scaling_ratio", "create configmap, t(10,000) / t(10)"),
    ("watch_start_scaling_ratio", "watch start (rv=list rv), t(10,000) / t(10)"),
    ("delete_10k_s", "s, DELETE namespace of 10,000 configmaps -> watch DELETED"),
    ("delete_stall_ms", "ms, worst GET /version latency while the namespace was deleted"),
    ("loop_stall_ms", "ms, worst GET /version latency while a custom resource's CEL rule ran Go's regexp on 256 KiB"),
    ("loop_stall_write_s", "s, that custom resource's POST"),
    ("watch_write_ack_ms", "ms, p50 POST configmap latency with 100 watchers open"),
    ("watch_p50_ms", "ms, write ack -> event at watcher, 100 watchers"),
    ("watch_p99_ms", "ms, p99 of the same"),
    ("watch_last_watcher_ms", "ms, p50 over writes of the slowest watcher (steadier than p99)"),
    ("watch_server_cpu_ms_per_write", "ms server CPU per write fanned out to 100 watchers"),
    ("rss_mb_per_10k", "MB RSS per 10,000 configmaps (history already full)"),
    ("rss_mb_per_10k_cold", "MB, first 10,000 into a fresh server (incl. watch history copies)"),
    ("suite_delay5_s", "s, whole suite, serial, --server with controller delay 5 s (--only cluster)"),
    ("suite_delay5_floor_s", "s, its floor: the controller delays a conformant run must sit through"),
    ("suite_delay5_xdist_s", f"s, same with -n {XDIST}"),
    ("suite_delay5_xdist_floor_s", f"s, its floor with {XDIST} workers"),
    ("suite_onebug_s", f"s, whole suite, serial, --server with --deviate {ONE_BUG}"),
    ("suite_onebug_floor_s", "s, its floor: requests x single_request_s (no controller delay)"),
    ("suite_onebug_xdist_s", f"s, same with -n {XDIST}"),
    ("suite_onebug_xdist_floor_s", f"s, its floor with {XDIST} workers"),
    ("onebug_root_cause_first", "console names NS-FIN-001 as root cause before any traceback"),
    ("onebug_console_lines", "lines of console output of the serial one-bug run (-vv --durations=0)"),
    ("etcd_rps_get", "req/s GET namespace, etcd-backed server (--only etcd; same generator as the next)"),
    ("etcd_memory_rps_get", "req/s GET namespace, in-memory server, same phase"),
    ("etcd_get_ratio", "etcd / memory GET throughput (reads come from the watch cache)"),
    ("etcd_rps_list10", "req/s list of 10 configmaps, etcd-backed"),
    ("etcd_list10_ratio", "etcd / memory list throughput"),
    ("etcd_rps_create_delete", "req/s POST + DELETE configmap, etcd-backed (etcd without fsync)"),
    ("etcd_memory_rps_create_delete", "req/s POST + DELETE configmap, in-memory, same phase"),
    ("etcd_delete_10k_s", "s, DELETE namespace of 10,000 configmaps on etcd -> watch DELETED"),
    ("etcd_delete_stall_ms", "ms, worst GET /version latency during that delete"),
    ("etcd_delete_server_cpu_ms", "ms server CPU per deleted object (all threads; load-independent)"),
    ("etcd_delete_etcd_cpu_ms", "ms etcd CPU per deleted object (gRPC or JSON gateway, raft, watch)"),
    ("etcd_delete_cpu_bound_s", "s, the delete's floor on these cores: max(server CPU, (server+etcd CPU)/cores)"),
    ("replicas_rps_get_1", "req/s GET namespace, one etcd-backed server (--only replicas)"),
    ("replicas_rps_get_3", "req/s GET namespace, three servers on the same etcd, one generator each (wrk if on PATH)"),
    ("replicas_get_ratio", "three replicas / one (reads; bounded by the cores the generators leave)"),
    ("replicas_server_us_per_get", "µs server CPU per GET, one replica (what extrapolates to more cores)"),
    ("replicas_rps_get_1_wrk", "req/s GET namespace, one replica, one wrk (1 thread, 32 conns)"),
    ("replicas_rps_get_3_wrk", "req/s GET namespace, three replicas, one wrk each (1 thread, 11 conns)"),
    ("replicas_get_ratio_wrk", "three replicas / one, wrk"),
    ("replicas_get_ratio_cpu_bound_wrk", "the ratio an idle machine with these cores allows, from CPU per request"),
    ("replicas_loadgen_cpu_1_wrk", "CPU-s/s of the one wrk process"),
    ("replicas_server_cpu_1_wrk", "CPU-s/s of the one replica during its wrk run (1.0 = a core: saturated)"),
    ("replicas_server_cpu_3_wrk", "CPU-s/s of the three replicas together during the wrk run"),
    ("replicas_loadgen_cpu_3_wrk", "CPU-s/s of the three wrk processes together (the generators' share)"),
    ("replicas_rps_get_1_raw", "req/s GET namespace, one replica, raw Python generator (cross-check)"),
    ("replicas_rps_get_3_raw", "req/s GET namespace, three replicas, raw generator each"),
    ("replicas_get_ratio_raw", "three replicas / one, raw generators (they eat the cores)"),
    ("replicas_get_ratio_cpu_bound_raw", "the ratio an idle machine allows with the raw generators"),
    ("replicas_server_cpu_1_raw", "CPU-s/s of the one replica during the raw run"),
    ("replicas_loadgen_cpu_1_raw", "CPU-s/s of the one raw generator"),
    ("replicas_server_cpu_3_raw", "CPU-s/s of the three replicas together during the raw run"),
    ("replicas_loadgen_cpu_3_raw", "CPU-s/s of the three raw generators together"),
    ("replicas_rps_get_1_cached_wrk", "req/s GET ?resourceVersion=0 (watch cache, no etcd read), one replica, wrk"),
    ("replicas_rps_get_3_cached_wrk", "req/s GET ?resourceVersion=0, three replicas, one wrk each"),
    ("replicas_get_ratio_cached_wrk", "three replicas / one, cache-served reads (wrk)"),
    ("replicas_get_ratio_cpu_bound_cached_wrk", "the ratio an idle machine allows for cache-served reads"),
)


def warnings(fig: dict[str, Any], det: dict[str, Any] | None = None) -> list[str]:
    """Figures that should not be trusted as measured."""
    out = []
    seen: set[int] = set()
    for name, run in ((det or {}).get("throughput") or {}).items():
        if not isinstance(run, dict) or "loadgen_cpu" not in run or run.get("server_cpu") is None or id(run) in seen:
            continue
        seen.add(id(run))
        busy = max(run["loadgen_cpu"], run["server_cpu"])
        if busy < 0.8:
            out.append(f"throughput run {name!r}: neither the generator ({run['loadgen_cpu']:.2f}) nor the server "
                       f"({run['server_cpu']:.2f} CPU-s/s) was saturated: CPU taken by other processes, rps too low")
    ratio = fig.get("server_ceiling_ratio")
    raw = fig.get("server_ceiling_ratio_raw")
    gen_cpu = fig.get("loadgen_cpu_ceiling")
    if (det or {}).get("generator") == "wrk":
        gen_cpu = None  # the JSON ratio is wrk's; the Python generators' CPU does not bound it
    if ratio is not None and gen_cpu is not None and gen_cpu >= 0.85:
        out.append(f"the load generator used {gen_cpu:.2f} CPU-s/s against the ceiling: ceiling_rps_get is the "
                   "generator's limit, so server_ceiling_ratio is overstated"
                   + (f" (raw generator: {raw:.2f})" if raw is not None else ""))
    elif ratio is not None and raw is not None and abs(ratio - raw) > 0.15:
        out.append(f"server_ceiling_ratio {ratio:.2f} disagrees with the raw generator's {raw:.2f}: CPU contention "
                   "from other processes or a saturated generator; trust the raw/wrk figures")
    load = os.getloadavg()[0]
    if load > 1.5:
        out.append(f"load average {load:.2f} on {os.cpu_count()} CPUs: other processes were running, figures are noisy")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one suite run each, 3 s load runs (under 2 minutes)")
    ap.add_argument("--only", default="", help=f"comma-separated phases to run ({', '.join(PHASES)})")
    ap.add_argument("--skip", default="", help="comma-separated phases to skip")
    ap.add_argument("--generator", choices=("auto", "wrk", "raw", "aiohttp"), default="auto",
                    help="client behind server_rps_get/ceiling_rps_get: 'auto' (default) = wrk if on PATH, else "
                         "'raw' (bare asyncio protocols); both saturate the server before themselves on 2 cores. "
                         "'aiohttp' (ClientSession) saturates its own core first (~12,000 req/s): it measures the "
                         "generator, not the ceiling. The raw and aiohttp runs always run too, as cross-checks")
    ap.add_argument("--duration", type=float, default=None, help="seconds per load run (default 3 quick, 10 full)")
    ap.add_argument("--profile-dir", default=None,
                    help="write pyinstrument profiles of the server thread (delete, fan-out) here (needs pyinstrument)")
    ap.add_argument("--prelude", default=None, metavar="MODULE:FUNCTION",
                    help="call this in every server process before it starts (try a server fix without editing it)")
    ap.add_argument("--details", default=None, metavar="FILE", help="write every measurement as JSON to FILE")
    args = ap.parse_args(argv)
    cfg = Config(args.quick, args.duration, args.generator)
    ServerHost.prelude = args.prelude
    only = [p for p in args.only.split(",") if p]
    skip = set(p for p in args.skip.split(",") if p)
    for p in [*only, *skip]:
        if p not in PHASES:
            ap.error(f"unknown phase {p!r}")
    if args.profile_dir:
        os.makedirs(args.profile_dir, exist_ok=True)
    fig: dict[str, Any] = {}
    det: dict[str, Any] = {"machine": machine(), "mode": "quick" if args.quick else "full", "errors": {},
                           "prelude": args.prelude}
    phases = {
        "suite": lambda: phase_suite(cfg, fig, det),
        "throughput": lambda: phase_throughput(cfg, fig, det, args.profile_dir),
        "fanout": lambda: phase_fanout(cfg, fig, det, args.profile_dir),
        "delete": lambda: phase_delete(cfg, fig, det, args.profile_dir),
        "stall": lambda: phase_stall(cfg, fig, det),
        "scaling": lambda: phase_scaling(cfg, fig, det),
        "memory": lambda: phase_memory(cfg, fig, det),
        "cluster": lambda: phase_cluster(cfg, fig, det),
        "etcd": lambda: phase_etcd(cfg, fig, det),
        "replicas": lambda: phase_replicas(cfg, fig, det),
    }
    t_all = time.perf_counter()
    det["phase_s"] = {}
    for name in PHASES:
        if (only and name not in only) or name in skip or (not only and name in DEFAULT_SKIP):
            continue
        t = time.perf_counter()
        print(f"[bench] {name} ...", file=sys.stderr, flush=True)
        try:
            phases[name]()
        except Exception as exc:  # keep going; the figure stays null
            det["errors"][name] = f"{type(exc).__name__}: {exc}"
            print(f"[bench] {name} FAILED: {exc}\n{traceback.format_exc()}", file=sys.stderr, flush=True)
        det["phase_s"][name] = round(time.perf_counter() - t, 2)
    stats.derive(fig)
    det["total_s"] = round(time.perf_counter() - t_all, 2)
    det["loadavg_end"] = os.getloadavg()
    det["figures"] = fig
    m = det["machine"]
    print(f"nsconform benchmarks ({det['mode']}) - {m['date']} - {m['nproc']} CPU {m['cpu']} - Python {m['python']}"
          f" - aiohttp {m['aiohttp']}"
          f" - load avg {m['loadavg'][0]:.2f} -> {det['loadavg_end'][0]:.2f} - {det['total_s']} s"
          + (f" - PRELUDE {args.prelude} (patched server)" if args.prelude else ""))
    print(stats.format_table([(k, fig.get(k), note) for k, note in ROWS]))
    for name, err in det["errors"].items():
        print(f"phase {name} failed: {err}")
    if "delete" in det:
        d = det["delete"]
        print(f"delete: DELETE acknowledged in {d['delete_ack_s'] * 1e3:.1f} ms, gone after {d['delete_s']:.2f} s "
              f"({d['watch_events']} watch events); GET /version meanwhile: {d['probe_requests']} requests, "
              f"p50 {d['probe_p50_ms']:.2f} ms, max {d['probe_max_ms']:.0f} ms")
    if "stall" in det:
        st = det["stall"]
        print(f"stall: custom resource POST (CEL find over 256 KiB) {st['write_s']:.2f} s; GET /version meanwhile: "
              f"{st['probe_requests']} requests, p50 {st['probe_p50_ms']:.2f} ms, max {st['probe_max_ms']:.0f} ms")
    if "fanout" in det:
        f = det["fanout"]
        print(f"fan-out: {f['writes']} writes x {f['watchers']} watchers, {f['samples']} samples, missing "
              f"{f['missing']}; min {f['min_ms']:.2f} ms, max {f['max_ms']:.2f} ms, write ack p50 "
              f"{f['write_ack_p50_ms']:.2f} ms, slowest watcher per write p50 {f['last_watcher_p50_ms']:.2f} ms, "
              f"client callback time {f['client_cb_ms_per_write']:.2f} ms per write")
    if "scaling" in det:
        for size, s in det["scaling"].items():
            print(f"scaling {size:>6} ns x 10: list p50 {s['list']['p50'] * 1e3:.3f} ms, create p50 "
                  f"{s['create']['p50'] * 1e3:.3f} ms, watch start (rv) p50 {s['watch_start_rv']['p50'] * 1e3:.3f} ms,"
                  f" (rv=0) {s['watch_start_rv0']['p50'] * 1e3:.3f} ms, RSS {s['rss_mb']:.0f} MB,"
                  f" populate {s['populate_s']:.1f} s")
    for k, r in (det.get("cluster_runs") or {}).items():
        print(f"cluster {k}: {r['wall_s']:.1f} s wall, exit {r['exit']}, {r['summary']}, {r['requests']} requests"
              + (f", root cause first: {r['root_cause_first']}" if "root_cause_first" in r else "")
              + (f"; failed: {', '.join(n.split('::', 1)[-1] for n in r['failed'][:5])}"
                 if r.get("failed") and not k.startswith("onebug") else "")
              + "; slowest calls: " + ", ".join(f"{n.split('::', 1)[-1]} {t:.1f} s" for n, t in r["slowest_calls"][:3]))
    if "suite_runs" in det:
        for k, rs in det["suite_runs"].items():
            print(f"suite {k}: " + "; ".join(f"{r['wall_s']:.2f} s wall, pytest {r['pytest_s']} s, exit {r['exit']}, "
                                             f"{r['summary']}" for r in rs))
    for w in warnings(fig, det):
        print(f"WARNING: {w}")
    if args.details:
        with open(args.details, "w", encoding="utf-8") as fh:
            json.dump(det, fh, indent=2, default=str)
    print(stats.final_json(fig))
    return 0


if __name__ == "__main__":
    sys.exit(main())

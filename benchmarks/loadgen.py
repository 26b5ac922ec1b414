"""Closed-loop HTTP load generator: asyncio + aiohttp, N keep-alive connections, fixed duration.

`run_load(spec)` is meant to run in its own process (`procs.run_in_child`) so that it never shares a
CPU/GIL with the server it measures. Each of `connections` workers sends one request, waits for the
whole response, sends the next; requests completed during the warm-up are not counted. It reports its
own CPU use: a generator near 1.0 CPU-seconds per second is saturated, and then the rps it reports is
the generator's limit, not the server's.

Workloads:
  get            GET `path`
  create_delete  POST a configmap into namespace `ns`, then DELETE it (both requests counted)
"""
from __future__ import annotations

import asyncio
import json
import resource
import shutil
import subprocess
import time
from typing import Any

MAX_DURATION = 120.0


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _server_cpu(spec: dict[str, Any]) -> float:
    from .procs import cpu_seconds

    pid = spec.get("server_pid")
    return cpu_seconds(pid) if pid else float("nan")


def _server_figures(spec: dict[str, Any], s0: float, s1: float, elapsed: float, ok: int) -> dict[str, float]:
    """The server's CPU-s/s during the window and its CPU µs per completed request (robust to other
    processes stealing CPU, unlike requests/s)."""
    used = s1 - s0
    return {"server_cpu": used / elapsed if elapsed > 0 else float("nan"),
            "server_us_per_req": used / ok * 1e6 if ok else float("nan")}


async def _counted_window(state: dict[str, Any], spec: dict[str, Any], warmup: float,
                          duration: float) -> tuple[float, float, float, float]:
    """Let the generator warm up, then count `duration` seconds of completions (the workers look at
    `state["counting"]`): (elapsed, generator CPU s, server CPU s at start, at end)."""
    await asyncio.sleep(warmup)
    state["counting"] = True
    t0, c0, s0 = time.perf_counter(), _cpu(), _server_cpu(spec)
    await asyncio.sleep(duration)
    state["counting"] = False
    t1, c1, s1 = time.perf_counter(), _cpu(), _server_cpu(spec)
    return t1 - t0, c1 - c0, s0, s1


def _window_figures(spec: dict[str, Any], state: dict[str, Any], window: tuple[float, float, float, float],
                    **about: Any) -> dict[str, Any]:
    """Throughput, latency and CPU of a counted window, after `about` (workload, client, connections)."""
    elapsed, loadgen_cpu_s, s0, s1 = window
    lat = sorted(state["lat"])
    return {**_server_figures(spec, s0, s1, elapsed, state["ok"]), **about,
            "seconds": elapsed, "ok": state["ok"], "bad": state["bad"], "errors": state["errors"],
            "rps": state["ok"] / elapsed if elapsed > 0 else 0.0,
            "loadgen_cpu": loadgen_cpu_s / elapsed if elapsed > 0 else float("nan"),
            "lat_p50_ms": lat[len(lat) // 2] * 1e3 if lat else float("nan"),
            "lat_p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1e3 if lat else float("nan")}


async def _run(spec: dict[str, Any]) -> dict[str, Any]:
    import aiohttp

    base = spec["url"].rstrip("/")
    kind = spec["workload"]
    conns = int(spec.get("connections", 32))
    warmup = float(spec.get("warmup", 1.0))
    duration = min(float(spec.get("duration", 3.0)), MAX_DURATION)
    state = {"counting": False, "ok": 0, "bad": 0, "errors": 0, "lat": []}
    sample_every = int(spec.get("sample_every", 10))
    stop_at = time.monotonic() + warmup + duration

    connector = aiohttp.TCPConnector(limit=conns, force_close=False, ttl_dns_cache=None)
    timeout = aiohttp.ClientTimeout(total=10)

    async with aiohttp.ClientSession(connector=connector, timeout=timeout, skip_auto_headers=("User-Agent",)) as s:
        async def one(method: str, url: str, body: bytes | None, expect: tuple[int, ...]) -> None:
            t = time.perf_counter()
            try:
                async with s.request(method, url, data=body,
                                     headers={"Content-Type": "application/json"} if body else None) as r:
                    await r.read()
                    good = r.status in expect
            except (aiohttp.ClientError, asyncio.TimeoutError):
                state["errors"] += 1
                return
            if state["counting"]:
                if good:
                    state["ok"] += 1
                else:
                    state["bad"] += 1
                if (state["ok"] + state["bad"]) % sample_every == 0:
                    state["lat"].append(time.perf_counter() - t)

        async def worker(wid: int) -> None:
            i = 0
            while time.monotonic() < stop_at and state["errors"] < 1000:
                if kind == "get":
                    await one("GET", base + spec["path"], None, (200,))
                elif kind == "create_delete":
                    ns = spec["ns"]
                    name = f"lg-{wid}-{i}"
                    body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                                       "metadata": {"name": name, "labels": {"app": "nsconform-bench"}},
                                       "data": {"k": "v" * 64}}).encode()
                    await one("POST", f"{base}/api/v1/namespaces/{ns}/configmaps", body, (201,))
                    await one("DELETE", f"{base}/api/v1/namespaces/{ns}/configmaps/{name}", None, (200,))
                else:
                    raise ValueError(f"unknown workload {kind!r}")
                i += 1

        tasks = [asyncio.create_task(worker(w)) for w in range(conns)]
        window = await _counted_window(state, spec, warmup, duration)
        done, pending = await asyncio.wait(tasks, timeout=15)
        for t in pending:
            t.cancel()
    return _window_figures(spec, state, window, workload=kind, connections=conns)


class _RawConn(asyncio.Protocol):
    """One keep-alive connection of the raw generator: resend `req` as soon as a response is complete."""

    def __init__(self, req: bytes, st: dict[str, Any], stop_at: float, done: asyncio.Future):
        self.req, self.st, self.stop_at, self.done = req, st, stop_at, done
        self.buf = bytearray()
        self.need = -1
        self.good = False
        self.t = 0.0
        self.tr: Any = None

    def connection_made(self, transport: Any) -> None:
        self.tr = transport
        self.t = time.perf_counter()
        transport.write(self.req)

    def data_received(self, data: bytes) -> None:
        self.buf += data
        for _ in range(100000):  # each pass consumes one response from the buffer or returns
            if self.need < 0:
                i = self.buf.find(b"\r\n\r\n")
                if i < 0:
                    return
                head = bytes(self.buf[:i]).lower()
                j = head.find(b"\r\ncontent-length:")
                if j < 0:  # chunked or close-delimited: not supported by this generator
                    self._finish(error=True)
                    return
                k = head.find(b"\r\n", j + 2)
                self.need = int(head[j + 17:k if k > 0 else len(head)])
                self.good = head[9:12] == b"200"
                del self.buf[:i + 4]
            if len(self.buf) < self.need:
                return
            del self.buf[:self.need]
            self.need = -1
            st = self.st
            if st["counting"]:
                st["ok" if self.good else "bad"] += 1
                if (st["ok"] + st["bad"]) % 10 == 0:
                    st["lat"].append(time.perf_counter() - self.t)
            if time.monotonic() >= self.stop_at:
                self._finish()
                return
            self.t = time.perf_counter()
            self.tr.write(self.req)

    def _finish(self, error: bool = False) -> None:
        if error:
            self.st["errors"] += 1
        self.tr.close()
        if not self.done.done():
            self.done.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.st["errors"] += 1 if exc else 0
            self.done.set_result(None)


async def _run_raw(spec: dict[str, Any]) -> dict[str, Any]:
    """GET-only generator on bare asyncio protocols (no HTTP client library): a cross-check showing
    whether the aiohttp generator, not the server, limits a figure."""
    from urllib.parse import urlsplit

    if spec["workload"] != "get":
        raise ValueError("the raw generator only does GET")
    u = urlsplit(spec["url"])
    conns = int(spec.get("connections", 32))
    warmup = float(spec.get("warmup", 1.0))
    duration = min(float(spec.get("duration", 3.0)), MAX_DURATION)
    accept = spec.get("accept", "application/json")
    req = (f"GET {spec['path']} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nAccept: {accept}\r\n\r\n").encode()
    st: dict[str, Any] = {"counting": False, "ok": 0, "bad": 0, "errors": 0, "lat": []}
    loop = asyncio.get_running_loop()
    stop_at = time.monotonic() + warmup + duration
    dones = []
    for _ in range(conns):
        fut = loop.create_future()
        await loop.create_connection(lambda f=fut: _RawConn(req, st, stop_at, f), u.hostname, u.port)
        dones.append(fut)
    window = await _counted_window(st, spec, warmup, duration)
    await asyncio.wait(dones, timeout=15)
    return _window_figures(spec, st, window, workload="get", client="raw", connections=conns)


def run_load(spec: dict[str, Any]) -> dict[str, Any]:
    """Entry point for the child process (`spec["client"]`: "aiohttp", the default, or "raw")."""
    if spec.get("client") == "raw":
        return asyncio.run(_run_raw(spec))
    return asyncio.run(_run(spec))


def wrk_available() -> str | None:
    return shutil.which("wrk")


def run_wrk(url: str, connections: int = 32, duration: int = 3, threads: int = 1) -> float | None:
    """Requests/s as measured by wrk (optional cross-check of the generator); None without wrk."""
    exe = wrk_available()
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, f"-t{threads}", f"-c{connections}", f"-d{duration}s", url],
                             capture_output=True, text=True, timeout=duration + 30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in out.splitlines():
        if line.startswith("Requests/sec:"):
            return float(line.split()[1])
    return None


def run_wrk_many(urls: list[str], connections: int, duration: int, server_pids: list[int | None] | None = None,
                 threads: int = 1) -> list[dict[str, Any]]:
    """One wrk per URL, all started at once (the replicas phase: one generator per replica, the same closed loop
    as `run_wrk`); per URL: requests/s, non-2xx responses, socket errors and the server's CPU over the run
    (`server_pids[i]`, from /proc) and the CPU-s/s of all the wrk processes together (`loadgen_cpu_all`, from
    the finished children's rusage: the caller must not reap other children meanwhile). Empty without wrk."""
    import re

    from .procs import cpu_seconds

    exe = wrk_available()
    if exe is None:
        return []
    pids = list(server_pids or [None] * len(urls))
    s0 = [cpu_seconds(p) if p else float("nan") for p in pids]
    w0 = resource.getrusage(resource.RUSAGE_CHILDREN)  # the wrk processes, once waited for
    t0 = time.perf_counter()
    procs = [subprocess.Popen([exe, f"-t{threads}", f"-c{connections}", f"-d{duration}s", u],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for u in urls]
    outs = []
    for p in procs:
        try:
            outs.append(p.communicate(timeout=duration + 30)[0])
        except subprocess.TimeoutExpired:
            p.kill()
            outs.append(p.communicate()[0])
    elapsed = time.perf_counter() - t0
    s1 = [cpu_seconds(p) if p else float("nan") for p in pids]
    w1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    wrk_cpu = (w1.ru_utime + w1.ru_stime - w0.ru_utime - w0.ru_stime) / elapsed if elapsed > 0 else float("nan")
    res = []
    for u, out, a, b in zip(urls, outs, s0, s1):
        rps = re.search(r"^Requests/sec:\s+([\d.]+)", out, re.M)
        total = re.search(r"^\s*(\d+) requests in", out, re.M)
        bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
        errs = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
        n = int(total.group(1)) if total else 0
        res.append({"url": u, "client": "wrk", "connections": connections, "seconds": elapsed,
                    "rps": float(rps.group(1)) if rps else None, "requests": n,
                    "bad": int(bad.group(1)) if bad else 0,
                    "errors": sum(int(x) for x in errs.groups()) if errs else 0,
                    "server_cpu": (b - a) / elapsed if elapsed > 0 else float("nan"),
                    "loadgen_cpu_all": wrk_cpu,
                    "server_us_per_req": (b - a) / n * 1e6 if n else float("nan")})
    return res

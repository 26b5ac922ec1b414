"""Client-side probes against a running server: sequential latency, watch start, deletion, fan-out.

Latency probes use `http.client` (stdlib, one keep-alive connection, little client overhead); the
fan-out probe uses raw asyncio protocols so that 100 watch streams cost the client only a substring
search per chunk. Every loop is bounded by a count and a deadline.
"""
from __future__ import annotations

import asyncio
import http.client
import json
import time
from typing import Any
from urllib.parse import urlsplit

from .procs import configmap_body
from .stats import percentile


class Http:
    """One keep-alive HTTP/1.1 connection (reconnects when the server closes it)."""

    def __init__(self, url: str, timeout: float = 30.0):
        u = urlsplit(url)
        self.host, self.port = u.hostname or "127.0.0.1", u.port or 80
        self.timeout = timeout
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                r = self.conn.getresponse()
                return r.status, r.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def json(self, method: str, path: str, body: Any = None, expect: tuple[int, ...] = (200, 201)) -> dict:
        status, raw = self.request(method, path, body)
        if status not in expect:
            raise RuntimeError(f"{method} {path}: {status} {raw[:300]!r}")
        return json.loads(raw)

    def close(self) -> None:
        self.conn.close()


def timed(client: Http, method: str, path: str, n: int, *, body_fn: Any = None, expect: int = 200,
          max_s: float = 30.0, after: Any = None) -> list[float]:
    """Latencies (s) of `n` sequential requests (stops early after `max_s`); `after(i)` runs untimed."""
    out: list[float] = []
    stop = time.monotonic() + max_s
    for i in range(n):
        if time.monotonic() > stop:
            break
        body = body_fn(i) if body_fn else None
        t = time.perf_counter()
        status, raw = client.request(method, path, body)
        dt = time.perf_counter() - t
        if status != expect:
            raise RuntimeError(f"{method} {path}: {status} {raw[:300]!r}")
        out.append(dt)
        if after:
            after(i)
    return out


def requests_latency(url: str, path: str, n: int, max_s: float = 30.0, token: str | None = None) -> list[float]:
    """Sequential GET latencies with `requests.Session` — the client library the suite itself uses."""
    import requests

    out: list[float] = []
    stop = time.monotonic() + max_s
    with requests.Session() as s:
        if token:
            s.headers["Authorization"] = f"Bearer {token}"
        s.get(url + path, timeout=10)  # connect + warm
        for _ in range(n):
            if time.monotonic() > stop:
                break
            t = time.perf_counter()
            r = s.get(url + path, timeout=10)
            r.content
            out.append(time.perf_counter() - t)
            if r.status_code != 200:
                raise RuntimeError(f"GET {path}: {r.status_code}")
    return out


def watch_start(url: str, path: str, n: int, max_s: float = 30.0) -> list[float]:
    """Time from sending a watch request (on an open connection) to its 200 headers; `n` times."""
    u = urlsplit(url)
    out: list[float] = []
    stop = time.monotonic() + max_s
    for _ in range(n):
        if time.monotonic() > stop:
            break
        c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
        c.connect()
        t = time.perf_counter()
        c.request("GET", path, headers={"Accept": "application/json"})
        r = c.getresponse()
        dt = time.perf_counter() - t
        c.close()
        if r.status != 200:
            raise RuntimeError(f"watch {path}: {r.status}")
        out.append(dt)
    return out


class StallProbe:
    """A thread sending GET /version every `every` s; the worst latency shows how long the server's loop
    was blocked (e.g. by synchronous controller work)."""

    def __init__(self, url: str, every: float = 0.005, max_s: float = 180.0):
        import threading

        self.url, self.every, self.max_s = url, every, max_s
        self.lat: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="nsconform-bench-stall")

    def _run(self) -> None:
        c = Http(self.url, timeout=60)
        end = time.monotonic() + self.max_s
        try:
            while not self._stop.is_set() and time.monotonic() < end and len(self.lat) < 100000:
                t = time.perf_counter()
                c.request("GET", "/version")
                self.lat.append(time.perf_counter() - t)
                self._stop.wait(self.every)
        finally:
            c.close()

    def __enter__(self) -> "StallProbe":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread.ident is not None:
            self._thread.join(70)

    def summary(self) -> dict[str, float]:
        return {"probe_requests": len(self.lat), "probe_max_ms": max(self.lat) * 1e3 if self.lat else float("nan"),
                "probe_p50_ms": percentile(self.lat, 50) * 1e3}


def delete_namespace_until_gone(url: str, ns: str, timeout: float = 120.0) -> dict[str, float]:
    """DELETE a namespace and time until a watch (opened before) reports DELETED for it; meanwhile a
    `StallProbe` measures how long other clients wait."""
    client = Http(url, timeout=timeout)
    probe = StallProbe(url)
    try:
        # list-then-watch: the list's resourceVersion, not the object's (after 10,000 writes the object's own
        # version may be older than the server keeps history for, and the watch would end at once in a 410)
        listed = client.json("GET", f"/api/v1/namespaces?fieldSelector=metadata.name%3D{ns}")
        if not listed.get("items"):
            raise RuntimeError(f"namespace {ns} not found")
        rv = listed["metadata"]["resourceVersion"]
        u = urlsplit(url)
        w = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
        w.request("GET", f"/api/v1/namespaces?watch=1&fieldSelector=metadata.name%3D{ns}&resourceVersion={rv}"
                         f"&timeoutSeconds={int(timeout) + 10}", headers={"Accept": "application/json"})
        resp = w.getresponse()
        if resp.status != 200:
            raise RuntimeError(f"watch: {resp.status}")
        probe.__enter__()
        t0 = time.perf_counter()
        status, raw = client.request("DELETE", f"/api/v1/namespaces/{ns}")
        t_ack = time.perf_counter()
        if status not in (200, 202):
            raise RuntimeError(f"DELETE namespace: {status} {raw[:200]!r}")
        deadline = time.monotonic() + timeout
        events = 0
        t_gone = None
        while time.monotonic() < deadline and events < 10000:
            line = resp.readline()
            if not line:
                break
            events += 1
            if b'"type":"ERROR"' in line:
                raise RuntimeError(f"watch of namespace {ns} ended: {line[:300]!r}")
            if b'"type":"DELETED"' in line:
                t_gone = time.perf_counter()
                break
        w.close()
        probe.__exit__()
        if t_gone is None:
            raise RuntimeError(f"namespace {ns} not gone within {timeout}s ({events} watch events)")
        return {"delete_s": t_gone - t0, "delete_ack_s": t_ack - t0, "watch_events": events, **probe.summary()}
    finally:
        probe.__exit__()
        client.close()


# ---------------------------------------------------------------------------------------- loop stall
STALL_GROUP = "stall.bench.example.com"
STALL_RULE = "self.s.find('a(a|b){14}c') == ''"  # Go's regexp over a random a/b string: its DFA outgrows its cache


def expensive_write_stall(url: str, size: int = 256 * 1024, timeout: float = 120.0) -> dict[str, float]:
    """POST a custom resource whose CEL rule runs Go's regexp `find` over a `size`-byte random a/b string (about a
    second of CPU in Python); meanwhile a `StallProbe` measures how long other clients wait (`loop_stall_ms`)."""
    import random

    client = Http(url, timeout=timeout)
    try:
        client.json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"gadgets.{STALL_GROUP}"},
            "spec": {"group": STALL_GROUP, "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "properties": {"spec": {
                             "type": "object", "properties": {"s": {"type": "string", "maxLength": 2 * size}},
                             "x-kubernetes-validations": [{"rule": STALL_RULE}]}}}}}]}})
        client.json("POST", "/api/v1/namespaces", {"metadata": {"name": "bench-stall"}})
        path = f"/apis/{STALL_GROUP}/v1/namespaces/bench-stall/gadgets"
        deadline = time.monotonic() + 30
        while client.request("GET", path)[0] != 200:  # served once the CRD is established
            if time.monotonic() > deadline:
                raise RuntimeError("the CRD's resources were not served within 30 s")
            time.sleep(0.05)
        rng = random.Random(1)
        value = "".join(rng.choice("ab") for _ in range(size))
        with StallProbe(url, every=0.002) as probe:
            t0 = time.perf_counter()
            client.json("POST", path, {"apiVersion": f"{STALL_GROUP}/v1", "kind": "Gadget",
                                       "metadata": {"name": "g"}, "spec": {"s": value}})
            write_s = time.perf_counter() - t0
            probe._stop.wait(0.05)  # a few probes after the write too
        return {"write_s": write_s, **probe.summary()}
    finally:
        client.close()


# ---------------------------------------------------------------------------------------- fan-out
class _Shared:
    def __init__(self, n: int):
        self.n = n
        self.active: list[bytes] = []          # markers written whose fan-out is not complete
        self.count: dict[bytes, int] = {}
        self.done: dict[bytes, asyncio.Event] = {}
        self.ready = 0
        self.cb_s = 0.0                        # client time spent inside watcher callbacks
        self.all_ready = asyncio.Event()


class _Watcher(asyncio.Protocol):
    def __init__(self, request: bytes, shared: _Shared):
        self.request = request
        self.shared = shared
        self.buf = b""
        self.ok = False
        self.error: bytes | None = None
        self.seen: dict[bytes, float] = {}
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        t = time.perf_counter()
        sh = self.shared
        self.buf = self.buf[-512:] + data
        if not self.ok:
            if self.buf.startswith(b"HTTP/1.1 200") and b"\r\n\r\n" in self.buf:
                self.ok = True
                sh.ready += 1
                if sh.ready == sh.n:
                    sh.all_ready.set()
            elif b"\r\n\r\n" in self.buf and self.error is None:
                self.error = self.buf[:200]
                return
        for m in sh.active:
            if m not in self.seen and m in self.buf:
                self.seen[m] = t
                sh.count[m] += 1
                if sh.count[m] >= sh.n:
                    sh.done[m].set()
        sh.cb_s += time.perf_counter() - t


class _Writer(asyncio.Protocol):
    """A keep-alive POST client that timestamps the complete response."""

    def __init__(self) -> None:
        self.buf = b""
        self.waiter: asyncio.Future | None = None
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        t = time.perf_counter()
        self.buf += data
        head, sep, rest = self.buf.partition(b"\r\n\r\n")
        if not sep:
            return
        length = 0
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v)
        if len(rest) >= length and self.waiter is not None and not self.waiter.done():
            status = int(head.split(b" ", 2)[1])
            self.buf = rest[length:]
            self.waiter.set_result((t, status))

    async def post(self, host: str, path: str, body: bytes) -> tuple[float, float, int]:
        assert self.transport is not None
        self.waiter = asyncio.get_running_loop().create_future()
        req = (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
               f"Accept: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
        t_send = time.perf_counter()
        self.transport.write(req)
        t_ack, status = await asyncio.wait_for(self.waiter, 10)
        return t_send, t_ack, status


async def _fanout(url: str, ns: str, watchers: int, writes: int, gap: float, timeout: float,
                  server_pid: int | None = None) -> dict[str, Any]:
    from .procs import cpu_seconds

    u = urlsplit(url)
    host, port = u.hostname or "127.0.0.1", u.port or 80
    loop = asyncio.get_running_loop()
    # the list RV: watchers start after it, so they see only the benchmark's writes
    status_rv = Http(url)
    rv = status_rv.json("GET", f"/api/v1/namespaces/{ns}/configmaps")["metadata"]["resourceVersion"]
    status_rv.close()
    shared = _Shared(watchers)
    req = (f"GET /api/v1/namespaces/{ns}/configmaps?watch=1&resourceVersion={rv}&timeoutSeconds={int(timeout) + 60} "
           f"HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\n\r\n").encode()
    protos: list[_Watcher] = []
    for _ in range(watchers):
        _, p = await loop.create_connection(lambda: _Watcher(req, shared), host, port)
        protos.append(p)  # type: ignore[arg-type]
    try:
        await asyncio.wait_for(shared.all_ready.wait(), timeout)
    except asyncio.TimeoutError:
        errs = [p.error for p in protos if p.error]
        raise RuntimeError(f"only {shared.ready}/{watchers} watches started; e.g. {errs[:1]}") from None
    await asyncio.sleep(0.2)  # every watch registered in the store (200 is sent after registration)
    _, writer = await loop.create_connection(_Writer, host, port)
    acks: dict[bytes, tuple[float, float]] = {}
    incomplete = 0
    shared.cb_s = 0.0
    cpu0 = cpu_seconds(server_pid) if server_pid else float("nan")
    try:
        for i in range(writes):
            name = f"fan-{i:04d}"
            marker = f'"name":"{name}"'.encode()
            shared.active.append(marker)
            shared.count[marker] = 0
            shared.done[marker] = asyncio.Event()
            body = json.dumps(configmap_body(ns, name)).encode()
            t_send, t_ack, st = await writer.post(f"{host}:{port}", f"/api/v1/namespaces/{ns}/configmaps", body)  # type: ignore[attr-defined]
            if st != 201:
                raise RuntimeError(f"fan-out write {name}: {st}")
            acks[marker] = (t_send, t_ack)
            try:
                await asyncio.wait_for(shared.done[marker].wait(), timeout)
            except asyncio.TimeoutError:
                incomplete += 1
            shared.active.remove(marker)
            await asyncio.sleep(gap)
        cpu1 = cpu_seconds(server_pid) if server_pid else float("nan")
    finally:
        writer.transport.close()  # type: ignore[union-attr]
        for p in protos:
            if p.transport is not None:
                p.transport.close()
    from_ack: list[float] = []
    from_send: list[float] = []
    missing = 0
    per_write_max: list[float] = []
    for m, (t_send, t_ack) in acks.items():
        ws = []
        for p in protos:
            t = p.seen.get(m)
            if t is None:
                missing += 1
                continue
            from_ack.append((t - t_ack) * 1e3)
            from_send.append((t - t_send) * 1e3)
            ws.append((t - t_ack) * 1e3)
        if ws:
            per_write_max.append(max(ws))
    write_ms = [(a - s) * 1e3 for s, a in acks.values()]
    return {"watchers": watchers, "writes": len(acks), "samples": len(from_ack), "missing": missing,
            "incomplete_writes": incomplete,
            "p50_ms": percentile(from_ack, 50), "p99_ms": percentile(from_ack, 99), "max_ms": max(from_ack),
            "min_ms": min(from_ack), "from_send_p99_ms": percentile(from_send, 99),
            "write_ack_p50_ms": percentile(write_ms, 50), "last_watcher_p50_ms": percentile(per_write_max, 50),
            "client_cb_ms_per_write": shared.cb_s * 1e3 / max(1, len(acks)),
            "server_cpu_ms_per_write": (cpu1 - cpu0) * 1e3 / max(1, len(acks))}


def fanout(url: str, ns: str, watchers: int = 100, writes: int = 10, gap: float = 0.05,
           timeout: float = 10.0, server_pid: int | None = None) -> dict[str, Any]:
    """`watchers` watches on one namespace's configmaps; `writes` creates; latency write-ack → receipt.
    With `server_pid`, also the server's CPU per write (clock ticks: 10 ms resolution over all writes)."""
    return asyncio.run(asyncio.wait_for(_fanout(url, ns, watchers, writes, gap, timeout, server_pid),
                                        timeout * (writes + 3) + 30))

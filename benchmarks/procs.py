"""Child processes: the reference server host, the bare-aiohttp ceiling server, one-shot workers.

Every child is started with the `spawn` method (no inherited threads or loops), talks to the parent over
a `multiprocessing` pipe, exits on its own when the parent goes away (EOF on the pipe) and is killed by
`close()` if it does not stop within a few seconds. All waits are bounded.
"""
from __future__ import annotations

import gc
import multiprocessing as mp
import os
import threading
import time
import traceback
from typing import Any, Callable, TypeVar

CTX = mp.get_context("spawn")
CM_DATA = {"k": "v" * 64}


def rss_kb(pid: int | str = "self") -> int:
    """VmRSS of a process in kB (from /proc/<pid>/status); 0 when unreadable."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def cpu_seconds(pid: int) -> float:
    """utime+stime of a process (all threads) in seconds, from /proc/<pid>/stat; NaN when unreadable."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def configmap_body(ns: str, name: str) -> dict[str, Any]:
    """The configmap every benchmark stores: one label, one 64-byte value (about the suite's size)."""
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": ns, "labels": {"app": "nsconform-bench"}},
            "data": dict(CM_DATA)}


def namespace_body(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name, "labels": {"app": "nsconform-bench"}}}


# ---------------------------------------------------------------------------------------- server host
def _call_prelude(spec: str | None) -> None:
    """`module:function` called in a server child before the server starts (what-if experiments: patch
    the server in the benchmark's process only, never in the repository)."""
    if not spec:
        return
    import importlib

    mod, _, fn = spec.partition(":")
    getattr(importlib.import_module(mod), fn)()


def _server_main(conn: Any, options: dict[str, Any], prelude: str | None = None) -> None:
    """Child: run `start_embedded()` (its loop in a thread) and obey commands from the pipe."""
    _call_prelude(prelude)
    from conformance.reference_server.embedded import start_embedded

    rs = start_embedded(**options)
    counter = _install_counter(rs)
    registry = rs.server.ctx.registry
    profiler: Any = None
    conn.send(("ready", {"url": rs.url, "pid": os.getpid(), "counter": counter["how"],
                         "token": getattr(rs, "token", None)}))
    try:
        for _ in range(1_000_000):  # one command per iteration; idle for an hour ⇒ the parent is gone
            if not conn.poll(3600):
                break
            try:
                cmd, args = conn.recv()
            except (EOFError, OSError):
                break
            try:
                if cmd == "stop":
                    conn.send(("ok", None))
                    break
                if cmd == "count":
                    conn.send(("ok", counter["get"]()))
                elif cmd == "rss":
                    gc.collect()
                    conn.send(("ok", rss_kb()))
                elif cmd == "populate":
                    conn.send(("ok", _populate(registry, **args)))
                elif cmd == "delete_bulk":
                    conn.send(("ok", _delete_bulk(registry, **args)))
                elif cmd == "profile_start":
                    profiler = _profile_start(rs)
                    conn.send(("ok", profiler is not None))
                elif cmd == "profile_stop":
                    conn.send(("ok", _profile_stop(rs, profiler, **args)))
                    profiler = None
                else:
                    conn.send(("error", f"unknown command {cmd!r}"))
            except Exception:  # report, keep serving
                conn.send(("error", traceback.format_exc()))
    finally:
        rs.stop()


def _install_counter(rs: Any) -> dict[str, Any]:
    """A request counter: `RunningServer.request_count` when the server has one, else count calls of
    the router's `resolve` (called exactly once per request by the dispatcher) — the benchmark's own
    instance-level wrapper, the server's code is untouched."""
    if hasattr(rs, "request_count"):
        return {"how": "RunningServer.request_count", "get": lambda: int(rs.request_count)}
    router = rs.server.ctx.router
    box = {"n": 0}
    inner = router.resolve

    def resolve(method: str, path: str) -> Any:
        box["n"] += 1
        return inner(method, path)

    router.resolve = resolve
    return {"how": "wrapped Router.resolve (server has no request counter)", "get": lambda: box["n"]}


def _populate(registry: Any, namespaces: list[str], per_ns: int, prefix: str = "cm",
              create_namespaces: bool = True) -> dict[str, float]:
    """Create namespaces and `per_ns` configmaps in each through the registry (no HTTP); store is
    thread-safe, and nothing else writes while this runs."""
    t0 = time.perf_counter()
    cms = registry.content("configmaps")
    made = 0
    for ns in namespaces:
        if create_namespaces:
            registry.namespaces.create(namespace_body(ns), field_manager="nsconform-bench")
        for i in range(per_ns):
            cms.create(configmap_body(ns, f"{prefix}-{i}"), field_manager="nsconform-bench")
            made += 1
    seconds = time.perf_counter() - t0
    time.sleep(0.5)  # let the server loop drain the watch events queued for the controller (they hold objects)
    gc.collect()
    return {"seconds": seconds, "configmaps": made, "namespaces": len(namespaces),
            "rss_kb": rss_kb()}


def _delete_bulk(registry: Any, namespace: str, prefix: str, count: int) -> float:
    from conformance.reference_server.registry import DeleteOptions
    cms = registry.content("configmaps")
    t0 = time.perf_counter()
    for i in range(count):
        cms.delete(namespace, f"{prefix}-{i}", DeleteOptions())
    return time.perf_counter() - t0


def _on_loop(rs: Any, fn: Callable[[], Any], timeout: float = 10.0) -> Any:
    """Run `fn` on the server's loop thread (where the profiler has to be started)."""
    import asyncio

    async def call() -> Any:
        return fn()

    loop = rs._loop  # RunningServer keeps its loop private; benchmark-only use
    return asyncio.run_coroutine_threadsafe(call(), loop).result(timeout)


def _profile_start(rs: Any) -> Any:
    try:
        from pyinstrument import Profiler
    except ImportError:
        return None
    prof = Profiler(interval=0.0005, async_mode="disabled")
    _on_loop(rs, prof.start)
    return prof


def _profile_stop(rs: Any, prof: Any, path: str, title: str = "") -> str | None:
    if prof is None:
        return None
    _on_loop(rs, prof.stop)
    text = prof.output_text(unicode=False, color=False, show_all=False)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"# {title}\n{text}")
    return path


_H = TypeVar("_H", bound="_ChildHost")


class _ChildHost:
    """A benchmark child process on a pipe: started, awaited until it says ready, always reaped."""

    def _spawn(self, target: Any, args: tuple[Any, ...], name: str, timeout: float = 60) -> dict[str, Any]:
        self._conn, child = CTX.Pipe()
        self.proc = CTX.Process(target=target, args=(child, *args), daemon=True, name=name)
        self.proc.start()
        child.close()
        try:
            kind, info = self._recv(timeout)
        except TimeoutError:
            self.close()
            raise
        if kind != "ready":
            self.close()
            raise RuntimeError(f"{name} failed: {info}")
        self.url: str = info["url"]
        self.pid: int = info["pid"]
        return info

    def _recv(self, timeout: float) -> tuple[str, Any]:
        if not self._conn.poll(timeout):
            raise TimeoutError(f"{self.proc.name} did not answer within {timeout}s")
        return self._conn.recv()

    def _ask_to_stop(self) -> None:
        """Tell the child to shut down cleanly; `close` kills it if it has not within 10 s."""

    def close(self) -> None:
        if self.proc.is_alive():
            try:
                self._ask_to_stop()
            except (OSError, EOFError, TimeoutError, BrokenPipeError):
                pass
            self.proc.join(10)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(5)
        self._conn.close()

    def __enter__(self: _H) -> _H:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class ServerHost(_ChildHost):
    """The reference server in its own process (so load generators never share its CPU or GIL)."""

    prelude: str | None = None  # set from --prelude: applies to every server child of the run

    def __init__(self, **options: Any):
        info = self._spawn(_server_main, (options, self.prelude), "nsconform-bench-server")
        self.counter_how: str = info["counter"]
        self.token: str | None = info.get("token")

    def call(self, cmd: str, timeout: float = 600.0, **args: Any) -> Any:
        self._conn.send((cmd, args))
        kind, value = self._recv(timeout)
        if kind != "ok":
            raise RuntimeError(f"server child: {cmd}: {value}")
        return value

    def _ask_to_stop(self) -> None:
        self._conn.send(("stop", {}))
        self._recv(20)


# ---------------------------------------------------------------------------------------- ceiling
def _ceiling_main(conn: Any, body: bytes) -> None:
    """Child: a bare aiohttp app answering every GET with a fixed JSON body (the framework ceiling)."""
    import asyncio

    from aiohttp import web

    async def handler(request: web.Request) -> web.Response:
        return web.Response(body=body, content_type="application/json")

    async def main() -> None:
        app = web.Application()
        app.router.add_route("GET", "/{tail:.*}", handler)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        conn.send(("ready", {"url": f"http://127.0.0.1:{port}", "pid": os.getpid()}))
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()

        def watch_pipe() -> None:
            try:
                conn.poll(3600)
            except (EOFError, OSError):
                pass
            loop.call_soon_threadsafe(stop.set)

        threading.Thread(target=watch_pipe, daemon=True).start()
        await stop.wait()
        await runner.cleanup()

    asyncio.run(main())


class CeilingHost(_ChildHost):
    """The bare aiohttp handler in its own process."""

    def __init__(self, body: bytes):
        self._spawn(_ceiling_main, (body,), "nsconform-bench-ceiling")

    def _ask_to_stop(self) -> None:
        self._conn.send("stop")


# ---------------------------------------------------------------------------------------- one-shot
def _oneshot_main(conn: Any, fn: Callable[..., Any], args: tuple, kwargs: dict) -> None:
    try:
        conn.send(("ok", fn(*args, **kwargs)))
    except Exception:
        conn.send(("error", traceback.format_exc()))


def run_in_child(fn: Callable[..., Any], *args: Any, timeout: float = 120.0, **kwargs: Any) -> Any:
    """Run `fn(*args, **kwargs)` (a module-level function) in a fresh process; its return value back."""
    parent, child = CTX.Pipe()
    proc = CTX.Process(target=_oneshot_main, args=(child, fn, args, kwargs), daemon=True,
                       name="nsconform-bench-worker")
    proc.start()
    child.close()
    try:
        if not parent.poll(timeout):
            raise TimeoutError(f"{getattr(fn, '__name__', fn)} did not finish within {timeout}s")
        kind, value = parent.recv()
    finally:
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join(5)
        parent.close()
    if kind != "ok":
        raise RuntimeError(value)
    return value

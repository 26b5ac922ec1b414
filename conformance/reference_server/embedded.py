"""Contract 1: the reference server in a background thread with its own event loop."""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import sys
import threading
import traceback
from typing import Any, Iterable

from .deviations import Deviations
from .flavors import Flavor, get_flavor
from .server import ReferenceServer

STOP_TIMEOUT = 15.0  # seconds; an idle server stops in milliseconds


class RunningServer:
    """Handle on a started server: `url`, `token`, `ca_file`; `stop()` is idempotent."""

    def __init__(self, server: ReferenceServer, loop: asyncio.AbstractEventLoop, thread: threading.Thread):
        self._server = server
        self._loop = loop
        self._thread = thread
        self._lock = threading.Lock()
        self._ca_copy: str | None = None
        self.url: str = server.url
        self.token: str | None = server.token
        self.ca_file: str | None = server.ca_file
        self.profile: str = server.ctx.profile
        self.flavor: str = server.flavor.name
        if server.tls is not None:  # a copy that outlives stop(), for clients still holding the path
            import tempfile
            fd, self._ca_copy = tempfile.mkstemp(prefix="nsconform-ca-", suffix=".crt")
            with os.fdopen(fd, "wb") as fh:
                fh.write(server.tls.ca_pem)
            self.ca_file = self._ca_copy

    @property
    def server(self) -> ReferenceServer:
        return self._server

    @property
    def request_count(self) -> int:
        """HTTP requests the server has received since it started (all of them, refused ones included)."""
        return self._server.ctx.request_count

    def write_kubeconfig(self, path: str) -> None:
        self._server.write_kubeconfig(path)

    def stop(self) -> None:
        """Stop the server and remove its files (the TLS directory, the CA copy), even when it does not stop in
        time: a `TimeoutError` then names what its loop thread was running."""
        with self._lock:
            if not self._thread.is_alive():
                return
            fut = asyncio.run_coroutine_threadsafe(self._server.stop(), self._loop)
            try:
                fut.result(timeout=STOP_TIMEOUT)
            except concurrent.futures.TimeoutError:
                raise TimeoutError(f"the reference server did not stop within {STOP_TIMEOUT:g} s; its loop thread "
                                   f"was at {self._loop_position()}; the stop was waiting at "
                                   f"{self._stop_position()}") from None
            finally:
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._thread.join(timeout=STOP_TIMEOUT)
                self._remove_files()

    def _loop_position(self) -> str:
        frame = sys._current_frames().get(self._thread.ident or -1)
        if frame is None:
            return "(ended)"
        inner = traceback.extract_stack(frame)[-3:]
        return " <- ".join(f"{os.path.basename(f.filename)}:{f.lineno} {f.name}" for f in reversed(inner))

    def _stop_position(self) -> str:
        """Where the stop coroutine is suspended (its innermost awaited frames), for a stop that does not end: read
        from another thread, so only as a best effort."""
        try:
            tasks = [t for t in asyncio.all_tasks(self._loop) if "stop" in getattr(t.get_coro(), "__qualname__", "")]
        except RuntimeError:  # the set changed while read
            return "(unknown)"
        for task in tasks:
            where, awaited = [], task.get_coro()
            while awaited is not None and len(where) < 20:  # the chain of awaits, outermost first
                frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
                if frame is None:
                    where.append(type(awaited).__name__)  # a Future or a task it waits for
                    break
                where.append(f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno} {frame.f_code.co_name}")
                awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None)
            if where:
                return " -> ".join(where[-4:])
        return "(no stop task)"

    def _remove_files(self) -> None:
        if self._server.tls is not None:
            self._server.tls.cleanup()  # idempotent; the server's own stop does it too when it gets that far
        if self._ca_copy:
            try:
                os.unlink(self._ca_copy)
            except OSError:
                pass
            self._ca_copy = None

    def __enter__(self) -> "RunningServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_embedded(*, profile: str = "kubernetes", deviations: Iterable[str] = (), token: str | None = None,
                   tls: bool = False, controller_delay: float = 0.0, host: str = "127.0.0.1",
                   port: int = 0, authorization: str = "always-allow",
                   users_file: str | None = None, flavor: "str | Flavor | None" = None,
                   feature_gates: Iterable[str] = (), **server_options: Any) -> RunningServer:
    """Start a server in a daemon thread; returns once it is listening (and answers /version).

    `authorization="rbac"` enables authentication + RBAC authorization (a generated admin token when `token` is None,
    see `RunningServer.token`); the RBAC API and its bootstrap policy are served in every mode, as kube-apiserver's;
    `users_file` is a kube-apiserver token file (`token,user,uid,"g1,g2"`).
    `server_options` go to `ReferenceServer` as they are (timeouts, `cert_dir`, `anonymous_auth`)."""
    deviations = tuple(deviations)
    Deviations(deviations)  # unknown names ⇒ ValueError before any thread starts
    get_flavor(flavor)
    loop = asyncio.new_event_loop()
    started = threading.Event()
    box: dict[str, object] = {}

    def run() -> None:
        asyncio.set_event_loop(loop)

        async def boot() -> None:
            server = ReferenceServer(profile=profile, deviations=deviations, token=token, tls=tls,
                                     controller_delay=controller_delay, host=host, port=port,
                                     authorization=authorization, users_file=users_file, flavor=flavor,
                                     feature_gates=feature_gates, **server_options)
            try:
                await server.start()
            except BaseException:
                with contextlib.suppress(Exception):  # a half-started server's listener and TLS files go too
                    await server.stop()
                raise
            box["server"] = server

        try:
            loop.run_until_complete(boot())
        except BaseException as exc:  # reported to the caller
            box["error"] = exc
            started.set()
            loop.close()
            return
        started.set()
        try:
            loop.run_forever()
        finally:
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for t in pending:
                t.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            # join the default executor's threads (the wire-module warm-up's): close() alone does not wait
            loop.run_until_complete(loop.shutdown_default_executor())
            loop.close()

    thread = threading.Thread(target=run, name="nsconform-reference-server", daemon=True)
    thread.start()
    started.wait()
    if "error" in box:
        thread.join()
        raise box["error"]  # type: ignore[misc]
    return RunningServer(box["server"], loop, thread)  # type: ignore[arg-type]

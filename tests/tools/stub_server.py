"""A tiny recording HTTP server, to see exactly what a real client (kubectl) sends.

It answers just enough (version, legacy discovery, echo of writes) for kubectl's typed
commands to complete, and records every request. Runs aiohttp on a background thread so
synchronous tests can drive a subprocess against it.
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

STUB_KEY: web.AppKey["StubServer"] = web.AppKey("stub")
RESOURCES = {  # plural -> (Kind, namespaced, shortNames)
    "namespaces": ("Namespace", False, ["ns"]),
    "configmaps": ("ConfigMap", True, ["cm"]),
    "secrets": ("Secret", True, []),
    "serviceaccounts": ("ServiceAccount", True, ["sa"]),
    "services": ("Service", True, ["svc"]),
    "pods": ("Pod", True, ["po"]),
    "resourcequotas": ("ResourceQuota", True, ["quota"]),
    "limitranges": ("LimitRange", True, ["limits"]),
    "events": ("Event", True, ["ev"]),
}


@dataclass
class Recorded:
    """One request as received: enough to write a fixture."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes


@dataclass
class StubServer:
    """Handle returned by ``start_stub``: the URL, the recorded requests, and ``stop()``."""

    url: str = ""
    requests: list[Recorded] = field(default_factory=list)
    # "METHOD /path" -> (status, content type, body): canned answers tried before the defaults
    routes: dict[str, tuple[int, str, bytes]] = field(default_factory=dict)
    _loop: asyncio.AbstractEventLoop | None = None
    _runner: web.AppRunner | None = None
    _thread: threading.Thread | None = None

    def stop(self) -> None:
        """Shut the server down; idempotent."""
        if self._loop is None or self._runner is None:
            return
        fut = asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop)
        fut.result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._loop = None

    def __enter__(self) -> "StubServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _resource_list() -> dict[str, Any]:
    verbs = ["create", "delete", "get", "list", "patch", "update", "watch"]
    return {"kind": "APIResourceList", "groupVersion": "v1", "resources": [
        {"name": plural, "singularName": kind.lower(), "namespaced": namespaced, "kind": kind,
         "verbs": verbs, "shortNames": short}
        for plural, (kind, namespaced, short) in RESOURCES.items()]}


def _object_for(request: web.Request) -> dict[str, Any]:
    parts = [p for p in request.path.split("/") if p]
    name = "stub"
    plural = parts[-1]
    if len(parts) >= 4 and parts[-2] in RESOURCES:  # .../{plural}/{name}
        plural, name = parts[-2], parts[-1]
    kind = RESOURCES.get(plural, ("Status", False, []))[0]
    meta: dict[str, Any] = {"name": name, "uid": "00000000-0000-0000-0000-000000000000",
                            "resourceVersion": "1", "creationTimestamp": "2026-01-01T00:00:00Z"}
    if "namespaces" in parts[:3] and len(parts) > 4:
        meta["namespace"] = parts[3]
    return {"kind": kind, "apiVersion": "v1", "metadata": meta}


async def _handle(request: web.Request) -> web.Response:
    stub: StubServer = request.app[STUB_KEY]
    body = await request.read()
    stub.requests.append(Recorded(request.method, request.path, dict(request.query),
                                  dict(request.headers), body))
    path = request.path.rstrip("/")
    canned = stub.routes.get(f"{request.method} {path}")
    if canned is not None:
        status, ctype, payload = canned
        return web.Response(status=status, body=payload, headers={"Content-Type": ctype})
    if path == "/version":
        return web.json_response({"major": "1", "minor": "33", "gitVersion": "v1.33.0",
                                  "platform": "linux/amd64"})
    if path == "/api":
        return web.json_response({"kind": "APIVersions", "versions": ["v1"],
                                  "serverAddressByClientCIDRs": []})
    if path == "/apis":
        return web.json_response({"kind": "APIGroupList", "apiVersion": "v1", "groups": []})
    if path == "/api/v1":
        return web.json_response(_resource_list())
    if path.startswith("/api/v1/") and request.method in ("POST", "PUT", "DELETE", "PATCH"):
        return web.json_response(_object_for(request), status=201 if request.method == "POST" else 200)
    status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
              "message": "the server could not find the requested resource", "reason": "NotFound",
              "details": {}, "code": 404}
    return web.Response(status=404, text=json.dumps(status), content_type="application/json")


def start_stub(host: str = "127.0.0.1", routes: dict[str, tuple[int, str, bytes]] | None = None) -> StubServer:
    """Start the recording stub on a free loopback port; returns once it accepts connections."""
    stub = StubServer(routes=dict(routes or {}))
    ready = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            app = web.Application()
            app[STUB_KEY] = stub
            app.router.add_route("*", "/{tail:.*}", _handle)
            runner = web.AppRunner(app)
            loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, host, 0)
            loop.run_until_complete(site.start())
            port = runner.addresses[0][1]
            stub.url, stub._loop, stub._runner = f"http://{host}:{port}", loop, runner
        except BaseException as exc:  # surfaced to the caller below
            errors.append(exc)
            ready.set()
            return
        ready.set()
        loop.run_forever()
        loop.close()

    stub._thread = threading.Thread(target=run, name="kubectl-stub", daemon=True)
    stub._thread.start()
    ready.wait(timeout=30)
    if errors:
        raise errors[0]
    return stub

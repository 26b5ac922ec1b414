"""A tiny Kubernetes-like API server (aiohttp, background thread) for the harness's own tests.

Just enough of the Namespace API to exercise the client, watches, waits, fixtures and the CLI without the
reference server: namespaces (CRUD, finalize, deletion lifecycle with a controller), configmaps, list with
label/field selectors, chunked watch streams with resume by resourceVersion, optional bearer auth, and
fault injection (drop a watch after N events).
"""

from __future__ import annotations

import asyncio
import copy
import json
import threading
from datetime import datetime, timezone
from typing import Any

from aiohttp import web


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _status(code: int, reason: str, message: str) -> web.Response:
    return web.json_response({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                              "message": message, "reason": reason, "code": code}, status=code)


class FakeKube:
    def __init__(self, token: str | None = None, finalize_method: str = "PUT", controller_delay: float = 0.05,
                 serve_watch: bool = True) -> None:
        self.token = token
        self.finalize_method = finalize_method
        self.controller_delay = controller_delay
        self.serve_watch = serve_watch
        self.rv = 100
        self.objects: dict[tuple[str, str | None, str], dict[str, Any]] = {}  # (resource, ns, name)
        self.history: list[tuple[int, str, str, str | None, dict[str, Any]]] = []  # rv, type, resource, ns, obj
        self.drop_watch_after: int | None = None   # close watch connections abruptly after N events
        # Refuse pods while `<ns>/default` ServiceAccount is missing, as upstream's ServiceAccount admission does.
        self.service_account_admission = False
        # Answer the next N requests with (code, Retry-After or None), as an overloaded apiserver does.
        self.throttle: list[tuple[int, str | None]] = []
        self.watch_opens: list[dict[str, str]] = []
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.changed: asyncio.Condition | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.url = ""
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> "FakeKube":
        ready = threading.Event()

        def run() -> None:
            loop = self.loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            loop.run_until_complete(self._start())
            ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, daemon=True, name="fakekube")
        self._thread.start()
        ready.wait(10)
        return self

    async def _start(self) -> None:
        self.changed = asyncio.Condition()
        app = web.Application(middlewares=[self._auth])
        app.router.add_route("*", "/{tail:.*}", self._dispatch)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        if self.loop is None:
            return
        fut = asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self.loop)  # type: ignore[union-attr]
        try:
            fut.result(5)
        except Exception:
            pass
        loop, self.loop = self.loop, None
        loop.call_soon_threadsafe(loop.stop)
        if self._thread:
            self._thread.join(5)

    def call(self, fn: Any, *args: Any) -> Any:
        """Run a coroutine function on the server loop from a test."""
        return asyncio.run_coroutine_threadsafe(fn(*args), self.loop).result(5)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ storage
    async def _emit(self, kind: str, resource: str, ns: str | None, obj: dict[str, Any]) -> None:
        self.history.append((int(obj["metadata"]["resourceVersion"]), kind, resource, ns, copy.deepcopy(obj)))
        async with self.changed:  # type: ignore[union-attr]
            self.changed.notify_all()  # type: ignore[union-attr]

    async def put_object(self, resource: str, ns: str | None, obj: dict[str, Any], kind: str) -> dict[str, Any]:
        self.rv += 1
        obj["metadata"]["resourceVersion"] = str(self.rv)
        self.objects[(resource, ns, obj["metadata"]["name"])] = obj
        await self._emit(kind, resource, ns, obj)
        return obj

    async def remove_object(self, resource: str, ns: str | None, name: str) -> None:
        obj = self.objects.pop((resource, ns, name))
        self.rv += 1
        obj["metadata"]["resourceVersion"] = str(self.rv)
        await self._emit("DELETED", resource, ns, obj)

    async def _maybe_finish_namespace(self, name: str) -> None:
        ns = self.objects.get(("namespaces", None, name))
        if ns is None or not ns["metadata"].get("deletionTimestamp"):
            return
        if not ns["spec"].get("finalizers") and not ns["metadata"].get("finalizers"):
            await self.remove_object("namespaces", None, name)

    async def _controller(self, name: str) -> None:
        """Scheduled `controller_delay` after a DELETE; re-runs whenever storage changes while blocked."""
        while True:
            ns = self.objects.get(("namespaces", None, name))
            if ns is None:
                return
            content = [k for k in self.objects if k[1] == name]
            blocked = False
            for key in content:
                obj = self.objects[key]
                if obj["metadata"].get("finalizers"):
                    if not obj["metadata"].get("deletionTimestamp"):
                        obj["metadata"]["deletionTimestamp"] = _now()
                        await self.put_object(key[0], key[1], obj, "MODIFIED")
                    blocked = True
                else:
                    await self.remove_object(*key)
            if not blocked:
                if "kubernetes" in ns["spec"].get("finalizers", []):
                    ns["spec"]["finalizers"] = [f for f in ns["spec"]["finalizers"] if f != "kubernetes"]
                    await self.put_object("namespaces", None, ns, "MODIFIED")
                await self._maybe_finish_namespace(name)
                return
            async with self.changed:  # type: ignore[union-attr]
                try:
                    await asyncio.wait_for(self.changed.wait(), timeout=0.5)  # type: ignore[union-attr]
                except asyncio.TimeoutError:
                    pass

    # ------------------------------------------------------------------ HTTP
    @web.middleware
    async def _auth(self, request: web.Request, handler: Any) -> web.StreamResponse:
        self.requests.append((request.method, request.path_qs, dict(request.headers)))
        if self.token and request.headers.get("Authorization") != f"Bearer {self.token}":
            return _status(401, "Unauthorized", "Unauthorized")
        if self.throttle:
            code, retry_after = self.throttle.pop(0)
            resp = _status(code, "TooManyRequests" if code == 429 else "ServiceUnavailable", "slow down")
            if retry_after is not None:
                resp.headers["Retry-After"] = retry_after
            return resp
        return await handler(request)

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        parts = [p for p in request.path.split("/") if p]
        m = request.method
        q = request.query
        if parts == ["version"]:
            return web.json_response({"major": "1", "minor": "33", "gitVersion": "v1.33.0-fake"})
        if parts == ["api", "v1"]:
            return web.json_response({"kind": "APIResourceList", "groupVersion": "v1", "resources": [
                {"name": "namespaces", "namespaced": False, "kind": "Namespace", "verbs": ["create", "get", "list"]},
                {"name": "configmaps", "namespaced": True, "kind": "ConfigMap", "verbs": ["create", "get", "list"]}]})
        if parts[:2] != ["api", "v1"]:
            return web.Response(status=404, text="404 page not found")
        rest = parts[2:]
        if rest and rest[0] == "watch":
            return await self._watch(request, rest[1:], q)
        if rest == ["namespaces"]:
            if m == "GET":
                if q.get("watch") in ("true", "1"):
                    return await self._watch(request, rest, q)
                return self._list("namespaces", None, q)
            if m == "POST":
                return await self._create_ns(await request.json())
            return _status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
        if len(rest) == 2 and rest[0] == "namespaces":
            return await self._ns_item(request, rest[1])
        if len(rest) == 3 and rest[0] == "namespaces" and rest[2] == "finalize":
            if m != self.finalize_method:
                return _status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
            return await self._finalize(rest[1], await request.json())
        if len(rest) >= 3 and rest[0] == "namespaces":
            return await self._content(request, rest[1], rest[2], rest[3] if len(rest) > 3 else None)
        return _status(404, "NotFound", "the server could not find the requested resource")

    def _list(self, resource: str, ns: str | None, q: Any) -> web.Response:
        items = [copy.deepcopy(o) for (r, n, _), o in sorted(self.objects.items(), key=lambda kv: kv[0][2])
                 if r == resource and (ns is None or n == ns) and self._selected(o, q)]
        return web.json_response({"kind": "List", "apiVersion": "v1", "metadata": {"resourceVersion": str(self.rv)},
                                  "items": items})

    @staticmethod
    def _selected(obj: dict[str, Any], q: Any) -> bool:
        fs = q.get("fieldSelector")
        if fs and fs.startswith("metadata.name=") and obj["metadata"]["name"] != fs.split("=", 1)[1]:
            return False
        ls = q.get("labelSelector")
        if ls:
            labels = obj["metadata"].get("labels") or {}
            for term in ls.split(","):
                k, _, v = term.partition("=")
                if labels.get(k) != v:
                    return False
        return True

    async def _create_ns(self, body: dict[str, Any]) -> web.Response:
        name = body.get("metadata", {}).get("name")
        if not name:
            return _status(422, "Invalid", "metadata.name: Required value")
        if ("namespaces", None, name) in self.objects:
            return _status(409, "AlreadyExists", f'namespaces "{name}" already exists')
        fins = list((body.get("spec") or {}).get("finalizers") or [])
        if "kubernetes" not in fins:
            fins.append("kubernetes")
        obj = {"kind": "Namespace", "apiVersion": "v1",
               "metadata": {"name": name, "labels": {**(body["metadata"].get("labels") or {}),
                                                     "kubernetes.io/metadata.name": name},
                            "finalizers": list(body["metadata"].get("finalizers") or []),
                            "creationTimestamp": _now(), "uid": f"uid-{name}"},
               "spec": {"finalizers": fins}, "status": {"phase": "Active"}}
        if not obj["metadata"]["finalizers"]:
            del obj["metadata"]["finalizers"]
        await self.put_object("namespaces", None, obj, "ADDED")
        return web.json_response(obj, status=201)

    async def _ns_item(self, request: web.Request, name: str) -> web.Response:
        obj = self.objects.get(("namespaces", None, name))
        if obj is None:
            return _status(404, "NotFound", f'namespaces "{name}" not found')
        if request.method == "GET":
            return web.json_response(obj)
        if request.method == "PUT":
            body = await request.json()
            obj["metadata"]["labels"] = body["metadata"].get("labels") or {}
            obj["metadata"]["finalizers"] = list(body["metadata"].get("finalizers") or [])
            await self.put_object("namespaces", None, obj, "MODIFIED")
            await self._maybe_finish_namespace(name)
            return web.json_response(obj)
        if request.method == "DELETE":
            if not obj["metadata"].get("deletionTimestamp"):
                obj["metadata"]["deletionTimestamp"] = _now()
                obj["status"]["phase"] = "Terminating"
                await self.put_object("namespaces", None, obj, "MODIFIED")
                loop = asyncio.get_running_loop()
                loop.call_later(self.controller_delay, lambda: loop.create_task(self._controller(name)))
            return web.json_response(obj)
        return _status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")

    async def _finalize(self, name: str, body: dict[str, Any]) -> web.Response:
        obj = self.objects.get(("namespaces", None, name))
        if obj is None:
            return _status(404, "NotFound", f'namespaces "{name}" not found')
        obj["spec"]["finalizers"] = list((body.get("spec") or {}).get("finalizers") or [])
        await self.put_object("namespaces", None, obj, "MODIFIED")
        await self._maybe_finish_namespace(name)
        return web.json_response(obj)

    async def _content(self, request: web.Request, ns: str, resource: str, name: str | None) -> web.Response:
        m = request.method
        if name is None:
            if m == "GET":
                return self._list(resource, ns, request.query)
            if m == "POST":
                if ("namespaces", None, ns) not in self.objects:
                    return _status(404, "NotFound", f'namespaces "{ns}" not found')
                body = await request.json()
                body["metadata"]["namespace"] = ns
                if resource == "pods" and self.service_account_admission and \
                        ("serviceaccounts", ns, "default") not in self.objects:
                    return _status(403, "Forbidden", f'pods "{body["metadata"]["name"]}" is forbidden: error looking '
                                   f'up service account {ns}/default: serviceaccount "default" not found')
                if (resource, ns, body["metadata"]["name"]) in self.objects:
                    return _status(409, "AlreadyExists", "exists")
                await self.put_object(resource, ns, body, "ADDED")
                return web.json_response(body, status=201)
        obj = self.objects.get((resource, ns, name))
        if obj is None:
            return _status(404, "NotFound", f'{resource} "{name}" not found')
        if m == "GET":
            return web.json_response(obj)
        if m == "PUT":
            body = await request.json()
            obj["metadata"]["finalizers"] = list(body["metadata"].get("finalizers") or [])
            await self.put_object(resource, ns, obj, "MODIFIED")
            if obj["metadata"].get("deletionTimestamp") and not obj["metadata"]["finalizers"]:
                await self.remove_object(resource, ns, name)
            return web.json_response(obj)
        if m == "DELETE":
            if obj["metadata"].get("finalizers"):
                obj["metadata"]["deletionTimestamp"] = _now()
                await self.put_object(resource, ns, obj, "MODIFIED")
            else:
                await self.remove_object(resource, ns, name)
            return web.json_response(obj)
        return _status(405, "MethodNotAllowed", "not allowed")

    async def _watch(self, request: web.Request, rest: list[str], q: Any) -> web.StreamResponse:
        self.watch_opens.append(dict(q))
        if not self.serve_watch:
            return _status(404, "NotFound", "the server could not find the requested resource")
        if rest == ["namespaces"]:
            resource, ns = "namespaces", None
        elif len(rest) == 2 and rest[0] == "namespaces":
            resource, ns, q = "namespaces", None, {**q, "fieldSelector": f"metadata.name={rest[1]}"}
        elif len(rest) == 3 and rest[0] == "namespaces":
            resource, ns = rest[2], rest[1]
        else:
            resource, ns = rest[0], None
        resp = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
        resp.enable_chunked_encoding()
        await resp.prepare(request)
        sent = 0
        timeout = float(q["timeoutSeconds"]) if q.get("timeoutSeconds") else None
        deadline = asyncio.get_running_loop().time() + timeout if timeout else None

        async def send(kind: str, obj: dict[str, Any]) -> bool:
            nonlocal sent
            await resp.write(json.dumps({"type": kind, "object": obj}).encode() + b"\n")
            sent += 1
            if self.drop_watch_after is not None and sent >= self.drop_watch_after:
                request.transport.close()  # type: ignore[union-attr]  # abrupt: no final chunk
                return False
            return True

        start_rv = q.get("resourceVersion")
        if start_rv and int(start_rv) < 50:
            await resp.write(json.dumps({"type": "ERROR", "object": {
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": f"too old resource version: {start_rv} (100)", "reason": "Expired", "code": 410}}).encode()
                + b"\n")
            await resp.write_eof()
            return resp
        if not start_rv or start_rv == "0":
            cursor = self.rv
            for (r, n, _), obj in list(self.objects.items()):
                if r == resource and (ns is None or n == ns) and self._selected(obj, q):
                    if not await send("ADDED", copy.deepcopy(obj)):
                        return resp
        else:
            cursor = int(start_rv)
        while True:
            for rv, kind, r, n, obj in [h for h in self.history if h[0] > cursor]:
                cursor = rv
                if r == resource and (ns is None or n == ns) and self._selected(obj, q):
                    if not await send(kind, obj):
                        return resp
            async with self.changed:  # type: ignore[union-attr]
                remaining = None if deadline is None else deadline - asyncio.get_running_loop().time()
                if remaining is not None and remaining <= 0:
                    break
                try:
                    await asyncio.wait_for(self.changed.wait(), timeout=min(remaining or 0.5, 0.5))  # type: ignore[union-attr]
                except asyncio.TimeoutError:
                    pass
            if request.transport is None or request.transport.is_closing():
                return resp
        await resp.write_eof()
        return resp

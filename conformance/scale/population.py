"""Create and remove the scale suite's namespaces in concurrent batches.

Thousands of namespaces go through plain sessions (one per worker thread, unrecorded: a failure report
must not carry 40,000 exchanges), each namespace carrying the test's labels, so an interrupted run is
swept by the run-label sweep and `nsconform cleanup` like any other. Removal DELETEs in parallel and
then waits for the test's label selector to match nothing, on a watch (a LIST when the watch ends).
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable, Sequence

import requests

if TYPE_CHECKING:
    from ..client.api import KubeClient
    from ..endpoints import Paths

__all__ = ["Population", "OBJECT_PREFIX"]

OBJECT_PREFIX = "scale-"
Progress = Callable[[str, int, int], None]
"""(phase, done, total)"""
_TRANSIENT = (429, 500, 502, 503, 504)


class Population:
    """The namespaces of one scale run; `grow_to(n)` adds, `remove()` deletes and waits."""

    def __init__(self, client: "KubeClient", paths: "Paths", *, labels: dict[str, str], objects: int,
                 parallel: int = 8, name_for: Callable[[int], str], progress: Progress | None = None) -> None:
        self.client = client
        self.paths = paths
        self.labels = dict(labels)
        self.selector = ",".join(f"{k}={v}" for k, v in self.labels.items())
        self.objects = objects
        self.parallel = parallel
        self.name_for = name_for
        self.progress = progress or (lambda phase, done, total: None)
        self.names: list[str] = []
        self._local = threading.local()
        self._sessions: list[requests.Session] = []
        self._lock = threading.Lock()

    # ---- plumbing
    def session(self) -> requests.Session:
        s = getattr(self._local, "session", None)
        if s is None:
            s = self._local.session = self.client.new_session()
            with self._lock:
                self._sessions.append(s)
        return s

    def send(self, method: str, path: str, body: Any = None, ok: Sequence[int] = (200, 201),
             recorded: bool = False) -> requests.Response:
        """One request, sent again (up to 5 times, after Retry-After or a short pause) on a transient answer.
        `recorded`: through the recording client (one of each kind counts in the endpoint coverage)."""
        if recorded:
            return self.client.request(method, path, json=body, timeout=60)
        for attempt in range(6):
            r = self.session().request(method, self.client.url(path), json=body, timeout=60)
            if r.status_code in ok or r.status_code not in _TRANSIENT or attempt == 5:
                return r
            try:
                pause = float(r.headers.get("Retry-After") or 0.2 * (attempt + 1))
            except ValueError:
                pause = 0.2
            threading.Event().wait(min(pause, 5.0))  # the server asked us to come back later
        return r

    def close(self) -> None:
        with self._lock:
            for s in self._sessions:
                s.close()
            self._sessions.clear()

    # ---- bodies
    def namespace_body(self, name: str) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": dict(self.labels)}}

    def object_body(self, ns: str, i: int) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": f"{OBJECT_PREFIX}{i}", "namespace": ns, "labels": dict(self.labels)},
                "data": {"index": str(i)}}

    def create_one(self, name: str, recorded: bool = False) -> None:
        r = self.send("POST", self.paths.namespaces(), self.namespace_body(name), recorded=recorded)
        if r.status_code != 201:
            raise AssertionError(f"creating namespace {name}: expected 201, got {r.status_code}: {r.text[:300]}")
        for i in range(self.objects):
            r = self.send("POST", self.paths.content(name, "configmaps"), self.object_body(name, i), recorded=recorded)
            if r.status_code != 201:
                raise AssertionError(f"creating configmap {OBJECT_PREFIX}{i} in {name}: expected 201, got "
                                     f"{r.status_code}: {r.text[:300]}")

    # ---- growth and removal
    def grow_to(self, n: int, track: Callable[[str], None]) -> float:
        """Create namespaces (each with its objects) until there are `n`; returns the seconds it took."""
        new = [self.name_for(i) for i in range(len(self.names), n)]
        for name in new:
            track(name)  # before the POST: a create cut short by Ctrl-C is still swept
        t0 = time.monotonic()
        if new and not self.names:  # the first through the recording client: the report's coverage and exchanges
            self.create_one(new[0], recorded=True)
            self.names.append(new.pop(0))
        self._run_batches("create", new, self.create_one)
        self.names.extend(new)
        return time.monotonic() - t0

    def _run_batches(self, phase: str, names: list[str], work: Callable[[str], None]) -> None:
        if not names:
            return
        chunk = max(1, min(500, len(names) // 10 or 1))
        done = 0
        with ThreadPoolExecutor(max_workers=self.parallel, thread_name_prefix="nsconform-scale") as pool:
            for start in range(0, len(names), chunk):
                batch = names[start:start + chunk]
                for fut in [pool.submit(work, name) for name in batch]:
                    fut.result()  # the first failure ends the run (its message names the namespace)
                done += len(batch)
                self.progress(phase, done, len(names))

    def delete_one(self, name: str) -> None:
        r = self.send("DELETE", self.paths.namespace(name), ok=(200, 202, 404))
        if r.status_code not in (200, 202, 404, 409):
            raise AssertionError(f"deleting namespace {name}: {r.status_code}: {r.text[:300]}")

    def remove(self, timeout: float) -> list[str]:
        """DELETE every namespace in parallel batches and wait until none of them exists; returns those
        still there at `timeout` (seconds)."""
        self._run_batches("delete", list(self.names), self.delete_one)
        left = self.wait_gone(set(self.names), time.monotonic() + timeout)
        self.names = [n for n in self.names if n in left]
        return sorted(left)

    def wait_gone(self, names: set[str], deadline: float) -> set[str]:
        """Watch the label selector until every one of `names` has been deleted (LIST again whenever the
        watch ends, so a missed event costs one more LIST, not the deadline)."""
        left = set(names)
        # one namespace (the deletion probe): select it by name, not the list of every scale namespace
        selector = {"fieldSelector": f"metadata.name={next(iter(left))}"} if len(left) == 1 else \
            {"labelSelector": self.selector}
        while left and time.monotonic() < deadline:
            r = self.session().get(self.client.url(self.paths.namespaces()), params=selector, timeout=120)
            if r.status_code != 200:
                raise AssertionError(f"listing namespaces {selector}: {r.status_code}: {r.text[:300]}")
            body = r.json()
            left &= {i["metadata"]["name"] for i in body.get("items") or []}
            if len(names) > 1:
                self.progress("wait for deletion", len(names) - len(left), len(names))
            if not left:
                break
            rv = (body.get("metadata") or {}).get("resourceVersion") or ""
            wait_s = max(0.1, min(30.0, deadline - time.monotonic()))
            params = {"watch": "true", **selector, "resourceVersion": rv, "timeoutSeconds": str(int(wait_s) or 1)}
            try:
                with self.session().get(self.client.url(self.paths.namespaces()), params=params, stream=True,
                                        timeout=(10, wait_s + 5)) as w:
                    for line in w.iter_lines():
                        if not line:
                            continue
                        ev = json.loads(line)
                        name = ((ev.get("object") or {}).get("metadata") or {}).get("name")
                        if ev.get("type") == "DELETED" and name in left:
                            left.discard(name)
                            if not left:
                                break
                        elif ev.get("type") == "ERROR":
                            break
            except requests.RequestException:
                pass  # the LIST at the top decides
        return left

"""A read-only etcd client for the storage suite: range (keys only) and watch on etcd's v3 JSON gateway
(`/v3/kv/range`, `/v3/watch`), over `requests` with the user's client certificate. It never writes: the only
requests it sends are range and watch-create.

Values are not decoded: kube-apiserver writes protobuf in a `k8s\\0` envelope (or JSON), and the suite's
assertions need only keys and revisions."""
from __future__ import annotations

import base64
import json
import queue
import threading
from dataclasses import dataclass
from typing import Any, Iterator

import requests

__all__ = ["EtcdReader", "EtcdReadError", "KeyEvent", "prefix_end"]


class EtcdReadError(Exception):
    """etcd cannot be read (one line for the user)."""


@dataclass(frozen=True)
class KeyEvent:
    type: str  # "PUT" | "DELETE"
    key: str
    mod_revision: int


def _b64(s: str) -> str:
    return base64.b64encode(s.encode("latin-1")).decode()


def _unb64(s: str | None) -> str:
    return base64.b64decode(s or "").decode("latin-1")


def prefix_end(prefix: str) -> str:
    """The `range_end` selecting every key that starts with `prefix` (etcd's `clientv3.GetPrefixRangeEnd`)."""
    raw = bytearray(prefix.encode("latin-1"))
    for i in range(len(raw) - 1, -1, -1):
        if raw[i] < 0xFF:
            raw[i] += 1
            return raw[:i + 1].decode("latin-1")
    return "\0"


class EtcdReader:
    """Range and watch against the first endpoint that answers."""

    def __init__(self, endpoints: list[str], *, cacert: str | None = None, cert: str | None = None,
                 key: str | None = None, timeout: float = 10.0):
        self.endpoints = [e.rstrip("/") for e in endpoints]
        self.session = requests.Session()
        self.session.verify = cacert if cacert else True
        if cert:
            self.session.cert = (cert, key) if key else cert
        self.timeout = timeout

    def _post(self, path: str, body: dict[str, Any], **kw: Any) -> requests.Response:
        last: Exception | None = None
        for ep in self.endpoints:
            try:
                r = self.session.post(ep + path, data=json.dumps(body), timeout=kw.pop("timeout", self.timeout), **kw)
            except requests.RequestException as e:
                last = e
                continue
            if r.status_code != 200:
                raise EtcdReadError(f"etcd {ep}{path}: HTTP {r.status_code}: {r.text[:200]}")
            return r
        raise EtcdReadError(f"etcd unreachable at {', '.join(self.endpoints)}: {last}")

    def keys(self, prefix: str) -> tuple[list[str], int]:
        """Every key starting with `prefix` (sorted), and the store's revision."""
        out = self._post("/v3/kv/range", {"key": _b64(prefix), "range_end": _b64(prefix_end(prefix)),
                                          "keys_only": True}).json()
        return [_unb64(kv["key"]) for kv in out.get("kvs", [])], int(out["header"]["revision"])

    def exists(self, key: str) -> bool:
        out = self._post("/v3/kv/range", {"key": _b64(key), "count_only": True}).json()
        return int(out.get("count", 0) or 0) > 0

    def revision(self) -> int:
        out = self._post("/v3/kv/range", {"key": _b64("\0"), "count_only": True}).json()
        return int(out["header"]["revision"])

    def watch(self, prefix: str, start_revision: int) -> "KeyWatch":
        return KeyWatch(self, prefix, start_revision)

    def close(self) -> None:
        self.session.close()


class KeyWatch:
    """One etcd watch on a prefix; events arrive on a background reader (`next(timeout)`)."""

    def __init__(self, reader: EtcdReader, prefix: str, start_revision: int):
        body = {"create_request": {"key": _b64(prefix), "range_end": _b64(prefix_end(prefix)),
                                   "start_revision": str(start_revision)}}
        self._r = reader._post("/v3/watch", body, stream=True, timeout=(reader.timeout, None))
        self._q: queue.Queue[KeyEvent | Exception | None] = queue.Queue()
        self._t = threading.Thread(target=self._run, name="nsconform-etcd-watch", daemon=True)
        self._t.start()

    def _lines(self) -> Iterator[dict[str, Any]]:
        for line in self._r.iter_lines():
            if line.strip():
                yield json.loads(line)

    def _run(self) -> None:
        try:
            for msg in self._lines():
                if "error" in msg:
                    raise EtcdReadError(f"etcd watch: {msg['error'].get('message', msg['error'])}")
                res = msg.get("result") or {}
                if res.get("canceled"):
                    raise EtcdReadError(f"etcd watch canceled: {res.get('cancel_reason', '')}")
                for ev in res.get("events") or []:
                    kv = ev.get("kv") or {}
                    self._q.put(KeyEvent(ev.get("type", "PUT"), _unb64(kv.get("key")),
                                         int(kv.get("mod_revision", 0) or 0)))
        except Exception as e:  # noqa: BLE001 - handed to the reader of the queue
            self._q.put(e)
        finally:
            self._q.put(None)

    def next(self, timeout: float) -> KeyEvent | None:
        """The next event, or None when none came within `timeout` (or the stream ended)."""
        try:
            item = self._q.get(timeout=timeout)
        except queue.Empty:
            return None
        if isinstance(item, Exception):
            raise item
        return item

    def close(self) -> None:
        """Shut the socket first (the reader thread is blocked reading it: a plain close would wait for it)."""
        raw = self._r.raw
        try:
            if hasattr(raw, "shutdown"):  # urllib3 ≥ 2.3
                raw.shutdown()
            else:
                import socket

                sock = getattr(getattr(getattr(raw, "_fp", None), "fp", None), "raw", None)
                getattr(sock, "_sock", None).shutdown(socket.SHUT_RDWR)  # type: ignore[union-attr]
        except Exception:  # noqa: BLE001 - a stream that is already gone
            pass
        self._t.join(5)
        try:
            self._r.close()
        except Exception:  # noqa: BLE001 - closing a dead stream
            pass

    def __enter__(self) -> "KeyWatch":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

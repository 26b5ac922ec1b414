"""A read-only etcd client for the storage suite: range (keys only) and watch on etcd's v3 JSON gateway
(`/v3/kv/range`, `/v3/watch`), over `requests` with the user's client certificate. It never writes: the only
requests it sends are range and watch-create.

Values are not decoded: kube-apiserver writes protobuf in a `k8s\\0` envelope (or JSON), and the suite's
assertions need only keys and revisions."""
from __future__ import annotations

import base64
import json
import queue
import re
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


_VERIFY = re.compile(r"certificate verify failed: ([^(')]+)")


def _reason(exc: Exception | None) -> str:
    """One line for what went wrong, naming the option to check on a TLS failure (requests wraps the
    handshake error in three layers of repr)."""
    text = str(exc) if exc is not None else "no answer"
    if m := _VERIFY.search(text):
        return (f"etcd's serving certificate is not trusted ({m.group(1).strip()}): give the CA that signed it "
                f"with --etcd-cacert")
    if isinstance(exc, requests.exceptions.SSLError):
        if "WRONG_VERSION_NUMBER" in text or "wrong version number" in text:
            return "TLS handshake failed: the endpoint does not speak TLS (use http://)"
        return ("TLS handshake failed: etcd refused the connection (it may require a client certificate: "
                "--etcd-cert/--etcd-key)")
    if isinstance(exc, requests.exceptions.ConnectionError) and "RemoteDisconnected" in text:
        return "etcd closed the connection without an answer (a TLS etcd given an http:// URL?)"
    m = re.search(r"\[Errno \d+\] [^'\")]+", text)
    return m.group(0) if m else text


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
                # verify= on the request: set on the session only, requests lets REQUESTS_CA_BUNDLE replace it
                r = self.session.post(ep + path, data=json.dumps(body), timeout=kw.pop("timeout", self.timeout),
                                      verify=self.session.verify, **kw)
            except OSError as e:  # requests' errors, and a CA/certificate file it cannot read
                last = e
                continue
            if r.status_code != 200:
                raise EtcdReadError(f"etcd {ep}{path}: HTTP {r.status_code}: {r.text[:200]}")
            return r
        raise EtcdReadError(f"etcd unreachable at {', '.join(self.endpoints)}: {_reason(last)}")

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

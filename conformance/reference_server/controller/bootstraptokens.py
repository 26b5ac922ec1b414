"""What kube-controller-manager's bootstrap controllers (pkg/controller/bootstrap: the signer and the token cleaner)
share: reading a `bootstrap.kubernetes.io/token` Secret and its expiry, and their construction (a registry, a
clock tests can set, an Offload for the store's round trips).

Upstream: `staging/src/k8s.io/cluster-bootstrap/secret/util.go` (`GetData`, `GetExpiration`: no `expiration`,
never; one that does not parse as RFC 3339, expired; else expired once `ttl = expiration - now` is not positive).
"""
from __future__ import annotations

import base64
import re
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..storage.offload import Offload
from .loop import Controller

TOKEN_TYPE = "bootstrap.kubernetes.io/token"
_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


def secret_data(secret: dict[str, Any], key: str) -> str:
    """`GetData`: a key of `data`, decoded ("" when absent or not base64 text)."""
    raw = (secret.get("data") or {}).get(key)
    try:
        return base64.b64decode(raw).decode() if raw else ""
    except (ValueError, UnicodeDecodeError):
        return ""


def get_expiration(secret: dict[str, Any], now: float) -> tuple[float, bool]:
    """`GetExpiration`: (seconds left, expired)."""
    value = secret_data(secret, "expiration")
    if not value:
        return 0.0, False
    if not _RFC3339.fullmatch(value):  # time.Parse(time.RFC3339, ...) fails: treated as expired
        return 0.0, True
    ttl = datetime.fromisoformat(value.upper().replace("Z", "+00:00")).timestamp() - now
    return (0.0, True) if ttl <= 0 else (ttl, False)


class BootstrapTokenController(Controller):
    """A bootstrap controller over `registry`, its time read from `clock`."""

    def __init__(self, registry: Any, *, clock: Callable[[], float] = time.time):
        super().__init__()
        self.registry, self.clock = registry, clock
        self._offload = Offload(registry.store, self.name)  # etcd: the writes' round trips off the loop


__all__ = ["TOKEN_TYPE", "BootstrapTokenController", "get_expiration", "secret_data"]

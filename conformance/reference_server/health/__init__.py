"""kube-apiserver's health endpoints and root index, as 1.33 serves them.

- state.py: what the checks read (the named start-up steps with their done/failed flags, shutting down, the store
  probe); the server marks it, the checks only read it;
- checks.py: the checks of `/healthz`, `/livez` and `/readyz`, in a 1.33 kube-apiserver's order;
- handler.py: `healthz.go`'s answers (`handleRootHealth`, `adaptCheckToHandler`);
- etcdprobe.py: `storagebackend/factory/etcd3.go`'s probe (a range of `<prefix>/health`, rate-limited);
- index.py: `routes/index.go`'s `{"paths": [...]}`.

Knows nothing of HTTP beyond the query it is handed: http/app.py turns its answers into responses.
"""
from __future__ import annotations

from .checks import ENDPOINTS, HealthChecks
from .handler import HealthAnswer, answer
from .index import root_paths
from .state import HealthState, StartupSteps

__all__ = ["ENDPOINTS", "HealthAnswer", "HealthChecks", "HealthState", "StartupSteps", "answer", "root_paths"]

"""The only code that speaks HTTP to a target.

Exceptions raised here carry ONE line meant for a human: the CLI and the plugin print them verbatim
instead of a traceback, because a bad kubeconfig or an unreachable server is an expected problem.
"""

from __future__ import annotations

__all__ = ["TargetError", "TargetUnreachable", "KubeClient", "WatchStream", "Connection"]


class TargetError(Exception):
    """The target cannot be used (bad kubeconfig, unknown context, credentials rejected, ...)."""

    def __init__(self, msg: str) -> None:
        # Keep it one line: callers print str(exc) as the whole diagnosis.
        super().__init__(" ".join(str(msg).split()))


class TargetUnreachable(TargetError):
    """No HTTP response arrived (connection refused, DNS failure, TLS failure, timeout)."""


def __getattr__(name: str):  # lazy, so importing the errors never pulls in requests/kubernetes
    if name == "KubeClient":
        from .api import KubeClient

        return KubeClient
    if name == "WatchStream":
        from .watch import WatchStream

        return WatchStream
    if name == "Connection":
        from .config import Connection

        return Connection
    raise AttributeError(name)

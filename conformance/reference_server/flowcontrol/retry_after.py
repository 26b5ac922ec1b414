"""The 429's `Retry-After` per priority level (`dropped_requests_tracker.go`, k8s.io/apiserver v0.33): 1 second
at first; when a level dropped at least 3 × retryAfter requests in the last retryAfter seconds it doubles (at most
once per retryAfter seconds, capped at 32), and when it dropped fewer than retryAfter it shrinks by one. Only
re-evaluated when a drop starts a new second, as upstream."""
from __future__ import annotations

import time
from typing import Callable

MAX_RETRY_AFTER = 32


class _Stats:
    def __init__(self) -> None:
        self.history: list[tuple[int, int]] = []  # (unix second, drops in it)
        self.current_unix = 0
        self.current_count = 0
        self.retry_after = 1
        self.update_unix = 0

    def record(self, unix: int) -> None:
        if unix == self.current_unix:
            self.current_count += 1
            return
        self.history.append((self.current_unix, self.current_count))
        self.history = [h for h in self.history if self.current_unix - h[0] <= MAX_RETRY_AFTER]
        self.current_unix, self.current_count = unix, 1
        self._update(unix)

    def _update(self, unix: int) -> None:
        retry = self.retry_after
        dropped = 0
        for t, n in reversed(self.history):
            if unix - t > retry:
                break
            if t < unix:
                dropped += n
        if unix - self.update_unix >= retry and dropped >= 3 * retry:
            self.retry_after = min(retry * 2, MAX_RETRY_AFTER)
            self.update_unix = unix
        elif dropped < retry and retry > 1:
            self.retry_after = retry - 1


class DroppedRequests:
    """`DroppedRequestsTracker`: record a drop, then read the Retry-After to send."""

    def __init__(self, now: Callable[[], float] = time.time):
        self._now = now
        self._levels: dict[str, _Stats] = {}

    def record(self, level: str) -> None:
        self._levels.setdefault(level, _Stats()).record(int(self._now()))

    def retry_after(self, level: str) -> int:
        stats = self._levels.get(level)
        return stats.retry_after if stats is not None else 1


__all__ = ["DroppedRequests", "MAX_RETRY_AFTER"]

"""Graceful deletion (`staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go`, `BeforeDelete`).

A strategy that answers `graceful_period` (upstream `RESTGracefulDeleteStrategy.CheckGracefulDelete`; only pods
among the kinds served here) makes a DELETE write `deletionTimestamp = now + period` and
`deletionGracePeriodSeconds = period` first; the object then stays while the period is above zero (on a
cluster, until the kubelet confirms) and is removed at once when it is zero (after that write, as upstream's
`updateForGracefulDeletionAndFinalizers`: watchers see MODIFIED, then DELETED). A later DELETE may only
shorten a pending period.
"""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Any

NOT_GRACEFUL = "not-graceful"   # the strategy has no graceful deletion, or the object's period is already 0
PENDING = "pending"             # a graceful deletion with a period at least as short is under way: nothing to do
GRACEFUL = "graceful"           # write `changes` into metadata; remove now only if `period` is 0


@dataclass(frozen=True)
class Decision:
    outcome: str
    period: int = 0
    changes: "dict[str, Any] | None" = None


def _parse(ts: str) -> _dt.datetime:
    return _dt.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.timezone.utc)


def _fmt(t: _dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _plus(t: _dt.datetime, seconds: int) -> _dt.datetime:
    """`t + seconds`, held within what a timestamp can show (an int64 grace period can overflow it)."""
    try:
        return t + _dt.timedelta(seconds=seconds)
    except OverflowError:
        return _dt.datetime.max.replace(tzinfo=_dt.timezone.utc) if seconds > 0 else t


def before_delete(strategy: Any, obj: dict[str, Any], requested: int | None) -> Decision:
    """`rest.BeforeDelete` for `obj` and the request's `gracePeriodSeconds` (None: not given)."""
    if requested is not None and requested < 0:  # "Negative values will be treated as the value `1s`"
        requested = 1
    period_of = getattr(strategy, "graceful_period", None)
    if period_of is None:
        return Decision(NOT_GRACEFUL)
    meta = obj.get("metadata") or {}
    ts, grace = meta.get("deletionTimestamp"), meta.get("deletionGracePeriodSeconds")
    if ts:
        if not grace:  # already at 0 (or never set): delete now, as upstream's recovery path does
            return Decision(NOT_GRACEFUL)
        if requested is None or requested >= grace:  # only a shorter grace period may be provided
            return Decision(PENDING, int(grace))
        try:
            new_ts = _fmt(_plus(_plus(_parse(ts), -int(grace)), requested))
        except (ValueError, OverflowError):
            new_ts = _fmt(_plus(_dt.datetime.now(_dt.timezone.utc), requested))
        return Decision(GRACEFUL, requested, {"deletionTimestamp": new_ts, "deletionGracePeriodSeconds": requested})
    period = period_of(obj, requested)
    if period is None:
        return Decision(NOT_GRACEFUL)
    deadline = _plus(_dt.datetime.now(_dt.timezone.utc), period)
    return Decision(GRACEFUL, period, {"deletionTimestamp": _fmt(deadline), "deletionGracePeriodSeconds": period})

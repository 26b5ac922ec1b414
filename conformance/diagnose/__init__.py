"""`nsconform diagnose`: why is a namespace stuck in Terminating, and the least destructive way out.

Read-only against any cluster (it only GETs): for each terminating namespace, how long it has been
terminating, its conditions, every remaining object (found through discovery, like the namespace
controller) with its finalizers, unavailable APIServices, foreign spec finalizers with their usual
owners; then remedies in plain words with commands. `collect` reads, `advice` explains, `render` prints.
"""
from __future__ import annotations

import datetime as _dt
from typing import Any, Iterable

from . import collect
from .advice import advise
from .model import Diagnosis, NamespaceDiagnosis, Unreadable
from .owners import owner_of

__all__ = ["diagnose", "Diagnosis", "NamespaceDiagnosis", "owner_of"]


def _age(ts: str | None, now: _dt.datetime) -> float | None:
    if not ts:
        return None
    try:
        then = _dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(0.0, (now - then).total_seconds())


def diagnose(client: Any, names: Iterable[str] = (), *, all_terminating: bool = False, server: str = "",
             now: _dt.datetime | None = None) -> Diagnosis:
    """Diagnose the named namespaces (and, with `all_terminating` or no names, every terminating one)."""
    now = now or _dt.datetime.now(_dt.timezone.utc)
    d = Diagnosis(server=server)
    objects: list[tuple[str, dict[str, Any] | None, str | None]] = []
    names = list(names)
    if all_terminating or not names:
        items, err = collect.list_items(client, "/api/v1/namespaces")
        if err is not None:
            d.unreadable.append(Unreadable("namespaces", err))
        objects += [(i["metadata"]["name"], i, None) for i in items
                    if (i.get("metadata") or {}).get("deletionTimestamp") and i["metadata"]["name"] not in names]
    for name in names:
        body, err = collect.get_json(client, f"/api/v1/namespaces/{name}")
        objects.append((name, body, err))
    stuck = False
    for name, body, err in objects:
        n = NamespaceDiagnosis(name)
        d.namespaces.append(n)
        if body is None:
            n.found = False
            if err and not err.startswith("404"):
                n.unreadable.append(Unreadable("namespace", err))
            continue
        meta, spec, status = body.get("metadata") or {}, body.get("spec") or {}, body.get("status") or {}
        n.deletion_timestamp = meta.get("deletionTimestamp")
        n.terminating = bool(n.deletion_timestamp)
        n.terminating_for_s = _age(n.deletion_timestamp, now)
        n.phase = status.get("phase")
        n.spec_finalizers = list(spec.get("finalizers") or [])
        n.metadata_finalizers = list(meta.get("finalizers") or [])
        n.conditions = list(status.get("conditions") or [])
        n.foreign_finalizers = {f: owner_of(f) for f in n.spec_finalizers if f != "kubernetes"}
        stuck = stuck or n.terminating
    if stuck:
        resources, d.discovery_failures = collect.namespaced_resources(client)
        d.unavailable_apiservices, unreadable = collect.unavailable_apiservices(client)
        if unreadable is not None:
            d.unreadable.append(unreadable)
        for n in d.namespaces:
            if n.stuck:
                n.remaining, n.unreadable = collect.remaining_objects(client, n.name, resources)
                n.unreadable = [u for u in n.unreadable] + [
                    Unreadable(f.what, f.reason) for f in d.discovery_failures
                    if not any(f.what == a.group_version for a in d.unavailable_apiservices)]
    advise(d)
    return d

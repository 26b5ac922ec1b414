"""Opt-in extensions of the reference server, each behind a feature gate (`--feature-gates Name=true`).

An extension is never part of core conformance: it is off by default, and when off nothing of it is
served (discovery, OpenAPI, fields, admission). Today: `NamespaceInitializers` (KEP-33, provisional and
never merged upstream; see `initializers.py`).
"""
from __future__ import annotations

from typing import Iterable

KNOWN_GATES = ("NamespaceInitializers", "NamespaceInitializingPhase")
"""`NamespaceInitializingPhase` (with `NamespaceInitializers`): also show `status.phase: Initializing` while
initializers are pending — the third phase value KEP-33 allows ("can be introduced"), off by default."""


def parse_feature_gates(specs: Iterable[str] | str | None) -> frozenset[str]:
    """`A=true,B=false` (kube-apiserver's `--feature-gates` syntax; repeatable) → the gates switched on.

    Raises ValueError for an unknown gate or a value other than true/false (kube-apiserver refuses to start)."""
    if specs is None:
        return frozenset()
    if isinstance(specs, str):
        specs = [specs]
    on: set[str] = set()
    for spec in specs:
        for part in (p.strip() for p in spec.split(",")):
            if not part:
                continue
            name, sep, value = part.partition("=")
            name, value = name.strip(), value.strip().lower()
            if name not in KNOWN_GATES:
                raise ValueError(f"unrecognized feature gate: {name} (known: {', '.join(KNOWN_GATES)})")
            if not sep or value not in ("true", "false"):
                raise ValueError(f"invalid value of {name}: {value or '(none)'}, err: expected true or false")
            if value == "true":
                on.add(name)
            else:
                on.discard(name)
    return frozenset(on)


def extra_fields(gates: frozenset[str], kind: str) -> dict | None:
    """Fields the enabled extensions add to `kind` (the decoder keeps them instead of dropping them as
    unknown; with the gate off they are dropped, as kube-apiserver drops a disabled alpha field)."""
    if kind == "Namespace" and "NamespaceInitializers" in gates:
        return {"spec": {"initializers": {"pending": {"name": None}, "result": None}},
                "status": {"conditions": {"type": None, "status": None, "lastProbeTime": None,
                                          "lastTransitionTime": None, "reason": None, "message": None}}}
    return None

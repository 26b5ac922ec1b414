"""What diagnose found, as data (`to_dict` is the `--output json` document)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class RemainingObject:
    resource: str            # `<plural>.<group>` (core: `pods`)
    api_path: str            # collection path the object was listed from
    name: str
    finalizers: list[str]
    deleting: bool           # has deletionTimestamp


@dataclass
class Unreadable:
    what: str                # `widgets.example.com` or a group version
    reason: str              # e.g. "403 Forbidden: ...", "503 ..."


@dataclass
class APIServiceProblem:
    name: str
    group_version: str
    reason: str
    message: str


@dataclass
class Remedy:
    cause: str               # short key: content-finalizer | content | spec-finalizer | apiservice | unreadable | ...
    explanation: str
    commands: list[str] = field(default_factory=list)


@dataclass
class NamespaceDiagnosis:
    name: str
    found: bool = True
    terminating: bool = False
    terminating_for_s: float | None = None
    deletion_timestamp: str | None = None
    phase: str | None = None
    spec_finalizers: list[str] = field(default_factory=list)
    metadata_finalizers: list[str] = field(default_factory=list)
    conditions: list[dict[str, Any]] = field(default_factory=list)
    remaining: list[RemainingObject] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)
    foreign_finalizers: dict[str, str | None] = field(default_factory=dict)  # finalizer → usual owner
    remedies: list[Remedy] = field(default_factory=list)

    @property
    def stuck(self) -> bool:
        return self.found and self.terminating


@dataclass
class Diagnosis:
    server: str
    namespaces: list[NamespaceDiagnosis] = field(default_factory=list)
    unavailable_apiservices: list[APIServiceProblem] = field(default_factory=list)
    discovery_failures: list[Unreadable] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)   # cluster-wide reads that failed

    @property
    def stuck(self) -> bool:
        return any(n.stuck for n in self.namespaces)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["stuck"] = self.stuck
        for n, d in zip(self.namespaces, out["namespaces"]):
            d["stuck"] = n.stuck
        return out

"""The endpoint table (data/endpoints.toml) and profile-aware path building.

The table is data so that coverage reports, the client's recording and the suites agree on one
list of operations per profile; `Paths` is the only place that knows how the two profiles spell
the verbs that differ (finalize, list across namespaces, watch).
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["Endpoint", "PROFILES", "load", "rows", "match", "row", "Paths"]

PROFILES = ("kubernetes", "design")
_SUBRESOURCES = frozenset({"status", "finalize"})
DATA = Path(__file__).parent / "data" / "endpoints.toml"


@dataclass(frozen=True)
class Endpoint:
    id: str
    method: str
    path: str
    profiles: tuple[str, ...]
    source: str
    description: str
    expect: str = "served"     # "served" or the status code a conforming server answers ("405", "404")
    watch: bool = False        # matches only requests carrying ?watch=true|1

    @functools.cached_property
    def _segments(self) -> tuple[str | None, ...]:
        # None marks a {placeholder} segment.
        return tuple(None if (s.startswith("{") and s.endswith("}")) else s for s in _split(self.path))

    @functools.cached_property
    def _resource_slots(self) -> frozenset[int]:
        return frozenset(i for i, s in enumerate(_split(self.path)) if s == "{resource}")

    @property
    def literal_count(self) -> int:
        return sum(1 for s in self._segments if s is not None)

    def matches(self, method: str, segments: tuple[str, ...], is_watch: bool) -> bool:
        if method.upper() != self.method or len(segments) != len(self._segments):
            return False
        if self.watch != is_watch and not (is_watch and self._is_watch_path):
            return False
        if any(segments[i] in _SUBRESOURCES for i in self._resource_slots):
            return False  # "status"/"finalize" under a namespace are subresources, never a resource type
        return all(t is None or t == s for t, s in zip(self._segments, segments))

    @property
    def _is_watch_path(self) -> bool:
        segs = self._segments
        return len(segs) > 2 and segs[2] == "watch"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "method": self.method, "path": self.path, "profiles": list(self.profiles),
                "source": self.source, "description": self.description, "expect": self.expect,
                "watch": self.watch}


def _split(path: str) -> tuple[str, ...]:
    return tuple(s for s in path.split("/") if s)


@functools.lru_cache(maxsize=None)
def load(path: str | None = None) -> tuple[Endpoint, ...]:
    """All rows of the table (cached)."""
    with open(path or DATA, "rb") as fh:
        data = tomllib.load(fh)
    out = []
    for raw in data.get("endpoint", []):
        out.append(Endpoint(id=raw["id"], method=raw["method"].upper(), path=raw["path"],
                            profiles=tuple(raw["profiles"]), source=raw.get("source", ""),
                            description=raw.get("description", ""), expect=str(raw.get("expect", "served")),
                            watch=bool(raw.get("watch", False))))
    return tuple(out)


def rows(profile: str) -> list[Endpoint]:
    """The table of one profile, in file order."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r} (expected one of {', '.join(PROFILES)})")
    return [e for e in load() if profile in e.profiles]


def row(endpoint_id: str, profile: str) -> Endpoint | None:
    for e in rows(profile):
        if e.id == endpoint_id:
            return e
    return None


@functools.lru_cache(maxsize=None)
def _candidates(profile: str, method: str, length: int) -> tuple[Endpoint, ...]:
    """The rows (file order) a request of this method and number of path segments can hit: `match` runs on
    every request the client records, and most rows differ in one of the two."""
    return tuple(e for e in rows(profile) if e.method == method and len(e._segments) == length)


def _is_watch_query(query: str) -> bool:
    values = parse_qs(query, keep_blank_values=True).get("watch", [])
    return any(v.lower() in ("true", "1") for v in values)


def match(method: str, path: str, profile: str) -> str | None:
    """The row id a request hits under `profile`, or None. `path` may carry a query or be a full URL.

    Literal segments beat placeholders (so `/api/v1/namespaces` is `ns-list`, not `content-list-all`).
    """
    parts = urlsplit(path)
    segments = _split(parts.path)
    is_watch = _is_watch_query(parts.query)
    best: Endpoint | None = None
    for e in _candidates(profile, method.upper(), len(segments)):
        if e.matches(method, segments, is_watch) and (best is None or e.literal_count > best.literal_count):
            best = e
    return best.id if best else None


def _seg(value: str) -> str:
    return quote(value, safe="")


class Paths:
    """Profile-aware URL paths. Suites use this for every verb that differs between profiles."""

    def __init__(self, profile: str = "kubernetes", version: str = "v1") -> None:
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r}")
        self.profile = profile
        self.version = version
        self.root = f"/api/{version}"

    def __repr__(self) -> str:
        return f"Paths(profile={self.profile!r})"

    @property
    def finalize_method(self) -> str:
        """PUT on a real server; the design document's FINALIZE is a POST."""
        return "PUT" if self.profile == "kubernetes" else "POST"

    def namespaces(self) -> str:
        return f"{self.root}/namespaces"

    def namespace(self, name: str) -> str:
        return f"{self.root}/namespaces/{_seg(name)}"

    def status(self, name: str) -> str:
        return f"{self.namespace(name)}/status"

    def finalize(self, name: str) -> str:
        return f"{self.namespace(name)}/finalize"

    def content(self, ns: str, resource: str, name: str | None = None) -> str:
        base = f"{self.namespace(ns)}/{resource}"
        return f"{base}/{_seg(name)}" if name is not None else base

    def all_namespaces(self, resource: str) -> str:
        """List across namespaces: `/api/v1/{r}` (kubernetes) or `/api/v1/list/{r}` (design)."""
        return f"{self.root}/{resource}" if self.profile == "kubernetes" else f"{self.root}/list/{resource}"

    def watch_namespaces(self, name: str | None = None) -> str:
        """The deprecated path form `/api/v1/watch/namespaces[/{name}]` (served by both profiles)."""
        base = f"{self.root}/watch/namespaces"
        return f"{base}/{_seg(name)}" if name is not None else base

    def watch_content(self, ns: str, resource: str) -> str:
        return f"{self.root}/watch/namespaces/{_seg(ns)}/{resource}"

    def watch_all(self, resource: str) -> str:
        return f"{self.root}/watch/{resource}"

    def watch_for(self, object_path: str) -> tuple[str, dict[str, str]]:
        """(path, params) of a watch on the collection holding `object_path`, narrowed to that object.

        kubernetes uses the preferred `?watch=true` form; design uses the document's `/watch/` paths.
        """
        collection, _, name = object_path.rstrip("/").rpartition("/")
        params = {"fieldSelector": f"metadata.name={name}"}
        if self.profile == "kubernetes":
            return collection, {"watch": "true", **params}
        rest = collection[len(self.root):] if collection.startswith(self.root) else collection
        return f"{self.root}/watch{rest}", params

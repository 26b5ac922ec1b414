"""The clause catalogue (data/clauses.toml, Contract 4) and the rules that tie suite tests to it.

Every suite test names the clause(s) it checks with `@pytest.mark.clause(...)`; every clause has a
test. Both rules are enforced at collection time (see `check_coverage`), because a report that
silently lists an untested clause as "passed" would be worse than no report.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["Clause", "CatalogueError", "DATA", "GROUPS", "SEVERITIES", "load", "by_id", "for_profile",
           "check_markers", "check_coverage"]

DATA = Path(__file__).parent / "data" / "clauses.toml"
GROUPS = ("finalizers", "finalize", "phase", "lifecycle", "content", "naming", "list-watch", "discovery",
          "errors", "coverage", "scope", "discovery-deletion")
SEVERITIES = ("critical", "major", "minor")
PROFILES = ("kubernetes", "design")


class CatalogueError(Exception):
    """The catalogue file is missing or malformed; the message names the file and the entry."""


@dataclass(frozen=True)
class Clause:
    id: str
    group: str
    requirement: str
    source: str
    profiles: tuple[str, ...]
    severity: str
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def applies_to(self, profile: str) -> bool:
        return profile in self.profiles

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "group": self.group, "requirement": self.requirement, "source": self.source,
                "profiles": list(self.profiles), "severity": self.severity, **dict(self.extra)}


def _parse(path: Path) -> tuple[Clause, ...]:
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise CatalogueError(f"clause catalogue {path}: file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueError(f"clause catalogue {path}: {exc}") from None
    out: list[Clause] = []
    seen: set[str] = set()
    for i, raw in enumerate(data.get("clause", []), 1):
        where = f"clause catalogue {path}: entry #{i}"
        missing = [k for k in ("id", "requirement", "profiles") if k not in raw]
        if missing:
            raise CatalogueError(f"{where} lacks {', '.join(missing)}")
        cid = str(raw["id"])
        if cid in seen:
            raise CatalogueError(f"{where}: duplicate id {cid}")
        seen.add(cid)
        profiles = tuple(raw["profiles"])
        bad = [p for p in profiles if p not in PROFILES]
        if bad:
            raise CatalogueError(f"{where} ({cid}): unknown profile(s) {', '.join(bad)}")
        known = {"id", "group", "requirement", "source", "profiles", "severity"}
        out.append(Clause(id=cid, group=str(raw.get("group", "")), requirement=str(raw["requirement"]),
                          source=str(raw.get("source", "")), profiles=profiles,
                          severity=str(raw.get("severity", "major")),
                          extra={k: v for k, v in raw.items() if k not in known}))
    return tuple(out)


@functools.lru_cache(maxsize=8)
def _cached(path: str, mtime: float) -> tuple[Clause, ...]:
    return _parse(Path(path))


def load(path: str | Path | None = None) -> list[Clause]:
    """All clauses in file order (re-read when the file changes)."""
    p = Path(path) if path else DATA
    try:
        mtime = p.stat().st_mtime
    except OSError:
        raise CatalogueError(f"clause catalogue {p}: file not found") from None
    return list(_cached(str(p), mtime))


def by_id(path: str | Path | None = None) -> dict[str, Clause]:
    return {c.id: c for c in load(path)}


def for_profile(profile: str, path: str | Path | None = None) -> list[Clause]:
    return [c for c in load(path) if c.applies_to(profile)]


def check_markers(tests: Mapping[str, Iterable[str]], catalogue: Mapping[str, Clause]) -> list[str]:
    """Problems with suite tests: no clause marker, or an id not in the catalogue. Keys are nodeids."""
    problems = []
    for nodeid, ids in tests.items():
        ids = list(ids)
        if not ids:
            problems.append(f"{nodeid}: no @pytest.mark.clause(...) marker (every suite test must name its clause)")
            continue
        unknown = [i for i in ids if i not in catalogue]
        if unknown:
            problems.append(f"{nodeid}: unknown clause id(s) {', '.join(unknown)} (not in clauses.toml)")
    return problems


def check_coverage(tests: Mapping[str, Iterable[str]], catalogue: Mapping[str, Clause]) -> list[str]:
    """Clause ids no collected test checks."""
    covered = {i for ids in tests.values() for i in ids}
    return [cid for cid in catalogue if cid not in covered]

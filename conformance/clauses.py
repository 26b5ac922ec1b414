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
          "errors", "coverage", "scope", "discovery-deletion", "scale", "storage")
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
    depends_on: tuple[str, ...] = ()
    """Clauses this one's tests rely on: when one of those fails, it is the probable root cause of this
    one failing too (reports name it first). Dependents still run and fail on their own evidence."""

    def applies_to(self, profile: str) -> bool:
        return profile in self.profiles

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "group": self.group, "requirement": self.requirement, "source": self.source,
                "profiles": list(self.profiles), "severity": self.severity, "depends_on": list(self.depends_on),
                **dict(self.extra)}


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
        depends = raw.get("depends_on", [])
        if not isinstance(depends, list) or not all(isinstance(d, str) for d in depends):
            raise CatalogueError(f"{where} ({cid}): depends_on must be a list of clause ids")
        known = {"id", "group", "requirement", "source", "profiles", "severity", "depends_on"}
        out.append(Clause(id=cid, group=str(raw.get("group", "")), requirement=str(raw["requirement"]),
                          source=str(raw.get("source", "")), profiles=profiles,
                          severity=str(raw.get("severity", "major")),
                          extra={k: v for k, v in raw.items() if k not in known},
                          depends_on=tuple(dict.fromkeys(depends))))
    _check_dependencies(path, out)
    return tuple(out)


def _check_dependencies(path: Path, clauses: list[Clause]) -> None:
    """depends_on names existing clauses and has no cycle (a cycle would make every member the root cause)."""
    ids = {c.id: c for c in clauses}
    for c in clauses:
        unknown = [d for d in c.depends_on if d not in ids]
        if unknown:
            raise CatalogueError(f"clause catalogue {path}: {c.id} depends_on unknown clause(s) {', '.join(unknown)}")
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(cid: str, trail: list[str]) -> None:
        if state.get(cid) == 2:
            return
        if state.get(cid) == 1:
            loop = trail[trail.index(cid):] + [cid]
            raise CatalogueError(f"clause catalogue {path}: depends_on cycle {' -> '.join(loop)}")
        state[cid] = 1
        for dep in ids[cid].depends_on:
            visit(dep, trail + [cid])
        state[cid] = 2

    for c in clauses:
        visit(c.id, [])


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

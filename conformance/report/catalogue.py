"""Read the clause catalogue and the endpoint table, through the harness modules when they exist.

`conformance.clauses` / `conformance.endpoints` are written by the harness engineer; until they land (or if their
API differs) the TOML files in `conformance/data/` are read directly, so reports never depend on import order.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

CLAUSE_KEYS = ("id", "group", "requirement", "source", "severity", "profiles", "depends_on", "extension")
ENDPOINT_KEYS = ("id", "method", "path", "profiles")


def _as_dict(obj: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    if isinstance(obj, dict):
        src = obj
    elif dataclasses.is_dataclass(obj):
        src = dataclasses.asdict(obj)  # type: ignore[arg-type]
    else:
        src = {k: getattr(obj, k) for k in keys if hasattr(obj, k)}
    if isinstance(src.get("extra"), dict):  # `clauses.Clause`: keys beyond the fixed ones (e.g. extension)
        src = {**src["extra"], **src}
    out = {k: src.get(k) for k in keys}
    if out.get("profiles") is not None:
        out["profiles"] = list(out["profiles"])
    out["depends_on"] = list(out.get("depends_on") or [])
    return out


def _toml_rows(filename: str, *table_names: str) -> list[dict[str, Any]]:
    try:
        text = resources.files("conformance.data").joinpath(filename).read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError, OSError):
        return []
    data = tomllib.loads(text)
    for name in table_names:
        if isinstance(data.get(name), list):
            return data[name]
    return []


def load_clauses(path: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
    """Every clause of the catalogue (`path`, default the packaged one) as a plain dict with `CLAUSE_KEYS`."""
    raw: Any = None
    try:
        from conformance import clauses as mod
        raw = mod.load(path)
    except Exception:  # noqa: BLE001 - a broken catalogue module must not lose the report
        raw = None
    if not raw:
        if path:
            try:
                raw = tomllib.loads(Path(path).read_text(encoding="utf-8")).get("clause", [])
            except (OSError, tomllib.TOMLDecodeError):
                raw = []
        else:
            raw = _toml_rows("clauses.toml", "clause", "clauses")
    return [_as_dict(c, CLAUSE_KEYS) for c in raw]


def catalogue_path(config: Any) -> Path | None:
    """The `nsconform_clauses` ini value the harness plugin honours (None: the packaged catalogue)."""
    try:
        value = config.getini("nsconform_clauses")
    except (ValueError, KeyError):
        return None
    if not value:
        return None
    p = Path(value)
    return p if p.is_absolute() else Path(config.rootpath, p)


def endpoint_rows(profile: str | None) -> list[dict[str, Any]]:
    """The endpoint-table rows that apply to `profile` (all rows when the profile is unknown)."""
    raw: Any = None
    try:
        from conformance import endpoints as mod
        raw = list(mod.rows(profile)) if profile else list(mod.load())
    except Exception:  # noqa: BLE001
        raw = None
    if raw is None:
        raw = [r for r in _toml_rows("endpoints.toml", "endpoint", "endpoints", "row")
               if not profile or not r.get("profiles") or profile in r.get("profiles", [])]
    return [_as_dict(r, ENDPOINT_KEYS) for r in raw]

"""Conversion of one kind's objects between the API versions it is served in, for the field manager (upstream
`managedfields/internal/versionconverter.go`: `Convert(object, version)` through the internal version).

Each managedFields entry keeps the field set its manager wrote in its own `apiVersion`. A write through version
V computes its own set in V; another manager's entry recorded in version W is compared in W: the old and new
objects are converted to W and compared there (structured-merge-diff's `Updater.update`), so conflicts and lost
ownership are found in the paths that manager wrote. Only kinds served in several versions have one (the
registry hands it over: `registry/versions.py`); a version it does not know is treated as the writer's own,
as before.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

Converter = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass
class VersionConverter:
    """`storage`: the storage version's apiVersion; `to_storage` / `from_storage`: per other apiVersion, its
    conversion to / from the storage version (JSON objects in, new objects out)."""

    storage: str
    to_storage: dict[str, Converter] = field(default_factory=dict)
    from_storage: dict[str, Converter] = field(default_factory=dict)
    direct: Callable[[dict[str, Any], str, str], dict[str, Any]] | None = None
    """(obj, from, to) converted in one step (a custom resource's: its hub is the request's version)."""

    def add(self, api_version: str, to_storage: Converter, from_storage: Converter) -> None:
        self.to_storage[api_version], self.from_storage[api_version] = to_storage, from_storage

    def serves(self, api_version: str) -> bool:
        return api_version == self.storage or api_version in self.to_storage

    def convert(self, obj: dict[str, Any], from_version: str, to_version: str) -> dict[str, Any]:
        """`obj` (in `from_version`) in `to_version`, through the storage version."""
        if from_version == to_version:
            return obj
        if self.direct is not None:
            return {**self.direct(obj, from_version, to_version), "apiVersion": to_version}
        stored = obj if from_version == self.storage else self.to_storage[from_version](obj)
        out = stored if to_version == self.storage else self.from_storage[to_version](stored)
        return {**out, "apiVersion": to_version}

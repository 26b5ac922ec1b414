"""Multi-version kinds: one stored object served in several versions of its group, as kube-apiserver serves
`autoscaling/v1` and `autoscaling/v2` HorizontalPodAutoscalers from one etcd key.

Upstream decodes a request in the version of its URL, converts it to the internal version, runs the strategy,
and stores the *storage version*; every answer (get, list, watch, the object a write returns) is converted to
the version the client asked in. Here the storage version's `GroupStore` does all the work (strategy, storage,
defaults, validation) on objects in its own version, and a `VersionView` serves the same objects in another
version by converting at its edges only:

- a request body, or the object a PATCH / apply computes, goes through `to_storage` before the store sees it;
- what the store answers (and what a watch sends) goes through `from_storage`;
- managedFields are recorded in the request's version (upstream's field manager converts the live and new
  objects to it): a create, update or patch through a view runs the view's field manager on the objects as this
  version shows them, and apply through a view merges in this version; every field manager of the kind holds a
  `VersionConverter` (`fieldmanager/versionconverter.py`) so entries recorded in the other version are compared,
  and conflict, in theirs.

A kind declares its extra versions as `ServedVersion`s (conversion functions on JSON objects); `Registry`
installs one view per extra version (`add_version`). Discovery lists every version of a group, the preferred
(storage) one first (`Registry.group_versions`). The namespace controller, the garbage collector and the other
controllers see only the storage version (`Registry.group_stores`), as upstream's use the preferred version.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from ..fieldmanager.versionconverter import VersionConverter
from .group import GroupStore
from .store import DeleteOptions, ListOptions

Converter = Callable[[dict[str, Any]], dict[str, Any]]


def version_priority(version: str) -> tuple[int, int, int]:
    """apimachinery's `version.CompareKubeAwareVersionStrings` as a sort key (lower sorts first): GA before beta
    before alpha, higher numbers first; a version that is not Kubernetes-shaped last. A group's preferred
    version is its first (autoscaling: v2, v1; admissionregistration: v1 before KEP-33's v1alpha1)."""
    m = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", version)
    if m is None:
        return (3, 0, 0)
    stage = {None: 0, "beta": 1, "alpha": 2}[m.group(2)]
    return (stage, -int(m.group(1)), -int(m.group(3) or 0))


@dataclass(frozen=True)
class ServedVersion:
    """Another version a stored kind is served in: `to_storage` converts an object of this version to the
    storage version, `from_storage` the other way (both return new objects and leave their input untouched;
    `apiVersion` is set by the view)."""

    version: str
    to_storage: Converter
    from_storage: Converter


class Presented(dict):  # type: ignore[type-arg]
    """An object as a view shows it, still knowing the stored object it came from (`stored`): table printers
    print that one, as upstream prints the internal object whatever version the client reads."""

    __slots__ = ("stored",)


class VersionView(GroupStore):
    """The objects of `base` (the storage version's store) in the version `served`: every verb is the base's,
    with the request converted in and the answer converted out."""

    def __init__(self, base: GroupStore, served: ServedVersion):
        super().__init__(base.info, base.store, base.group, served.version, base.strategy, base.deviations)
        self.base, self.served = base, served
        self.storage_api_version = base.api_version
        for attr in ("status_strategy", "subresources"):  # /status (and /scale) as the base serves them
            if hasattr(base, attr):
                setattr(self, attr, getattr(base, attr))

    def served_by(self, base: GroupStore) -> None:
        """Register this version's conversions with the kind's `VersionConverter` (shared with the base)."""
        converter = base.__dict__.get("version_converter")
        if converter is None:
            converter = base.version_converter = VersionConverter(base.api_version)  # type: ignore[attr-defined]
        converter.add(self.api_version, self.accept, self._from_storage)
        zero = getattr(base, "field_manager_zero", None)
        if zero is not None:  # the empty object as this version shows it
            shown = self._from_storage({"apiVersion": base.api_version, "kind": self.info.kind, "metadata": {}, **zero})
            self.field_manager_zero = {k: v for k, v in shown.items() if k not in ("apiVersion", "kind", "metadata")}

    @property
    def version_converter(self) -> VersionConverter | None:
        return self.base.__dict__.get("version_converter")

    def _from_storage(self, obj: dict[str, Any]) -> dict[str, Any]:
        out = self.served.from_storage(obj)
        return {"kind": self.info.kind, "apiVersion": self.api_version,
                **{k: v for k, v in out.items() if k not in ("kind", "apiVersion")}}

    def _new_shown(self, new: dict[str, Any]) -> dict[str, Any]:
        """A write's new object as the field manager sees it (this version's): the base holds it in the storage
        version (`accept`)."""
        return self._from_storage(new)

    def _managed(self, kw: dict[str, Any], subresource: str = "") -> dict[str, Any]:
        """A write's `field_manager` as a `manage` step run in this version: the base hands it the live and new
        objects in the storage version; the view's field manager sees them as this version shows them and
        its managedFields go onto the new object (entries of either version, each in its own paths)."""
        manager = kw.get("field_manager") or ""
        if kw.get("manage") is not None or not manager:
            return kw
        fm = self.field_manager

        def manage(live: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
            out = fm.update(self._from_storage(live) if live else None, self._new_shown(new), manager, subresource)
            meta = new.setdefault("metadata", {})
            entries = (out.get("metadata") or {}).get("managedFields")
            if entries is None:
                meta.pop("managedFields", None)
            else:
                meta["managedFields"] = entries
            return new
        return {**{k: v for k, v in kw.items() if k != "field_manager"}, "manage": manage}

    # ---- conversion at the edges -------------------------------------------------------------------
    def present(self, obj: dict[str, Any]) -> dict[str, Any]:
        """A stored (storage-version) object as this version shows it; anything else (a Status) unchanged."""
        if not isinstance(obj, dict) or obj.get("kind") not in (None, self.info.kind):
            return obj
        out = self.served.from_storage(obj)
        shown = Presented({"kind": self.info.kind, "apiVersion": self.api_version,
                           **{k: v for k, v in out.items() if k not in ("kind", "apiVersion")}})
        shown.stored = obj
        return shown

    def accept(self, obj: dict[str, Any]) -> dict[str, Any]:
        """An object of this version as the storage version holds it."""
        out = self.served.to_storage(obj)
        return {"kind": self.info.kind, "apiVersion": self.storage_api_version,
                **{k: v for k, v in out.items() if k not in ("kind", "apiVersion")}}

    def _finish(self, obj: dict[str, Any]) -> dict[str, Any]:
        return self.present(self.base._finish(obj))

    def _answer(self, obj: dict[str, Any]) -> dict[str, Any]:
        """A write's answer (the stored object as this version shows it)."""
        return self.present(obj)

    # ---- writes: the base's, converted --------------------------------------------------------------
    def create(self, obj: dict[str, Any], **kw: Any) -> dict[str, Any]:
        return self._answer(self.base.create(self.accept(obj), **self._managed(kw)))

    def update(self, ns: str, name: str, body: dict[str, Any] | None = None, *,
               transform: Callable[[dict[str, Any]], dict[str, Any]] | None = None, **kw: Any) -> dict[str, Any]:
        if body is not None:
            body = self.accept(body)
        if transform is not None:
            inner = transform

            def transform(current: dict[str, Any]) -> dict[str, Any]:
                return self.accept(inner(self.present(current)))
        strategy = kw.get("strategy") or self.strategy
        kw = self._managed(kw, getattr(strategy, "subresource", "") or "")
        return self._answer(self.base.update(ns, name, body, transform=transform, **kw))

    def delete(self, ns: str, name: str, opts: DeleteOptions, **kw: Any) -> Any:
        out = self.base.delete(ns, name, opts, **kw)
        if isinstance(out, tuple):
            return (self._answer(out[0]), *out[1:])
        return self._answer(out)

    def delete_collection(self, ns: str | None, list_opts: ListOptions, opts: Any) -> dict[str, Any]:
        out = self.base.delete_collection(ns, list_opts, opts, select=self.selection)  # this version's LIST
        out["items"] = [self._answer(i) for i in out.get("items") or []]
        out["apiVersion"] = self.api_version
        return out

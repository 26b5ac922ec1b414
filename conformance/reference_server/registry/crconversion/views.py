"""A custom resource's served versions other than the storage version (`customresource_handler.go` builds a
storage per served version): `VersionView`s (registry/versions.py) over the storage version's store, converting
with the CRD's `Converter`; a write runs this version's strategy and converts last (strategy.py). A read needing
a webhook's answer raises `ConversionPending` before anything is done; a write's answer is `Unconverted` when
the write needs one."""
from __future__ import annotations

import copy
from typing import Any, Callable

from .. import crschema
from ..store import ListOptions
from ...wire import gomaps
from ..versions import Presented, ServedVersion, VersionView
from ..selectors import make_predicate
from .cache import served_item, served_items
from .converter import Converter
from .selection import on_converted, selectable_fields
from .stored import TAKES_STORED
from .strategy import ConvertingStrategy


class CustomResourceView(VersionView):
    """One served version of a CRD that is not its storage version."""

    field_kind = ""  # as the storage version's store (registry/crd.py)

    def __init__(self, base: Any, version: str, converter: Converter, strategies: tuple[Any, Any]):
        storage_api, api = base.api_version, f"{base.group}/{version}"
        served = ServedVersion(version, lambda o: converter.convert(o, storage_api),
                               lambda o: converter.convert(o, api))
        super().__init__(base, served)
        self.converter = converter
        storage_schema = base.strategy.schema
        self.strategy, self.status_strategy = (
            ConvertingStrategy(s, converter, api, storage_api, storage_schema, self.present) if s is not None else None
            for s in strategies)
        # read: pruned by this version's schema after the conversion (`schemaCoercingConverter`): when it differs,
        # or whatever a webhook answers
        differs = strategies[0].schema != storage_schema or converter.webhook
        self._schema = strategies[0].schema if differs else None
        self.crd_name, self.storage_key, self.categories = base.crd_name, base.storage_key, base.categories
        self.crd = getattr(base, "crd", None)
        if getattr(base, "_reads_decode", False):  # an object stored under an older schema, decoded (crd.py)
            self._decode = base._decoded
        self.present_key = f"{self.api_version}@{getattr(base, 'present_key', base.api_version)}"
        # this version's own field labels (selection.py), judged on the objects converted to it when a webhook
        # converts them (or when an older schema's objects are decoded: `_decode`)
        self.field_labels = selectable_fields(self.crd or {}, self.info.namespaced, version)
        self.judges_shown = converter.webhook or getattr(base, "_reads_decode", False)

    def predicate(self, opts: ListOptions) -> Callable[[dict[str, Any]], bool]:
        return make_predicate(opts.label_selector, opts.field_selector, self.field_labels, True, "")

    def selection(self, opts: ListOptions) -> Callable[[dict[str, Any]], bool]:
        """The LIST's predicate of the stored objects: as they are when conversion changes `apiVersion` only,
        else on each converted to this version (the webhook asked for what storage's page decodes: selection.py)."""
        pred = self.check_list(opts)
        if not self.judges_shown:
            return pred
        return on_converted(pred, self._shown, self.converter.webhook)

    def _shown(self, stored: dict[str, Any]) -> dict[str, Any]:
        cached = served_item(self, stored)  # a LIST served from this version's watch cache: its conversion
        return cached if cached is not None else self.present(stored)

    @property
    def table_kind(self) -> str:
        return self.base.table_kind

    def _finish(self, obj: dict[str, Any]) -> dict[str, Any]:
        cached = served_item(self, obj)  # a GET served from this version's watch cache
        if cached is not None:
            return cached
        if obj.get("apiVersion") not in (None, self.base.api_version):  # an older storage version wrote it:
            return self.present(obj)  # converted from that version at once (none when it is this one)
        return super()._finish(obj)

    def _decode(self, obj: dict[str, Any]) -> dict[str, Any]:
        return obj

    def _new_shown(self, new: dict[str, Any]) -> dict[str, Any]:
        """A write's new object is still this version's when the field manager runs (the strategy converts it
        last, as upstream's storage encodes it): nothing to ask the webhook for."""
        return {**new, "kind": self.info.kind, "apiVersion": self.api_version}

    def present(self, obj: dict[str, Any]) -> dict[str, Any]:
        return sorted_root(self.coerce(super().present(self._decode(obj)), obj))

    def coerce(self, out: dict[str, Any], stored: dict[str, Any]) -> dict[str, Any]:
        """A converted object pruned by this version's schema (when it differs from the storage version's, or a
        webhook converted it)."""
        if self._schema is not None and crschema.needs_pruning(out, self._schema, root=True):
            out = Presented(copy.deepcopy(dict(out)))
            out.stored = stored
            crschema.prune(out, self._schema, root=True)
        return out

    def _answer(self, obj: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(obj, dict) or obj.get("kind") not in (None, self.info.kind):
            return obj  # a Status
        out = self.converter.answer(self._decode(obj), self.api_version, self.coerce)  # (as `present` asks)
        return out if type(out) is not dict else self.present(obj)

    # ---- writes: the base's store, this version's strategy (ConvertingStrategy converts last) -------------
    def create(self, obj: dict[str, Any], **kw: Any) -> dict[str, Any]:
        return self._answer(self.base.create(obj, **self._managed({**kw, "strategy": self.strategy})))

    def update(self, ns: str, name: str, body: dict[str, Any] | None = None, *,
               transform: Callable[[dict[str, Any]], dict[str, Any]] | None = None, **kw: Any) -> dict[str, Any]:
        if transform is not None:
            inner = transform

            def transform(current: dict[str, Any]) -> dict[str, Any]:
                return inner(self.present(current))  # this version's object; converted by the strategy
            setattr(transform, TAKES_STORED, True)
        strategy = kw.get("strategy") or self.strategy
        given = kw.get("manage")
        kw = self._managed({**kw, "strategy": strategy}, strategy.subresource or "")
        if kw.get("manage") is not None and kw["manage"] is not given:  # ours: presents the live object itself
            setattr(kw["manage"], TAKES_STORED, True)
        return self._answer(self.base.update(ns, name, body, transform=transform, **kw))

    def _deleted_result(self, obj: dict[str, Any]) -> dict[str, Any]:
        return self.base._deleted_result(obj)

    def list(self, ns: str | None, opts: ListOptions, *, shared: bool = False, pred: Any = None) -> dict[str, Any]:
        out = self.base.list(ns, opts, shared=shared, pred=self.selection(opts) if pred is None else pred)
        cached = served_items(self, out["items"])  # a LIST served from this version's watch cache
        self.converter.convert_all([self._decode(i) for i, c in zip(out["items"], cached) if c is None],
                                   self.api_version)  # all asked at once
        out["items"] = [self.present(i) if c is None else c for i, c in zip(out["items"], cached)]
        out["apiVersion"] = self.api_version
        return out

    def get_rendered(self, ns: str, name: str, render: Callable[[dict[str, Any]], Any]) -> Any:
        if self.converter.webhook:  # every read asks the webhook, as upstream's decoding does
            return render(self.get(ns, name, shared=True))
        return super().get_rendered(ns, name, render)


def sorted_root(out: dict[str, Any]) -> dict[str, Any]:
    """A presented custom resource with its root's keys sorted, as `encoding/json` writes the unstructured map
    (`apiVersion`, `kind` among the others; below the root the stored object's, already sorted: wire/gomaps.py)."""
    if not isinstance(out, Presented) or gomaps.sorted_map(out) is out:
        return out
    shown = Presented({k: out[k] for k in sorted(out)})
    shown.stored = out.stored
    return shown


def served_views(base: Any, crd: dict[str, Any], strategies: Callable[[dict[str, Any]], tuple[Any, Any]],
                 observe: Callable[..., None] | None = None) -> dict[str, CustomResourceView]:
    """A view per served version of `crd` other than the storage version (`base`'s); `strategies(version)`:
    that version's (strategy, status strategy); `observe`: the webhook calls' metrics (`Converter`)."""
    converter = Converter(crd, observe)
    out: dict[str, CustomResourceView] = {}
    for v in (crd.get("spec") or {}).get("versions") or []:
        if isinstance(v, dict) and v.get("served") and v.get("name") and v["name"] != base.version:
            view = out[v["name"]] = CustomResourceView(base, v["name"], converter, strategies(v))
            view.served_by(base)
    if converter.webhook and base.__dict__.get("version_converter") is not None:
        base.version_converter.direct = converter.for_field_manager
    return out

"""A served version's strategy, run by the storage version's store (`customresource_handler.go`: each version's
storage has its own strategy; the codec converts at the storage boundary): the object stays in the request's
version through the field manager, admission, preparation and validation (that version's schema, defaults and
rules, the old object converted to it), and is converted to the storage version last (`canonicalize`), then
pruned by the storage version's schema (`schemaCoercingConverter` after the conversion)."""
from __future__ import annotations

from typing import Any, Callable

from .. import crschema
from .. import meta as M
from ..strategy import PerThread, Strategy
from .converter import Converter
from .memo import once


class ConvertingStrategy(Strategy):
    """`inner` (the version's CustomResourceStrategy or its /status one) with the conversion to storage."""

    _old = PerThread()  # the old object in this version, from prepare to validate (a rehearsal runs in a thread)

    def __init__(self, inner: Any, converter: Converter, api_version: str, storage_api_version: str,
                 storage_schema: dict[str, Any] | None,
                 read: Callable[[dict[str, Any]], dict[str, Any]] | None = None):
        """`read`: the stored old object in this version as its store decodes it (pruned and defaulted by the
        schema of the version it was written in, converted, pruned by this version's: the storage codec's
        order), so that it is converted as the store's own reads convert it (one review)."""
        super().__init__(inner.info)
        self.inner, self.converter, self.read = inner, converter, read
        self.api_version, self.storage_api_version = api_version, storage_api_version
        self.subresource, self.schema = inner.subresource, inner.schema
        self.kube_finalizers = inner.kube_finalizers
        self.allow_unconditional_update = inner.allow_unconditional_update
        # (a webhook's answer is pruned by the storage version's schema, whatever this version's is)
        differs = storage_schema != inner.schema or converter.webhook
        self._storage_schema = storage_schema if differs else None

    def may_stall(self, obj: dict[str, Any] | None) -> bool:
        """The version's strategy's judgement: its rules and patterns are what validation runs
        (registry/rehearsed.py)."""
        judge = getattr(self.inner, "may_stall", None)
        return bool(judge(obj)) if judge is not None else False

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        self.inner.default(obj, update=update)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        self.inner.prepare_for_create(obj)

    def validate(self, obj: dict[str, Any]) -> list[Any]:
        return self.inner.validate(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        # (the webhook's answer, or ConversionPending)
        self._old = self.read(old) if self.read is not None else self.converter.convert(old, self.api_version)
        self.inner.prepare_for_update(new, self._old)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[Any]:
        mine, self._old = self._old, None
        return self.inner.validate_update(new, mine if mine is not None else old)

    def canonicalize(self, obj: dict[str, Any]) -> None:
        self.inner.canonicalize(obj)
        # converted as upstream's storage encodes it: a new object has its uid and creationTimestamp already,
        # the resourceVersion is cleared (`PrepareObjectForStorage`); the store sets it
        meta = obj.setdefault("metadata", {})
        meta["uid"] = meta.get("uid") or once("uid", M.new_uid)  # (the same when the request runs again)
        meta["creationTimestamp"] = meta.get("creationTimestamp") or M.now()
        meta.pop("resourceVersion", None)
        obj["apiVersion"] = self.api_version  # this version's object (a patched one came labelled "v1")
        converted = self.converter.convert(obj, self.storage_api_version)
        if self._storage_schema is not None:
            crschema.prune_and_coerce(converted, self._storage_schema)
        obj.clear()
        obj.update(converted)

    def should_delete_during_update(self, new: dict[str, Any], old: dict[str, Any]) -> bool:
        return self.inner.should_delete_during_update(new, old)

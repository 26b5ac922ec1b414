"""Objects an older storage version wrote, for a CRD with a conversion webhook: after the storage version
changes, etcd keeps each object in the version it was written in until it is written again, and upstream's
storage codec converts it as it is decoded (apimachinery versioning.go `codec.Decode`; customresource_handler.go
`crdConversionRESTOptionsGetter`): pruned and defaulted by the schema of the version it was written in, then
converted, the answer pruned by the storage version's schema. The storage version's store
(`CustomResourceStore`) mixes this in: a read answers such an object converted (`Unconverted` when the webhook
must be asked, converted by the HTTP layer), a write converts the stored object before the patch, the field
manager and the strategy use it (`ConversionPending` before anything is written) and stores the current storage
version."""
from __future__ import annotations

from typing import Any, Callable

from .cache import served_item
from .converter import Converter, Unconverted
from .memo import ConversionPending
from .strategy import ConvertingStrategy


# marks a served version's transform or field manager step (views.py): it converts the stored object from whatever
# version it is in to its own at once, as upstream's storage of that version decodes it, so it is handed the object
# as stored (converting it to the storage version first would ask the webhook twice where upstream asks once)
TAKES_STORED = "takes_stored"


class StoredVersions:
    """A mixin before `GroupStore`; the class provides `_finish_converted` (its `_finish` of a storage-version
    object, `converted` from an older one), `_decoded` (a stored object decoded under its own version's schema) and
    `_coerced` (a converted object pruned by the storage version's)."""

    converter: Converter | None = None
    api_version: str
    strategy: Any
    status_strategy: Any

    def convert_stored_versions(self, crd: dict[str, Any], observe: Callable[..., None] | None) -> None:
        """With a conversion webhook: the strategies convert the old object (ConvertingStrategy), watch events
        are converted (`present`)."""
        converter = Converter(crd, observe)
        self.converter = converter if converter.webhook else None
        if self.converter is None:
            return
        self.strategy, self.status_strategy = (
            ConvertingStrategy(s, converter, self.api_version, self.api_version, None, self._read_old)
            if s is not None else None
            for s in (self.strategy, self.status_strategy))
        self.present = self._read
        self.present_key = f"{self.api_version}@{crd['metadata']['resourceVersion']}"

    def _finish_converted(self, obj: dict[str, Any], converted: bool = False) -> dict[str, Any]:
        raise NotImplementedError

    def _decoded(self, obj: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _coerced(self, converted: dict[str, Any], _stored: Any = None) -> dict[str, Any]:
        raise NotImplementedError

    def _older(self, obj: dict[str, Any]) -> bool:
        """Whether the webhook converts `obj` to the storage version: an older storage version wrote it."""
        return self.converter is not None and obj.get("apiVersion") not in (None, self.api_version)

    def _finish(self, obj: dict[str, Any]) -> dict[str, Any]:
        cached = served_item(self, obj)  # a GET or LIST served from the storage version's watch cache (no review
        if cached is not None:  # for an object an older storage version wrote)
            return cached
        if self._older(obj):  # decoded under its own version's schema first, as the storage codec decodes it
            out = self.converter.answer(self._decoded(obj), self.api_version, self._coerced)  # type: ignore[union-attr]
            if isinstance(out, Unconverted):
                return out  # converted by the HTTP layer (a read or a write's answer alike)
            return self._finish_converted(self._coerced(out), converted=True)
        return self._finish_converted(obj)

    def _read(self, obj: dict[str, Any]) -> dict[str, Any]:
        """A watch event's object in the storage version (`ConversionPending` when the webhook must say)."""
        return self._finish_converted(self._current(obj), converted=self._older(obj))

    def _read_old(self, obj: dict[str, Any]) -> dict[str, Any]:
        """A write's old object as its strategy sees it: `_current`, or one in the storage version as the converter
        is asked for it (no call, a success counted: converter.py `no_call`)."""
        if self._older(obj):
            return self._current(obj)
        return self.converter.convert(obj, self.api_version)  # type: ignore[union-attr]

    def _current(self, obj: dict[str, Any]) -> dict[str, Any]:
        """A stored object in the storage version, before a write uses it (`ConversionPending` when needed): one
        an older storage version wrote as the storage codec decodes it (versioning.go `codec.Decode`): pruned and
        defaulted by its own version's schema (`schemaCoercingDecoder`, `unstructuredDefaulter`), then converted
        and pruned by the storage version's (`schemaCoercingConverter`), not defaulted again."""
        if not self._older(obj):
            return obj
        return self._coerced(self.converter.convert(self._decoded(obj), self.api_version))  # type: ignore[union-attr]

    def _manage(self, manage: Any, field_manager: str, subresource: str = "") -> Any:
        step = super()._manage(manage, field_manager, subresource)  # type: ignore[misc]
        if step is None or self.converter is None or getattr(manage, TAKES_STORED, False):
            return step
        return lambda live, new: step(self._current(live) if live is not None else None, new)

    def update(self, ns: str, name: str, body: dict[str, Any] | None = None, *,
               transform: Callable[[dict[str, Any]], dict[str, Any]] | None = None, **kw: Any) -> dict[str, Any]:
        if transform is not None and self.converter is not None and not getattr(transform, TAKES_STORED, False):
            inner = transform

            def transform(current: dict[str, Any]) -> dict[str, Any]:
                return inner(self._current(current))
        return super().update(ns, name, body, transform=transform, **kw)  # type: ignore[misc]

    def get_rendered(self, ns: str, name: str, render: Callable[[dict[str, Any]], Any]) -> Any:
        if self.converter is None:
            return super().get_rendered(ns, name, render)  # type: ignore[misc]
        out = self.get(ns, name, shared=True)  # type: ignore[attr-defined]
        if isinstance(out, Unconverted):  # a read: asked before anything is answered
            raise ConversionPending(self.converter, [dict(out)], self.api_version)
        return render(out)

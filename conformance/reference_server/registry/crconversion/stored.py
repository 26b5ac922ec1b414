"""Objects an older storage version wrote, for a CRD with a conversion webhook: after the storage version
changes, etcd keeps each object in the version it was written in until it is written again, and upstream's
storage codec converts it as it is decoded. The storage version's store (`CustomResourceStore`) mixes this in:
a read answers such an object converted (`Unconverted` when the webhook must be asked, converted by the HTTP
layer), a write converts the stored object before the patch, the field manager and the strategy use it
(`ConversionPending` before anything is written) and stores the current storage version."""
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
    object) and `_decoded`."""

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
            ConvertingStrategy(s, converter, self.api_version, self.api_version, None) if s is not None else None
            for s in (self.strategy, self.status_strategy))
        self.present = self._read
        self.present_key = f"{self.api_version}@{crd['metadata']['resourceVersion']}"

    def _finish_converted(self, obj: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _finish(self, obj: dict[str, Any]) -> dict[str, Any]:
        cached = served_item(self, obj)  # a GET or LIST served from the storage version's watch cache (no review
        if cached is not None:  # for an object an older storage version wrote)
            return cached
        if self.converter is not None and obj.get("apiVersion") not in (None, self.api_version):
            out = self.converter.answer(obj, self.api_version, lambda converted, _stored: converted)
            if isinstance(out, Unconverted):
                return out  # converted by the HTTP layer (a read or a write's answer alike)
            obj = out
        return self._finish_converted(obj)

    def _read(self, obj: dict[str, Any]) -> dict[str, Any]:
        """A watch event's object in the storage version (`ConversionPending` when the webhook must say)."""
        return self._finish_converted(self._current(obj))

    def _current(self, obj: dict[str, Any]) -> dict[str, Any]:
        """A stored object in the storage version, before a write uses it (`ConversionPending` when needed)."""
        if self.converter is None or obj.get("apiVersion") in (None, self.api_version):
            return obj
        return self.converter.convert(obj, self.api_version)

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

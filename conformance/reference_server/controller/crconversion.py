"""The namespace deleter's custom resources in their preferred version (`pkg/controller/namespace/deletion`
discovers with `ServerPreferredNamespacedResources` and deletes each resource in the first version of its group
that serves it): where that is not the storage version and the CRD converts by webhook, upstream's
DeleteCollection decodes each item through the webhook (`registry/crconversion/`), so a failing webhook fails the
deletion of that resource, and the namespace stays Terminating with the error in its
NamespaceDeletionContentFailure condition until the webhook answers. Its DeleteCollection of every namespaced
custom resource is a request for it, the first of which starts the CRD's watch caches."""
from __future__ import annotations

from typing import Any

from .. import apierrors as E
from ..registry import ListOptions
from ..registry.crconversion.webhook import convert
from ..registry.webhooktransport import service_lookup


def delete_collection_requests(registry: Any) -> None:
    """The deleter's first step for each namespaced resource it discovered (`deleteAllContentForGroupVersion-
    Resource`: a DeleteCollection request, whether or not the namespace holds any): a request for every
    Established namespaced CRD's resources, which starts its watch caches (registry/crconversion/cache.py) as
    `getOrCreateServingInfoFor` makes its storages."""
    custom = registry.custom
    custom.caches.start_all(custom, {s.crd_name for s in custom.stores() if s.info.namespaced})


def preferred(registry: Any, store: Any) -> Any:
    """The store serving `store`'s resource in the first version of its group that serves it."""
    for version in registry.group_versions(store.group):
        found = registry.group(store.group, store.info.plural, version)
        if found is not None:
            return found
    return store


async def unconvertible_content(registry: Any, namespace: str) -> dict[str, str]:
    """{storage key: the conversion error} of the custom resources in `namespace` whose webhook fails to convert
    one of them to their preferred version (asked one item after the other, as the decoding does)."""
    out: dict[str, str] = {}
    for store in registry.custom.stores():
        if not store.store.count(store.info.plural, namespace):
            continue  # (most kinds, in most namespaces)
        view = preferred(registry, store)
        converter = getattr(view, "converter", None)
        if converter is None or not converter.webhook:
            continue
        for item in store.list(namespace, ListOptions(), shared=True)["items"]:
            try:
                await convert(converter, item, view.api_version, service_lookup(registry))
            except E.StatusError as exc:
                out[store.storage_key] = exc.message
                break
    return out

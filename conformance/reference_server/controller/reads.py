"""Reads the controllers share."""
from __future__ import annotations

from typing import Any

from .. import apierrors as E


def get_or_none(store: Any, namespace: str, name: str) -> dict[str, Any] | None:
    """The object, or None when it does not exist or its kind is not served (`store` None), as a lister's miss
    reads to upstream's controllers; any other error is raised."""
    if store is None:
        return None
    try:
        return store.get(namespace, name)
    except E.StatusError as exc:
        if exc.code == 404:
            return None
        raise

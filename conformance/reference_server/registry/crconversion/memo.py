"""The conversions a request has awaited (a context variable, one dict per request): a synchronous converter
finds the webhook's answers here, or raises `ConversionPending` naming what it needs.

An answer is keyed by what a conversion may depend on: the object without its metadata, its labels and
annotations (the only metadata a webhook may change, `restoreObjectMeta`), and the desired apiVersion; and by
its uid, so that two objects alike but for their names are two reviews, as upstream's decoding of each asks (a
new object's uid is drawn once per request: strategy.py). A rerun request makes objects that differ only in
server-set metadata (creationTimestamp, managedFields' times), so the rest of the metadata is restored from the
object being converted, as upstream restores it."""
from __future__ import annotations

import contextvars
import copy
import json
from typing import Any, Callable

QUIET = "noerrors:"  # a tag whose failed conversion is remembered as an empty answer, not raised (webhook.py)
MEMO: contextvars.ContextVar[dict[str, dict[str, Any]] | None] = contextvars.ContextVar("crconversion", default=None)


class ConversionPending(Exception):
    """`objects` (each its own ConversionReview, as the storage decodes items one by one) must be converted to
    `api_version` by `converter`'s webhook before the request can go on. `next_round`: a LIST's next stored objects
    to judge (selection.py `asked_in_order`), asked for in rounds that are progress, not a conversion failing to
    settle."""

    def __init__(self, converter: Any, objects: list[dict[str, Any]], api_version: str, tag: str = "",
                 next_round: bool = False):
        super().__init__(f"conversion to {api_version} pending")
        self.converter, self.objects, self.api_version, self.tag = converter, objects, api_version, tag
        self.next_round = next_round


def key(obj: dict[str, Any], api_version: str, tag: str = "") -> str:
    """`tag`: who asks (the field manager's conversions are its own: upstream's structured-merge-diff asks the
    webhook for an object the storage encoding then sends again)."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    body = {k: v for k, v in obj.items() if k != "metadata"}
    return tag + json.dumps([api_version, body, meta.get("uid"), meta.get("labels"), meta.get("annotations")],
                            sort_keys=True, separators=(",", ":"), default=str)


def start() -> contextvars.Token:
    """A new request's (empty) memo."""
    return MEMO.set({})


def once(name: str, make: Callable[[], str]) -> str:
    """A value made once per request (a new object's uid: the same in every run of the request)."""
    memo = MEMO.get()
    if memo is None:
        return make()
    kept = memo.get(f"once:{name}")
    if kept is None:
        kept = memo[f"once:{name}"] = {"value": make()}
    return kept["value"]


def first(tag: str, obj: dict[str, Any], api_version: str) -> bool:
    """Whether this request (each of its runs) meets `tag` for this object and version for the first time (always
    true outside a request)."""
    memo = MEMO.get()
    if memo is None:
        return True
    seen = f"{tag}:{key(obj, api_version)}"
    if seen in memo:
        return False
    memo[seen] = {}
    return True


def remember(obj: dict[str, Any], api_version: str, converted: dict[str, Any], tag: str = "") -> None:
    memo = MEMO.get()
    if memo is not None:
        memo[key(obj, api_version, tag)] = converted


def recall(obj: dict[str, Any], api_version: str, tag: str = "") -> dict[str, Any] | None:
    """The remembered conversion of `obj`, its metadata `obj`'s with the answer's labels and annotations."""
    memo = MEMO.get()
    hit = memo.get(key(obj, api_version, tag)) if memo is not None else None
    if hit is None:
        return None
    out = copy.deepcopy(hit)
    meta = copy.deepcopy(obj.get("metadata") or {})
    for f in ("labels", "annotations"):
        value = (hit.get("metadata") or {}).get(f)
        if value is None:
            meta.pop(f, None)
        else:
            meta[f] = copy.deepcopy(value)
    out["metadata"] = {k: meta[k] for k in sorted(meta)}  # an unstructured map: written sorted (wire/gomaps.py)
    return out

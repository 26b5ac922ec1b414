"""The LIST a DeleteCollection deletes, and what it answers (`Store.DeleteCollection`,
staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go, 1.33).

Upstream lists with the request's own ListOptions: its selectors, and its `resourceVersion`,
`resourceVersionMatch`, `limit` and `continue` too. A request with a `limit` deletes that one page and answers
that page's list (its `continue` included); one without lists in pages of `deleteCollectionPageSize` (10,000),
each continued at the first page's revision, and answers the first page's list holding every page's items. The
items answered are the objects as listed (before their deletion), and the list's `resourceVersion` is the LIST's.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Iterator

DELETE_COLLECTION_PAGE = 10000  # store.go `deleteCollectionPageSize`


def deletion_pages(store: Any, ns: str | None, opts: Any,
                   select: Callable[[Any], Any] | None = None) -> Iterator[dict[str, Any]]:
    """Each LIST page upstream's DeleteCollection makes with the request's options `opts` (registry
    `ListOptions`); the caller deletes a page's items before asking for the next. `select(page_opts)`: the
    page's predicate of the stored objects when the request's version is not `store`'s (the store's `list`)."""
    limited = opts.limit > 0
    page_opts = opts if limited else replace(opts, limit=DELETE_COLLECTION_PAGE)
    while True:
        listed = store.list(ns, page_opts) if select is None else store.list(ns, page_opts, pred=select(page_opts))
        yield listed
        token = listed["metadata"].get("continue")
        if limited or not token:
            return
        page_opts = replace(page_opts, continue_token=token, resource_version="", resource_version_match="")


def deletion_answer(pages: list[dict[str, Any]], limited: bool) -> dict[str, Any]:
    """The answer: the page itself when the request had a limit, else the first page's list with every item."""
    first = pages[0]
    if not limited:
        first["items"] = [item for page in pages for item in page["items"]]
    return first


__all__ = ["DELETE_COLLECTION_PAGE", "deletion_answer", "deletion_pages"]

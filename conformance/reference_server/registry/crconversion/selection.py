"""Which custom resources a LIST, a watch or a DeleteCollection of one served version selects: that version's
own field labels, judged on the objects as that version's storage decodes them.

Follows apiextensions-apiserver v0.33: pkg/apiserver/customresource_handler.go builds one storage per served
version, each with its own strategy (pkg/registry/customresource/strategy.go `GetAttrs`: the labels and the
`selectableFieldSet` values of the object it is given) and its own codec, which converts every stored object to
that version as it is decoded, before `SelectionPredicate.Matches` runs (etcd3 store.go `GetList`, watcher.go;
the cacher's watchCache holds the converted objects and their attributes); conversion/converter.go
`ConvertFieldLabel` accepts that version's labels only. A CRD without a webhook (nop_converter.go) changes
`apiVersion` only, so its stored objects are judged as they are; with a webhook, a field it moves between
versions, and a label it sets (`restoreObjectMeta` keeps a webhook's labels), select differently per version."""
from __future__ import annotations

from typing import Any, Callable

from ...wire.crdopenapi import selectable_paths
from ..selectors import EVERYTHING
from .memo import ConversionPending

__all__ = ["asked_in_order", "on_converted", "selectable_fields"]

Predicate = Callable[[dict[str, Any]], bool]


def selectable_fields(crd: dict[str, Any], namespaced: bool, version: str) -> tuple[str, ...]:
    """The field labels a field selector of `version`'s resources may name (`ConvertFieldLabel`, asked with the
    request's GroupVersionKind: `metadata.name`, a namespaced one's `metadata.namespace`, then that version's own
    `selectableFields` JSONPaths without their leading dot; CustomResourceFieldSelectors is GA in 1.32). Another
    version's are refused: `field label not supported: <label>`."""
    head = ("metadata.name", "metadata.namespace") if namespaced else ("metadata.name",)
    return head + tuple(dict.fromkeys(p for p in selectable_paths(crd, version) if p not in head))


def on_converted(pred: Predicate, show: Callable[[dict[str, Any]], dict[str, Any]], webhook: bool) -> Predicate:
    """`pred` (a LIST's or watch's selectors) judged on `show(stored)`, the stored object as the requested
    version decodes it; with a conversion `webhook`, its `prepare(candidates, limit)` (run by the registry's
    `list` before it filters) asks at once for every conversion storage's page would ask for (`asked_in_order`),
    not one per rerun. No selector: nothing to convert."""
    if pred is EVERYTHING:
        return pred

    def judge(stored: dict[str, Any]) -> bool:
        return pred(show(stored))
    if webhook:
        judge.prepare = lambda items, limit: asked_in_order(judge, items, limit)  # type: ignore[attr-defined]
    return judge


def asked_in_order(judge: Predicate, items: list[dict[str, Any]], limit: int) -> None:
    """One `ConversionPending` naming each candidate etcd3's `GetList` decodes (one review each) that the
    request has no answer for yet, or nothing when it has them all. `GetList` decodes the keys in order, judging
    each, and stops once `limit` are selected (`paging && v.Len() >= Limit`): without a limit it decodes them all.
    A candidate is asked for only when the ones before it, the unanswered counted as selected, leave the page
    short, so every one asked for is one upstream decodes; the request runs again with the answers until the page
    is full or the candidates are all judged (as many rounds as that takes: `next_round`)."""
    pending: list[ConversionPending] = []
    selected = 0
    for stored in items:
        if limit > 0 and selected + len(pending) >= limit:
            break
        try:
            selected += judge(stored)
        except ConversionPending as asked:
            pending.append(asked)
    if pending:
        first = pending[0]
        raise ConversionPending(first.converter, [o for p in pending for o in p.objects], first.api_version,
                                first.tag, next_round=True)

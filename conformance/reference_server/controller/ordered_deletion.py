"""In which order the namespace deleter deletes content, and how long it expects pods to take.

`OrderedNamespaceDeletion` (KEP-5080; beta and off by default in 1.30-1.32, beta and on in 1.33, GA and locked
on from 1.34; `pkg/features/kube_features.go`): `deleteAllContent` in
`pkg/controller/namespace/deletion/namespaced_resources_deleter.go` deletes the core `pods` first and, while any
pod remains, touches nothing else: it writes the conditions it has so far (discovery and deletion failures, not
the content totals) and returns its estimate. Without the gate every kind is deleted in one pass.

`estimateGracefulTerminationForPods`: the longest `terminationGracePeriodSeconds` of the pods not yet terminal,
counted from the namespace's deletionTimestamp (0 once that much time has passed). The controller requeues a
namespace with content left after `estimate/2 + 1` s (`namespace_controller.go`, `ResourcesRemainingError`).
"""
from __future__ import annotations

import datetime as _dt
from typing import Any

FINALIZER_ESTIMATE_SECONDS = 15  # `finalizerEstimateSeconds`: what remaining finalizers are given


def is_core_pods(store: Any) -> bool:
    return store.info.plural == "pods" and not getattr(store, "group", "")


def deletion_phases(stores: list[Any], *, ordered: bool) -> list[list[Any]]:
    """The stores in the passes the deleter makes: [pods], then the rest (ordered), or all at once."""
    if not ordered:
        return [stores]
    pods = [s for s in stores if is_core_pods(s)]
    rest = [s for s in stores if not is_core_pods(s)]
    return [pods, rest] if pods else [rest]


def _parse(ts: str) -> _dt.datetime | None:
    try:
        return _dt.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.timezone.utc)
    except (TypeError, ValueError):
        return None


def pods_estimate(pods: list[dict[str, Any]], namespace_deleted_at: str, now: _dt.datetime | None = None) -> int:
    """`estimateGracefulTermination` for pods: seconds the remaining pods may still need."""
    estimate = 0
    for p in pods:
        if ((p.get("status") or {}).get("phase")) in ("Succeeded", "Failed"):
            continue
        grace = (p.get("spec") or {}).get("terminationGracePeriodSeconds")
        if isinstance(grace, int) and not isinstance(grace, bool) and grace > estimate:
            estimate = grace
    deleted_at = _parse(namespace_deleted_at)
    if deleted_at is None:
        return estimate
    elapsed = ((now or _dt.datetime.now(_dt.timezone.utc)) - deleted_at).total_seconds()
    return 0 if elapsed >= estimate else estimate


def unexpected_items(namespace: str, store: Any) -> str:
    """The error `deleteAllContentForGroupVersionResource` returns for items left without estimate or finalizer
    (a GroupVersionResource prints as `<group>/<version>, Resource=<resource>`)."""
    version = getattr(store, "version", "v1")
    return (f"unexpected items still remain in namespace: {namespace} for gvr: "
            f"{getattr(store, 'group', '')}/{version}, Resource={store.info.plural}")


def requeue_after(estimate: int) -> float:
    """`namespace_controller.go`: a namespace with content remaining is looked at again after estimate/2 + 1 s."""
    return float(estimate // 2 + 1)

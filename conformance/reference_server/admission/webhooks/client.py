"""An admission webhook's call: registry/webhooktransport.py's POST (upstream's webhook rest client,
`staging/src/k8s.io/apiserver/pkg/util/webhook/client.go`), its failure worded as `ErrCallingWebhook`
(`failed calling webhook "<name>": failed to call webhook: <cause>`)."""
from __future__ import annotations

from typing import Any, Callable

from ...registry.webhooktransport import PostError, post, resolve_service, target
from .review import CallError

__all__ = ["call", "resolve_service", "target"]


async def call(hook: dict[str, Any], review: dict[str, Any],
               get_service: Callable[[str, str], dict[str, Any] | None]) -> Any:
    """POST the AdmissionReview; the decoded answer, or a `CallError`."""
    try:
        return await post(hook, review, get_service)
    except PostError as exc:
        raise CallError(str(hook.get("name") or ""), f"failed to call webhook: {exc}", exc.code) from None

"""Admission plugins run by the http layer between decoding and the registry."""
from __future__ import annotations

from typing import Any

from .lifecycle import IMMORTAL_NAMESPACES, NamespaceLifecycle

__all__ = ["IMMORTAL_NAMESPACES", "NamespaceLifecycle", "create_admission", "update_admission"]


def create_admission(chain: Any, info: Any) -> dict[str, Any]:
    """The keyword arguments a store's `create` takes from an admission chain (None: no admission): `admit`,
    and `validate_admit` when the chain has a validating phase for the resource (admission/scope.py:
    LimitRanger, quota). One place, so a controller's create passes the same plugins as a client's."""
    if chain is None:
        return {}
    kw: dict[str, Any] = {"admit": chain.for_create(info)}
    validating = getattr(chain, "for_validate", None)
    if validating is not None and (v := validating(info)) is not None:
        kw["validate_admit"] = v
    return kw


def update_admission(chain: Any, info: Any, subresource: str = "") -> dict[str, Any]:
    """The keyword arguments a store's `update` takes from an admission chain: `admit(new)` when the chain
    mutates an update of the resource (LimitRanger on `pods/resize`), `validate_admit(new, old)` when it has a
    validating phase for it (or its `subresource`): Priority on PriorityClasses, CertificateApproval/
    CertificateSigning on CSRs' /approval and /status. Empty otherwise (most kinds: the stores that override
    `update` need not know the keywords)."""
    kw: dict[str, Any] = {}
    mutating = getattr(chain, "for_admit_update", None) if chain is not None else None
    if mutating is not None and (m := mutating(info, subresource)) is not None:
        kw["admit"] = m
    validating = getattr(chain, "for_validate_update", None) if chain is not None else None
    step = validating(info, subresource) if validating is not None else None
    if step is not None:
        kw["validate_admit"] = step
    return kw

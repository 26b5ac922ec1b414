"""The ServiceAccount admission plugin (`plugin/pkg/admission/serviceaccount/admission.go`), pods only.

A pod without `spec.serviceAccountName` gets `default`; a pod whose ServiceAccount does not exist (yet) is
refused with 403 `pods "<name>" is forbidden: error looking up service account <ns>/<sa>: serviceaccount
"<sa>" not found`. On a real cluster this is what a client meets when it creates a pod in a namespace
the ServiceAccount controller has not reached yet. Token volume projection is not imitated.
"""
from __future__ import annotations

from typing import Any

from .. import apierrors as E
from ..registry import Registry
from ..storage import KeyNotFoundError

DEFAULT_SERVICE_ACCOUNT = "default"


class ServiceAccountAdmission:
    def __init__(self, registry: Registry):
        self.registry = registry

    def admit_pod(self, obj: dict[str, Any]) -> None:
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        if (meta.get("annotations") or {}).get("kubernetes.io/config.mirror"):
            return  # mirror pods are left alone
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return  # validation answers for the missing spec
        sa = spec.get("serviceAccountName") or DEFAULT_SERVICE_ACCOUNT
        spec["serviceAccountName"] = sa
        ns = meta.get("namespace") or ""
        try:
            self.registry.store.get("serviceaccounts", ns, sa)
        except KeyNotFoundError:
            name = meta.get("name") or ""
            raise E.forbidden("pods", name, f"error looking up service account {ns}/{sa}: "
                                            f'serviceaccount "{sa}" not found') from None

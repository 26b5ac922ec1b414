"""Declarations of the resources a server serves, so wire documents can be generated from them.

The core owns its resource list; it passes ``KindInfo`` values to ``openapi`` (and may use
``DEFAULT_KINDS``, which mirrors kube-apiserver 1.33's core/v1 entries for the served kinds).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

GROUP = ""
VERSION = "v1"


@dataclass(frozen=True)
class KindInfo:
    """One served resource: ``subresources`` maps a subresource name to its verbs."""

    kind: str
    plural: str
    singular: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ("create", "delete", "deletecollection", "get", "list", "patch", "update",
                              "watch")
    subresources: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    group: str = GROUP
    version: str = VERSION
    list_kind: str = ""  # a CRD's `spec.names.listKind` when not `<Kind>List`
    # a custom resource's CRD (its OpenAPI comes from the CRD's schema: wire/crdopenapi.py), else None
    crd: Any = field(default=None, compare=False, repr=False)

    @property
    def list_kind_name(self) -> str:
        return self.list_kind or self.kind + "List"

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def gvk(self) -> dict[str, str]:
        """The ``x-kubernetes-group-version-kind`` entry for this kind."""
        return {"group": self.group, "kind": self.kind, "version": self.version}


_CRUD = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
_STATUS = {"status": ("get", "patch", "update")}

DEFAULT_KINDS: tuple[KindInfo, ...] = (
    KindInfo("Namespace", "namespaces", "namespace", False, ("ns",),
             ("create", "delete", "get", "list", "patch", "update", "watch"),
             {"finalize": ("update",), "status": ("get", "patch", "update")}),
    KindInfo("ConfigMap", "configmaps", "configmap", True, ("cm",), _CRUD),
    KindInfo("Secret", "secrets", "secret", True, (), _CRUD),
    KindInfo("Service", "services", "service", True, ("svc",),
             ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"), _STATUS),
    KindInfo("ServiceAccount", "serviceaccounts", "serviceaccount", True, ("sa",), _CRUD),
    KindInfo("Pod", "pods", "pod", True, ("po",), _CRUD, _STATUS),
    KindInfo("ResourceQuota", "resourcequotas", "resourcequota", True, ("quota",), _CRUD, _STATUS),
    KindInfo("LimitRange", "limitranges", "limitrange", True, ("limits",), _CRUD),
    KindInfo("Event", "events", "event", True, ("ev",), _CRUD),
    KindInfo("Endpoints", "endpoints", "endpoints", True, ("ep",), _CRUD),
)


def by_kind(kinds: list[KindInfo] | tuple[KindInfo, ...]) -> dict[str, KindInfo]:
    """Index declarations by Kind."""
    return {k.kind: k for k in kinds}

"""The default-enabled plugins that resolve classes: Priority (admission/priority.py), DefaultStorageClass and
DefaultIngressClass (admission/defaultclass.py) on create, PersistentVolumeClaimResize (admission/pvcresize.py:
a claim's growth against its StorageClass) on update. On in every flavour, as they are in
every kube-apiserver (`pkg/kubeapiserver/options/plugins.go` `DefaultOffAdmissionPlugins` leaves them on).

Wraps the server's admission chain like StorageObjectInUseProtection: the inner chain first (NamespaceLifecycle,
LimitRanger, ServiceAccount, the flavour's webhooks), then these; other phases are the inner chain's.
Upstream runs Priority right after ServiceAccount and the default-class plugins before the webhooks; no
plugin here reads what another writes, so only which refusal wins could differ (the namespace's, the
ServiceAccount's and a webhook's come first here, as upstream for the first two).
"""
from __future__ import annotations

from typing import Any, Callable

from ..registry import Registry, ResourceInfo
from . import defaultclass, priority, pvcresize
from .chain import ADMIT, VALIDATE, timed

_PRIORITY = timed("Priority", ADMIT, priority.admit_pod)
_STORAGE_CLASS = timed("DefaultStorageClass", ADMIT, defaultclass.admit_claim)
_INGRESS_CLASS = timed("DefaultIngressClass", ADMIT, defaultclass.admit_ingress)
_PRIORITY_CLASS = timed("Priority", VALIDATE, priority.validate_priority_class)
_CLAIM_RESIZE = timed("PersistentVolumeClaimResize", VALIDATE, pvcresize.validate_update)


class ClassAdmission:
    def __init__(self, inner: Any, registry: Registry):
        self.inner = inner
        self.registry = registry

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _step(self, info: ResourceInfo) -> Callable[[Any, dict[str, Any]], None] | None:
        reg = self.registry
        pods = reg.content("pods")
        if pods is not None and info is pods.info:
            return _PRIORITY
        claims = reg.content("persistentvolumeclaims")
        if claims is not None and info is claims.info:
            return _STORAGE_CLASS
        ingresses = reg.group("networking.k8s.io", "ingresses")
        if ingresses is not None and info is ingresses.info:
            return _INGRESS_CLASS
        return None

    def for_validate(self, info: ResourceInfo) -> Callable[[dict[str, Any]], Callable[[], None] | None] | None:
        """Priority's validating half: a PriorityClass create after the strategy's validation (its 422s first)."""
        inner = getattr(self.inner, "for_validate", None)
        inner_step = inner(info) if inner is not None else None
        classes = self.registry.group(priority.SCHEDULING, "priorityclasses")
        if classes is None or info is not classes.info:
            return inner_step
        registry = self.registry

        def validate(obj: dict[str, Any]) -> Callable[[], None] | None:
            _PRIORITY_CLASS(registry, obj)
            return inner_step(obj) if inner_step is not None else None
        return validate

    def for_validate_update(self, info: ResourceInfo, subresource: str) -> Callable[[dict[str, Any], dict[str, Any]],
                                                                                    None] | None:
        """Priority's validating half on update: a PriorityClass may not become a second default; and
        PersistentVolumeClaimResize on a claim (after the inner chain's LimitRanger, as upstream orders them)."""
        inner = getattr(self.inner, "for_validate_update", None)
        inner_step = inner(info, subresource) if inner is not None else None
        registry = self.registry
        claims = registry.content("persistentvolumeclaims")
        if claims is not None and info is claims.info and not subresource:
            def validate_claim(new: dict[str, Any], old: dict[str, Any]) -> Callable[[], None] | None:
                charge = inner_step(new, old) if inner_step is not None else None  # LimitRanger, the quota's check
                _CLAIM_RESIZE(registry, new, old)
                return charge
            return validate_claim
        classes = self.registry.group(priority.SCHEDULING, "priorityclasses")
        if classes is None or info is not classes.info or subresource:
            return inner_step

        def validate(new: dict[str, Any], old: dict[str, Any]) -> None:
            _PRIORITY_CLASS(registry, new, True)
            if inner_step is not None:
                inner_step(new, old)
        return validate

    def for_create(self, info: ResourceInfo) -> Callable[[dict[str, Any]], None] | None:
        inner = self.inner.for_create(info)
        step = self._step(info)
        if step is None:
            return inner
        registry = self.registry

        def admit(obj: dict[str, Any]) -> None:
            if inner is not None:
                inner(obj)
            step(registry, obj)
        return admit

"""A flavour's behaviours: what `ReferenceServer` installs for it, each an ordinary piece of its layer.

* `controllers(flavor, registry, ca_pem)`: kube-controller-manager's ServiceAccount controller, root-CA
  publisher, pod garbage collector (controller/podgc.py), HPA controller (controller/podautoscaler.py) and disruption
  controller (controller/disruption.py), kubeadm's bootstrap signer (controller/bootstrapsigner.py) and token
  cleaner (controller/tokencleaner.py), OpenShift's namespace-metadata and dockercfg controllers
  (controller/per_namespace.py);
* `FlavorAdmission`: the server's admission chain followed by the ServiceAccount plugin and the
  flavour's mutating webhook (upstream's order: built-in mutating plugins, then webhooks);
* `WebhookAuthorizer`: an IAM-style webhook in front of RBAC (union authorizer semantics);
* `middlewares(flavor)`: response delay and the Warning headers admission webhooks asked for.
"""
from __future__ import annotations

import asyncio
import contextvars
from typing import Any, Callable

from aiohttp import web
from multidict import CIMultiDict

from .. import apierrors as E
from ..admission.chain import ADMIT, timed
from ..admission.serviceaccount import ServiceAccountAdmission
from ..controller.loop import Controller
from ..controller.podgc import PodGarbageCollector
from ..controller.per_namespace import (DockercfgController, NamespaceMetadataController, RootCAPublisher,
                                        ServiceAccountsController)
from ..registry import Registry, ResourceInfo
from ..warning import warning_header
from .catalogue import Flavor, Span

# the warnings admission asked for during the current request (set per request by `warnings_middleware`)
ADMISSION_WARNINGS: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("admission_warnings",
                                                                                       default=None)


def _delay(flavor: Flavor, span: Span) -> Callable[[], float]:
    return lambda: flavor.draw(span)


def controllers(flavor: Flavor, registry: Registry, ca_pem: str | None = None) -> list[Controller]:
    """The flavour's controllers, not started."""
    out: list[Controller] = []
    if flavor.service_accounts:
        out.append(ServiceAccountsController(registry, flavor.service_accounts,
                                             delay=_delay(flavor, flavor.service_account_delay)))
    if flavor.root_ca_configmap:
        out.append(RootCAPublisher(registry, ca_pem, delay=_delay(flavor, flavor.root_ca_delay)))
    if flavor.namespace_annotations or flavor.namespace_labels:
        out.append(NamespaceMetadataController(registry, annotations=dict(flavor.namespace_annotations),
                                               labels=dict(flavor.namespace_labels),
                                               delay=_delay(flavor, flavor.namespace_metadata_delay)))
    if flavor.dockercfg_secrets:
        out.append(DockercfgController(registry))
    if flavor.pod_gc_period > 0:
        out.append(PodGarbageCollector(registry, period=flavor.pod_gc_period, quarantine=flavor.pod_gc_quarantine))
    if flavor.hpa_sync_period > 0:  # horizontal.go's controller, on a cluster without metrics
        from ..controller.podautoscaler import HorizontalPodAutoscalerController
        out.append(HorizontalPodAutoscalerController(registry, period=flavor.hpa_sync_period))
    if flavor.bootstrap_signer:  # bootstrapsigner.go: cluster-info's JWS signatures (kubeadm enables it)
        from ..controller.bootstrapsigner import BootstrapSigner
        out.append(BootstrapSigner(registry))
    if flavor.token_cleaner:  # tokencleaner.go: expired bootstrap tokens deleted (kubeadm enables it)
        from ..controller.tokencleaner import TokenCleaner
        out.append(TokenCleaner(registry))
    if flavor.disruption_controller:  # disruption.go: every PodDisruptionBudget's status
        from ..controller.disruption import DisruptionController
        out.append(DisruptionController(registry))
    return out


def seed(flavor: Flavor, registry: Registry) -> None:
    """The objects the distribution's installer applies once the cluster is up (kind: the `standard`
    StorageClass), as `kubectl apply` creates them: the `last-applied-configuration` annotation, the
    `kubectl-client-side-apply` manager. Only on a fresh store; one the user deleted stays deleted."""
    import json

    for obj in flavor.startup_objects:
        group, _, _ = str(obj["apiVersion"]).rpartition("/")
        store = next((s for s in registry.group_stores(group) if s.info.kind == obj["kind"]), None)
        if store is None:
            continue
        body = json.loads(json.dumps(obj))
        applied = json.dumps(obj, separators=(",", ":"), sort_keys=True) + "\n"
        body["metadata"].setdefault("annotations", {})["kubectl.kubernetes.io/last-applied-configuration"] = applied
        try:
            store.create(body, field_manager="kubectl-client-side-apply")
        except E.StatusError as exc:
            if exc.code != 409:  # another replica seeded it first
                raise


def _warn(text: str) -> None:
    sink = ADMISSION_WARNINGS.get()
    if sink is not None:
        sink.append(text)


class FlavorAdmission:
    """`ctx.admission` of a flavoured server: the inner chain first, then the flavour's plugins."""

    def __init__(self, inner: Any, registry: Registry, flavor: Flavor):
        self.inner = inner
        self.registry = registry
        self.flavor = flavor
        self.service_accounts = ServiceAccountAdmission(registry)
        self._service_account = timed("ServiceAccount", ADMIT, self.service_accounts.admit_pod)

    def __getattr__(self, name: str) -> Any:  # for_delete, for_validate, ...: the inner chain's
        return getattr(self.inner, name)

    def for_create(self, info: ResourceInfo) -> Callable[[dict[str, Any]], None] | None:
        steps = [s for s in (self.inner.for_create(info),) if s is not None]
        core_pods = self.registry.content("pods")
        if self.flavor.serviceaccount_admission and core_pods is not None and info is core_pods.info:
            steps.append(self._service_account)
        if info.plural == "namespaces" and not info.namespaced and self.flavor.webhook_namespace_labels:
            steps.append(self._label_namespace)
        if self.flavor.webhook_warnings and (info.plural in ("namespaces", "pods")):
            steps.append(self._pod_warning if info.plural == "pods" else self._namespace_warning)
        if not steps:
            return None

        def admit(obj: dict[str, Any]) -> None:
            for step in steps:
                step(obj)
        return admit

    def _label_namespace(self, obj: dict[str, Any]) -> None:
        """A mutating webhook's JSONPatch adding labels (keys the creator set are kept)."""
        meta = obj.setdefault("metadata", {})
        labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
        meta["labels"] = {**self.flavor.webhook_namespace_labels, **labels}

    @staticmethod
    def _namespace_warning(obj: dict[str, Any]) -> None:
        """Gatekeeper, `enforcementAction: warn` on a K8sRequiredLabels constraint: `[<constraint>] <message>`."""
        labels = (obj.get("metadata") or {}).get("labels") or {}
        if "owner" not in labels:
            _warn('[ns-must-have-owner] you must provide labels: {"owner"}')

    @staticmethod
    def _pod_warning(obj: dict[str, Any]) -> None:
        """GKE Autopilot's `autopilot-default-resources-mutator` warning."""
        meta = obj.get("metadata") or {}
        containers = [c.get("name", "") for c in ((obj.get("spec") or {}).get("containers") or [])
                      if isinstance(c, dict)]
        _warn(f"autopilot-default-resources-mutator:Autopilot updated Pod {meta.get('namespace', '')}/"
              f"{meta.get('name') or meta.get('generateName') or ''}: defaulted unspecified 'cpu' resource for "
              f"containers [{', '.join(containers)}] (see http://g.co/gke/autopilot-defaults).")


_GKE_RESOURCE = {"configmaps": "configMaps", "serviceaccounts": "serviceAccounts", "resourcequotas": "resourceQuotas",
                 "limitranges": "limitRanges", "rolebindings": "roleBindings", "clusterroles": "clusterRoles",
                 "clusterrolebindings": "clusterRoleBindings", "selfsubjectaccessreviews": "selfSubjectAccessReviews"}


class WebhookAuthorizer:
    """An IAM webhook authorizer in front of RBAC (`--authorization-mode=Webhook,RBAC` order on GKE-like
    clusters): it grants nothing here and has no opinion, with a reason; the union authorizer joins the
    reasons of every authorizer without an opinion with a newline (union.go), and `responsewriters.Forbidden`
    appends them to the 403 message after `: `."""

    def __init__(self, inner: Any):
        self.inner = inner

    def __getattr__(self, name: str) -> Any:  # rules_for (SelfSubjectRulesReview) and the rest: RBAC's
        return getattr(self.inner, name)

    @staticmethod
    def reason(attrs: Any) -> str:
        if not attrs.resource_request:
            return ""
        resource = _GKE_RESOURCE.get(attrs.resource, attrs.resource)
        return f'requires one of ["container.{resource}.{attrs.verb}"] permission(s).'

    def authorize(self, attrs: Any) -> tuple[bool, str]:
        allowed, reason = self.inner.authorize(attrs)
        if allowed:
            return allowed, reason
        return False, "\n".join(r for r in (self.reason(attrs), reason) if r)

    def check(self, attrs: Any) -> None:
        from ..auth.rbac import forbidden_error

        allowed, reason = self.authorize(attrs)
        if not allowed:
            raise forbidden_error(attrs, reason)


def middlewares(flavor: Flavor) -> list[Any]:
    """The aiohttp middlewares of the flavour (inside the server's error/auth middlewares)."""
    out: list[Any] = []
    if flavor.webhook_warnings:
        out.append(warnings_middleware)
    if flavor.response_delay[1] > 0:
        out.append(delay_middleware(flavor))
    return out


@web.middleware
async def warnings_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    """Admission warnings become `Warning: 299 - "<text>"` headers, after the handler's own warnings."""
    token = ADMISSION_WARNINGS.set([])
    try:
        resp = await handler(request)
        warnings = ADMISSION_WARNINGS.get() or []
    finally:
        ADMISSION_WARNINGS.reset(token)
    if warnings and not resp.prepared:
        extra = CIMultiDict(("Warning", warning_header(w)) for w in warnings)
        for k, v in extra.items():
            resp.headers.add(k, v)
    return resp


def delay_middleware(flavor: Flavor) -> Any:
    @web.middleware
    async def delay(request: web.Request, handler: Any) -> web.StreamResponse:
        await asyncio.sleep(flavor.draw(flavor.response_delay))
        return await handler(request)
    return delay

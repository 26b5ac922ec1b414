"""Controllers that keep objects present in every Active namespace (kube-controller-manager's ServiceAccount
controller and root-CA publisher, OpenShift's namespace and pull-secret controllers).

Shared shape, as upstream's: a namespace informer queues the namespace (after the flavour's delay on
creation), an informer on the managed resource queues the namespace again when one of its objects is
deleted or changed, and a worker makes the namespace right. Nothing is written into a namespace that is
gone or being deleted (upstream's writes would meet NamespaceLifecycle admission there).
"""
from __future__ import annotations

import asyncio
import copy
import logging
import random
import string
from typing import Any, Callable, Iterable

from .. import apierrors as E
from ..admission.admitted import AdmissionRefusal, ControllerWrites, controller_user
from ..registry import ListOptions, Registry
from .loop import Controller, WorkQueue
from .reads import get_or_none

log = logging.getLogger("nsconform.reference_server.controller")
KCM = "kube-controller-manager"
OPENSHIFT_INFRA = "openshift-infra"  # where OpenShift's controllers' service accounts live
Delay = Callable[[], float]


def _no_delay() -> float:
    return 0.0


class PerNamespaceController(Controller):
    """Base: `resource` objects this controller keeps in each Active namespace; subclasses write `ensure`."""

    resource = ""

    def __init__(self, registry: Registry, *, delay: Delay = _no_delay, manager: str = KCM):
        super().__init__()
        self.registry = registry
        self.delay = delay
        self.manager = manager
        self._names: WorkQueue[str] = self._queue()

    def start(self) -> None:
        """Start watching; must be called on the server's event loop."""
        loop = asyncio.get_running_loop()
        rv = str(self.registry.store.current_rv())
        self._inform(self.registry.namespaces, self._on_namespace)
        if self.resource:
            store = self.registry.content(self.resource)
            if store is not None:
                _, cw, _ = store.watch(None, ListOptions(resource_version=rv), loop)
                self._follow(cw, self._on_object)
        self._work(self._names, self._sync)

    def _on_namespace(self, ev: Any) -> None:
        if ev.type == "DELETED" or ev.object.get("metadata", {}).get("deletionTimestamp"):
            return
        self._names.add_after(ev.name, self.delay() if ev.type == "ADDED" else 0.0)

    def _on_object(self, ev: Any) -> None:
        if self.watches(ev):
            self._names.add(ev.namespace)

    def watches(self, ev: Any) -> bool:
        """Whether an event on the managed resource needs the namespace looked at again."""
        return ev.type != "ADDED"

    async def _sync(self, ns: str) -> None:
        try:
            current = self.registry.namespaces.get("", ns)
        except E.StatusError:
            return
        if current["metadata"].get("deletionTimestamp"):
            return
        try:
            self.ensure(ns, current)
        except AdmissionRefusal as exc:  # a webhook or policy refused the write: `AddRateLimited`
            log.info("%s: %s: %s", self.name, ns, exc.message)
            self._names.add_after(ns, self.backoff(ns))
        except E.StatusError as exc:  # a user's write raced ours: the next event brings us back
            log.info("%s: %s: %s", self.name, ns, exc.message)
        else:
            self.forget(ns)

    def ensure(self, ns: str, namespace: dict[str, Any]) -> None:
        raise NotImplementedError

    # ---- helpers -----------------------------------------------------------------------------------
    def _get(self, resource: str, ns: str, name: str) -> dict[str, Any] | None:
        return get_or_none(self.registry.content(resource), ns, name)

    def _create(self, resource: str, body: dict[str, Any]) -> dict[str, Any] | None:
        store = self.registry.content(resource)
        if store is None:
            return None
        try:
            return self.writes.create(store, body, field_manager=self.manager)
        except E.StatusError as exc:
            if exc.code == 409:  # someone made it meanwhile
                return None
            raise


class ServiceAccountsController(PerNamespaceController):
    """`pkg/controller/serviceaccount/serviceaccounts_controller.go`: the listed ServiceAccounts (upstream:
    `default`) exist in every Active namespace; a deleted one is made again."""

    name = "serviceaccount controller"
    service_account = "service-account-controller"
    resource = "serviceaccounts"

    def __init__(self, registry: Registry, names: Iterable[str] = ("default",), **kw: Any):
        super().__init__(registry, **kw)
        self.names = tuple(names)

    def watches(self, ev: Any) -> bool:
        return ev.type == "DELETED" and ev.name in self.names

    def ensure(self, ns: str, namespace: dict[str, Any]) -> None:
        for name in self.names:
            if self._get("serviceaccounts", ns, name) is None:
                self._create("serviceaccounts", {"apiVersion": "v1", "kind": "ServiceAccount",
                                                 "metadata": {"name": name, "namespace": ns}})


ROOT_CA_NAME = "kube-root-ca.crt"
ROOT_CA_DESCRIPTION = ("Contains a CA bundle that can be used to verify the kube-apiserver when using internal "
                       "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "
                       "guaranteed across distributions of Kubernetes clusters.")
PLACEHOLDER_CA = ("-----BEGIN CERTIFICATE-----\nTlNDT05GT1JNIFJFRkVSRU5DRSBTRVJWRVIgUk9PVCBDQSAobm8gVExTKQ==\n"
                  "-----END CERTIFICATE-----\n")


class RootCAPublisher(PerNamespaceController):
    """`pkg/controller/certificates/rootcacertpublisher/publisher.go`: a `kube-root-ca.crt` ConfigMap with the
    cluster CA in every Active namespace; deleted ⇒ made again, data or description changed ⇒ put back."""

    name = "root-ca-cert-publisher"
    service_account = "root-ca-cert-publisher"
    resource = "configmaps"

    def __init__(self, registry: Registry, ca_pem: str | None = None, **kw: Any):
        super().__init__(registry, **kw)
        self.ca_pem = ca_pem or PLACEHOLDER_CA

    def watches(self, ev: Any) -> bool:
        return ev.type != "ADDED" and ev.name == ROOT_CA_NAME

    def ensure(self, ns: str, namespace: dict[str, Any]) -> None:
        data = {"ca.crt": self.ca_pem}
        cm = self._get("configmaps", ns, ROOT_CA_NAME)
        if cm is None:
            self._create("configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
                "name": ROOT_CA_NAME, "namespace": ns, "annotations": {"kubernetes.io/description": ROOT_CA_DESCRIPTION}},
                "data": data})
            return
        annotations = cm["metadata"].get("annotations") or {}
        if cm.get("data") == data and annotations.get("kubernetes.io/description") == ROOT_CA_DESCRIPTION:
            return
        if cm["metadata"].get("deletionTimestamp"):
            return
        new = copy.deepcopy(cm)
        new["data"] = data
        new["metadata"]["annotations"] = {**annotations, "kubernetes.io/description": ROOT_CA_DESCRIPTION}
        self.writes.update(self.registry.content("configmaps"), ns, ROOT_CA_NAME, new, field_manager=self.manager)


class NamespaceMetadataController(PerNamespaceController):
    """OpenShift's cluster-policy-controller (SCC allocation annotations, Pod Security label sync): keys a
    namespace lacks are patched onto it shortly after creation; keys the user set are left alone. Two controllers
    upstream, two writes here, each as its `openshift-infra` service account (cluster-policy-controller's
    `namespace-security-allocation-controller` and `podsecurity-admission-label-syncer-controller`), through
    admission/admitted.py."""

    name = "namespace metadata controller"
    client_user = controller_user("namespace-security-allocation-controller", OPENSHIFT_INFRA)
    label_user = controller_user("podsecurity-admission-label-syncer-controller", OPENSHIFT_INFRA)
    label_writes = ControllerWrites(None, "")

    def use_webhooks(self, hooks: Any, offload: Any = None) -> None:
        super().use_webhooks(hooks, offload)
        self.label_writes = ControllerWrites(hooks, "", offload, self.label_user)

    def __init__(self, registry: Registry, *, annotations: dict[str, str], labels: dict[str, str],
                 manager: str = "cluster-policy-controller", **kw: Any):
        super().__init__(registry, manager=manager, **kw)
        self.annotations, self.labels = dict(annotations), dict(labels)

    def _on_namespace(self, ev: Any) -> None:
        if ev.type == "ADDED" and not ev.object.get("metadata", {}).get("deletionTimestamp"):
            self._names.add_after(ev.name, self.delay())

    def ensure(self, ns: str, namespace: dict[str, Any]) -> None:
        meta = namespace["metadata"]
        missing_a = {k: v for k, v in self.annotations.items() if k not in (meta.get("annotations") or {})}
        missing_l = {k: v for k, v in self.labels.items() if k not in (meta.get("labels") or {})}
        if not missing_a and not missing_l:
            return

        def patch(field: str, missing: dict[str, str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
            def change(cur: dict[str, Any]) -> dict[str, Any]:
                new = copy.deepcopy(cur)
                m = new["metadata"]
                m.pop("resourceVersion", None)
                m[field] = {**(m.get(field) or {}), **{k: v for k, v in missing.items()
                                                        if k not in (m.get(field) or {})}}
                return new
            return change

        namespaces = self.registry.namespaces
        if missing_a:  # the SCC allocation controller's
            self.writes.update(namespaces, "", ns, transform=patch("annotations", missing_a),
                               field_manager=self.manager)
        if missing_l:  # the Pod Security label syncer's
            self.label_writes.update(namespaces, "", ns, transform=patch("labels", missing_l),
                                     field_manager=self.manager)


class DockercfgController(PerNamespaceController):
    """OpenShift's image pull secret controller: every ServiceAccount gets a `<sa>-dockercfg-xxxxx` Secret,
    named in its `imagePullSecrets` and `secrets`."""

    name = "dockercfg controller"
    resource = "serviceaccounts"
    ANNOTATION = "openshift.io/internal-registry-pull-secret-ref"
    # openshift-controller-manager's `serviceaccount-pull-secrets-controller` (its writes through admitted.py)
    client_user = controller_user("serviceaccount-pull-secrets-controller", OPENSHIFT_INFRA)

    def __init__(self, registry: Registry, manager: str = "openshift-controller-manager", **kw: Any):
        super().__init__(registry, manager=manager, **kw)
        self._secret_names: dict[str, str] = {}  # ServiceAccount uid → its Secret's name (kept for a sync's reruns)

    def watches(self, ev: Any) -> bool:
        return ev.type == "ADDED"

    def ensure(self, ns: str, namespace: dict[str, Any]) -> None:
        store = self.registry.content("serviceaccounts")
        if store is None:
            return
        for sa in store.list(ns, ListOptions())["items"]:
            meta = sa["metadata"]
            if meta.get("deletionTimestamp") or (meta.get("annotations") or {}).get(self.ANNOTATION):
                continue
            uid = meta.get("uid") or f"{ns}/{meta['name']}"
            secret_name = self._secret_names.setdefault(uid, f"{meta['name']}-dockercfg-" + "".join(
                random.choices(string.ascii_lowercase + string.digits, k=5)))
            made = self._create("secrets", {
                "apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/dockercfg",
                "metadata": {"name": secret_name, "namespace": ns, "annotations": {
                    "kubernetes.io/service-account.name": meta["name"],
                    "openshift.io/internal-registry-auth-token.service-account": meta["name"]}},
                "data": {".dockercfg": "e30="}})
            if made is None and self._get("secrets", ns, secret_name) is None:
                continue  # (made by an earlier run of this sync, stopped before the ServiceAccount's update: go on)
            new = copy.deepcopy(sa)
            new["metadata"].pop("resourceVersion", None)
            new["metadata"]["annotations"] = {**(meta.get("annotations") or {}), self.ANNOTATION: secret_name}
            new["imagePullSecrets"] = list(sa.get("imagePullSecrets") or []) + [{"name": secret_name}]
            new["secrets"] = list(sa.get("secrets") or []) + [{"name": secret_name}]
            try:
                self.writes.update(store, ns, meta["name"], new, field_manager=self.manager)
            except AdmissionRefusal:
                raise
            except E.StatusError as exc:
                log.info("%s: %s/%s: %s", self.name, ns, meta["name"], exc.message)
            self._secret_names.pop(uid, None)

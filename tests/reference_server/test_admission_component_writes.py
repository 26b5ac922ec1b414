"""The remaining built-in writers pass the ValidatingAdmissionPolicies (and webhooks) as the API clients they are on a
kind cluster (admission/admitted.py), each with upstream's identity: kube-controller-manager's pod GC, HPA, quota,
CSR (`certificate-controller`), ClusterRole aggregation controllers as their kube-system service accounts, its
leader election's Lease as `system:kube-controller-manager`, and kube-apiserver's own loopback writes (the CRD
finalizer, APIService availability, the APF config producer, the `kubernetes` Endpoints/EndpointSlice) as
`system:apiserver` in `system:masters`, and OpenShift's namespace metadata and dockercfg controllers as their
`openshift-infra` service accounts. Each test binds a Deny policy that refuses exactly that user's write,
sees the write refused (and the loop go on: requeued with backoff, or tried again on its next pass), then unbinds it
and sees the write made. On a bare registry, the controllers' syncs called as their workers call them."""
from __future__ import annotations

import asyncio
import base64
import uuid
from typing import Any, Awaitable, Callable

import pytest

from conformance.reference_server import apierrors as E
from conformance.reference_server.admission.admitted import APISERVER_USER, ControllerWrites, admitted
from conformance.reference_server.controller import apf_config, apiserver_endpoints
from conformance.reference_server.controller.apiservices import APIServiceAvailability
from conformance.reference_server.controller.clusterrole_aggregation import ClusterRoleAggregation
from conformance.reference_server.controller.crd_finalizer import CRDFinalizer
from conformance.reference_server.controller.csrapproving import CSRApprovingController
from conformance.reference_server.controller.csrcleaner import CSRCleanerController, utc_now
from conformance.reference_server.controller.csrsigning import CSRSigningController
from conformance.reference_server.controller.leader import LeaderElectionConfig, LeaderElector
from conformance.reference_server.controller.per_namespace import DockercfgController, NamespaceMetadataController
from conformance.reference_server.controller.podautoscaler import HorizontalPodAutoscalerController
from conformance.reference_server.controller.podgc import PodGarbageCollector
from conformance.reference_server.controller.policystatus import PolicyStatusController
from conformance.reference_server.controller.quota import QuotaController
from conformance.reference_server.http.webhookcalls import webhook_admission
from conformance.reference_server.registry import DeleteOptions, ListOptions, Registry
from conformance.reference_server.registry import certificates as C
from conformance.reference_server.storage import MemoryStore

from .controller.test_csrcleaner import H, _condition, _csr

AR = "admissionregistration.k8s.io"
SA_GROUPS = "['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated']"


def sa(name: str) -> str:
    """A CEL condition: the request is the kube-system service account `name`'s (kube-controller-manager's client)."""
    return (f"request.userInfo.username == 'system:serviceaccount:kube-system:{name}' && "
            f"request.userInfo.groups == {SA_GROUPS}")


APISERVER = ("request.userInfo.username == 'system:apiserver' && "
             "request.userInfo.groups == ['system:authenticated', 'system:masters']")
KCM = "request.userInfo.username == 'system:kube-controller-manager'"


@pytest.fixture
def registry() -> Registry:
    return Registry(MemoryStore())


class Policy:
    """A Deny policy refusing `who`'s `operations` on `resources` of `group` (bound by `bind`, unbound by `unbind`)."""

    def __init__(self, registry: Registry, group: str, resources: list[str], operations: list[str], who: str):
        self.registry, self.name = registry, f"deny-{uuid.uuid4().hex[:8]}"
        registry.group(AR, "validatingadmissionpolicies").create({  # type: ignore[union-attr]
            "apiVersion": f"{AR}/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": self.name},
            "spec": {"failurePolicy": "Fail",
                     "matchConstraints": {"resourceRules": [{"apiGroups": [group], "apiVersions": ["*"],
                                                             "operations": operations, "resources": resources}]},
                     "validations": [{"expression": f"!({who})", "message": "refused by the test"}]}})

    def bind(self) -> "Policy":
        self.registry.group(AR, "validatingadmissionpolicybindings").create({  # type: ignore[union-attr]
            "apiVersion": f"{AR}/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": self.name},
            "spec": {"policyName": self.name, "validationActions": ["Deny"]}})
        return self

    def unbind(self) -> None:
        self.registry.group(AR, "validatingadmissionpolicybindings").delete(  # type: ignore[union-attr]
            "", self.name, DeleteOptions())


def run(coro: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(coro())


def wired(controller: Any, registry: Registry) -> Any:
    controller.use_webhooks(webhook_admission(registry))
    return controller


# ---- kube-controller-manager ------------------------------------------------------------------------------
def _terminating_pod(registry: Registry) -> None:
    pods = registry.content("pods")
    pods.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "d",  # type: ignore
                                                                "finalizers": ["example.com/hold"]},
                 "spec": {"containers": [{"name": "c", "image": "i"}]}})
    pods.delete("d", "p", DeleteOptions())  # type: ignore[union-attr]  # held by its finalizer, bound to no node


def test_pod_gc_status_write_is_refused_then_made(registry):
    _terminating_pod(registry)
    policy = Policy(registry, "", ["pods/status"], ["UPDATE"], sa("pod-garbage-collector")).bind()

    async def go() -> None:
        gc = wired(PodGarbageCollector(registry), registry)
        await admitted(gc._pass)  # refused: logged, the pod tried again on the next pass
        assert registry.content("pods").get("d", "p")["status"].get("phase") == "Pending"  # type: ignore
        policy.unbind()
        await admitted(gc._pass)
        assert registry.content("pods").get("d", "p")["status"]["phase"] == "Failed"  # type: ignore
    run(go)


def test_hpa_status_write_is_the_controllers_service_accounts(registry):
    store = registry.group("autoscaling", "horizontalpodautoscalers")
    store.create({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",  # type: ignore[union-attr]
                  "metadata": {"name": "h", "namespace": "d"},
                  "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "missing"},
                           "minReplicas": 1, "maxReplicas": 2}})
    policy = Policy(registry, "autoscaling", ["horizontalpodautoscalers/status"], ["UPDATE"],
                    sa("horizontal-pod-autoscaler")).bind()

    async def go() -> None:
        hpa = wired(HorizontalPodAutoscalerController(registry), registry)
        assert await admitted(hpa._offload, hpa.reconcile, ("d", "h")) is True  # still synced every period
        assert not store.get("d", "h").get("status", {}).get("conditions")  # type: ignore[union-attr]
        policy.unbind()
        await admitted(hpa._offload, hpa.reconcile, ("d", "h"))
        conditions = store.get("d", "h")["status"]["conditions"]  # type: ignore[union-attr]
        assert [(c["type"], c["reason"]) for c in conditions] == [("AbleToScale", "FailedGetScale")]
        await hpa.stop()
    run(go)


def test_quota_status_write_is_refused_with_backoff_then_made(registry):
    registry.content("resourcequotas").create({"apiVersion": "v1", "kind": "ResourceQuota",  # type: ignore
                                               "metadata": {"name": "q", "namespace": "d"},
                                               "spec": {"hard": {"configmaps": "3"}}})
    policy = Policy(registry, "", ["resourcequotas/status"], ["UPDATE"], sa("resourcequota-controller")).bind()

    async def go() -> None:
        quota = wired(QuotaController(registry), registry)
        await admitted(quota._sync_key, ("d", "q"))
        assert not registry.content("resourcequotas").get("d", "q").get("status")  # type: ignore[union-attr]
        assert quota._failures == {("d", "q"): 1}  # requeued, rate limited
        policy.unbind()
        await admitted(quota._sync_key, ("d", "q"))
        assert registry.content("resourcequotas").get("d", "q")["status"] == {  # type: ignore[union-attr]
            "hard": {"configmaps": "3"}, "used": {"configmaps": "0"}}
        assert quota._failures == {}
        await quota.stop()
    run(go)


def test_clusterrole_aggregation_update_is_refused_with_backoff_then_made(registry):
    from conformance.reference_server.auth.kinds import CLUSTER_ROLES, VERSION, RbacStrategy
    from conformance.reference_server.registry.group import GroupStore
    registry.add_group_store(GroupStore(CLUSTER_ROLES, registry.store, "rbac.authorization.k8s.io", VERSION,
                                        RbacStrategy(CLUSTER_ROLES)))  # (what `rbac_setup` serves)
    roles = registry.group("rbac.authorization.k8s.io", "clusterroles")
    rule = {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}
    roles.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",  # type: ignore[union-attr]
                  "metadata": {"name": "part", "labels": {"agg": "yes"}}, "rules": [rule]})
    roles.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",  # type: ignore[union-attr]
                  "metadata": {"name": "whole"},
                  "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"agg": "yes"}}]}})
    policy = Policy(registry, "rbac.authorization.k8s.io", ["clusterroles"], ["UPDATE"],
                    sa("clusterrole-aggregation-controller")).bind()

    async def go() -> None:
        agg = wired(ClusterRoleAggregation(registry), registry)
        await admitted(agg._sync, "whole")
        assert not roles.get("", "whole").get("rules") and agg._failures == {"whole": 1}  # type: ignore
        policy.unbind()
        await admitted(agg._sync, "whole")
        assert roles.get("", "whole")["rules"] == [rule] and agg._failures == {}  # type: ignore[union-attr]
        await agg.stop()
    run(go)


def test_csr_signer_status_write_is_certificate_controllers(registry):
    _csr(registry, "c")
    _condition(registry, "c", C.APPROVED)
    store = registry.group(C.GROUP, C.CSR_INFO.plural)
    policy = Policy(registry, C.GROUP, ["certificatesigningrequests/status"], ["UPDATE"],
                    sa("certificate-controller")).bind()

    async def go() -> None:
        signer = wired(CSRSigningController(registry), registry)
        await admitted(signer._sync, "c")
        assert not store.get("", "c")["status"].get("certificate") and signer._failures == {"c": 1}  # type: ignore
        policy.unbind()
        await admitted(signer._sync, "c")
        assert base64.b64decode(store.get("", "c")["status"]["certificate"]).startswith(  # type: ignore
            b"-----BEGIN CERTIFICATE-----")
        await signer.stop()
    run(go)


def test_csr_cleaner_delete_is_certificate_controllers(registry):
    _csr(registry, "old")
    _condition(registry, "old", C.DENIED)
    policy = Policy(registry, C.GROUP, ["certificatesigningrequests"], ["DELETE"], sa("certificate-controller")).bind()
    cleaner = CSRCleanerController(registry, clock=lambda: utc_now() + 2 * H)  # denied, an hour ago and more

    async def go() -> None:
        wired(cleaner, registry)
        await admitted(cleaner._pass)  # refused: logged; the next pass (an hour later) tries again
        assert registry.group(C.GROUP, C.CSR_INFO.plural).list(None, ListOptions())["items"]  # type: ignore
        policy.unbind()
        await admitted(cleaner._pass)
        assert not registry.group(C.GROUP, C.CSR_INFO.plural).list(None, ListOptions())["items"]  # type: ignore
    run(go)


def test_leader_election_lease_is_kube_controller_managers(registry):
    policy = Policy(registry, "coordination.k8s.io", ["leases"], ["CREATE", "UPDATE"], KCM).bind()

    async def nothing() -> None:
        return None

    async def go() -> None:
        elector = LeaderElector(registry, LeaderElectionConfig(identity="me"), on_started=lambda: None,
                                on_stopped=nothing, hooks=webhook_admission(registry))
        assert await elector._step(elector.try_acquire_or_renew) is False  # a refused Create: a failed attempt
        with pytest.raises(E.StatusError):
            registry.group("coordination.k8s.io", "leases").get("kube-system", "kube-controller-manager")  # type: ignore
        policy.unbind()
        assert await elector._step(elector.try_acquire_or_renew) is True
        lease = registry.group("coordination.k8s.io", "leases").get(  # type: ignore[union-attr]
            "kube-system", "kube-controller-manager")
        assert lease["spec"]["holderIdentity"] == "me"
    run(go)


# ---- kube-apiserver's loopback client -------------------------------------------------------------------------
def test_crd_finalizer_status_writes_are_the_apiservers(registry):
    crds = registry.custom.crds
    crds.create({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                 "metadata": {"name": "widgets.example.com"},
                 "spec": {"group": "example.com", "scope": "Namespaced",
                          "names": {"plural": "widgets", "kind": "Widget"},
                          "versions": [{"name": "v1", "served": True, "storage": True,
                                        "schema": {"openAPIV3Schema": {"type": "object",
                                                                       "x-kubernetes-preserve-unknown-fields": True}}}]}})
    crds.delete("", "widgets.example.com", DeleteOptions())  # held by customresourcecleanup
    policy = Policy(registry, "apiextensions.k8s.io", ["customresourcedefinitions/status"], ["UPDATE"],
                    APISERVER).bind()

    async def go() -> None:
        finalizer = wired(CRDFinalizer(registry), registry)
        await admitted(finalizer._sync, "widgets.example.com")
        assert crds.get("", "widgets.example.com")["metadata"]["deletionTimestamp"]  # still there
        assert finalizer._failures == {"widgets.example.com": 1}
        policy.unbind()
        await admitted(finalizer._sync, "widgets.example.com")
        with pytest.raises(E.StatusError):
            crds.get("", "widgets.example.com")
        await finalizer.stop()
    run(go)


def test_apiservice_availability_is_the_apiservers(registry):
    store = registry.apiservices
    store.create({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
                  "metadata": {"name": "v1.m.example.com"},
                  "spec": {"group": "m.example.com", "version": "v1", "groupPriorityMinimum": 100,
                           "versionPriority": 100, "service": {"namespace": "d", "name": "metrics", "port": 443}}})
    policy = Policy(registry, "apiregistration.k8s.io", ["apiservices/status"], ["UPDATE"], APISERVER).bind()

    async def go() -> None:
        available = wired(APIServiceAvailability(registry), registry)
        await admitted(available._sync, "v1.m.example.com")
        assert not store.get("", "v1.m.example.com").get("status", {}).get("conditions")
        assert available._failures == {"v1.m.example.com": 1}
        policy.unbind()
        await admitted(available._sync, "v1.m.example.com")
        assert store.get("", "v1.m.example.com")["status"]["conditions"][0]["reason"] == "ServiceNotFound"
        await available.stop()
    run(go)


def test_apf_config_producer_is_the_apiservers(registry):
    policy = Policy(registry, "flowcontrol.apiserver.k8s.io", ["flowschemas"], ["CREATE"], APISERVER).bind()
    flowschemas = registry.group("flowcontrol.apiserver.k8s.io", "flowschemas")

    async def go() -> None:
        apf = wired(apf_config.ApfConfigController(registry), registry)
        await admitted(apf._sync, "sync")
        assert flowschemas.list(None, ListOptions())["items"] == [] and apf._failures == {"sync": 1}  # type: ignore
        policy.unbind()
        await admitted(apf._sync, "sync")
        names = {f["metadata"]["name"] for f in flowschemas.list(None, ListOptions())["items"]}  # type: ignore
        assert {"exempt", "catch-all"} <= names
        await apf.stop()
    run(go)


def test_kubernetes_endpointslice_is_the_apiservers(registry):
    policy = Policy(registry, "discovery.k8s.io", ["endpointslices"], ["CREATE"], APISERVER).bind()
    slices = registry.group("discovery.k8s.io", "endpointslices")

    async def go() -> None:
        writes = ControllerWrites(webhook_admission(registry), "", None, APISERVER_USER)
        await apiserver_endpoints.reconcile_admitted(registry, "10.0.0.7", 6443, writes)  # refused: logged
        assert registry.content("endpoints").get("default", "kubernetes")  # type: ignore[union-attr]
        with pytest.raises(E.StatusError):
            slices.get("default", "kubernetes")  # type: ignore[union-attr]
        policy.unbind()
        await apiserver_endpoints.reconcile_admitted(registry, "10.0.0.7", 6443, writes)
        assert slices.get("default", "kubernetes")["endpoints"][0]["addresses"] == ["10.0.0.7"]  # type: ignore
    run(go)


def test_csr_approver_approval_is_certificate_controllers(registry):
    from .test_http_certificates import request_pem
    store = registry.group(C.GROUP, C.CSR_INFO.plural)
    store.create({"metadata": {"name": "k"}, "spec": {  # type: ignore[union-attr]
        "request": base64.b64encode(request_pem("system:node:n1", ("system:nodes",))).decode(),
        "signerName": C.KUBE_APISERVER_CLIENT_KUBELET, "usages": ["digital signature", "client auth"]}})
    policy = Policy(registry, C.GROUP, ["certificatesigningrequests/approval"], ["UPDATE"],
                    sa("certificate-controller")).bind()

    async def go() -> None:
        approver = wired(CSRApprovingController(registry), registry)  # (no authorizer: every review allows)
        await admitted(approver._sync, "k")
        assert not store.get("", "k").get("status", {}).get("conditions")  # type: ignore[union-attr]
        assert approver._failures == {"k": 1}  # requeued, rate limited
        policy.unbind()
        await admitted(approver._sync, "k")
        assert [c["type"] for c in store.get("", "k")["status"]["conditions"]] == [C.APPROVED]  # type: ignore
        await approver.stop()
    run(go)


# ---- OpenShift's controllers (openshift-infra service accounts) ------------------------------------------------
def openshift_sa(name: str) -> str:
    return (f"request.userInfo.username == 'system:serviceaccount:openshift-infra:{name}' && request.userInfo.groups"
            " == ['system:serviceaccounts', 'system:serviceaccounts:openshift-infra', 'system:authenticated']")


def _namespace(registry: Registry, name: str = "d") -> None:
    registry.namespaces.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})


def test_openshift_namespace_metadata_writes_are_two_controllers(registry):
    _namespace(registry)
    policy = Policy(registry, "", ["namespaces"], ["UPDATE"],
                    openshift_sa("podsecurity-admission-label-syncer-controller")).bind()

    async def go() -> None:
        meta = wired(NamespaceMetadataController(registry, annotations={"openshift.io/sa.scc.mcs": "s0:c1,c0"},
                                                 labels={"pod-security.kubernetes.io/warn": "restricted"}), registry)
        await admitted(meta._sync, "d")
        ns = registry.namespaces.get("", "d")["metadata"]
        assert ns["annotations"] == {"openshift.io/sa.scc.mcs": "s0:c1,c0"}  # the SCC allocation's write
        assert "pod-security.kubernetes.io/warn" not in ns["labels"] and meta._failures == {"d": 1}
        policy.unbind()
        await admitted(meta._sync, "d")
        assert registry.namespaces.get("", "d")["metadata"]["labels"]["pod-security.kubernetes.io/warn"] == \
            "restricted"
        await meta.stop()
    run(go)


def test_openshift_dockercfg_secret_is_the_pull_secrets_controllers(registry):
    _namespace(registry)
    registry.content("serviceaccounts").create({"apiVersion": "v1", "kind": "ServiceAccount",  # type: ignore
                                                "metadata": {"name": "builder", "namespace": "d"}})
    policy = Policy(registry, "", ["secrets"], ["CREATE"], openshift_sa("serviceaccount-pull-secrets-controller")).bind()
    secrets = registry.content("secrets")

    async def go() -> None:
        dockercfg = wired(DockercfgController(registry), registry)
        await admitted(dockercfg._sync, "d")
        assert secrets.list("d", ListOptions())["items"] == [] and dockercfg._failures == {"d": 1}  # type: ignore
        policy.unbind()
        await admitted(dockercfg._sync, "d")
        made = [s["metadata"]["name"] for s in secrets.list("d", ListOptions())["items"]]  # type: ignore
        sa = registry.content("serviceaccounts").get("d", "builder")  # type: ignore[union-attr]
        assert len(made) == 1 and sa["imagePullSecrets"] == [{"name": made[0]}]
        await dockercfg.stop()
    run(go)


def test_policy_status_writes_are_exempt_as_upstreams(registry):
    """`IsExemptAdmissionConfigurationResource`: no policy sees a ValidatingAdmissionPolicy's own writes, the
    status controller's (`validatingadmissionpolicy-status-controller`) included."""
    Policy(registry, AR, ["validatingadmissionpolicies/status"], ["UPDATE"],
           sa("validatingadmissionpolicy-status-controller")).bind()
    target = Policy(registry, "", ["configmaps"], ["CREATE"], "false")

    async def go() -> None:
        status = wired(PolicyStatusController(registry), registry)
        await admitted(status._sync, target.name)
        got = registry.group(AR, "validatingadmissionpolicies").get("", target.name)  # type: ignore[union-attr]
        assert got["status"]["observedGeneration"] == 1
        await status.stop()
    run(go)


def test_hpa_rescale_is_a_scale_update_of_the_controllers(registry):
    """`scaleNamespacer.Update`: a `deployments/scale` UPDATE with the autoscaling/v1 Scale; refused, it is the sync's
    `FailedRescale` (event and `AbleToScale` False `FailedUpdateScale`), then made."""
    labels = {"app": "web"}
    registry.group("apps", "deployments").create({  # type: ignore[union-attr]
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "d"},
        "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": {
            "metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}},
        field_manager="kubectl-create")
    hpas = registry.group("autoscaling", "horizontalpodautoscalers")
    hpas.create({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",  # type: ignore[union-attr]
                 "metadata": {"name": "h", "namespace": "d"},
                 "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                          "minReplicas": 2, "maxReplicas": 3}})
    policy = Policy(registry, "apps", ["deployments/scale"], ["UPDATE"],
                    f"object.kind == 'Scale' && object.apiVersion == 'autoscaling/v1' && object.spec.replicas == 2"
                    f" && oldObject.spec.replicas == 1 && {sa('horizontal-pod-autoscaler')}").bind()

    async def go() -> None:
        hpa = wired(HorizontalPodAutoscalerController(registry), registry)
        await admitted(hpa._offload, hpa.reconcile, ("d", "h"))
        assert registry.group("apps", "deployments").get("d", "web")["spec"]["replicas"] == 1  # type: ignore
        condition = hpas.get("d", "h")["status"]["conditions"][0]  # type: ignore[union-attr]
        assert (condition["type"], condition["status"], condition["reason"]) == (
            "AbleToScale", "False", "FailedUpdateScale")
        assert condition["message"].startswith("the HPA controller was unable to update the target scale: ")
        policy.unbind()
        await admitted(hpa._offload, hpa.reconcile, ("d", "h"))
        web = registry.group("apps", "deployments").get("d", "web")  # type: ignore[union-attr]
        assert web["spec"]["replicas"] == 2
        assert ("kube-controller-manager", "scale") in [(m["manager"], m.get("subresource"))
                                                        for m in web["metadata"]["managedFields"]]
        await asyncio.sleep(0)  # (the recorder's Events, sent by tasks)
        reasons = [e["reason"] for e in registry.content("events").list("d", ListOptions())["items"]]  # type: ignore
        assert "FailedRescale" in reasons
        await hpa.stop()
    run(go)

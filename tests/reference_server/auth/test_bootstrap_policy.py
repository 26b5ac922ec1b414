"""auth/bootstrap_policy.py + auth/policy/*.yaml: kube-apiserver 1.33's bootstrap RBAC policy as upstream's golden
files (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/*.yaml) list it: every name, the labels and
annotation of `addDefaultMetadata`, the controller roles bound to their service accounts, and objects quoted from
the golden files."""
from __future__ import annotations

from conformance.reference_server.auth.bootstrap_policy import (
    cluster_policy,
    namespace_policy,
    policy,
    policy_files,
)

G = "rbac.authorization.k8s.io"
EVENTS = {"apiGroups": ["", "events.k8s.io"], "resources": ["events"], "verbs": ["create", "patch", "update"]}
CLUSTER_ROLES = {
    "admin", "cluster-admin", "edit", "view", "system:aggregate-to-admin", "system:aggregate-to-edit",
    "system:aggregate-to-view", "system:auth-delegator", "system:basic-user",
    "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
    "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
    "system:certificates.k8s.io:kube-apiserver-client-approver",
    "system:certificates.k8s.io:kube-apiserver-client-kubelet-approver",
    "system:certificates.k8s.io:kubelet-serving-approver", "system:certificates.k8s.io:legacy-unknown-approver",
    "system:discovery", "system:heapster", "system:kube-aggregator", "system:kube-controller-manager",
    "system:kube-dns", "system:kube-scheduler", "system:kubelet-api-admin", "system:monitoring", "system:node",
    "system:node-bootstrapper", "system:node-problem-detector", "system:node-proxier",
    "system:persistent-volume-provisioner", "system:public-info-viewer", "system:service-account-issuer-discovery",
    "system:volume-scheduler"}
CONTROLLERS = {
    "attachdetach-controller", "certificate-controller", "clusterrole-aggregation-controller", "cronjob-controller",
    "daemon-set-controller", "deployment-controller", "disruption-controller", "endpoint-controller",
    "endpointslice-controller", "endpointslicemirroring-controller", "ephemeral-volume-controller",
    "expand-controller", "generic-garbage-collector", "horizontal-pod-autoscaler", "job-controller",
    "legacy-service-account-token-cleaner", "namespace-controller", "node-controller", "persistent-volume-binder",
    "pod-garbage-collector", "pv-protection-controller", "pvc-protection-controller", "replicaset-controller",
    "replication-controller", "resourcequota-controller", "root-ca-cert-publisher", "route-controller",
    "selinux-warning-controller", "service-account-controller", "service-cidrs-controller", "service-controller",
    "statefulset-controller", "ttl-after-finished-controller", "ttl-controller",
    "validatingadmissionpolicy-status-controller"}


def _names(file: str) -> set[str]:
    return {o["metadata"]["name"] for o in policy_files()[file]}


def _get(file: str, name: str, namespace: str = "") -> dict:
    return next(o for o in policy_files()[file]
                if o["metadata"]["name"] == name and o["metadata"].get("namespace", "") == namespace)


def test_every_object_of_the_golden_files():
    assert _names("cluster-roles.yaml") == CLUSTER_ROLES
    assert _names("controller-roles.yaml") == {f"system:controller:{c}" for c in CONTROLLERS}
    assert _names("cluster-role-bindings.yaml") == {
        "cluster-admin", "system:basic-user", "system:discovery", "system:kube-controller-manager", "system:kube-dns",
        "system:kube-scheduler", "system:monitoring", "system:node", "system:node-proxier",
        "system:public-info-viewer", "system:service-account-issuer-discovery", "system:volume-scheduler"}
    assert _names("controller-role-bindings.yaml") == _names("controller-roles.yaml")
    assert len(policy()) == 31 + 35 + 12 + 35 + 7 + 7
    assert len(cluster_policy()) + len(namespace_policy()) == len(policy())
    # 1.33's default feature gates: no DynamicResourceAllocation, VolumeAttributesClass or ClusterTrustBundle roles
    assert not any(r for o in policy() for r in o.get("rules") or [] if "resource.k8s.io" in r.get("apiGroups", []))


def test_default_metadata_on_every_object():
    for o in policy():
        meta = o["metadata"]
        assert meta["labels"]["kubernetes.io/bootstrapping"] == "rbac-defaults", meta["name"]
        assert meta["annotations"] == {"rbac.authorization.kubernetes.io/autoupdate": "true"}, meta["name"]


def test_controller_roles_bound_to_their_service_accounts():
    for b in policy_files()["controller-role-bindings.yaml"]:
        name = b["metadata"]["name"]
        assert b["roleRef"] == {"apiGroup": G, "kind": "ClusterRole", "name": name}
        assert b["subjects"] == [{"kind": "ServiceAccount", "name": name.removeprefix("system:controller:"),
                                  "namespace": "kube-system"}]


def test_objects_as_upstream_lists_them():
    assert _get("cluster-roles.yaml", "system:node-proxier")["rules"] == [
        {"apiGroups": [""], "resources": ["endpoints", "services"], "verbs": ["list", "watch"]},
        {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]},
        EVENTS,
        {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": ["list", "watch"]}]
    assert _get("cluster-roles.yaml", "system:certificates.k8s.io:legacy-unknown-approver")["rules"] == [
        {"apiGroups": ["certificates.k8s.io"], "resourceNames": ["kubernetes.io/legacy-unknown"],
         "resources": ["signers"], "verbs": ["approve"]}]
    # 1.33 gives the namespace controller `watch` (its metadata informers' watch-list, kubernetes#129201)
    assert _get("controller-roles.yaml", "system:controller:namespace-controller")["rules"] == [
        {"apiGroups": [""], "resources": ["namespaces"], "verbs": ["delete", "get", "list", "watch"]},
        {"apiGroups": [""], "resources": ["namespaces/finalize", "namespaces/status"], "verbs": ["update"]},
        {"apiGroups": ["*"], "resources": ["*"], "verbs": ["delete", "deletecollection", "get", "list", "watch"]}]
    assert _get("cluster-roles.yaml", "view")["aggregationRule"] == {
        "clusterRoleSelectors": [{"matchLabels": {f"{G}/aggregate-to-view": "true"}}]}
    assert "rules" not in _get("cluster-roles.yaml", "view")  # filled by the aggregation controller
    assert "subjects" not in _get("cluster-role-bindings.yaml", "system:node")  # the Node authorizer's since 1.8
    assert _get("cluster-role-bindings.yaml", "system:kube-dns")["subjects"] == [
        {"kind": "ServiceAccount", "name": "kube-dns", "namespace": "kube-system"}]
    assert _get("namespace-role-bindings.yaml", "system::leader-locking-kube-controller-manager", "kube-system")[
        "subjects"] == [
        {"apiGroup": G, "kind": "User", "name": "system:kube-controller-manager"},
        {"kind": "ServiceAccount", "name": "kube-controller-manager", "namespace": "kube-system"},
        {"kind": "ServiceAccount", "name": "leader-election-controller", "namespace": "kube-system"}]
    assert _get("namespace-roles.yaml", "system:controller:token-cleaner", "kube-system")["rules"] == [
        {"apiGroups": [""], "resources": ["secrets"], "verbs": ["delete", "get", "list", "watch"]}, EVENTS]

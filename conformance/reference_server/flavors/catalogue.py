"""The flavours as data: one record per distribution, every behaviour with the source it imitates.

Timings are (low, high) seconds, drawn uniformly per occurrence. They are chosen so a whole suite run
still finishes in a few minutes on two cores (see `suite_jobs`), not to be as slow as the slowest cluster.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Mapping

from .installer import Manifest

Span = tuple[float, float]
NONE: Span = (0.0, 0.0)


@dataclass(frozen=True)
class Source:
    """One imitated behaviour and where the real one lives (upstream path or vendor documentation)."""

    behaviour: str
    where: str


@dataclass(frozen=True)
class Flavor:
    name: str
    summary: str
    sources: tuple[Source, ...]
    # ---- timing ---------------------------------------------------------------------------------------
    response_delay: Span = NONE          # added before every response (watch streams: before the headers)
    deletion_delay: Span = NONE          # the namespace controller waits this long before it deletes content
    watch_lag: float = 0.0               # a watch event reaches the client this much late (order kept)
    ordered_namespace_deletion: bool = True  # OrderedNamespaceDeletion: pods first (on by default since 1.33)
    # ---- kube-controller-manager ---------------------------------------------------------------------
    service_accounts: tuple[str, ...] = ("default",)   # created in every Active namespace
    service_account_delay: Span = NONE
    root_ca_configmap: bool = True       # kube-root-ca.crt in every Active namespace
    root_ca_delay: Span = NONE
    pod_gc_period: float = 20.0          # pod GC pass every this many seconds (0: no pod GC)
    pod_gc_quarantine: float = 40.0      # a missing node's pods are force-deleted after this quarantine
    workload_controllers: bool = True    # ReplicaSet/Deployment/StatefulSet/Job/DaemonSet (controller/workloads/)
    scheduler: bool = True               # kube-scheduler: pods Unschedulable, no nodes (controller/scheduler.py)
    hpa_sync_period: float = 15.0        # HPA controller pass every this many seconds (0: none; podautoscaler.py)
    disruption_controller: bool = True   # PodDisruptionBudget status (controller/disruption.py)
    # ---- admission ------------------------------------------------------------------------------------
    serviceaccount_admission: bool = True                # pods refused until their ServiceAccount exists
    webhook_namespace_labels: Mapping[str, str] = field(default_factory=dict)  # mutating webhook, on create
    webhook_warnings: bool = False       # an admission webhook answering with warnings (Warning headers)
    # ---- authorization --------------------------------------------------------------------------------
    webhook_authorizer: bool = False     # an IAM webhook in front of RBAC whose 403s carry its reason
    # ---- controllers of the distribution -------------------------------------------------------------
    namespace_annotations: Mapping[str, str] = field(default_factory=dict)  # patched after creation
    namespace_labels: Mapping[str, str] = field(default_factory=dict)       # patched after creation
    namespace_metadata_delay: Span = NONE
    dockercfg_secrets: bool = False      # a `<sa>-dockercfg-xxxxx` pull secret per ServiceAccount
    # ---- objects the distribution's installer creates once the cluster is up ---------------------------
    startup_objects: tuple[Mapping[str, Any], ...] = ()  # named-group objects, created as `kubectl apply` does
    installer_manifests: tuple[Manifest, ...] = ()       # data files created once the server listens (installer.py)
    scheduler_lease: bool = False        # kube-scheduler's leader election Lease (kube-system/kube-scheduler)
    bootstrap_signer: bool = False       # kube-controller-manager's bootstrapsigner (kubeadm enables it)
    token_cleaner: bool = False          # kube-controller-manager's tokencleaner (kubeadm enables it)
    # ---- how to run the suites against it ------------------------------------------------------------
    front_proxy: bool = False            # kubeadm's front-proxy CA and --requestheader-* flags (with --tls)
    service_cidr: str = "10.96.0.0/12"   # --service-cluster-ip-range (kubeadm's default; the `kubernetes` ServiceCIDR)
    hostname: str = ""                   # the control plane's host ("": this machine's): kube-apiserver's identity
    #                                      Lease, the controller-manager's and scheduler's Lease holders, the
    #                                      scheduler's events' reportingInstance (hostNetwork pods: the node's name)
    suite_jobs: int = 1                  # pytest workers a whole-suite run needs to finish in minutes

    @staticmethod
    def draw(span: Span) -> float:
        lo, hi = span
        return lo if hi <= lo else random.uniform(lo, hi)


KCM_SERVICEACCOUNTS = Source(
    "a `default` ServiceAccount in every new namespace (recreated when deleted)",
    "kubernetes: pkg/controller/serviceaccount/serviceaccounts_controller.go (DefaultServiceAccountsControllerOptions)")
KCM_ROOTCA = Source(
    "a `kube-root-ca.crt` ConfigMap (data `ca.crt`, annotation `kubernetes.io/description`) in every new namespace",
    "kubernetes: pkg/controller/certificates/rootcacertpublisher/publisher.go")
SA_ADMISSION = Source(
    "pods refused (403 `error looking up service account <ns>/<sa>: serviceaccount \"<sa>\" not found`) until "
    "their ServiceAccount exists; `spec.serviceAccountName` defaults to `default`; the projected "
    "`kube-api-access-xxxxx` token volume in every container unless automountServiceAccountToken is false",
    "kubernetes: plugin/pkg/admission/serviceaccount/admission.go (Admit; default-enabled plugin)")
KCM_PODGC = Source(
    "pods bound to a node that does not exist are marked Failed (DisruptionTarget: DeletionByPodGC) and "
    "force-deleted after a 40 s quarantine (passes every 20 s); terminating pods bound to no node likewise",
    "kubernetes: pkg/controller/podgc/gc_controller.go (gcOrphaned, gcUnscheduledTerminating)")
FIELD_MANAGERS = Source(
    "objects written by several field managers (`kube-controller-manager`, the creating client)",
    "kubernetes: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager (managedFields per manager)")
NS_DELETION = Source(
    "namespace deletion takes seconds: the controller re-discovers every API resource and deletes it kind by kind",
    "kubernetes: pkg/controller/namespace/deletion/namespaced_resources_deleter.go")
ORDERED_DELETION = Source(
    "namespace deletion deletes pods first and nothing else while a pod remains (OrderedNamespaceDeletion, KEP-5080: "
    "beta and off in 1.30-1.32, on by default in 1.33, locked on from 1.34); every flavour imitates 1.33 or later",
    "kubernetes: pkg/controller/namespace/deletion/namespaced_resources_deleter.go (deleteAllContent), "
    "pkg/features/kube_features.go")

DEFAULT = Flavor(
    name="default",
    summary="what every real cluster has (kube-controller-manager's ServiceAccount and root-CA publisher, the "
            "ServiceAccount admission plugin, several field managers), with fast deletion so a run stays quick",
    sources=(KCM_SERVICEACCOUNTS, KCM_ROOTCA, KCM_PODGC, SA_ADMISSION, FIELD_MANAGERS),
    suite_jobs=1,
)

# kind's `installstorage` action applies the node image's /kind/manifests/default-storage.yaml with kubectl:
# the `standard` class of rancher's local-path-provisioner, the cluster's default
KIND_STANDARD_STORAGECLASS: Mapping[str, Any] = {
    "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
    "metadata": {"name": "standard", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
    "provisioner": "rancher.io/local-path", "reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer"}
KIND_STORAGE = Source(
    "the `standard` StorageClass (provisioner `rancher.io/local-path`, reclaimPolicy Delete, volumeBindingMode "
    "WaitForFirstConsumer, annotated `storageclass.kubernetes.io/is-default-class: \"true\"`) applied at start-up",
    "kind: pkg/cluster/internal/create/actions/installstorage/storage.go (applies the node image's "
    "/kind/manifests/default-storage.yaml, built by pkg/build/nodeimage)")

KIND_KUBEADM = Source(
    "`kubeadm init`'s objects: kube-system `kubeadm-config`, `kubelet-config`, the `coredns` ConfigMap, "
    "ServiceAccount, Deployment (2 replicas, Pending without nodes) and `kube-dns` Service (10.96.0.10), the "
    "`kube-proxy` ConfigMap, ServiceAccount and DaemonSet (0 desired), kube-public `cluster-info` (a kubeconfig with "
    "the server's URL and CA) readable by `system:anonymous`, the `kubeadm:*` and `system:coredns` RBAC objects; "
    "written by the `kubeadm` manager",
    "kubernetes: cmd/kubeadm/app/phases (uploadconfig, kubelet, bootstraptoken/node, bootstraptoken/clusterinfo, "
    "addons/dns/manifests.go, addons/proxy/manifests.go), v1.33; data: flavors/data/kind/kubeadm.yaml")
KIND_CNI = Source(
    "kindnet: ClusterRole, ClusterRoleBinding, ServiceAccount and DaemonSet in kube-system (`kubectl create`)",
    "kind: pkg/build/nodeimage/const_cni.go, pkg/cluster/internal/create/actions/installcni/cni.go (v0.29); "
    "data: flavors/data/kind/kindnet.yaml")
KIND_LOCAL_PATH = Source(
    "the `local-path-storage` namespace with rancher's local-path-provisioner Deployment, ServiceAccount, ConfigMap "
    "and RBAC (`kubectl apply`)",
    "kind: pkg/build/nodeimage/const_storage.go, pkg/cluster/internal/create/actions/installstorage/storage.go "
    "(v0.29); data: flavors/data/kind/local-path-storage.yaml")
KIND_SCHEDULER_LEASE = Source(
    "kube-scheduler's leader election Lease `kube-system/kube-scheduler` (15 s, renewed every 2 s)",
    "kubernetes: cmd/kube-scheduler/app/server.go, staging/src/k8s.io/client-go/tools/leaderelection")
KIND_BOOTSTRAP_SIGNER = Source(
    "kind's bootstrap token Secret `bootstrap-token-abcdef` (24 h) and its `jws-kubeconfig-abcdef` signature of "
    "`cluster-info`, kept by kube-controller-manager's bootstrap signer; the token deleted by its token cleaner "
    "once expired",
    "kubernetes: cmd/kubeadm/app/phases/bootstraptoken/node/token.go, pkg/controller/bootstrap/bootstrapsigner.go, "
    "pkg/controller/bootstrap/tokencleaner.go, staging/src/k8s.io/cluster-bootstrap/token/jws/jws.go")
KIND_INSTALLER = (Manifest("kind/kubeadm.yaml", "kubeadm"), Manifest("kind/kindnet.yaml", "kubectl-create"),
                  Manifest("kind/local-path-storage.yaml", "kubectl-client-side-apply", apply=True))

KIND = Flavor(
    name="kind",
    summary="a kind/kubeadm cluster: the default controllers a few hundred milliseconds late, namespace deletion "
            "in seconds, responses in milliseconds",
    sources=(KCM_SERVICEACCOUNTS, KCM_ROOTCA, KCM_PODGC, SA_ADMISSION, FIELD_MANAGERS, NS_DELETION, ORDERED_DELETION,
             Source("controllers act shortly after creation (informer + work-queue latency)",
                    "kubernetes: staging/src/k8s.io/client-go/util/workqueue; kind: sigs.k8s.io/kind (kubeadm cluster)"),
             KIND_STORAGE, KIND_KUBEADM, KIND_CNI, KIND_LOCAL_PATH, KIND_SCHEDULER_LEASE, KIND_BOOTSTRAP_SIGNER),
    response_delay=(0.001, 0.005),
    deletion_delay=(1.5, 3.0),
    service_account_delay=(0.1, 0.4),
    root_ca_delay=(0.1, 0.4),
    startup_objects=(KIND_STANDARD_STORAGECLASS,),
    installer_manifests=KIND_INSTALLER,
    scheduler_lease=True,
    bootstrap_signer=True,
    token_cleaner=True,
    front_proxy=True,  # kubeadm: cmd/kubeadm/app/phases/controlplane/manifests.go getAPIServerCommand
    service_cidr="10.96.0.0/16",  # kind: pkg/apis/config/v1alpha4/default.go (kubeadm's /12 is "a 2^20 bitmap")
    hostname="kind-control-plane",  # kind: the node container `<cluster>-control-plane`, cluster `kind` by default
    suite_jobs=4,
)

OPENSHIFT = Flavor(
    name="openshift",
    summary="OpenShift 4: SCC annotations and Pod Security labels patched onto new namespaces, builder/deployer "
            "ServiceAccounts with dockercfg pull secrets in every namespace",
    sources=(KCM_SERVICEACCOUNTS, KCM_ROOTCA, KCM_PODGC, SA_ADMISSION, FIELD_MANAGERS,
             Source("`builder` and `deployer` ServiceAccounts next to `default` in every namespace",
                    "openshift/openshift-controller-manager: pkg/cmd/controller/serviceaccounts.go "
                    "(serviceaccount controller with builder, deployer)"),
             Source("a `<sa>-dockercfg-xxxxx` Secret (type kubernetes.io/dockercfg) per ServiceAccount, listed in its "
                    "imagePullSecrets and secrets",
                    "openshift/openshift-controller-manager: pkg/serviceaccounts/controllers "
                    "(dockercfg / image pull secret controllers)"),
             Source("annotations openshift.io/sa.scc.mcs, sa.scc.supplemental-groups, sa.scc.uid-range patched right "
                    "after creation",
                    "openshift/cluster-policy-controller: pkg/security/controller (namespace SCC allocation controller)"),
             Source("labels pod-security.kubernetes.io/{audit,warn}[-version] synced onto namespaces",
                    "openshift/cluster-policy-controller: pkg/psalabelsyncer (PodSecurity admission label syncer)")),
    response_delay=(0.002, 0.01),
    deletion_delay=(1.0, 2.0),
    service_accounts=("default", "builder", "deployer"),
    service_account_delay=(0.05, 0.3),
    root_ca_delay=(0.05, 0.3),
    namespace_annotations={"openshift.io/sa.scc.mcs": "s0:c27,c19",
                           "openshift.io/sa.scc.supplemental-groups": "1000730000/10000",
                           "openshift.io/sa.scc.uid-range": "1000730000/10000"},
    namespace_labels={"pod-security.kubernetes.io/audit": "restricted",
                      "pod-security.kubernetes.io/audit-version": "latest",
                      "pod-security.kubernetes.io/warn": "restricted",
                      "pod-security.kubernetes.io/warn-version": "latest"},
    namespace_metadata_delay=(0.05, 0.3),
    dockercfg_secrets=True,
    suite_jobs=4,
)

MANAGED = Flavor(
    name="managed",
    summary="a managed cluster (GKE/EKS-like): an IAM webhook authorizer in front of RBAC, an admission webhook "
            "adding Warning headers and labels on new namespaces",
    sources=(KCM_SERVICEACCOUNTS, KCM_ROOTCA, KCM_PODGC, SA_ADMISSION, FIELD_MANAGERS,
             Source("403s end in `: <webhook reason>` (GKE: `requires one of [\"container.<resource>.<verb>\"] "
                    "permission(s).`); the union authorizer joins reasons with a newline",
                    "kubernetes: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go "
                    "(Forbidden), staging/src/k8s.io/apiserver/pkg/authorization/union/union.go; GKE: "
                    "cloud.google.com/kubernetes-engine/docs/how-to/iam (IAM authorizer webhook)"),
             Source("admission webhook warnings as `Warning: 299 - \"...\"` headers",
                    "kubernetes: staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook (AdmissionResponse.warnings); "
                    "GKE Autopilot `autopilot-default-resources-mutator`; Gatekeeper enforcementAction: warn"),
             Source("labels added to every new namespace by a mutating webhook",
                    "kubernetes: staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/mutating (JSONPatch)")),
    response_delay=(0.005, 0.02),
    deletion_delay=(1.0, 2.0),
    service_account_delay=(0.05, 0.2),
    root_ca_delay=(0.05, 0.2),
    webhook_namespace_labels={"policy.nsconform.io/audited": "true"},
    webhook_warnings=True,
    webhook_authorizer=True,
    suite_jobs=4,
)

SLOW = Flavor(
    name="slow",
    summary="a loaded or distant cluster: every response tens of milliseconds late, namespace deletion in 5-10 s, "
            "watch events late but in order",
    sources=(KCM_SERVICEACCOUNTS, KCM_ROOTCA, KCM_PODGC, SA_ADMISSION, FIELD_MANAGERS, NS_DELETION,
             Source("responses and watch events delayed (etcd latency, API priority and fairness queueing)",
                    "kubernetes: staging/src/k8s.io/apiserver/pkg/server/filters/priority-and-fairness.go")),
    response_delay=(0.02, 0.06),
    deletion_delay=(5.0, 10.0),
    watch_lag=0.1,
    service_account_delay=(0.5, 1.5),
    root_ca_delay=(0.5, 1.5),
    suite_jobs=8,
)

BARE = Flavor(
    name="bare",
    summary="kube-apiserver alone, without kube-controller-manager: nothing writes into new namespaces, no "
            "ServiceAccount admission (the server's own layers, seen in isolation)",
    sources=(Source("kube-apiserver without kube-controller-manager, ServiceAccount admission disabled",
                    "kubernetes: cmd/kube-apiserver/app/testing/testserver.go (StartTestServer) and "
                    "test/integration/framework, run with --disable-admission-plugins=ServiceAccount"),),
    service_accounts=(),
    root_ca_configmap=False,
    pod_gc_period=0.0,
    workload_controllers=False,
    scheduler=False,
    serviceaccount_admission=False,
    hpa_sync_period=0.0,
    disruption_controller=False,
)

FLAVORS: dict[str, Flavor] = {f.name: f for f in (DEFAULT, KIND, OPENSHIFT, MANAGED, SLOW, BARE)}
DEFAULT_FLAVOR = DEFAULT.name


def get_flavor(name: "str | Flavor | None") -> Flavor:
    """The flavour called `name` (None: the default; a `Flavor` is taken as it is); unknown ⇒ ValueError."""
    if isinstance(name, Flavor):
        return name
    try:
        return FLAVORS[name or DEFAULT_FLAVOR]
    except KeyError:
        raise ValueError(f"unknown flavor {name!r}; known: {', '.join(FLAVORS)}") from None

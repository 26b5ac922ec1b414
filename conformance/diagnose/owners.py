"""Who usually removes a well-known finalizer: the first thing to check when it does not go away."""
from __future__ import annotations

EXACT = {
    "kubernetes": "the namespace controller (kube-controller-manager)",
    "foregroundDeletion": "the garbage collector (kube-controller-manager)",
    "orphan": "the garbage collector (kube-controller-manager)",
    "kubernetes.io/pvc-protection": "the PVC protection controller (kube-controller-manager)",
    "kubernetes.io/pv-protection": "the PV protection controller (kube-controller-manager)",
    "customresourcecleanup.apiextensions.k8s.io": "kube-apiserver's CRD finalizer (apiextensions-apiserver)",
    "batch.kubernetes.io/job-tracking": "the Job controller (kube-controller-manager)",
    "service.kubernetes.io/load-balancer-cleanup": "the cloud provider's service controller "
                                                   "(cloud-controller-manager)",
    "resources-finalizer.argocd.argoproj.io": "the Argo CD application controller",
    "ingress.k8s.aws/resources": "the AWS Load Balancer Controller",
    "elbv2.k8s.aws/resources": "the AWS Load Balancer Controller",
    "networking.gke.io/ingress-finalizer-V2": "the GKE Ingress controller",
    "networking.gke.io/neg-finalizer": "the GKE NEG controller",
    "external-attacher/csi": "the CSI external-attacher sidecar of the volume's driver",
    "snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection": "the CSI snapshot controller",
    "controller.cattle.io/namespace-auth": "Rancher",
    "openshift.io/origin": "OpenShift's origin namespace controller",
}
PREFIXES = (
    ("kubernetes.io/", "a Kubernetes built-in controller"),
    ("cattle.io", "Rancher"),
    ("controller.cattle.io/", "Rancher"),
    ("argoproj.io", "Argo CD"),
    ("strimzi.io/", "the Strimzi operator"),
    ("cert-manager.io", "cert-manager"),
    ("fluxcd.io", "Flux"),
    ("external-attacher/", "the CSI external-attacher sidecar of the volume's driver"),
    ("velero.io/", "Velero"),
    ("istio.io", "Istio"),
    ("crossplane.io", "Crossplane"),
    ("finalizer.kubernetes.io/", "a Kubernetes built-in controller"),
)


def owner_of(finalizer: str) -> str | None:
    """The component that usually owns `finalizer`, or None when it is not a well-known one."""
    if finalizer in EXACT:
        return EXACT[finalizer]
    for prefix, owner in PREFIXES:
        if finalizer.startswith(prefix) or f".{prefix}" in finalizer:
            return owner
    return None

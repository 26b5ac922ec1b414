"""kube-aggregator's APIService priorities of the built-in group-versions a 1.33 kube-apiserver serves.

Upstream: `cmd/kube-apiserver/app/aggregator.go` `apiVersionPriorities`, merged over
`pkg/controlplane/apiserver/aggregator.go` `DefaultGenericAPIServicePriorities` (GroupPriorityMinimum,
VersionPriority). The served versions are listed (kind 1.33 enables no alpha or beta group-version), and upstream's
`admissionregistration.k8s.io/v1alpha1`, which the NamespaceInitializers extension serves (an APIService is made
only for a served group-version); a group-version missing here gets no APIService (`makeAPIService`: "Skipping
APIService creation"), as the aggregator's own `apiregistration.k8s.io`, and so no place in the legacy `/apis`.
"""
from __future__ import annotations

PRIORITIES: dict[tuple[str, str], tuple[int, int]] = {
    ("", "v1"): (18000, 1),
    ("apps", "v1"): (17800, 15),
    ("events.k8s.io", "v1"): (17750, 15),
    ("authentication.k8s.io", "v1"): (17700, 15),
    ("authorization.k8s.io", "v1"): (17600, 15),
    ("autoscaling", "v2"): (17500, 30),
    ("autoscaling", "v1"): (17500, 15),
    ("batch", "v1"): (17400, 15),
    ("certificates.k8s.io", "v1"): (17300, 15),
    ("networking.k8s.io", "v1"): (17200, 15),
    ("policy", "v1"): (17100, 15),
    ("rbac.authorization.k8s.io", "v1"): (17000, 15),
    ("storage.k8s.io", "v1"): (16800, 15),
    ("apiextensions.k8s.io", "v1"): (16700, 15),
    ("admissionregistration.k8s.io", "v1"): (16700, 15),
    ("admissionregistration.k8s.io", "v1alpha1"): (16700, 9),
    ("scheduling.k8s.io", "v1"): (16600, 15),
    ("coordination.k8s.io", "v1"): (16500, 15),
    ("node.k8s.io", "v1"): (16300, 15),
    ("discovery.k8s.io", "v1"): (16200, 15),
    ("flowcontrol.apiserver.k8s.io", "v1"): (16100, 21),
}

# crdregistration_controller.go: "CRDs should have relatively low priority", versions sorted kube-like
CRD_PRIORITY = (1000, 100)


def group_priorities() -> dict[str, int]:
    """group → GroupPriorityMinimum (the `/apis` order of the built-in groups)."""
    return {group: prio for (group, _), (prio, _) in PRIORITIES.items() if group}

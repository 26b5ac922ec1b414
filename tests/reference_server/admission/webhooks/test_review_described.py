"""admission/webhooks/review.py `encoded`: a CRD or an APIService in an AdmissionReview is `json.Marshal` of the
versioned Go object decoded from the body (`RawExtension.MarshalJSON`): its zero and empty `omitempty` fields left
out, its by-value structs and non-`omitempty` scalars written (wire/gowritten_described.py)."""
from __future__ import annotations

from conformance.reference_server.admission.webhooks.review import encoded


def test_a_crd_in_a_review() -> None:
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "as.g.io", "labels": {}},
           "spec": {"group": "g.io", "scope": "Namespaced", "names": {"plural": "as", "kind": "A", "shortNames": []},
                    "versions": [{"name": "v1", "served": True, "storage": True, "deprecated": False}]}}
    out = encoded(crd)
    assert out["metadata"] == {"name": "as.g.io", "creationTimestamp": None}
    assert out["spec"]["names"] == {"plural": "as", "kind": "A"}
    assert out["spec"]["versions"] == [{"name": "v1", "served": True, "storage": True}]
    assert out["status"] == {"conditions": None, "acceptedNames": {"plural": "", "kind": ""}, "storedVersions": None}
    assert list(out["status"]) == ["conditions", "acceptedNames", "storedVersions"]  # Go's order


def test_an_apiservice_in_a_review() -> None:
    out = encoded({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1.g.io"},
                   "spec": {"group": "g.io", "version": "v1", "caBundle": "", "versionPriority": 1}})
    assert out["spec"] == {"group": "g.io", "version": "v1", "groupPriorityMinimum": 0, "versionPriority": 1}
    assert out["status"] == {}

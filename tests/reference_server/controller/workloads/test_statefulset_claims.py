"""The StatefulSet controller's claims from `volumeClaimTemplates` (controller/workloads/statefulset.py)."""
from __future__ import annotations

from conformance.reference_server.controller.workloads import StatefulSetController
from conformance.reference_server.registry import ListOptions

from .conftest import NS, apps, pods, template

CLAIM_TEMPLATE = {"metadata": {"name": "data", "labels": {"tier": "db"}},
                  "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}


def test_claims_are_made_before_the_pods_that_mount_them(reg):
    tmpl = template({"app": "db"})
    tmpl["spec"]["volumes"] = [{"name": "data", "emptyDir": {}}, {"name": "scratch", "emptyDir": {}}]
    apps(reg, "statefulsets", "db", {"replicas": 2, "podManagementPolicy": "Parallel",
                                     "selector": {"matchLabels": {"app": "db"}}, "template": tmpl,
                                     "volumeClaimTemplates": [CLAIM_TEMPLATE]})
    c = StatefulSetController(reg)
    c.sync(NS, "db")
    claims = reg.content("persistentvolumeclaims").list(NS, ListOptions())["items"]
    assert [cl["metadata"]["name"] for cl in claims] == ["data-db-0", "data-db-1"]
    assert claims[0]["metadata"]["labels"] == {"tier": "db", "app": "db"}
    assert "ownerReferences" not in claims[0]["metadata"]  # the default Retain policy
    assert claims[0]["spec"]["volumeMode"] == "Filesystem" and claims[0]["status"]["phase"] == "Pending"
    made = {p["metadata"]["name"]: p for p in pods(reg)}
    assert made["db-1"]["spec"]["volumes"] == [{"name": "data", "persistentVolumeClaim": {"claimName": "data-db-1"}},
                                               {"name": "scratch", "emptyDir": {}}]
    c.sync(NS, "db")  # existing claims are kept, not made again
    assert len(reg.content("persistentvolumeclaims").list(NS, ListOptions())["items"]) == 2

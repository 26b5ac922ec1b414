"""The merge types of CRDs and APIServices (fieldmanager/jsonkinds.py) and structured-merge-diff's null beside a
granular value (typed.compare)."""
from __future__ import annotations

from conformance.reference_server.fieldmanager import FieldManager
from conformance.reference_server.fieldmanager.schema import ATOMIC, MAP, Schema
from conformance.reference_server.fieldmanager.jsonkinds import patch_root

CRD = ("CustomResourceDefinition", "apiextensions.k8s.io/v1")
APISERVICE = ("APIService", "apiregistration.k8s.io/v1")


def test_conditions_are_maps_keyed_by_type_every_other_list_atomic():
    for kind, version in (CRD, APISERVICE):
        s = Schema(kind, True, None, version)
        assert s.list_type(("status", "conditions")).kind == MAP
        assert s.list_type(("status", "conditions")).keys == ("type",)
        assert s.list_type(("metadata", "ownerReferences")).keys == ("uid",)  # ObjectMeta
        assert s.list_type(("metadata", "finalizers")).kind == "set"
    crd = Schema(*CRD)
    for names in (("spec", "versions"), ("spec", "names", "shortNames"), ("status", "storedVersions"),
                  ("spec", "versions", "additionalPrinterColumns")):
        assert crd.list_type(names).kind == ATOMIC


def test_only_the_apiservice_conditions_have_a_patch_merge_key():
    assert patch_root("apiregistration.k8s.io", "v1", "APIService").field("status").field("conditions").merge_key \
        == "type"
    crd = patch_root("apiextensions.k8s.io", "v1", "CustomResourceDefinition").field("status").field("conditions")
    assert crd.strategies == () and crd.merge_key == ""
    assert patch_root("", "v1", "ConfigMap") is None
    meta = patch_root("apiextensions.k8s.io", "v1", "CustomResourceDefinition").field("metadata")
    assert meta.field("finalizers").strategies == ("merge",)  # ObjectMeta's, as every built-in kind's
    assert meta.field("ownerReferences").merge_key == "uid"


def test_null_conditions_filled_by_a_status_update_have_no_dot():
    fm = FieldManager(*CRD, ignored={"status": frozenset({"spec"})})
    meta = {"name": "x", "uid": "u", "managedFields": [
        {"manager": "m", "operation": "Update", "apiVersion": CRD[1], "fieldsType": "FieldsV1",
         "fieldsV1": {"f:metadata": {"f:labels": {}}}}]}
    live = {"apiVersion": CRD[1], "kind": CRD[0], "metadata": meta,
            "status": {"conditions": None, "acceptedNames": {"plural": "", "kind": ""}}}
    new = {**live, "metadata": {"name": "x", "uid": "u"},
           "status": {"conditions": [{"type": "Established", "status": "True"}],
                      "acceptedNames": {"plural": "xs", "kind": "X"}}}
    out = fm.update(live, new, "kube-apiserver", "status")
    mine = next(e for e in out["metadata"]["managedFields"] if e["manager"] == "kube-apiserver")
    assert mine["fieldsV1"] == {"f:status": {
        "f:acceptedNames": {"f:kind": {}, "f:plural": {}},
        "f:conditions": {'k:{"type":"Established"}': {".": {}, "f:status": {}, "f:type": {}}}}}

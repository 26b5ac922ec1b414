"""An update without `metadata.resourceVersion` (apiserver store.go `Update`): made on the stored object where
the kind's strategy allows it (`AllowUnconditionalUpdate`: every built-in kind), refused with a 422 for CRDs,
custom resources and APIServices, whose strategies do not (a custom resource's `/scale` keeps the stored
version when the Scale has none); the versioner reads "" and "0" as none and answers what `strconv.ParseUint`
refuses as a 409; the checks judge the object mutating admission made."""
from __future__ import annotations

import requests

from tests.reference_server.conftest import NamespaceFactory, unique
from tests.reference_server.crds import CRDS, create_crd, schemaless_crd

MISSING = "Invalid value: 0x0: must be specified for an update"


def _refused(r: requests.Response, kind: str, group: str, name: str) -> None:
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["reason"] == "Invalid"
    assert body["message"] == f'{kind}.{group} "{name}" is invalid: metadata.resourceVersion: {MISSING}'
    assert body["details"] == {"name": name, "group": group, "kind": kind, "causes": [
        {"reason": "FieldValueInvalid", "message": MISSING, "field": "metadata.resourceVersion"}]}


def test_a_custom_resource_and_a_crd_need_a_resource_version(http: requests.Session, url: str,
                                                             namespaces: NamespaceFactory) -> None:
    group, plural = f"{unique('g')}.example.com", "widgets"
    crd = schemaless_crd(group, plural, "Widget")
    crd["spec"]["versions"][0]["subresources"] = {"status": {}, "scale": {
        "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}
    assert create_crd(http, url, crd).status_code == 201
    try:
        ns = namespaces.create()["metadata"]["name"]
        base = f"{url}/apis/{group}/v1/namespaces/{ns}/{plural}"
        cr = {"apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"a": 1}}
        assert http.post(base, json=cr).status_code == 201
        for rv in (None, "", "0"):
            body = {**cr, "metadata": {"name": "w", **({} if rv is None else {"resourceVersion": rv})}}
            _refused(http.put(f"{base}/w", json=body), plural, group, "w")
            _refused(http.put(f"{base}/w/status", json=body), plural, group, "w")
        current = http.get(f"{base}/w").json()
        assert http.put(f"{base}/w", json={**current, "spec": {"a": 2, "replicas": 1}}).status_code == 200
        # etcd.go scaleUpdatedObjectInfo: a Scale without a resourceVersion keeps the stored one's
        scale = {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "w"}, "spec": {"replicas": 2}}
        r = http.put(f"{base}/w/scale", json=scale)
        assert r.status_code == 200 and r.json()["spec"]["replicas"] == 2, r.text
        stored = http.get(f"{url}{CRDS}/{plural}.{group}").json()
        del stored["metadata"]["resourceVersion"]
        r = http.put(f"{url}{CRDS}/{plural}.{group}", json=stored)
        _refused(r, "customresourcedefinitions", "apiextensions.k8s.io", f"{plural}.{group}")
    finally:
        http.delete(f"{url}{CRDS}/{plural}.{group}")


def test_an_apiservice_needs_a_resource_version(http: requests.Session, url: str) -> None:
    path = f"{url}/apis/apiregistration.k8s.io/v1/apiservices/v1.apps"
    stored = http.get(path).json()
    del stored["metadata"]["resourceVersion"]
    _refused(http.put(path, json=stored), "apiservices", "apiregistration.k8s.io", "v1.apps")


def test_a_built_in_kind_updates_unconditionally_and_reads_the_version_as_a_number(
        http: requests.Session, url: str, namespaces: NamespaceFactory) -> None:
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    created = http.post(base, json={"metadata": {"name": "c"}, "data": {"a": "1"}}).json()
    rv = created["metadata"]["resourceVersion"]
    for sent in (None, "", "0", "00"):  # none, or (`00` before it) the stored one as ParseUint reads it
        sent = sent + rv if sent == "00" else sent
        meta = {"name": "c", **({} if sent is None else {"resourceVersion": sent})}
        r = http.put(f"{base}/c", json={"metadata": meta, "data": {"a": str(sent)}})
        assert r.status_code == 200, (sent, r.text)
        rv = r.json()["metadata"]["resourceVersion"]
    r = http.put(f"{base}/c", json={"metadata": {"name": "c", "resourceVersion": "abc"}, "data": {}})
    assert r.status_code == 409, r.text
    assert r.json()["message"] == ('Operation cannot be fulfilled on configmaps "c": resourceVersion: Invalid value: '
                                   '"abc": strconv.ParseUint: parsing "abc": invalid syntax')
    r = http.put(f"{base}/c", json={"metadata": {"name": "c", "resourceVersion": "1"}, "data": {}})
    assert r.status_code == 409 and "the object has been modified" in r.json()["message"], r.text

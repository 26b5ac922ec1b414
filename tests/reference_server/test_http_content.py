"""Namespaced content: the declared kinds, namespace rules, finalizers, selectors, cross-namespace access."""
from __future__ import annotations

import json

import pytest

from .conftest import status_of

MERGE = {"Content-Type": "application/merge-patch+json"}

BODIES = {
    "configmaps": {"data": {"k": "v"}},
    "secrets": {"stringData": {"k": "v"}, "type": "Opaque"},
    "services": {"spec": {"ports": [{"port": 80}]}},
    "serviceaccounts": {},
    "pods": {"spec": {"containers": [{"name": "c", "image": "pause"}]}},
    "resourcequotas": {"spec": {"hard": {"pods": "1"}}},
    "limitranges": {"spec": {"limits": [{"type": "Container"}]}},
    "events": {"involvedObject": {"kind": "Pod", "name": "x"}, "reason": "R", "message": "m"},
}
KINDS = {"configmaps": "ConfigMap", "secrets": "Secret", "services": "Service", "serviceaccounts": "ServiceAccount",
         "pods": "Pod", "resourcequotas": "ResourceQuota", "limitranges": "LimitRange", "events": "Event"}


@pytest.mark.parametrize("resource", sorted(BODIES))
def test_crud_every_kind(http, url, namespaces, resource):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/{resource}"
    r = http.post(base, json={"metadata": {"name": "obj1"}, **BODIES[resource]})
    assert r.status_code == 201, r.text
    obj = r.json()
    assert obj["kind"] == KINDS[resource] and obj["metadata"]["namespace"] == ns
    assert http.get(f"{base}/obj1").json()["metadata"]["uid"] == obj["metadata"]["uid"]
    lst = http.get(base).json()
    assert lst["kind"] == KINDS[resource] + "List" and [i["metadata"]["name"] for i in lst["items"]] == ["obj1"]
    r = http.patch(f"{base}/obj1", data=json.dumps({"metadata": {"labels": {"p": "q"}}}), headers=MERGE)
    assert r.status_code == 200 and r.json()["metadata"]["labels"] == {"p": "q"}
    st = status_of(http.post(base, json={"metadata": {"name": "obj1"}, **BODIES[resource]}))
    assert st["code"] == 409 and st["message"] == f'{resource} "obj1" already exists'
    assert st["details"] == {"name": "obj1", "kind": resource}
    r = http.delete(f"{base}/obj1")
    assert r.status_code == 200
    st = status_of(http.get(f"{base}/obj1"))
    assert st["message"] == f'{resource} "obj1" not found' and st["details"] == {"name": "obj1", "kind": resource}


def test_configmap_delete_returns_success_status(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    cm = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "c"}}).json()
    body = http.delete(f"{url}/api/v1/namespaces/{ns}/configmaps/c").json()
    assert body == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                    "details": {"name": "c", "kind": "configmaps", "uid": cm["metadata"]["uid"]}}


@pytest.mark.parametrize("resource", ["services", "serviceaccounts", "resourcequotas", "pods"])
def test_delete_returns_the_deleted_object(http, url, namespaces, resource):
    """`ReturnDeletedObject: true` in these kinds' upstream storage (pkg/registry/core/*/storage)."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/{resource}"
    made = http.post(base, json={"metadata": {"name": "obj1"}, **BODIES[resource]}).json()
    body = http.delete(f"{base}/obj1").json()
    assert body["kind"] == KINDS[resource] and body["metadata"]["uid"] == made["metadata"]["uid"]


def test_same_name_in_two_namespaces(http, url, namespaces):
    a, b = (namespaces.create()["metadata"]["name"] for _ in range(2))
    for ns in (a, b):
        assert http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "same"}}).status_code \
            == 201


def test_namespace_defaulting_and_mismatch_ns80_ns81(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    assert http.post(base, json={"metadata": {"name": "a"}}).json()["metadata"]["namespace"] == ns
    msg = "the namespace of the provided object does not match the namespace sent on the request"
    st = status_of(http.post(base, json={"metadata": {"name": "b", "namespace": "other"}}))
    assert st["code"] == 400 and st["reason"] == "BadRequest" and st["message"] == msg and "details" not in st
    st = status_of(http.put(f"{base}/a", json={"metadata": {"name": "a", "namespace": "other"}}))
    assert st["code"] == 400 and st["message"] == msg
    st = status_of(http.patch(f"{base}/a", data=json.dumps({"metadata": {"namespace": "other"}}), headers=MERGE))
    assert st["code"] == 400 and st["message"] == msg
    assert http.get(f"{base}/b").status_code == 404


def test_content_finalizers(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    http.post(base, json={"metadata": {"name": "f", "finalizers": ["example.com/keep"]}})
    r = http.delete(f"{base}/f")
    assert r.status_code == 200 and r.json()["metadata"]["deletionTimestamp"]
    assert r.json()["metadata"]["deletionGracePeriodSeconds"] == 0
    assert http.get(f"{base}/f").status_code == 200
    assert http.delete(f"{base}/f").status_code == 200
    st = status_of(http.patch(f"{base}/f", data=json.dumps({"metadata": {"finalizers": ["example.com/keep",
                                                                                          "x/y"]}}), headers=MERGE))
    assert st["code"] == 422
    assert http.patch(f"{base}/f", data=json.dumps({"metadata": {"finalizers": None}}),
                      headers=MERGE).status_code == 200
    assert http.get(f"{base}/f").status_code == 404


def test_generate_name_content(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    r = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"generateName": "cm-"}})
    assert r.status_code == 201 and r.json()["metadata"]["name"].startswith("cm-")


def test_invalid_content_name(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    st = status_of(http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "Bad_Name"}}))
    assert st["code"] == 422 and st["details"]["kind"] == "ConfigMap"
    assert st["message"].startswith('ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": '
                                    "a lowercase RFC 1123 subdomain")


def test_cross_namespace_list_ns82(http, url, namespaces):
    a, b = (namespaces.create(labels={"x": "y"})["metadata"]["name"] for _ in range(2))
    for ns in (a, b):
        http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "c", "labels": {"t": ns}}})
    items = http.get(f"{url}/api/v1/configmaps").json()["items"]
    assert {(i["metadata"]["namespace"], i["metadata"]["name"]) for i in items} >= {(a, "c"), (b, "c")}
    only = http.get(f"{url}/api/v1/configmaps", params={"fieldSelector": f"metadata.namespace={a}"}).json()
    assert [i["metadata"]["namespace"] for i in only["items"]] == [a]
    st = status_of(http.get(f"{url}/api/v1/configmaps", params={"fieldSelector": "data.k=v"}))
    assert st["message"] == '"data.k" is not a known field selector: only "metadata.name", "metadata.namespace"'
    for method in ("POST", "DELETE", "PUT", "PATCH"):
        st = status_of(http.request(method, f"{url}/api/v1/configmaps", json={}))
        assert st["code"] == 405 and st["details"] == {}
    assert status_of(http.get(f"{url}/api/v1/list/configmaps"))["code"] == 404


def test_delete_collection_with_selector(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    for n, lab in (("a", "1"), ("b", "1"), ("c", "2")):
        http.post(base, json={"metadata": {"name": n, "labels": {"g": lab}}})
    r = http.delete(base, params={"labelSelector": "g=1"})
    assert r.status_code == 200 and r.json()["kind"] == "ConfigMapList"
    assert [i["metadata"]["name"] for i in http.get(base).json()["items"]] == ["c"]


def test_reads_in_missing_namespace_ns65(http, url):
    r = http.get(f"{url}/api/v1/namespaces/nope-zz/configmaps")
    assert r.status_code == 200 and r.json()["items"] == []
    st = status_of(http.get(f"{url}/api/v1/namespaces/nope-zz/configmaps/x"))
    assert st["message"] == 'configmaps "x" not found'


def test_update_unconditional_and_conflict(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    cm = http.post(base, json={"metadata": {"name": "c"}, "data": {"a": "1"}}).json()
    assert http.put(f"{base}/c", json={"metadata": {"name": "c"}, "data": {"a": "2"}}).json()["data"] == {"a": "2"}
    st = status_of(http.put(f"{base}/c", json=dict(cm, data={"a": "3"})))
    assert st["code"] == 409 and st["message"].startswith('Operation cannot be fulfilled on configmaps "c"')


def test_strict_and_warn_field_validation(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    st = status_of(http.post(base, params={"fieldValidation": "Strict"},
                             json={"metadata": {"name": "s", "bogus": 1}, "dataz": {}}))
    assert st["code"] == 400
    # create.go's `transformDecodeError` names the kind (kubectl users see exactly this)
    assert st["message"] == ('ConfigMap in version "v1" cannot be handled as a ConfigMap: '
                             'strict decoding error: unknown field "metadata.bogus", unknown field "dataz"')
    r = http.post(base, json={"metadata": {"name": "w"}, "dataz": {}})
    assert r.status_code == 201 and "dataz" not in r.json()
    assert r.headers["Warning"] == '299 - "unknown field \\"dataz\\""'
    r = http.post(base, params={"fieldValidation": "Strict"},
                  json={"metadata": {"name": "n", "labels": {"a": "b"}}, "data": {"a": "b"}, "immutable": False})
    assert r.status_code == 201
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i", "imagex": "j"}]}}
    st = status_of(http.post(f"{url}/api/v1/namespaces/{ns}/pods", params={"fieldValidation": "Strict"}, json=pod))
    assert st["message"] == ('Pod in version "v1" cannot be handled as a Pod: '
                             'strict decoding error: unknown field "spec.containers[0].imagex"')
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json=pod)
    assert r.status_code == 201 and "imagex" not in r.json()["spec"]["containers"][0]
    r = http.post(base, params={"fieldValidation": "Ignore"}, json={"metadata": {"name": "i"}, "dataz": {}})
    assert r.status_code == 201 and "Warning" not in r.headers


def test_named_group_kinds_know_their_nested_fields(http, url, namespaces):
    """A named group's built-in kind is decoded into its Go type as a core kind is: a nested field it lacks is a
    strict error, or a warning and dropped (a Deployment's `spec.replica`, a Lease's `spec.bogus`)."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/apps/v1/namespaces/{ns}/deployments"
    deployment = {"metadata": {"name": "d"}, "spec": {"replica": 2, "selector": {"matchLabels": {"a": "b"}},
                                                      "template": {"metadata": {"labels": {"a": "b"}}, "spec": {
                                                          "containers": [{"name": "c", "image": "i", "imagex": 1}]}}}}
    st = status_of(http.post(base, params={"fieldValidation": "Strict"}, json=deployment))
    assert st["code"] == 400
    assert st["message"] == ('Deployment in version "v1" cannot be handled as a Deployment: '
                             'strict decoding error: unknown field "spec.replica", '
                             'unknown field "spec.template.spec.containers[0].imagex"')
    r = http.post(base, json=deployment)
    assert r.status_code == 201, r.text
    assert "replica" not in r.json()["spec"] and "imagex" not in r.json()["spec"]["template"]["spec"]["containers"][0]
    assert r.headers["Warning"] == ('299 - "unknown field \\"spec.replica\\"", '
                                    '299 - "unknown field \\"spec.template.spec.containers[0].imagex\\""')
    # a patch's result: patch.go's 422 on field `patch`, the patched object (a merge patch's) shown
    r = http.patch(f"{base}/d", params={"fieldValidation": "Strict"}, data=json.dumps({"spec": {"paused": True,
                                                                                             "pausd": True}}),
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 422, r.text
    assert r.json()["details"]["causes"][0]["field"] == "patch"
    assert r.json()["message"].endswith('": strict decoding error: unknown field "spec.pausd"')
    lease = {"metadata": {"name": "l"}, "spec": {"holderIdentity": "h", "bogus": 1}}
    st = status_of(http.post(f"{url}/apis/coordination.k8s.io/v1/namespaces/{ns}/leases",
                             params={"fieldValidation": "Strict"}, json=lease))
    assert st["message"] == ('Lease in version "v1" cannot be handled as a Lease: '
                             'strict decoding error: unknown field "spec.bogus"')


def test_field_manager(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    r = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", params={"fieldManager": "me"},
                  json={"metadata": {"name": "m"}, "data": {"k": "v"}})
    assert r.json()["metadata"]["managedFields"][0]["manager"] == "me"


def test_secret_type_defaults_to_opaque(http, url, namespaces):
    """`SetDefaults_Secret`: `kubectl create secret generic` sends no `type`; the server stores `Opaque`."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/secrets"
    r = http.post(base, json={"metadata": {"name": "s"}, "data": {"k": "dg=="}})
    assert r.status_code == 201 and r.json()["type"] == "Opaque"
    assert http.get(f"{base}/s").json()["type"] == "Opaque"
    r = http.put(f"{base}/s", json={"metadata": {"name": "s"}, "data": {"k": "dw=="}})  # PUT without type
    assert r.status_code == 200 and r.json()["type"] == "Opaque"
    r = http.post(base, json={"metadata": {"name": "t"}, "type": "kubernetes.io/tls",
                              "data": {"tls.crt": "", "tls.key": ""}})
    assert r.status_code == 201 and r.json()["type"] == "kubernetes.io/tls"  # an explicit type is kept


def test_a_named_group_kind_posted_as_yaml(http, url, namespaces):
    """kube-apiserver reads a YAML body as JSON (`yaml.YAMLToJSON`) whatever the group: a Deployment in YAML was
    refused here with `the API version in the data (apps/v1) does not match the expected API version (v1)`."""
    ns = namespaces.create()["metadata"]["name"]
    body = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 2\n"
            "  selector: {matchLabels: {a: b}}\n"
            "  template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}\n")
    path = f"{url}/apis/apps/v1/namespaces/{ns}/deployments"
    r = http.post(path, data=body, headers={"Content-Type": "application/yaml"})
    assert r.status_code == 201, r.text
    assert r.json()["apiVersion"] == "apps/v1" and r.json()["spec"]["replicas"] == 2
    # a version the scheme registers (unserved) decodes, and is refused by create.go's `AcceptsGroupVersion`
    r = http.post(path, data=body.replace("apps/v1", "apps/v1beta2"), headers={"Content-Type": "application/yaml"})
    assert r.status_code == 400 and r.json()["message"] == (
        "the API version in the data (apps/v1beta2) does not match the expected API version (apps/v1)")
    # one it does not is `Scheme.New`'s error (json.go, `UseOrCreateObject`), through `transformDecodeError`
    r = http.post(path, data=body.replace("apps/v1", "apps/v2"), headers={"Content-Type": "application/yaml"})
    assert r.status_code == 400 and r.json()["message"] == (
        'Deployment in version "v2" cannot be handled as a Deployment: no kind "Deployment" is registered for '
        'version "apps/v2" in scheme "pkg/api/legacyscheme/scheme.go:30"')


def test_a_named_group_kind_is_decoded_into_its_go_type(http, url, namespaces):
    """A Deployment whose `replicas` is a string does not decode into apps/v1's Go type: a create is refused 400 with
    encoding/json's words (it was stored), a patch whose result no longer decodes is the 422 `patch` Invalid."""
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/apis/apps/v1/namespaces/{ns}/deployments"
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"replicas": "x", "selector": {"matchLabels": {"a": "b"}},
                     "template": {"metadata": {"labels": {"a": "b"}},
                                  "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    r = http.post(path, json=body)
    assert r.status_code == 400 and r.json()["message"] == (
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct '
        "field DeploymentSpec.spec.replicas of type int32")
    body["spec"]["replicas"] = 2
    assert http.post(path, json=body).status_code == 201
    r = http.patch(f"{path}/d", data='{"spec":{"paused":"yes"}}',
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 422 and r.json()["details"]["causes"][0]["field"] == "patch"
    assert r.json()["message"].endswith(
        "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool")
    assert http.get(f"{path}/d").json()["spec"].get("paused") is None


def test_a_mistyped_server_side_apply_is_upstreams_500(http, url, namespaces):
    """structuredMergeManager.Apply: an applied configuration whose numeric field holds a string does not type:
    500 `failed to create typed patch object (...)`, before any merge, so nothing is stored. The namespace and
    name printed are the configuration's own (`objectGVKNN(patchObj)`): none here."""
    ns = namespaces.create()["metadata"]["name"]
    body = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: x\n"
            "  selector: {matchLabels: {a: b}}\n"
            "  template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}\n")
    path = f"{url}/apis/apps/v1/namespaces/{ns}/deployments/d"
    r = http.patch(path, data=body, params={"fieldManager": "m"},
                   headers={"Content-Type": "application/apply-patch+yaml"})
    assert r.status_code == 500 and r.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "code": 500,
        "message": "failed to create typed patch object (/d; apps/v1, Kind=Deployment): .spec.replicas: "
                   "expected numeric (int or float), got string"}
    assert http.get(path).status_code == 404


def test_an_applied_value_that_types_but_does_not_convert_is_upstreams_500(http, url, namespaces):
    """structured-merge-diff takes any number for an integer and a list for an int-or-string; the merged object's
    conversion to the Go type (`toVersioned`) refuses them: 500 `failed to convert new object (...)`."""
    ns = namespaces.create()["metadata"]["name"]
    body = (f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d, namespace: {ns}}}\nspec:\n"
            "  replicas: 1.5\n  selector: {matchLabels: {a: b}}\n"
            "  template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}\n")
    path = f"{url}/apis/apps/v1/namespaces/{ns}/deployments/d"
    r = http.patch(path, data=body, params={"fieldManager": "m"}, headers={"Content-Type": "application/apply-patch+yaml"})
    assert r.status_code == 500 and r.json()["message"] == (
        f"failed to convert new object ({ns}/d; apps/v1, Kind=Deployment) to proper version: unable to convert "
        "unstructured object to apps/v1, Kind=Deployment: cannot convert float64 to int32")
    body = "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80, targetPort: [1]}]}\n"
    r = http.patch(f"{url}/api/v1/namespaces/{ns}/services/s", data=body, params={"fieldManager": "m"},
                   headers={"Content-Type": "application/apply-patch+yaml"})
    assert r.status_code == 500 and r.json()["message"] == (
        "failed to convert new object (/s; /v1, Kind=Service) to proper version: unable to convert unstructured "
        "object to /v1, Kind=Service: json: cannot unmarshal array into Go value of type int32")
    assert http.get(path).status_code == 404

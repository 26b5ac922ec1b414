"""A JSON `null` as kube-apiserver's decoder holds it (wire/gonull.py, sigs.k8s.io/json decode.go `literalStore`):
a field Go holds by value (a string, a struct) ignores it, keeping a repeated key's first value or, given once,
its zero value (a default then applies); a pointer, slice or map becomes nil; an item or map value held by value
becomes its zero value (`""` for a label)."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import status_of, unique
from .kubectl_run import run_kubectl

JSON_BODY = {"Content-Type": "application/json"}


@pytest.fixture
def ns(namespaces: Any) -> str:
    return namespaces.create()["metadata"]["name"]


@pytest.fixture
def dynamic_client(url: str, tmp_path: Any) -> Iterator[Any]:
    """The official client's DynamicClient bound to the test server (its typed APIs refuse a None label value
    before sending; a dict body goes as it is)."""
    from kubernetes import client, dynamic
    with client.ApiClient(client.Configuration(host=url)) as api_client:
        yield dynamic.DynamicClient(api_client, cache_file=str(tmp_path / "discovery.json"))


def _post(http: Any, url: str, ns: str, plural: str, body: str) -> Any:
    return http.post(f"{url}/api/v1/namespaces/{ns}/{plural}", data=body, headers=JSON_BODY)


def test_repeated_null_keeps_a_by_value_field(http, url, ns):
    """`{"name":"a","name":null}` creates `a` (a string ignores null), a repeated `metadata` or `spec` given null
    keeps the first struct; a pointer (`*bool`, `*int64`) repeated with null becomes nil."""
    r = _post(http, url, ns, "configmaps", '{"metadata":{"name":"a","name":null},"data":{"k":"v"},'
                                           '"immutable":true,"immutable":null}')
    assert r.status_code == 201, r.text
    assert r.json()["metadata"]["name"] == "a" and r.json()["data"] == {"k": "v"} and "immutable" not in r.json()
    r = _post(http, url, ns, "configmaps", '{"metadata":{"name":"b","labels":{"x":"1"}},"metadata":null}')
    assert r.status_code == 201, r.text
    assert r.json()["metadata"]["labels"] == {"x": "1"}
    body = ('{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}],'
            '"terminationGracePeriodSeconds":5,"terminationGracePeriodSeconds":null,'
            '"restartPolicy":"Never","restartPolicy":null},"spec":null}')
    r = _post(http, url, ns, "pods", body)
    assert r.status_code == 201, r.text
    spec = r.json()["spec"]
    assert spec["restartPolicy"] == "Never"  # by value: the first one kept
    assert spec["terminationGracePeriodSeconds"] == 30  # a pointer: nil, then defaulted
    assert spec["containers"][0]["name"] == "c"


def test_repeated_null_into_an_int_or_string_and_a_raw_extension(http, url, ns):
    """intstr.go: null makes an IntOrString an int, the int it held kept; extension.go: a RawExtension ignores it."""
    r = _post(http, url, ns, "services", '{"metadata":{"name":"s"},"spec":{"ports":['
                                         '{"name":"a","port":80,"targetPort":8080,"targetPort":null},'
                                         '{"name":"b","port":81,"targetPort":"http","targetPort":null}]}}')
    assert r.status_code == 201, r.text
    assert [p["targetPort"] for p in r.json()["spec"]["ports"]] == [8080, 81]  # 0: defaulted to the port
    r = http.post(f"{url}/apis/apps/v1/namespaces/{ns}/controllerrevisions", headers=JSON_BODY,
                  data='{"metadata":{"name":"r"},"data":{"a":1},"data":null,"revision":1}')
    assert r.status_code == 201, r.text
    assert r.json()["data"] == {"a": 1}


def test_single_null_leaves_the_zero_value_which_defaulting_fills(http, url, ns):
    """A by-value field given null once is its zero value: absent, so defaulted (not a 422, not echoed `null`)."""
    body = ('{"metadata":{"name":"p","generateName":null},"spec":{"containers":[{"name":"c","image":"i",'
            '"imagePullPolicy":null,"terminationMessagePath":null,"args":["a",null]}],"restartPolicy":null,'
            '"dnsPolicy":null}}')
    r = _post(http, url, ns, "pods", body)
    assert r.status_code == 201, r.text
    pod = r.json()
    assert "generateName" not in pod["metadata"]
    assert "f:metadata" not in pod["metadata"]["managedFields"][0]["fieldsV1"]  # (a zero value owns nothing)
    assert (pod["spec"]["restartPolicy"], pod["spec"]["dnsPolicy"]) == ("Always", "ClusterFirst")
    c = pod["spec"]["containers"][0]
    assert (c["imagePullPolicy"], c["terminationMessagePath"], c["args"]) == \
        ("Always", "/dev/termination-log", ["a", ""])
    r = _post(http, url, ns, "services", '{"metadata":{"name":"s"},"spec":{"ports":[{"port":80,"protocol":null,'
                                         '"name":null}]}}')
    assert r.status_code == 201, r.text
    assert r.json()["spec"]["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 80}]


def test_null_struct_item_is_an_empty_struct(http, url, ns):
    """`"containers":[null]`: an empty Container, refused by validation (was a 500)."""
    st = status_of(_post(http, url, ns, "pods", '{"metadata":{"name":"p"},"spec":{"containers":[null]}}'))
    assert st["code"] == 422 and st["reason"] == "Invalid"
    assert st["message"] == ('Pod "p" is invalid: [spec.containers[0].name: Required value, '
                             'spec.containers[0].image: Required value]')


def test_official_client_null_label_and_data_values(dynamic_client, ns):
    """The official client sends a dict's None as null: a label's or a ConfigMap value's is "" (Go's zero
    string), not a 400; a pointer's is omitted (`omitempty`), not answered `null`."""
    configmaps = dynamic_client.resources.get(api_version="v1", kind="ConfigMap")
    cm = configmaps.create(namespace=ns, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "c", "labels": {"a": None}, "annotations": {"b": None}}, "data": {"k": None}, "immutable": None})
    assert cm.metadata.labels.to_dict() == {"a": ""} and cm.metadata.annotations.to_dict() == {"b": ""}
    assert cm.data.to_dict() == {"k": ""} and "immutable" not in cm.to_dict()
    assert "immutable" not in configmaps.get(namespace=ns, name="c").to_dict()
    pods = dynamic_client.resources.get(api_version="v1", kind="Pod")
    pod = pods.create(namespace=ns, body={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {
        "containers": [{"name": "c", "image": "i"}], "restartPolicy": None, "nodeSelector": {"x": None}}})
    assert pod.spec.restartPolicy == "Always" and pod.spec.nodeSelector.to_dict() == {"x": ""}


MANIFEST = """apiVersion: v1
kind: ConfigMap
metadata:
  name: kc
  labels:
    a: null
data:
  k: ~
---
apiVersion: v1
kind: Pod
metadata:
  name: kp
spec:
  restartPolicy: null
  containers:
  - name: c
    image: i
    imagePullPolicy:
"""


def test_kubectl_create_with_nulls(http, url, ns, tmp_path):
    """`kubectl create -f` sends a manifest's nulls: created as Go holds them (was a 400, then a 422)."""
    manifest = tmp_path / "m.yaml"
    manifest.write_text(MANIFEST)
    proc = run_kubectl(url, tmp_path, "create", "-n", ns, "-f", str(manifest))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["configmap/kc created", "pod/kp created"]
    cm = http.get(f"{url}/api/v1/namespaces/{ns}/configmaps/kc").json()
    assert (cm["metadata"]["labels"], cm["data"]) == ({"a": ""}, {"k": ""})
    spec = http.get(f"{url}/api/v1/namespaces/{ns}/pods/kp").json()["spec"]
    assert (spec["restartPolicy"], spec["containers"][0]["imagePullPolicy"]) == ("Always", "Always")
    # `create --raw` sends the bytes as they are: a repeated name's null keeps the name
    raw = tmp_path / "cm.json"
    raw.write_text('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kr","name":null}}')
    proc = run_kubectl(url, tmp_path, "create", "--raw", f"/api/v1/namespaces/{ns}/configmaps", "-f", str(raw))
    assert proc.returncode == 0, proc.stderr
    assert 'Warning: duplicate field "metadata.name"' in proc.stderr
    assert http.get(f"{url}/api/v1/namespaces/{ns}/configmaps/kr").status_code == 200


CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def _crd_spec(plural: str, scope: str) -> str:
    return ('{"group":"null.example.com",' + scope + '"names":{"plural":"' + plural + '","kind":"K' + plural
            + '"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":'
            '"object","description":null,"properties":{"a":{"type":"string","default":null}}}}}]}')


def test_crd_nulls(http, url):
    """A CRD's spec and its scope are held by value (a repeated null keeps them); a null inside it reads as
    absent: a schema's `description` and `default` dropped, a null `scope` Required (validation.go
    `validateEnumStrings`)."""
    name = "nullas.null.example.com"
    spec = _crd_spec("nullas", '"scope":"Namespaced","scope":null,')  # `Scope ResourceScope`: by value
    r = http.post(f"{url}{CRDS}", headers=JSON_BODY,
                  data=f'{{"metadata":{{"name":"{name}"}},"spec":{spec},"spec":null}}')
    try:
        assert r.status_code == 201, r.text
        assert r.json()["spec"]["scope"] == "Namespaced"
        assert r.json()["spec"]["versions"][0]["schema"]["openAPIV3Schema"] == {
            "type": "object", "properties": {"a": {"type": "string"}}}
    finally:
        http.delete(f"{url}{CRDS}/{name}")
    spec = _crd_spec("nullbs", '"scope":null,')
    st = status_of(http.post(f"{url}{CRDS}", headers=JSON_BODY,
                             data=f'{{"metadata":{{"name":"nullbs.null.example.com"}},"spec":{spec}}}'))
    assert st["code"] == 422
    assert st["message"] == ('CustomResourceDefinition.apiextensions.k8s.io "nullbs.null.example.com" is invalid: '
                             'spec.scope: Required value')


def test_json_patch_adding_nulls(http, url, ns):
    """A JSON patch's result is decoded into the Go type (patch.go `applyJSPatch`, then `DecodeInto`): a label's
    null is "", a pointer's nil (omitted), a map's nil (omitted)."""
    assert _post(http, url, ns, "configmaps", '{"metadata":{"name":"c","annotations":{"a":"1"}}}').status_code == 201
    patch = [{"op": "add", "path": "/metadata/labels", "value": {"x": None}},
             {"op": "replace", "path": "/metadata/annotations", "value": None},
             {"op": "add", "path": "/immutable", "value": None}]
    r = http.patch(f"{url}/api/v1/namespaces/{ns}/configmaps/c", json=patch,
                   headers={"Content-Type": "application/json-patch+json"})
    assert r.status_code == 200, r.text
    meta = r.json()["metadata"]
    assert meta["labels"] == {"x": ""} and "annotations" not in meta and "immutable" not in r.json()


RBAC = "/apis/rbac.authorization.k8s.io/v1"


def test_nil_field_without_omitempty_is_answered_null(http, url, ns, watch, tmp_path):
    """A Role's and a ClusterRole's `rules` (no `omitempty`) left out, or sent empty, is answered `"rules": null`
    (wire/gowritten.py: Go writes a nil slice so, and an empty one is nil once read back from protobuf storage) in
    the create answer, a GET, a list, a watch event and YAML; a body's `null` there owns nothing in managedFields
    (the empty object it is compared with has the same `null`)."""
    roles = f"{url}{RBAC}/namespaces/{ns}/roles"
    rv = http.get(roles).json()["metadata"]["resourceVersion"]
    w = watch(roles, {"resourceVersion": rv})
    r = http.post(roles, json={"metadata": {"name": "a"}})
    assert r.status_code == 201, r.text
    assert r.json()["rules"] is None and '"rules":null' in r.text
    event = w.until(lambda e: e["object"]["metadata"]["name"] == "a", what="the ADDED event")[-1]
    assert "rules" in event["object"] and event["object"]["rules"] is None
    r = http.post(roles, json={"metadata": {"name": "b"}, "rules": None})
    assert r.status_code == 201 and r.json()["rules"] is None
    assert "managedFields" not in r.json()["metadata"]
    r = http.post(roles, json={"metadata": {"name": "c", "labels": {"x": "y"}}, "rules": []})
    assert r.status_code == 201 and r.json()["rules"] is None
    r = http.put(f"{roles}/c", json={"metadata": {"name": "c"}, "rules": [{"verbs": ["get"], "resources": ["pods"],
                                                                          "apiGroups": [""]}]})
    assert r.status_code == 200 and r.json()["rules"][0]["verbs"] == ["get"]
    r = http.put(f"{roles}/c", json={"metadata": {"name": "c"}})
    assert r.status_code == 200 and r.json()["rules"] is None
    assert http.get(f"{roles}/a").json()["rules"] is None
    assert [i["rules"] for i in http.get(roles).json()["items"]] == [None, None, None]
    assert "\nrules: null\n" in http.get(f"{roles}/a", headers={"Accept": "application/yaml"}).text
    cluster_role = unique("nullrules")
    r = http.post(f"{url}{RBAC}/clusterroles", json={"metadata": {"name": cluster_role}})
    try:
        assert r.status_code == 201 and r.json()["rules"] is None
        proc = run_kubectl(url, tmp_path, "get", "clusterrole", cluster_role, "-o", "yaml")
        assert proc.returncode == 0, proc.stderr
        assert "\nrules: null\n" in proc.stdout
    finally:
        http.delete(f"{url}{RBAC}/clusterroles/{cluster_role}")


def test_nested_nil_fields_without_omitempty(http, url, ns):
    """Nested structs too: an EndpointSlice's `endpoints` and `ports`, a LimitRange's `spec.limits`."""
    r = http.post(f"{url}/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices",
                  json={"metadata": {"name": "e"}, "addressType": "IPv4"})
    assert r.status_code == 201, r.text
    assert (r.json()["endpoints"], r.json()["ports"]) == (None, None)
    r = http.post(f"{url}/api/v1/namespaces/{ns}/limitranges", json={"metadata": {"name": "l"}, "spec": {}})
    assert r.status_code == 201, r.text
    assert r.json()["spec"] == {"limits": None}

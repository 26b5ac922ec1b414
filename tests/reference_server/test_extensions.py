"""CRDs, custom resources and APIServices on the reference server, and the discovery-driven deleter.

A server of its own: the objects here change `/apis` and (an unavailable APIService) stall every namespace
deletion, which the session server's other tests must not see.
"""
from __future__ import annotations

import json

import pytest
import requests

from conformance.reference_server.wire import protobuf

from .conftest import WatchReader, unique, wait_gone
from tests.reference_server.crds import api_version_of, create_crd
from tests.reference_server.ownserver import own_server

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices"
MERGE = {"Content-Type": "application/merge-patch+json"}
V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


ext = own_server()


def crd(group: str, scope: str = "Namespaced") -> dict:
    schema = {"type": "object", "properties": {
        "spec": {"type": "object", "required": ["size"],
                 "properties": {"size": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}}},
        "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"widgets.{group}"},
            "spec": {"group": group, "scope": scope, "names": {"plural": "widgets", "kind": "Widget",
                                                                "shortNames": ["wd"]},
                     "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                                   "schema": {"openAPIV3Schema": schema}}]}}


def widget(url: str, name: str, size=1, **meta) -> dict:
    return {"apiVersion": api_version_of(url), "kind": "Widget", "metadata": {"name": name, **meta}, "spec": {"size": size}}


def new_group(http, base: str, scope: str = "Namespaced") -> str:
    group = f"{unique('g')}.example.com"
    r = create_crd(http, base, crd(group, scope))
    assert r.status_code == 201, r.text
    return group


def new_namespace(http, base: str) -> str:
    name = unique("ext")
    assert http.post(f"{base}/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
    return name


def cond(obj: dict, typ: str) -> dict:
    return next(c for c in obj["status"]["conditions"] if c["type"] == typ)


def until(base: str, path: str, pred, what: str, timeout: float = 10) -> dict:
    """Wait on a watch of the object's collection until `pred(object)`."""
    collection, _, name = path.rpartition("/")
    current = requests.get(base + path)
    if current.status_code == 200 and pred(current.json()):
        return current.json()
    with WatchReader(base + collection, {"fieldSelector": f"metadata.name={name}"}) as w:
        return w.until(lambda e: e["type"] != "DELETED" and pred(e["object"]), timeout, what)[-1]["object"]


# ---- CRDs ----------------------------------------------------------------------------------------------
def test_crd_established_and_served_in_both_discoveries(ext):
    http, base = requests.Session(), ext.url
    group = new_group(http, base)
    got = http.get(f"{base}{CRDS}/widgets.{group}").json()
    assert cond(got, "Established")["status"] == "True" and cond(got, "NamesAccepted")["reason"] == "NoConflicts"
    assert got["status"]["acceptedNames"]["singular"] == "widget" and got["status"]["storedVersions"] == ["v1"]
    assert any(g["name"] == group for g in http.get(f"{base}/apis").json()["groups"])
    res = {r["name"]: r for r in http.get(f"{base}/apis/{group}/v1").json()["resources"]}
    assert res["widgets"]["namespaced"] and res["widgets"]["shortNames"] == ["wd"]
    assert res["widgets/status"]["verbs"] == ["get", "patch", "update"]
    agg = http.get(f"{base}/apis", headers={"Accept": V2}).json()
    item = next(i for i in agg["items"] if i["metadata"]["name"] == group)
    assert item["versions"][0]["resources"][0]["subresources"][0]["subresource"] == "status"


@pytest.mark.parametrize("mutate, message", [
    (lambda b: b["metadata"].update(name="wrong.example.com"), 'must be spec.names.plural+"."+spec.group'),
    (lambda b: b["spec"].update(scope="Global"), 'spec.scope: Unsupported value: "Global"'),
    (lambda b: b["spec"]["versions"][0].update(storage=False), "must have exactly one version marked as storage"),
    (lambda b: b["spec"]["versions"][0].pop("schema"), "schemas are required"),
])
def test_crd_validation(ext, mutate, message):
    body = crd(f"{unique('g')}.example.com")
    mutate(body)
    r = create_crd(requests, ext.url, body)
    assert r.status_code == 422 and message in r.json()["message"], r.text


def test_custom_resource_verbs_schema_and_pruning(ext):
    http, base = requests.Session(), ext.url
    group, ns = new_group(http, base), new_namespace(http, base)
    coll = f"{base}/apis/{group}/v1/namespaces/{ns}/widgets"
    bad = http.post(coll, json=widget(coll, "w1", size="big"))
    assert bad.status_code == 422
    assert bad.json()["message"] == (f'Widget.{group} "w1" is invalid: spec.size: Invalid value: "string": '
                                     'spec.size in body must be of type integer: "string"')
    missing = http.post(coll, json={"apiVersion": api_version_of(coll), "kind": "Widget", "metadata": {"name": "w1"}, "spec": {}})
    assert missing.status_code == 422 and "spec.size: Required value" in missing.json()["message"]
    body = widget(coll, "w1", 3)
    body["spec"]["junk"] = True
    body["status"] = {"ignored": 1}
    created = http.post(coll, json=body)
    assert created.status_code == 201, created.text
    obj = created.json()
    assert obj["apiVersion"] == f"{group}/v1" and obj["spec"] == {"size": 3} and "status" not in obj
    obj["status"] = {"ready": True}
    assert http.put(f"{coll}/w1/status", json=obj).json()["status"] == {"ready": True}
    patched = http.patch(f"{coll}/w1", data=json.dumps({"spec": {"size": 4}, "status": {"ready": False}}),
                         headers=MERGE).json()
    assert patched["spec"]["size"] == 4 and patched["status"] == {"ready": True}  # status only via /status
    assert [i["metadata"]["name"] for i in http.get(f"{base}/apis/{group}/v1/widgets").json()["items"]] == ["w1"]
    gone = http.delete(f"{coll}/w1")
    assert gone.status_code == 200 and gone.json()["details"] == {
        "name": "w1", "group": group, "kind": "widgets", "uid": obj["metadata"]["uid"]}
    assert http.get(f"{coll}/w1").status_code == 404
    http.post(coll, json=widget(coll, "a"))
    http.post(coll, json=widget(coll, "b"))
    assert len(http.delete(coll).json()["items"]) == 2


def test_cluster_scoped_custom_resource(ext):
    http, base = requests.Session(), ext.url
    group = new_group(http, base, scope="Cluster")
    coll = f"{base}/apis/{group}/v1/widgets"
    created = http.post(coll, json=widget(coll, "c1"))
    assert created.status_code == 201 and "namespace" not in created.json()["metadata"]
    assert http.get(f"{coll}/c1").json()["metadata"]["name"] == "c1"
    assert http.get(f"{base}/apis/{group}/v1/namespaces/default/widgets").status_code == 404
    res = next(r for r in http.get(f"{base}/apis/{group}/v1").json()["resources"] if r["name"] == "widgets")
    assert res["namespaced"] is False
    with WatchReader(coll, {"watch": "true"}) as w:
        assert w.next()["object"]["metadata"]["name"] == "c1"


def test_custom_resources_answer_json_to_a_protobuf_first_accept(ext):
    """A custom resource has no protobuf serializer (`StandardSerializers`: JSON, YAML; apiextensions-apiserver's
    customresource_handler.go): a typed client's `protobuf,json` gets JSON, protobuf alone a 406 (itself written
    in protobuf, as `ErrorNegotiated` does); its metadata-only form may still be protobuf."""
    http, base = requests.Session(), ext.url
    group = new_group(http, base, scope="Cluster")
    coll = f"{base}/apis/{group}/v1/widgets"
    assert http.post(coll, json=widget(coll, "p1")).status_code == 201
    pb = "application/vnd.kubernetes.protobuf"
    r = http.get(f"{coll}/p1", headers={"Accept": f"{pb},application/json"})
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/json" and r.json()["kind"] == "Widget"
    r = http.get(f"{coll}/p1", headers={"Accept": pb})  # the error itself is negotiated: a protobuf Status
    assert r.status_code == 406 and r.headers["Content-Type"] == pb
    assert protobuf.decode_response(r.content)["message"] == (
        "only the following media types are accepted: application/json, application/yaml, "
        "application/vnd.kubernetes.protobuf")
    r = http.get(f"{coll}/p1", headers={"Accept": f"{pb};as=PartialObjectMetadata;g=meta.k8s.io;v=v1"})
    assert r.status_code == 200 and r.headers["Content-Type"] == pb
    with http.get(coll, params={"watch": "true"}, headers={"Accept": f"{pb},application/json"}, stream=True) as r:
        assert r.headers["Content-Type"] == "application/json"
        assert json.loads(next(r.iter_lines()))["object"]["metadata"]["name"] == "p1"
    r = http.delete(f"{coll}/p1", headers={"Accept": f"{pb},application/json"})  # its Status too: JSON
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/json" and r.json()["kind"] == "Status"


def test_same_plural_in_two_groups_is_two_resources(ext):
    http, base = requests.Session(), ext.url
    g1, g2, ns = new_group(http, base), new_group(http, base), new_namespace(http, base)
    assert http.post(f"{base}/apis/{g1}/v1/namespaces/{ns}/widgets", json=widget(f"{base}/apis/{g1}/v1/namespaces/{ns}/widgets", "only-in-g1")).status_code == 201
    assert http.get(f"{base}/apis/{g2}/v1/namespaces/{ns}/widgets").json()["items"] == []


def test_crd_deletion_deletes_resources_then_crd(ext):
    http, base = requests.Session(), ext.url
    group, ns = new_group(http, base), new_namespace(http, base)
    item = f"{base}/apis/{group}/v1/namespaces/{ns}/widgets/held"
    assert http.post(item.rpartition("/")[0], json=widget(item.rpartition("/")[0], "held", finalizers=["example.com/hold"])).status_code == 201
    deleted = http.delete(f"{base}{CRDS}/widgets.{group}").json()
    assert deleted["metadata"]["finalizers"] == ["customresourcecleanup.apiextensions.k8s.io"]
    assert cond(deleted, "Terminating")["reason"] == "InstanceDeletionPending"
    until(base, item[len(base):], lambda o: bool(o["metadata"].get("deletionTimestamp")), "instance deleted")
    refused = http.post(item.rpartition("/")[0], json=widget(item.rpartition("/")[0], "late"))
    assert refused.status_code == 405
    assert refused.json()["message"] == "create not allowed while custom resource definition is terminating"
    http.patch(item, data=json.dumps({"metadata": {"finalizers": None}}), headers=MERGE)
    with WatchReader(base + CRDS, {"fieldSelector": f"metadata.name=widgets.{group}"}) as w:
        if http.get(f"{base}{CRDS}/widgets.{group}").status_code != 404:
            w.until(lambda e: e["type"] == "DELETED", 10, "CRD gone")
    assert http.get(f"{base}/apis/{group}/v1").status_code == 404


# ---- the namespace deleter ---------------------------------------------------------------------------
def test_deleter_deletes_custom_resources_and_names_them(ext):
    http, base = requests.Session(), ext.url
    group, ns = new_group(http, base), new_namespace(http, base)
    coll = f"{base}/apis/{group}/v1/namespaces/{ns}/widgets"
    http.post(coll, json=widget(coll, "plain"))
    http.post(coll, json=widget(coll, "held", finalizers=["example.com/hold"]))
    http.delete(f"{base}/api/v1/namespaces/{ns}")
    got = until(base, f"/api/v1/namespaces/{ns}",
                lambda o: (next((c for c in o["status"].get("conditions", [])
                                 if c["type"] == "NamespaceFinalizersRemaining"), {}).get("status") == "True"),
                "conditions")
    assert cond(got, "NamespaceContentRemaining")["message"] == \
        f"Some resources are remaining: widgets.{group} has 1 resource instances"
    assert cond(got, "NamespaceFinalizersRemaining")["message"] == \
        "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"
    assert http.get(f"{coll}/plain").status_code == 404
    http.patch(f"{coll}/held", data=json.dumps({"metadata": {"finalizers": None}}), headers=MERGE)
    wait_gone(http, base, ns)


# ---- APIServices -------------------------------------------------------------------------------------
def test_unavailable_apiservice_discovery_and_deletion(ext):
    http, base = requests.Session(), ext.url
    ns = new_namespace(http, base)
    group = f"{unique('m')}.example.com"
    name = f"v1beta1.{group}"
    body = {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": name},
            "spec": {"group": group, "version": "v1beta1", "groupPriorityMinimum": 100, "versionPriority": 100,
                     "service": {"namespace": ns, "name": "metrics", "port": 443}}}
    assert http.post(base + APISERVICES, json=body).status_code == 201
    try:
        svc = until(base, f"{APISERVICES}/{name}", lambda o: bool(o.get("status", {}).get("conditions")), "status")
        assert cond(svc, "Available") | {"lastTransitionTime": None} == {
            "type": "Available", "status": "False", "lastTransitionTime": None, "reason": "ServiceNotFound",
            "message": f'service/metrics in "{ns}" is not present'}
        http.post(f"{base}/api/v1/namespaces/{ns}/services",
                  json={"metadata": {"name": "metrics"}, "spec": {"ports": [{"port": 443}]}})
        until(base, f"{APISERVICES}/{name}", lambda o: cond(o, "Available")["reason"] == "EndpointsNotFound",
              "EndpointsNotFound")
        r = http.get(f"{base}/apis/{group}/v1beta1")
        assert (r.status_code, r.text, r.headers["Content-Type"]) == (
            503, "service unavailable\n", "text/plain; charset=utf-8")
        assert any(g["name"] == group for g in http.get(f"{base}/apis").json()["groups"])
        agg = http.get(f"{base}/apis", headers={"Accept": V2}).json()
        item = next(i for i in agg["items"] if i["metadata"]["name"] == group)
        assert item["versions"] == [{"version": "v1beta1", "freshness": "Stale"}]
        http.delete(f"{base}/api/v1/namespaces/{ns}")
        held = until(base, f"/api/v1/namespaces/{ns}",
                     lambda o: any(c["type"] == "NamespaceDeletionDiscoveryFailure" and c["status"] == "True"
                                   for c in o["status"].get("conditions", [])), "discovery failure")
        c = cond(held, "NamespaceDeletionDiscoveryFailure")
        assert c["reason"] == "DiscoveryFailed" and c["message"] == (
            "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: "
            f"{group}/v1beta1: stale GroupVersion discovery: {group}/v1beta1")
        assert held["status"]["phase"] == "Terminating" and held["spec"]["finalizers"] == ["kubernetes"]
    finally:
        http.delete(f"{base}{APISERVICES}/{name}")
    wait_gone(http, base, ns)


def test_custom_resources_take_server_side_apply(ext):
    """A CRD schema without `x-kubernetes-list-type`: lists are atomic, maps granular (structured-merge-diff)."""
    http, base = requests.Session(), ext.url
    group, ns = new_group(http, base), new_namespace(http, base)
    path = f"{base}/apis/{group}/v1/namespaces/{ns}/widgets/w"
    body = {"apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1, "tags": ["a"]}}
    apply = {"Content-Type": "application/apply-patch+yaml"}
    r = http.patch(path, json=body, headers=apply, params={"fieldManager": "m"})
    assert r.status_code == 201, r.text
    assert r.json()["metadata"]["managedFields"][0]["fieldsV1"] == {"f:spec": {"f:size": {}, "f:tags": {}}}
    body["spec"]["tags"] = ["b"]
    st = http.patch(path, json=body, headers=apply, params={"fieldManager": "other"}).json()
    assert st["code"] == 409 and st["message"] == 'Apply failed with 1 conflict: conflict with "m": .spec.tags'


def test_a_custom_resources_applied_numbers_are_decoded_as_upstreams_yaml(ext):
    """`util/yaml.Unmarshal` (handlers/patch.go's apply): YAML's `2.0` passes through `json.Marshal` as `2` and is
    an int64, so an integer field takes it and it is stored as 2 (a custom resource is never converted into Go)."""
    http, base = requests.Session(), ext.url
    group, ns = new_group(http, base), new_namespace(http, base)
    path = f"{base}/apis/{group}/v1/namespaces/{ns}/widgets/w"
    config = f"apiVersion: {group}/v1\nkind: Widget\nmetadata: {{name: w}}\nspec: {{size: 2.0}}\n"
    r = http.patch(path, data=config, headers={"Content-Type": "application/apply-patch+yaml"},
                   params={"fieldManager": "m"})
    assert r.status_code == 201 and '"spec":{"size":2}' in r.text, r.text
    assert '"spec":{"size":2}' in http.get(path).text


def test_a_custom_resource_named_as_a_core_kind_is_not_read_as_one(ext):
    """A custom resource's kind may be a core kind's name (Knative's `Service`): its body, patches and applied
    configurations are its CRD schema's business, not core/v1 Service's Go type's (no decoder or converter error)."""
    http, base = requests.Session(), ext.url
    group, ns = f"{unique('g')}.example.com", new_namespace(http, base)
    schema = {"type": "object", "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}
    definition = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                  "metadata": {"name": f"services.{group}"},
                  "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "services", "kind": "Service"},
                           "versions": [{"name": "v1", "served": True, "storage": True,
                                         "schema": {"openAPIV3Schema": schema}}]}}
    assert http.post(base + CRDS, json=definition).status_code == 201
    path = f"{base}/apis/{group}/v1/namespaces/{ns}/services"
    body = {"apiVersion": f"{group}/v1", "kind": "Service", "metadata": {"name": "s"},
            "spec": {"ports": "all", "clusterIP": 5}}
    r = http.post(path, json=body)
    assert r.status_code == 201 and r.json()["spec"] == body["spec"], r.text
    r = http.patch(f"{path}/s", data=json.dumps({"spec": {"type": 5}}),
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200 and r.json()["spec"]["type"] == 5, r.text
    config = f"apiVersion: {group}/v1\nkind: Service\nmetadata: {{name: a}}\nspec: {{ports: [{{port: 4294967376}}]}}\n"
    r = http.patch(f"{path}/a", data=config, headers={"Content-Type": "application/apply-patch+yaml"},
                   params={"fieldManager": "m"})
    assert r.status_code == 201 and r.json()["spec"] == {"ports": [{"port": 4294967376}]}, r.text


def test_custom_resources_refuse_strategic_merge_patch(ext):
    """customresource_handler.go serves json-patch, merge-patch and apply only: a strategic-merge patch (no Go
    struct to read merge keys from) is `PatchResource`'s 415, whose message lists what it takes."""
    http, base = requests.Session(), ext.url
    group, ns = new_group(http, base), new_namespace(http, base)
    path = f"{base}/apis/{group}/v1/namespaces/{ns}/widgets"
    assert http.post(path, json=widget(path, "w")).status_code == 201
    accepted = "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
    for ctype in ("application/strategic-merge-patch+json", "text/plain"):
        r = http.patch(f"{path}/w", data=json.dumps({"spec": {"size": 2}}), headers={"Content-Type": ctype})
        st = r.json()
        assert (r.status_code, st["reason"]) == (415, "UnsupportedMediaType"), r.text
        assert st["message"] == f"the body of the request was in an unknown format - accepted media types include: {accepted}"
    r = http.patch(f"{path}/w", data=json.dumps({"spec": {"size": 2}}),
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200 and r.json()["spec"]["size"] == 2


def test_custom_resources_apply_with_the_list_types_of_their_schema(ext):
    """x-kubernetes-list-type: map (keys from x-kubernetes-list-map-keys) and set lists are merged item by
    item between appliers, as structured-merge-diff reads the CRD's structural schema."""
    http, base = requests.Session(), ext.url
    group = f"{unique('g')}.example.com"
    body = crd(group)
    spec = body["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    spec["tags"]["x-kubernetes-list-type"] = "set"
    spec["rules"] = {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                     "items": {"type": "object", "required": ["name"],
                               "properties": {"name": {"type": "string"}, "value": {"type": "string"}}}}
    assert create_crd(http, base, body).status_code == 201
    ns = new_namespace(http, base)
    path = f"{base}/apis/{group}/v1/namespaces/{ns}/widgets/w"
    apply = {"Content-Type": "application/apply-patch+yaml"}
    mine = {"apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": "w"},
            "spec": {"size": 1, "tags": ["a"], "rules": [{"name": "r1", "value": "1"}]}}
    r = http.patch(path, json=mine, headers=apply, params={"fieldManager": "one"})
    assert r.status_code == 201, r.text
    theirs = {**mine, "spec": {"tags": ["b"], "rules": [{"name": "r2", "value": "2"}]}}
    r = http.patch(path, json=theirs, headers=apply, params={"fieldManager": "two"})
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["tags"] == ["a", "b"]
    assert r.json()["spec"]["rules"] == [{"name": "r1", "value": "1"}, {"name": "r2", "value": "2"}]
    owned = {e["manager"]: e["fieldsV1"] for e in r.json()["metadata"]["managedFields"]}
    assert owned["two"] == {"f:spec": {"f:rules": {'k:{"name":"r2"}': {".": {}, "f:name": {}, "f:value": {}}},
                                       "f:tags": {'v:"b"': {}}}}


def test_custom_resource_generation_counts_changes_but_to_metadata(ext):
    """customresource strategy.go PrepareForUpdate: any change but to metadata increments the generation (status
    is the old one on the main resource); a /status write never does."""
    http, base = requests.Session(), ext.url
    group, ns = new_group(http, base), new_namespace(http, base)
    item = f"{base}/apis/{group}/v1/namespaces/{ns}/widgets/w"
    assert http.post(item.rsplit("/", 1)[0], json=widget(item.rsplit("/", 1)[0], "w", 1)).json()["metadata"]["generation"] == 1

    def patch(path: str, body: dict) -> int:
        r = http.patch(path, data=json.dumps(body), headers=MERGE)
        assert r.status_code == 200, r.text
        return r.json()["metadata"]["generation"]
    assert patch(item, {"spec": {"size": 2}}) == 2
    assert patch(item, {"metadata": {"labels": {"a": "b"}}}) == 2
    assert patch(item, {"spec": {"size": 2}}) == 2  # no change
    assert patch(item + "/status", {"status": {"ready": True}}) == 2
    assert patch(item, {"status": {"ready": False}}) == 2  # (the old status kept)
    assert patch(item, {"spec": {"tags": ["x"]}}) == 3


def test_custom_resources_read_at_a_resource_version_and_in_pages(ext):
    """An `Exact` LIST, a legacy exact one (a resourceVersion with a limit) and a continued page read the custom
    resources' own etcd key (`/registry/<group>/<plural>`) at their revision, as the first page does."""
    http, base = requests.Session(), ext.url
    group = new_group(http, base)
    ns = new_namespace(http, base)
    url = f"{base}/apis/{group}/v1/namespaces/{ns}/widgets"
    rvs = [http.post(url, json=widget(url, n)).json()["metadata"]["resourceVersion"] for n in ("a", "b")]
    assert http.delete(f"{url}/a").status_code == 200
    for params in ({"resourceVersion": rvs[1], "resourceVersionMatch": "Exact"}, {"resourceVersion": rvs[1],
                                                                                  "limit": "5"}):
        got = http.get(url, params=params).json()
        assert [i["metadata"]["name"] for i in got["items"]] == ["a", "b"], params
    first = http.get(url, params={"limit": "1"}).json()
    assert [i["metadata"]["name"] for i in first["items"]] == ["b"] and "continue" not in first["metadata"]
    assert http.post(url, json=widget(url, "c")).status_code == 201
    first = http.get(url, params={"limit": "1"}).json()
    assert http.post(url, json=widget(url, "d")).status_code == 201
    second = http.get(url, params={"limit": "5", "continue": first["metadata"]["continue"]}).json()
    assert [i["metadata"]["name"] for i in first["items"] + second["items"]] == ["b", "c"]  # (d: after the snapshot)

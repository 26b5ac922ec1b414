"""Server-side apply over HTTP (`application/apply-patch+yaml`): PatchOptions validation, create on apply,
ownership and conflicts, force, dry run, managedFields recorded by the other verbs."""
from __future__ import annotations

import json
from typing import Any

import requests

APPLY = {"Content-Type": "application/apply-patch+yaml"}
MERGE = {"Content-Type": "application/merge-patch+json"}


def cm(data: dict[str, str], name: str = "c") -> str:
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data})


def apply(http: requests.Session, path: str, body: str, **params: str) -> requests.Response:
    return http.patch(path, data=body, headers=APPLY, params=params)


def managers(obj: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e["manager"], e["operation"]) for e in obj["metadata"].get("managedFields", [])]


def test_apply_creates_then_updates(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/api/v1/namespaces/{ns}/configmaps/c"
    r = apply(http, path, cm({"a": "1", "b": "2"}), fieldManager="tool")
    assert r.status_code == 201, r.text
    assert r.json()["data"] == {"a": "1", "b": "2"}
    [entry] = r.json()["metadata"]["managedFields"]
    assert entry["manager"] == "tool" and entry["operation"] == "Apply" and entry["apiVersion"] == "v1"
    assert entry["fieldsType"] == "FieldsV1" and entry["fieldsV1"] == {"f:data": {"f:a": {}, "f:b": {}}}
    r = apply(http, path, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: '3'\n",
              fieldManager="tool")  # YAML, dropping b
    assert r.status_code == 200, r.text
    assert r.json()["data"] == {"a": "3"}
    assert http.get(path).json()["data"] == {"a": "3"}


def test_conflict_and_force(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    assert http.post(base, json={"metadata": {"name": "c"}, "data": {"key": "v"}},
                     params={"fieldManager": "mgr"}).status_code == 201
    r = apply(http, f"{base}/c", cm({"key": "mine"}), fieldManager="kubectl")
    assert r.status_code == 409
    st = r.json()
    assert (st["kind"], st["status"], st["reason"], st["code"]) == ("Status", "Failure", "Conflict", 409)
    assert st["message"] == 'Apply failed with 1 conflict: conflict with "mgr" using v1: .data.key'
    assert st["details"] == {"causes": [{"reason": "FieldManagerConflict", "message": 'conflict with "mgr" using v1',
                                         "field": ".data.key"}]}
    assert http.get(f"{base}/c").json()["data"] == {"key": "v"}
    r = apply(http, f"{base}/c", cm({"key": "mine"}), fieldManager="kubectl", force="true")
    assert r.status_code == 200 and r.json()["data"] == {"key": "mine"}
    # mgr keeps only the `data` map it created (the `.` member); the key is kubectl's now
    assert [(e["manager"], e["fieldsV1"]) for e in r.json()["metadata"]["managedFields"]] == [
        ("kubectl", {"f:data": {"f:key": {}}}), ("mgr", {"f:data": {}})]


def test_update_and_patch_record_update_entries(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    http.post(base, json={"metadata": {"name": "c"}, "data": {"a": "1"}}, headers={"User-Agent": "maker/1.0 x"})
    r = http.patch(f"{base}/c", data=json.dumps({"data": {"b": "2"}}), headers=MERGE, params={"fieldManager": "p"})
    body = r.json()
    assert managers(body) == [("maker", "Update"), ("p", "Update")]
    assert body["metadata"]["managedFields"][1]["fieldsV1"] == {"f:data": {"f:b": {}}}
    body["data"]["a"] = "changed"
    r = http.put(f"{base}/c", json=body, params={"fieldManager": "putter"})
    assert {m: e["fieldsV1"] for m, e in ((e["manager"], e) for e in r.json()["metadata"]["managedFields"])} == {
        "maker": {"f:data": {}}, "p": {"f:data": {"f:b": {}}}, "putter": {"f:data": {"f:a": {}}}}


def test_update_entries_see_the_body_as_go_reflects_it(http, url, namespaces):
    """A create's and an update's fields are compared as structured-merge-diff reflects the Go objects
    (fieldmanager/reflected.py): `"labels": {}`, `"data": {}` and a container's `"stdin": false` (omitempty) own
    nothing, a container's `resources` (a struct held by value) is owned, `{}`, as on a kind cluster; an apply
    configuration is typed as sent, so there they are owned."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}"
    r = http.post(f"{base}/configmaps", json={"metadata": {"name": "c", "labels": {}}, "data": {}, "immutable": False},
                  params={"fieldManager": "maker"})
    assert r.status_code == 201, r.text
    assert [(e["manager"], e["fieldsV1"]) for e in r.json()["metadata"]["managedFields"]] == [
        ("maker", {"f:immutable": {}})]  # (a pointer: false is there)
    r = http.post(f"{base}/pods", params={"fieldManager": "maker"}, json={
        "metadata": {"name": "p", "labels": {}},
        "spec": {"containers": [{"name": "app", "image": "nginx", "stdin": False, "args": []}]}})
    assert r.status_code == 201, r.text
    [entry] = r.json()["metadata"]["managedFields"]
    assert "f:metadata" not in entry["fieldsV1"]
    container = entry["fieldsV1"]["f:spec"]["f:containers"]['k:{"name":"app"}']
    assert "f:stdin" not in container and "f:args" not in container and container["f:resources"] == {}
    r = apply(http, f"{base}/configmaps/a", json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                                                         "metadata": {"name": "a", "labels": {}}, "data": {}}),
              fieldManager="tool")
    assert r.status_code == 201, r.text
    assert r.json()["metadata"]["managedFields"][0]["fieldsV1"] == {"f:data": {}, "f:metadata": {"f:labels": {}}}


def test_patch_options_are_validated(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/api/v1/namespaces/{ns}/configmaps/c"
    st = apply(http, path, cm({"a": "1"})).json()
    assert st["code"] == 422 and st["reason"] == "Invalid"
    assert st["message"] == ('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: '
                             'is required for apply patch')
    assert st["details"] == {"group": "meta.k8s.io", "kind": "PatchOptions", "causes": [
        {"reason": "FieldValueRequired", "message": "Required value: is required for apply patch",
         "field": "fieldManager"}]}
    st = http.patch(path, data="{}", headers=MERGE, params={"force": "true"}).json()
    assert st["code"] == 422
    assert st["message"] == ('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: '
                             'may not be specified for non-apply patch')
    st = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "c"}},
                   params={"fieldManager": "m" * 129}).json()
    assert st["code"] == 422
    assert st["message"] == ('CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: '
                             'may not be more than 128 bytes')


def test_bad_apply_bodies_are_400(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/api/v1/namespaces/{ns}/configmaps/c"
    st = apply(http, path, json.dumps({"apiVersion": "v2", "kind": "ConfigMap", "metadata": {"name": "c"}}),
               fieldManager="m").json()
    assert (st["code"], st["message"]) == (400, "invalid object type: /v2, Kind=ConfigMap")  # (versioncheck.go)
    st = apply(http, path, json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                                       "metadata": {"name": "c", "managedFields": []}}), fieldManager="m").json()
    assert (st["code"], st["message"]) == (400, "metadata.managedFields must be nil")
    st = apply(http, path, "a: [", fieldManager="m").json()
    assert st["code"] == 400 and st["message"].startswith("error decoding YAML: ")
    st = apply(http, path, cm({"a": "1"}, name="other"), fieldManager="m").json()
    assert st["code"] == 400
    assert http.get(path).status_code == 404


def test_dry_run_apply_stores_nothing(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/api/v1/namespaces/{ns}/configmaps/c"
    r = apply(http, path, cm({"a": "1"}), fieldManager="m", dryRun="All")
    assert r.status_code == 201 and r.json()["data"] == {"a": "1"}
    assert http.get(path).status_code == 404
    apply(http, path, cm({"a": "1"}), fieldManager="m")
    r = apply(http, path, cm({"a": "2"}), fieldManager="m", dryRun="All")
    assert r.status_code == 200 and r.json()["data"] == {"a": "2"}
    assert http.get(path).json()["data"] == {"a": "1"}


def test_apply_a_namespace_and_a_pod(http, url, namespaces):
    name = namespaces.name("apply")
    r = apply(http, f"{url}/api/v1/namespaces/{name}",
              json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": {"a": "b"}}}),
              fieldManager="m")
    assert r.status_code == 201 and r.json()["status"]["phase"] == "Active"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "app", "image": "nginx", "ports": [{"containerPort": 80}]}]}}
    r = apply(http, f"{url}/api/v1/namespaces/{name}/pods/p", json.dumps(pod), fieldManager="m")
    assert r.status_code == 201, r.text
    fields = r.json()["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]["f:containers"]
    assert fields == {'k:{"name":"app"}': {".": {}, "f:image": {}, "f:name": {}, "f:ports": {
        'k:{"containerPort":80,"protocol":"TCP"}': {".": {}, "f:containerPort": {}}}}}
    assert r.json()["spec"]["restartPolicy"] == "Always"  # defaulted, owned by nobody
    side = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "app", "image": "nginx:2"}]}}
    st = apply(http, f"{url}/api/v1/namespaces/{name}/pods/p", json.dumps(side), fieldManager="other").json()
    assert st["code"] == 409
    assert st["message"] == ('Apply failed with 1 conflict: conflict with "m": '
                             '.spec.containers[name="app"].image')


def test_apply_to_a_missing_subresource_object_is_404(http, url):
    r = apply(http, f"{url}/api/v1/namespaces/nsc-none-{id(http)}/status",
              json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"nsc-none-{id(http)}"}}),
              fieldManager="m")
    assert r.status_code == 404


def test_managed_fields_in_a_configuration(http, url, namespaces):
    """structuredmerge.go's 400 where `Unstructured.GetManagedFields()` reads a list (an empty one too) of entries;
    one it reads as nil (no list, an item no object or not converting) is left to the typing's 500."""
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/api/v1/namespaces/{ns}/configmaps/c"

    def answer(managed: Any) -> tuple[int, str]:
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "managedFields": managed}}
        st = apply(http, path, json.dumps(body), fieldManager="m").json()
        return st["code"], st["message"]
    typed = "failed to create typed patch object (/c; /v1, Kind=ConfigMap): .metadata.managedFields"
    assert answer([]) == answer([{"manager": "a", "fieldsV1": 3}]) == (400, "metadata.managedFields must be nil")
    assert answer("x") == (500, f"{typed}: expected list, got &{{x}}")
    assert answer([1]) == (500, f"{typed}[0]: expected map, got &{{1}}")
    got = "&value.valueUnstructured{Value:1}"
    assert answer([{"manager": 1}]) == (500, f"{typed}[0].manager: expected string, got {got}")
    assert http.get(path).status_code == 404


def test_hostile_apply_bodies_get_upstream_s_status(http, url, namespaces):
    """Not an object: `yaml.Unmarshal`'s 400; a `metadata` that is no map: structured-merge-diff's typing of the
    configuration (`structuredMergeManager.Apply`, a plain error: 500, no reason), a null one being a valid map."""
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/api/v1/namespaces/{ns}/configmaps/c"
    codes = [apply(http, path, body, fieldManager="m").status_code for body in (
        "[]", "3", json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": []}),
        json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": None}))]
    assert codes == [400, 400, 500, 400]  # (the last: no name, `checkName`'s 400)
    st = apply(http, path, json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": "c"}),
               fieldManager="m").json()
    assert st == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "code": 500,
                  "message": ("failed to create typed patch object (/; /v1, Kind=ConfigMap): .metadata: expected map, "
                              "got &{c}")}
    r = apply(http, path, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  1: a\n", fieldManager="m")
    assert r.status_code == 201 and r.json()["data"] == {"1": "a"}  # YAML keys become JSON strings



def test_apply_a_named_group_kind(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/apis/apps/v1/namespaces/{ns}/deployments/d"
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
           "spec": {"selector": {"matchLabels": {"app": "d"}}, "template": {
               "metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
           "status": {"replicas": 9}}
    r = apply(http, path, json.dumps(dep), fieldManager="m")
    assert r.status_code == 201, r.text
    fields = r.json()["metadata"]["managedFields"][0]["fieldsV1"]
    assert fields["f:spec"]["f:selector"] == {}  # LabelSelector is an atomic struct
    assert "f:status" not in fields  # reset by the main resource's strategy: nobody owns it through it
    st = apply(http, path, json.dumps(dep | {"apiVersion": "v1"}), fieldManager="m").json()
    assert st["message"] == "invalid object type: /v1, Kind=Deployment"


def test_a_list_map_key_left_out_takes_its_v3_default(http, url, namespaces):
    """structured-merge-diff keys an item that omits a list-map key by the key's `default` in the v3 definitions
    the field manager is built from: `""` for a container's name (openapi-gen's zero value of a non-omitempty
    field), so the applied pod reaches validation (its 422) instead of smd's 500 `omits key field "name"`."""
    ns = namespaces.create()["metadata"]["name"]
    r = apply(http, f"{url}/api/v1/namespaces/{ns}/pods/p",
              "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - image: nginx\n",
              fieldManager="tool")
    assert r.status_code == 422, r.text
    assert r.json()["message"] == 'Pod "p" is invalid: spec.containers[0].name: Required value'

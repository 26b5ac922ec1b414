"""Namespace create/read/update/status/finalize/delete over HTTP (catalogue C–H)."""
from __future__ import annotations

import json

import pytest

from .conftest import status_of, wait_gone

MERGE = {"Content-Type": "application/merge-patch+json"}
STRATEGIC = {"Content-Type": "application/strategic-merge-patch+json"}
JSONPATCH = {"Content-Type": "application/json-patch+json"}


def post_ns(http, url, body):
    return http.post(f"{url}/api/v1/namespaces", json=body)


def test_create_defaults_ns10_ns13(http, url, namespaces):
    name = namespaces.name()
    r = post_ns(http, url, {"apiVersion": "v1", "kind": "Namespace",
                            "metadata": {"name": name, "namespace": "zzz", "uid": "u", "creationTimestamp": "2000-01-01T00:00:00Z",
                                         "labels": {"kubernetes.io/metadata.name": "wrong"}},
                            "status": {"phase": "Terminating"}})
    assert r.status_code == 201
    ns = r.json()
    assert list(ns)[:2] == ["kind", "apiVersion"] and ns["kind"] == "Namespace"
    m = ns["metadata"]
    assert m["labels"]["kubernetes.io/metadata.name"] == name
    assert "namespace" not in m and m["uid"] != "u" and m["creationTimestamp"] != "2000-01-01T00:00:00Z"
    assert m["resourceVersion"] and m["managedFields"] and "generation" not in m
    assert ns["spec"] == {"finalizers": ["kubernetes"]}
    assert ns["status"] == {"phase": "Active"}
    assert http.get(f"{url}/api/v1/namespaces/{name}").json() == ns


def test_user_finalizers_kept_and_kubernetes_appended_ns12(http, url, namespaces):
    assert namespaces.create(finalizers=["example.com/x"])["spec"]["finalizers"] == ["example.com/x", "kubernetes"]
    assert namespaces.create(finalizers=["kubernetes", "example.com/x"])["spec"]["finalizers"] == \
        ["kubernetes", "example.com/x"]


def test_resource_version_on_create_ns16(http, url, namespaces):
    r = post_ns(http, url, {"metadata": {"name": namespaces.name(), "resourceVersion": "5"}})
    assert r.status_code == 500
    assert r.json()["message"] == "resourceVersion should not be set on objects to be created"
    assert "reason" not in r.json()


@pytest.mark.parametrize("rv", ["0", "abc"])
def test_resource_version_zero_or_unparsable_is_ignored_on_create_ns16(http, url, namespaces, rv):
    """`store.Create` refuses only a value that parses as a non-zero integer; others are wiped."""
    r = post_ns(http, url, {"metadata": {"name": namespaces.name(), "resourceVersion": rv}})
    assert r.status_code == 201, r.text
    assert r.json()["metadata"]["resourceVersion"] not in ("0", "abc")


def test_generate_name_ns17(http, url, namespaces):
    r = post_ns(http, url, {"metadata": {"generateName": "gen-"}})
    assert r.status_code == 201
    name = r.json()["metadata"]["name"]
    namespaces.names.append(name)
    assert name.startswith("gen-") and len(name) == 9
    assert r.json()["metadata"]["labels"]["kubernetes.io/metadata.name"] == name


@pytest.mark.parametrize("name, msg", [
    ("Foo", "metadata.name: Invalid value: \"Foo\": a lowercase RFC 1123 label must consist of lower case "
            "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
            "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"),
    ("a.b", 'metadata.name: Invalid value: "a.b": must not contain dots'),
    # SetDefaults_Namespace has copied the name into kubernetes.io/metadata.name: the label is invalid too.
    ("a" * 64, f'[metadata.name: Invalid value: "{"a" * 64}": must be no more than 63 characters, '
               f'metadata.labels: Invalid value: "{"a" * 64}": must be no more than 63 characters]'),
])
def test_invalid_names_ns18(http, url, name, msg):
    r = post_ns(http, url, {"metadata": {"name": name}})
    st = status_of(r)
    assert r.status_code == 422 and st["reason"] == "Invalid"
    assert st["message"] == f'Namespace "{name}" is invalid: {msg}'
    assert st["details"]["name"] == name and st["details"]["kind"] == "Namespace"
    assert st["details"]["causes"][0]["field"] == "metadata.name"


def test_missing_name_ns18(http, url):
    st = status_of(post_ns(http, url, {"metadata": {}}))
    assert st["message"] == 'Namespace "" is invalid: metadata.name: Required value: name or generateName is required'
    assert st["details"]["causes"] == [{"reason": "FieldValueRequired", "message":
                                        "Required value: name or generateName is required", "field": "metadata.name"}]


def test_spec_finalizer_validation_ns19(http, url, namespaces):
    name = namespaces.name()
    st = status_of(post_ns(http, url, {"metadata": {"name": name}, "spec": {"finalizers": ["foo"]}}))
    assert st["code"] == 422
    assert st["message"] == (f'Namespace "{name}" is invalid: spec.finalizers: Invalid value: "foo": name is '
                             "neither a standard finalizer name nor is it fully qualified")
    st = status_of(post_ns(http, url, {"metadata": {"name": name}, "spec": {"finalizers": ["a/b/c"]}}))
    assert "spec.finalizers: Invalid value: \"a/b/c\": a qualified name must consist of" in st["message"]


def test_metadata_finalizer_validation_ns20(http, url, namespaces):
    name = namespaces.name()
    st = status_of(post_ns(http, url, {"metadata": {"name": name, "finalizers": ["foo"]}}))
    assert st["message"].endswith('metadata.finalizers[0]: Invalid value: "foo": name is neither a standard '
                                  "finalizer name nor is it fully qualified")
    st = status_of(post_ns(http, url, {"metadata": {"name": name, "finalizers": ["orphan", "foregroundDeletion"]}}))
    assert "finalizer orphan and foregroundDeletion cannot be both set" in st["message"]


def test_duplicate_ns21(http, url, namespaces):
    ns = namespaces.create(finalizers=["example.com/hold"])
    name = ns["metadata"]["name"]
    st = status_of(post_ns(http, url, {"metadata": {"name": name}}))
    assert st["code"] == 409 and st["reason"] == "AlreadyExists"
    assert st["message"] == f'namespaces "{name}" already exists'
    assert st["details"] == {"name": name, "kind": "namespaces"}
    http.delete(f"{url}/api/v1/namespaces/{name}")
    st = status_of(post_ns(http, url, {"metadata": {"name": name}}))
    assert st["message"] == f'object is being deleted: namespaces "{name}" already exists'


def test_get_missing_ns24(http, url):
    st = status_of(http.get(f"{url}/api/v1/namespaces/nope-xyz"))
    assert st == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                  "message": 'namespaces "nope-xyz" not found', "reason": "NotFound",
                  "details": {"name": "nope-xyz", "kind": "namespaces"}, "code": 404}
    assert http.get(f"{url}/api/v1/namespaces/UPPER").status_code == 404


def test_list_selectors_and_paging_ns25_ns27(http, url, namespaces):
    made = [namespaces.create(labels={"grp": "pg"})["metadata"]["name"] for _ in range(3)]
    r = http.get(f"{url}/api/v1/namespaces", params={"labelSelector": "grp=pg"})
    body = r.json()
    assert body["kind"] == "NamespaceList" and body["metadata"]["resourceVersion"]
    assert sorted(i["metadata"]["name"] for i in body["items"]) == sorted(made)
    r = http.get(f"{url}/api/v1/namespaces", params={"labelSelector": f"kubernetes.io/metadata.name={made[0]}"})
    assert [i["metadata"]["name"] for i in r.json()["items"]] == [made[0]]
    r = http.get(f"{url}/api/v1/namespaces", params={"fieldSelector": f"metadata.name={made[1]}"})
    assert [i["metadata"]["name"] for i in r.json()["items"]] == [made[1]]
    page = http.get(f"{url}/api/v1/namespaces", params={"limit": "2"}).json()
    assert len(page["items"]) == 2 and page["metadata"]["continue"]
    assert page["metadata"]["remainingItemCount"] >= 1
    seen = [i["metadata"]["name"] for i in page["items"]]
    while page["metadata"].get("continue"):
        page = http.get(f"{url}/api/v1/namespaces", params={"limit": "2",
                                                           "continue": page["metadata"]["continue"]}).json()
        seen += [i["metadata"]["name"] for i in page["items"]]
    assert set(made) <= set(seen) and len(seen) == len(set(seen))


def test_a_full_page_has_a_continue_token_while_any_object_follows(http, url, namespaces):
    """etcd3 `GetList` and the cacher stop once the page is full and give a continue token when any key follows,
    selected or not (`hasMore`): a page whose remaining objects all fail the selector has one, and the next page
    is empty, without one. The first page is the watch cache's, an Exact one and the continued one etcd's."""
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/api/v1/namespaces/{ns}/configmaps"
    for name, labels in (("a", {"sel": "y"}), ("b", {"sel": "y"}), ("c", {}), ("d", {})):
        assert http.post(path, json={"metadata": {"name": name, "labels": labels}}).status_code == 201
    first = http.get(path, params={"labelSelector": "sel=y", "limit": "2"}).json()
    assert [i["metadata"]["name"] for i in first["items"]] == ["a", "b"]
    assert first["metadata"]["continue"] and "remainingItemCount" not in first["metadata"]
    rest = http.get(path, params={"labelSelector": "sel=y", "limit": "2",
                                  "continue": first["metadata"]["continue"]}).json()
    assert rest["items"] == [] and "continue" not in rest["metadata"], rest
    exact = http.get(path, params={"labelSelector": "sel=y", "limit": "2", "resourceVersionMatch": "Exact",
                                   "resourceVersion": first["metadata"]["resourceVersion"]}).json()
    assert len(exact["items"]) == 2 and exact["metadata"]["continue"]
    everything = http.get(path, params={"limit": "3"}).json()
    assert everything["metadata"]["remainingItemCount"] == 1
    last = http.get(path, params={"limit": "4"}).json()
    assert len(last["items"]) == 4 and "continue" not in last["metadata"]


def test_field_selector_rules_ns26(http, url):
    for label in ("name", "metadata.namespace", "spec.finalizers"):
        st = status_of(http.get(f"{url}/api/v1/namespaces", params={"fieldSelector": f"{label}=x"}))
        assert st["code"] == 400 and st["message"] == f"field label not supported: {label}"
    r = http.get(f"{url}/api/v1/namespaces", params={"fieldSelector": "status.phase=Active"})
    assert r.status_code == 200 and all(i["status"]["phase"] == "Active" for i in r.json()["items"])


def test_bad_label_selector_ns27(http, url):
    st = status_of(http.get(f"{url}/api/v1/namespaces", params={"labelSelector": "a in (b"}))
    assert st["code"] == 400 and st["reason"] == "BadRequest"


def test_list_option_validation_ns28(http, url):
    st = status_of(http.get(f"{url}/api/v1/namespaces", params={"resourceVersionMatch": "Exact"}))
    assert st["code"] == 422
    assert st["message"] == ('ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: '
                             "resourceVersionMatch is forbidden unless resourceVersion is provided")


def test_expired_list_ns29(server, http, url):
    store = server.server.ctx.registry.store
    old = store.current_rv()
    http.post(f"{url}/api/v1/namespaces/default/configmaps", json={"metadata": {"generateName": "exp-"}})
    store.compact()
    st = status_of(http.get(f"{url}/api/v1/namespaces", params={"resourceVersion": str(old - 1),
                                                                "resourceVersionMatch": "Exact"}))
    assert st["code"] == 410 and st["reason"] == "Expired"
    assert st["message"] == "The resourceVersion for the provided list is too old."


def test_put_keeps_finalizers_and_status_ns31(http, url, namespaces):
    ns = namespaces.create()
    name = ns["metadata"]["name"]
    ns["metadata"]["labels"]["extra"] = "yes"
    ns["spec"]["finalizers"] = ["example.com/sneaky"]
    ns["status"]["phase"] = "Terminating"
    r = http.put(f"{url}/api/v1/namespaces/{name}", json=ns)
    assert r.status_code == 200
    out = r.json()
    assert out["metadata"]["labels"]["extra"] == "yes"
    assert out["spec"]["finalizers"] == ["kubernetes"] and out["status"]["phase"] == "Active"


def test_label_forced_on_update_ns13(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    r = http.patch(f"{url}/api/v1/namespaces/{name}", data=json.dumps(
        {"metadata": {"labels": {"kubernetes.io/metadata.name": "other"}}}), headers=MERGE)
    assert r.json()["metadata"]["labels"]["kubernetes.io/metadata.name"] == name
    r = http.patch(f"{url}/api/v1/namespaces/{name}", data=json.dumps(
        [{"op": "remove", "path": "/metadata/labels"}]), headers=JSONPATCH)
    assert r.json()["metadata"]["labels"] == {"kubernetes.io/metadata.name": name}


def test_stale_rv_and_uid_ns33_ns34(http, url, namespaces):
    ns = namespaces.create()
    name = ns["metadata"]["name"]
    assert http.put(f"{url}/api/v1/namespaces/{name}", json=ns).status_code == 200
    stale = dict(ns, metadata=dict(ns["metadata"], labels={"a": "b"}))
    http.patch(f"{url}/api/v1/namespaces/{name}", data=json.dumps({"metadata": {"labels": {"x": "y"}}}),
               headers=MERGE)
    st = status_of(http.put(f"{url}/api/v1/namespaces/{name}", json=stale))
    assert st["code"] == 409 and st["reason"] == "Conflict"
    assert st["message"] == (f'Operation cannot be fulfilled on namespaces "{name}": the object has been '
                             "modified; please apply your changes to the latest version and try again")
    no_rv = dict(ns, metadata={"name": name, "uid": "bogus"})
    st = status_of(http.put(f"{url}/api/v1/namespaces/{name}", json=no_rv))
    assert st["code"] == 409
    assert (f"StorageError: invalid object, Code: 4, Key: /registry/namespaces/{name}, ResourceVersion: 0, "
            f"AdditionalErrorMsg: Precondition failed: UID in precondition: bogus, UID in object meta: "
            f"{ns['metadata']['uid']}") in st["message"]
    unconditional = {"metadata": {"name": name, "labels": {"u": "1"}}}
    assert http.put(f"{url}/api/v1/namespaces/{name}", json=unconditional).status_code == 200


def test_name_checks_ns35_ns36(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    st = status_of(http.put(f"{url}/api/v1/namespaces/{name}", json={"metadata": {"name": "other"}}))
    assert st["message"] == f"the name of the object (other) does not match the name on the URL ({name})"
    st = status_of(http.put(f"{url}/api/v1/namespaces/{name}", json={"metadata": {}}))
    assert st["message"] == (f"the name of the object ({name} based on URL) was undeterminable: "
                             "name must be provided")
    st = status_of(http.put(f"{url}/api/v1/namespaces/missing-zz", json={"metadata": {"name": "missing-zz"}}))
    assert st["code"] == 404 and st["message"] == 'namespaces "missing-zz" not found'
    st = status_of(http.patch(f"{url}/api/v1/namespaces/missing-zz", data="{}", headers=MERGE))
    assert st["code"] == 404


def test_patch_types_ns37(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    r = http.patch(f"{url}/api/v1/namespaces/{name}", data=json.dumps({"metadata": {"labels": {"testLabel":
                                                                                              "testValue"}}}),
                   headers=STRATEGIC)
    assert r.status_code == 200 and r.json()["metadata"]["labels"]["testLabel"] == "testValue"
    r = http.patch(f"{url}/api/v1/namespaces/{name}", data=json.dumps(
        [{"op": "add", "path": "/metadata/annotations", "value": {"a": "b"}}]), headers=JSONPATCH)
    assert r.json()["metadata"]["annotations"] == {"a": "b"}
    r = http.patch(f"{url}/api/v1/namespaces/{name}", data=json.dumps({"spec": {"finalizers": []}}), headers=MERGE)
    assert r.json()["spec"]["finalizers"] == ["kubernetes"]
    for ctype in ("text/plain", "application/json"):
        st = status_of(http.patch(f"{url}/api/v1/namespaces/{name}", data="{}", headers={"Content-Type": ctype}))
        assert st["code"] == 415 and st["reason"] == "UnsupportedMediaType"
    st = status_of(http.patch(f"{url}/api/v1/namespaces/{name}", data="{}",  # served: apply needs its manager
                              headers={"Content-Type": "application/apply-patch+yaml"}))
    assert st["code"] == 422 and st["details"]["kind"] == "PatchOptions"
    st = status_of(http.patch(f"{url}/api/v1/namespaces/{name}", data=json.dumps(
        [{"op": "test", "path": "/metadata/name", "value": "nope"}]), headers=JSONPATCH))
    assert st["code"] == 422


def test_no_new_metadata_finalizers_while_terminating_ns38(http, url, namespaces):
    name = namespaces.create(finalizers=["example.com/hold"])["metadata"]["name"]
    http.delete(f"{url}/api/v1/namespaces/{name}")
    st = status_of(http.patch(f"{url}/api/v1/namespaces/{name}", data=json.dumps(
        {"metadata": {"finalizers": ["x/y"]}}), headers=MERGE))
    assert st["code"] == 422
    assert st["message"] == (f'Namespace "{name}" is invalid: metadata.finalizers: Forbidden: no new finalizers can '
                             'be added if the object is being deleted, found new finalizers []string{"x/y"}')


def test_status_subresource_ns40_ns42(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    assert http.get(f"{url}/api/v1/namespaces/{name}/status").json()["status"]["phase"] == "Active"
    cond = {"type": "StatusPatch", "status": "True", "reason": "E2E", "message": "Patched by an e2e test"}
    r = http.patch(f"{url}/api/v1/namespaces/{name}/status", data=json.dumps(
        {"metadata": {"annotations": {"e2e-patched-ns-status": name}}, "status": {"conditions": [cond]},
         "spec": {"finalizers": []}}), headers=MERGE)
    assert r.status_code == 200
    out = r.json()
    assert out["metadata"]["annotations"]["e2e-patched-ns-status"] == name
    assert out["status"]["conditions"][-1]["message"] == "Patched by an e2e test"
    assert out["spec"]["finalizers"] == ["kubernetes"]
    out["status"]["conditions"].append({"type": "StatusUpdate", "status": "True", "reason": "E2E",
                                        "message": "Updated by an e2e test"})
    r = http.put(f"{url}/api/v1/namespaces/{name}/status", json=out)
    assert r.json()["status"]["conditions"][-1]["type"] == "StatusUpdate"
    st = status_of(http.patch(f"{url}/api/v1/namespaces/{name}/status", data=json.dumps(
        {"status": {"phase": "Terminating"}}), headers=MERGE))
    assert st["code"] == 422
    assert st["message"] == (f'Namespace "{name}" is invalid: status.Phase: Invalid value: "Terminating": '
                             "may only be 'Active' if `deletionTimestamp` is empty")
    st = status_of(http.get(f"{url}/api/v1/namespaces/nope-zz/status"))
    assert st["code"] == 404


def test_status_conditions_strategic_merge_by_type_ns43(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    for c in ({"type": "A", "status": "True"}, {"type": "B", "status": "True"}, {"type": "A", "status": "False"}):
        r = http.patch(f"{url}/api/v1/namespaces/{name}/status",
                       data=json.dumps({"status": {"conditions": [c]}}), headers=STRATEGIC)
    # merged by type; upstream's order (mergeSortedSlice): B, added while A existed, went first and stays first
    assert [(c["type"], c["status"]) for c in r.json()["status"]["conditions"]] == [("B", "True"), ("A", "False")]


def test_finalize_ns44_ns45(http, url, namespaces):
    ns = namespaces.create()
    name = ns["metadata"]["name"]
    ns["spec"]["finalizers"].append("e2e.example.com/fakeFinalizer")
    ns["status"] = {"phase": "Terminating"}
    r = http.put(f"{url}/api/v1/namespaces/{name}/finalize", json=ns)
    assert r.status_code == 200
    assert r.json()["spec"]["finalizers"] == ["kubernetes", "e2e.example.com/fakeFinalizer"]
    assert r.json()["status"]["phase"] == "Active"
    ns = r.json()
    ns["spec"]["finalizers"] = ["kubernetes", "foo"]
    st = status_of(http.put(f"{url}/api/v1/namespaces/{name}/finalize", json=ns))
    assert st["message"] == (f'Namespace "{name}" is invalid: spec.finalizers[1]: Invalid value: "foo": name is '
                             "neither a standard finalizer name nor is it fully qualified")
    ns["spec"]["finalizers"] = ["kubernetes"]
    assert http.put(f"{url}/api/v1/namespaces/{name}/finalize", json=ns).json()["spec"]["finalizers"] == \
        ["kubernetes"]
    st = status_of(http.put(f"{url}/api/v1/namespaces/{name}/finalize", json=dict(ns, metadata={"name": "x"})))
    assert st["code"] == 400


@pytest.mark.parametrize("method", ["POST", "PATCH", "GET", "DELETE"])
def test_finalize_other_verbs_405_ns48(http, url, namespaces, method):
    name = namespaces.create()["metadata"]["name"]
    r = http.request(method, f"{url}/api/v1/namespaces/{name}/finalize", data="{}",
                     headers={"Content-Type": "application/merge-patch+json"})
    st = status_of(r)
    assert st == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                  "message": "the server does not allow this method on the requested resource",
                  "reason": "MethodNotAllowed", "details": {}, "code": 405}
    assert "Allow" not in r.headers


def test_first_and_repeated_delete_ns50_ns51(http, url, namespaces):
    name = namespaces.create(finalizers=["example.com/hold"])["metadata"]["name"]
    r = http.delete(f"{url}/api/v1/namespaces/{name}")
    assert r.status_code == 200
    ns = r.json()
    assert ns["kind"] == "Namespace" and ns["metadata"]["deletionTimestamp"]
    assert ns["status"]["phase"] == "Terminating" and "deletionGracePeriodSeconds" not in ns["metadata"]
    r2 = http.delete(f"{url}/api/v1/namespaces/{name}")
    assert r2.status_code == 200 and r2.json()["kind"] == "Namespace"
    assert r2.json()["status"]["phase"] == "Terminating"


def test_delete_after_finalizers_emptied_ns52_ns73(http, url, namespaces):
    ns = namespaces.create()
    name = ns["metadata"]["name"]
    ns["spec"]["finalizers"] = []
    assert http.put(f"{url}/api/v1/namespaces/{name}/finalize", json=ns).json()["spec"].get("finalizers") in (None, [])
    r = http.delete(f"{url}/api/v1/namespaces/{name}")
    assert r.status_code == 200 and r.json()["status"]["phase"] == "Terminating"
    assert http.get(f"{url}/api/v1/namespaces/{name}").status_code == 200  # lingers (NS-73)
    r = http.delete(f"{url}/api/v1/namespaces/{name}")
    assert r.status_code == 200 and r.json()["kind"] == "Namespace"
    assert http.get(f"{url}/api/v1/namespaces/{name}").status_code == 404


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public"])
def test_immortal_namespaces_ns53(http, url, name):
    st = status_of(http.delete(f"{url}/api/v1/namespaces/{name}"))
    assert st["code"] == 403 and st["reason"] == "Forbidden"
    assert st["message"] == f'namespaces "{name}" is forbidden: this namespace may not be deleted'
    assert st["details"] == {"name": name, "kind": "namespaces"}
    assert http.get(f"{url}/api/v1/namespaces/{name}").json()["status"]["phase"] == "Active"


def test_kube_node_lease_exists_and_is_mortal(http, url):
    r = http.delete(f"{url}/api/v1/namespaces/kube-node-lease", params={"dryRun": "All"})
    assert r.status_code == 200 and r.json()["status"]["phase"] == "Terminating"
    assert http.get(f"{url}/api/v1/namespaces/kube-node-lease").json()["status"]["phase"] == "Active"


def test_delete_preconditions_ns54(http, url, namespaces):
    ns = namespaces.create()
    name, uid = ns["metadata"]["name"], ns["metadata"]["uid"]
    st = status_of(http.delete(f"{url}/api/v1/namespaces/{name}", json={"preconditions": {"uid": "bad"}}))
    assert st["code"] == 409
    assert st["message"] == (f'Operation cannot be fulfilled on namespaces "{name}": Precondition failed: UID in '
                             f"precondition: bad, UID in object meta: {uid}")
    st = status_of(http.delete(f"{url}/api/v1/namespaces/{name}", json={"preconditions": {"resourceVersion": "1"}}))
    assert "Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta:" in st["message"]
    r = http.delete(f"{url}/api/v1/namespaces/{name}", json={"preconditions": {"uid": uid}})
    assert r.status_code == 200


def test_propagation_and_202_ns55_ns56(http, url, namespaces):
    a = namespaces.create(finalizers=["example.com/hold"])["metadata"]["name"]
    r = http.delete(f"{url}/api/v1/namespaces/{a}", json={"propagationPolicy": "Orphan"})
    assert r.status_code == 200 and r.json()["metadata"]["finalizers"] == ["orphan"]
    b = namespaces.create(finalizers=["example.com/hold"])["metadata"]["name"]
    r = http.delete(f"{url}/api/v1/namespaces/{b}", json={"orphanDependents": False})
    assert r.status_code == 202 and r.json()["metadata"]["finalizers"] == ["foregroundDeletion"]
    c = namespaces.create(finalizers=["example.com/hold"])["metadata"]["name"]
    r = http.delete(f"{url}/api/v1/namespaces/{c}", params={"propagationPolicy": "Foreground"})
    assert r.status_code == 200 and r.json()["metadata"]["finalizers"] == ["foregroundDeletion"]


def test_delete_options_validation_ns57(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    st = status_of(http.delete(f"{url}/api/v1/namespaces/{name}", json={"propagationPolicy": "Sideways"}))
    assert st["code"] == 422 and st["message"].startswith('DeleteOptions.meta.k8s.io "" is invalid: '
                                                          'propagationPolicy: Unsupported value: "Sideways"')


def test_dry_run_delete_ns57(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    r = http.delete(f"{url}/api/v1/namespaces/{name}", json={"dryRun": ["All"]})
    assert r.status_code == 200 and r.json()["status"]["phase"] == "Terminating"
    assert http.get(f"{url}/api/v1/namespaces/{name}").json()["status"]["phase"] == "Active"


def test_dry_run_create_and_update(http, url, namespaces):
    name = namespaces.name()
    r = http.post(f"{url}/api/v1/namespaces", params={"dryRun": "All"}, json={"metadata": {"name": name}})
    assert r.status_code == 201 and r.json()["spec"]["finalizers"] == ["kubernetes"]
    assert http.get(f"{url}/api/v1/namespaces/{name}").status_code == 404
    name = namespaces.create()["metadata"]["name"]
    r = http.patch(f"{url}/api/v1/namespaces/{name}", params={"dryRun": "All"},
                   data=json.dumps({"metadata": {"labels": {"d": "r"}}}), headers=MERGE)
    assert r.json()["metadata"]["labels"]["d"] == "r"
    assert "d" not in http.get(f"{url}/api/v1/namespaces/{name}").json()["metadata"]["labels"]


def test_delete_missing_and_collection_ns58_ns59(http, url):
    st = status_of(http.delete(f"{url}/api/v1/namespaces/nope-zz"))
    assert st["code"] == 404 and st["message"] == 'namespaces "nope-zz" not found'
    st = status_of(http.delete(f"{url}/api/v1/namespaces"))
    assert st["code"] == 405 and st["details"] == {}
    st = status_of(http.post(f"{url}/api/v1/namespaces/default", json={}))
    assert st["code"] == 405


def test_update_emptying_finalizers_removes_terminating_namespace_ns39(http, url, namespaces, watch):
    # a metadata finalizer nothing removes (the garbage collector takes a metadata `orphan` off at once)
    name = namespaces.create(finalizers=["example.com/hold"])["metadata"]["name"]
    assert http.patch(f"{url}/api/v1/namespaces/{name}", data=json.dumps({"metadata": {"finalizers": [
        "example.com/meta"]}}), headers=MERGE).status_code == 200
    r = http.delete(f"{url}/api/v1/namespaces/{name}")
    wait_for = r.json()
    # controller removes `kubernetes`; example.com/hold and the metadata finalizer remain
    w = watch(f"{url}/api/v1/namespaces", {"fieldSelector": f"metadata.name={name}",
                                           "resourceVersion": wait_for["metadata"]["resourceVersion"]})
    w.until(lambda e: e["object"]["spec"].get("finalizers") == ["example.com/hold"], what="kubernetes removed")
    ns = http.get(f"{url}/api/v1/namespaces/{name}").json()
    ns["spec"]["finalizers"] = []
    assert http.put(f"{url}/api/v1/namespaces/{name}/finalize", json=ns).status_code == 200
    assert http.get(f"{url}/api/v1/namespaces/{name}").status_code == 200  # metadata.finalizers still set
    r = http.patch(f"{url}/api/v1/namespaces/{name}", data=json.dumps({"metadata": {"finalizers": None}}),
                   headers=MERGE)
    assert r.status_code == 200
    wait_gone(http, url, name)


def test_system_metadata_restored_ns32(http, url, namespaces):
    ns = namespaces.create()
    name = ns["metadata"]["name"]
    body = {"metadata": {"name": name, "uid": ns["metadata"]["uid"], "creationTimestamp": "2000-01-01T00:00:00Z",
                         "generation": 7}}
    out = http.put(f"{url}/api/v1/namespaces/{name}", json=body).json()
    assert out["metadata"]["creationTimestamp"] == ns["metadata"]["creationTimestamp"]
    assert "generation" not in out["metadata"]
    body["metadata"]["deletionTimestamp"] = "2030-01-01T00:00:00Z"
    st = status_of(http.put(f"{url}/api/v1/namespaces/{name}", json=body))
    assert st["code"] == 422
    assert st["message"] == (f'Namespace "{name}" is invalid: metadata.deletionTimestamp: Invalid value: '
                             '2030-01-01 00:00:00 +0000 UTC: field is immutable')  # *metav1.Time's String()


def test_memoised_get_matches_the_general_path_and_follows_writes(http, url, namespaces):
    """GET of one object answers memoised bytes (`GenericStore.get_rendered`): the same body and headers as
    the general encoding path, a new body after each write, and the Accept variants untouched."""
    from conformance.reference_server.http.respond import dumps_line

    name = namespaces.create()["metadata"]["name"]
    item = f"{url}/api/v1/namespaces/{name}"
    first, again = http.get(item), http.get(item)
    assert first.status_code == again.status_code == 200
    assert first.content == again.content == dumps_line(first.json())  # same encoder, key order, newline
    assert sorted(first.headers) == sorted(again.headers) and first.headers["Content-Type"] == "application/json"
    # a variant the memo does not serve (YAML), then the memo again: same object
    y = http.get(item, headers={"Accept": "application/yaml"})
    assert y.status_code == 200 and y.headers["Content-Type"] == "application/yaml"
    assert http.get(item, headers={"Accept": "application/json"}).content == first.content
    assert http.get(item, headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}).json()["kind"] \
        in ("Table", "Status")
    assert http.get(item, headers={"Accept": "text/html"}).status_code == 406
    # a write (new resourceVersion) changes what the next GET answers
    r = http.patch(item, data=json.dumps({"metadata": {"labels": {"memo": "1"}}}), headers=MERGE)
    assert r.status_code == 200
    after = http.get(item)
    assert after.json() == r.json() and after.json()["metadata"]["labels"]["memo"] == "1"
    assert after.json()["metadata"]["resourceVersion"] != first.json()["metadata"]["resourceVersion"]
    # a missing object is still a 404 Status (and 406 still wins nothing over it: the get comes first)
    gone = http.get(f"{url}/api/v1/namespaces/{name}-missing", headers={"Accept": "text/html"})
    assert gone.status_code == 404

"""Protobuf answers over HTTP: what a typed client-go client (Accept `application/vnd.kubernetes.protobuf,
application/json`) gets back for objects, lists, errors, metadata-only objects and watches, read with the
server's own decoder (the wire tests pin the bytes; kubectl decodes them in test_real_clients)."""
from __future__ import annotations

import requests

from conformance.reference_server.wire import protobuf

PB = "application/vnd.kubernetes.protobuf"
TYPED = f"{PB},application/json"  # what every typed client-go client sends


def _cm(http: requests.Session, url: str, ns: str) -> dict:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {"b": "2", "a": "1"}},
            "data": {"k": "v"}, "binaryData": {"bin": "AAEC"}}
    r = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def test_object_list_and_create_answer_protobuf_that_decodes_to_the_json(http, url, namespaces) -> None:
    ns = namespaces.create()["metadata"]["name"]
    cm = _cm(http, url, ns)
    path = f"{url}/api/v1/namespaces/{ns}/configmaps"
    r = http.get(f"{path}/c", headers={"Accept": TYPED})
    assert r.status_code == 200 and r.headers["Content-Type"] == PB
    assert r.content.startswith(b"k8s\x00") and protobuf.decode_response(r.content) == cm

    listed_json = http.get(path).json()
    r = http.get(path, headers={"Accept": TYPED})
    assert r.status_code == 200 and r.headers["Content-Type"] == PB
    listed = protobuf.decode_response(r.content)
    bare = {k: v for k, v in cm.items() if k not in ("kind", "apiVersion")}  # a list item's message has no TypeMeta
    assert listed["kind"] == "ConfigMapList" and listed["items"] == [bare]
    assert [{k: v for k, v in i.items() if k not in ("kind", "apiVersion")} for i in listed_json["items"]] == [bare]

    body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespaces.name("pb")}}
    r = http.post(f"{url}/api/v1/namespaces", json=body, headers={"Accept": TYPED})
    assert r.status_code == 201 and r.headers["Content-Type"] == PB
    created = protobuf.decode_response(r.content)
    assert created == http.get(f"{url}/api/v1/namespaces/{body['metadata']['name']}").json()


def test_errors_are_a_protobuf_status_when_protobuf_is_preferred(http, url) -> None:
    r = http.get(f"{url}/api/v1/namespaces/nope-pb", headers={"Accept": TYPED})
    assert r.status_code == 404 and r.headers["Content-Type"] == PB
    assert protobuf.decode_response(r.content) == http.get(f"{url}/api/v1/namespaces/nope-pb").json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'namespaces "nope-pb" not found', "reason": "NotFound",
        "details": {"name": "nope-pb", "kind": "namespaces"}, "code": 404}
    r = http.get(f"{url}/api/v1/namespaces/nope-pb", headers={"Accept": f"{PB};q=0.5,application/json"})
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/json"


def test_table_is_never_protobuf_but_metadata_only_objects_are(http, url, namespaces) -> None:
    ns = namespaces.create()["metadata"]["name"]
    r = http.get(f"{url}/api/v1/namespaces/{ns}", headers={"Accept": f"{PB};as=Table;v=v1;g=meta.k8s.io"})
    assert r.status_code == 406 and r.json()["reason"] == "NotAcceptable"
    r = http.get(f"{url}/api/v1/namespaces/{ns}",
                 headers={"Accept": f"{PB};as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json"})
    assert r.status_code == 200 and r.headers["Content-Type"] == PB
    meta = protobuf.decode_response(r.content)
    assert meta["kind"] == "PartialObjectMetadata" and meta["apiVersion"] == "meta.k8s.io/v1"
    assert meta["metadata"]["name"] == ns and "spec" not in meta


def _frames(resp: requests.Response, count: int) -> bytes:
    """The first `count` length-delimited frames of a protobuf watch stream (then the caller closes it)."""
    out = b""
    for _ in range(count):
        head = resp.raw.read(4)
        out += head + resp.raw.read(int.from_bytes(head, "big"))
    return out


def test_watch_streams_length_delimited_protobuf_watch_events(http, url, namespaces) -> None:
    ns = namespaces.create()["metadata"]["name"]
    cm = _cm(http, url, ns)
    with http.get(f"{url}/api/v1/namespaces/{ns}/configmaps", stream=True, timeout=30,
                  params={"watch": "true", "resourceVersion": "0", "allowWatchBookmarks": "true"},
                  headers={"Accept": TYPED}) as r:
        assert r.status_code == 200 and r.headers["Content-Type"] == f"{PB};stream=watch"
        first = _frames(r, 1)
        assert http.delete(f"{url}/api/v1/namespaces/{ns}/configmaps/c").status_code == 200
        events = protobuf.read_watch_frames(first + _frames(r, 1))
    assert [t for t, _ in events] == ["ADDED", "DELETED"]
    assert events[0][1] == cm
    assert events[1][1]["metadata"]["name"] == "c" and events[1][1]["kind"] == "ConfigMap"


def test_watch_too_old_is_a_protobuf_error_event(http, url, namespaces) -> None:
    ns = namespaces.create()["metadata"]["name"]
    with http.get(f"{url}/api/v1/namespaces/{ns}/configmaps", stream=True, timeout=30,
                  params={"watch": "true", "resourceVersion": "1"}, headers={"Accept": TYPED}) as r:
        assert r.status_code == 200
        events = protobuf.read_watch_frames(r.content)
    assert [(t, o["kind"], o["code"], o["reason"]) for t, o in events] == [("ERROR", "Status", 410, "Expired")]


def _deployment(name: str) -> dict:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def test_named_group_kinds_answer_protobuf(http, url, namespaces) -> None:
    """apps/batch/rbac/... objects and lists come back in protobuf when asked first, decoding to the JSON answer
    (Deployment `spec.replicas: 0`, a pointer, included)."""
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/apis/apps/v1/namespaces/{ns}/deployments"
    r = http.post(path, json=_deployment("d"))
    assert r.status_code == 201, r.text
    r = http.get(f"{path}/d", headers={"Accept": TYPED})
    assert r.status_code == 200 and r.headers["Content-Type"] == PB
    got = protobuf.decode_response(r.content)
    assert got == http.get(f"{path}/d").json() and got["spec"]["replicas"] == 0
    r = http.get(path, headers={"Accept": TYPED})
    assert r.status_code == 200 and r.headers["Content-Type"] == PB
    listed = protobuf.decode_response(r.content)
    assert listed["kind"] == "DeploymentList" and [i["metadata"]["name"] for i in listed["items"]] == ["d"]


def test_named_group_protobuf_bodies_keep_pointer_zeros_and_drop_go_zeros(http, url, namespaces) -> None:
    """A protobuf body as Go writes it (every non-pointer field, zero or not) is stored as the JSON Go prints:
    `parallelism: 0` and `suspend: false` (pointers) kept; `manualSelector` unset stays unset."""
    ns = namespaces.create()["metadata"]["name"]
    labels = {"job": "j"}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
           "spec": {"parallelism": 0, "suspend": False,
                    "template": {"metadata": {"labels": labels},
                                 "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}},
           "status": {"active": 0, "succeeded": 0}}
    r = http.post(f"{url}/apis/batch/v1/namespaces/{ns}/jobs", data=protobuf.encode(job),
                  headers={"Content-Type": PB, "Accept": TYPED})
    assert r.status_code == 201, r.content
    assert r.headers["Content-Type"] == PB
    stored = http.get(f"{url}/apis/batch/v1/namespaces/{ns}/jobs/j").json()
    assert protobuf.decode_response(r.content) == stored
    assert stored["spec"]["parallelism"] == 0 and stored["spec"]["suspend"] is False
    assert "manualSelector" not in stored["spec"] and "active" not in stored.get("status", {})

    wrong = protobuf.encode(_deployment("d"))  # a Deployment sent to the jobs collection: upstream's 400
    r = http.post(f"{url}/apis/batch/v1/namespaces/{ns}/jobs", data=wrong, headers={"Content-Type": PB})
    assert r.status_code == 400 and r.json()["reason"] == "BadRequest"

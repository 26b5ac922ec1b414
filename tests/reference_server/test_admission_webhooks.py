"""Admission webhooks (admission/webhooks/): a small local HTTPS webhook (the server's own TLS helper makes its
CA and certificate) answers AdmissionReview v1; the reference server calls it for matching writes, applies a
mutating webhook's JSONPatch, refuses on `allowed: false` with upstream's message, fails a `service` reference as a
cluster whose Service has no ready endpoints does, and keeps answering other requests while a webhook is slow."""
from __future__ import annotations

import base64
import json
import ssl
import threading
import uuid
from http.server import BaseHTTPRequestHandler
from typing import Any, Iterator

import pytest
import requests

from conformance.reference_server import tls
from conformance.reference_server.embedded import RunningServer
from tests.reference_server.ownserver import own_server

from .crds import CRDS, create_crd, schemaless_crd
from .quietserver import QuietThreadingHTTPServer
from .webhookconfig import MUTATING, configure, unconfigure
from tests.reference_server.panics import assert_dropped



class Hook:
    """The webhook: `/allow`, `/deny`, `/label` (JSONPatch), `/addlabel-<key>` (adds `<key>: yes`), `/hold` (answers once `release` is set), `/absent`
    (a review without a response)."""

    def __init__(self) -> None:
        self.tls = tls.generate(("127.0.0.1",))
        self.reviews: list[tuple[str, dict[str, Any]]] = []
        self.raw: list[bytes] = []  # each review's bytes as received, in the same order
        self.release = threading.Event()
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                data = self.rfile.read(int(self.headers["Content-Length"]))
                body = json.loads(data)
                hook.raw.append(data)
                hook.reviews.append((self.path, body))
                status, answer = hook.answer(self.path.split("?")[0], body)
                out = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = QuietThreadingHTTPServer(("127.0.0.1", 0), Handler)
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(self.tls.cert_file, self.tls.key_file)
        self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}"
        self.ca_bundle = base64.b64encode(self.tls.ca_pem).decode()
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        """(status, JSON answer) to a review posted to `path` (a subclass serves other reviews: CRD conversion's)."""
        resp: dict[str, Any] = {"uid": body["request"]["uid"], "allowed": path != "/deny"}
        if path == "/deny":
            resp["status"] = {"code": 403, "message": "no configmaps named deny-me"}
        if path == "/label" and body["request"].get("object") is not None:  # (a DELETE has none to patch)
            ops = [{"op": "add", "path": "/metadata/labels", "value": {"hooked": "yes"}}]
            resp.update(patchType="JSONPatch", patch=base64.b64encode(json.dumps(ops).encode()).decode(),
                        warnings=["labelled by the webhook"])
        if path.startswith("/addlabel-") and body["request"].get("object") is not None:
            key = path.removeprefix("/addlabel-")  # adds label <key>=yes (no change when it is there)
            labels = (body["request"]["object"].get("metadata") or {}).get("labels")
            ops = ([{"op": "add", "path": f"/metadata/labels/{key}", "value": "yes"}] if labels is not None
                   else [{"op": "add", "path": "/metadata/labels", "value": {key: "yes"}}])
            resp.update(patchType="JSONPatch", patch=base64.b64encode(json.dumps(ops).encode()).decode())
        if path == "/rawnum":  # numbers Python cannot write: the patch's bytes as a Go webhook may send them
            patch = b'[{"op":"add","path":"/data/w","value":1e2},{"op":"add","path":"/data/big","value":-1e400}]'
            resp.update(patchType="JSONPatch", patch=base64.b64encode(patch).decode())
        if path == "/rawbytes":  # a value's bytes as a webhook may write them (an escape, key order, `<`)
            patch = (b'[{"op":"add","path":"/data/a/-","value":{"z":"\\u00e9","b":"<"}},'
                     b'{"op":"replace","path":"/data/s","value":"\\u00e9"}]')
            resp.update(patchType="JSONPatch", patch=base64.b64encode(patch).decode())
        if path == "/badpatch":  # a patch evanphx/json-patch refuses
            patch = b'[{"op":"replace","path":"/nope/x","value":1}]'
            resp.update(patchType="JSONPatch", patch=base64.b64encode(patch).decode())
        if path == "/nilpatch":  # a patch evanphx/json-patch v4.12.0 panics on (a walk through a nil node)
            patch = b'[{"op":"add","path":"/data/x","value":null},{"op":"add","path":"/data/x/y","value":1}]'
            resp.update(patchType="JSONPatch", patch=base64.b64encode(patch).decode())
        if path == "/nilmap":  # ... and an `add` into the nil map a `copy` of an added `null` reads as
            patch = (b'[{"op":"add","path":"/data/x","value":null},{"op":"copy","from":"/data/x","path":"/data/z"},'
                     b'{"op":"add","path":"/data/z/y","value":1}]')
            resp.update(patchType="JSONPatch", patch=base64.b64encode(patch).decode())
        if path in ("/nokind", "/kindnumber"):  # a patch after which the serializer cannot read the kind
            patch = (b'[{"op":"remove","path":"/kind"}]' if path == "/nokind"
                     else b'[{"op":"replace","path":"/kind","value":5}]')
            resp.update(patchType="JSONPatch", patch=base64.b64encode(patch).decode())
        if path == "/hold":
            self.release.wait(30)
        answer = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp}
        if path == "/absent":
            del answer["response"]
        return 200, answer

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
        self.tls.cleanup()


@pytest.fixture(scope="module")
def hook() -> Iterator[Hook]:
    h = Hook()
    yield h
    h.stop()


server = own_server("A server of its own: its webhook configurations must not reach other modules' requests.")


@pytest.fixture
def ns(server: RunningServer) -> Iterator[str]:
    name = f"wh-{uuid.uuid4().hex[:8]}"
    r = requests.post(f"{server.url}/api/v1/namespaces", json={"metadata": {"name": name, "labels": {"hooks": name}}})
    assert r.status_code == 201, r.text
    yield name
    requests.delete(f"{server.url}/api/v1/namespaces/{name}")


def cm(server: RunningServer, ns: str, name: str, **kw: Any) -> requests.Response:
    return requests.post(f"{server.url}/api/v1/namespaces/{ns}/configmaps",
                         json={"metadata": {"name": name}, "data": {"a": "b"}}, **kw)


def test_the_review_sends_the_object_as_its_go_type_encodes_it(server, hook, ns):
    """`CreateV1AdmissionReview` encodes the typed object: its structs' fields in Go's order and its maps sorted,
    whatever order the client sent (a ConfigMap: kind, apiVersion, metadata, data), to a mutating webhook
    too, which sees the object before the registry stores it."""
    cfg = configure(server, MUTATING, ns,
                    clientConfig={"url": f"{hook.url}/allow", "caBundle": hook.ca_bundle})
    try:
        body = '{"data": {"y": "1", "x": "2"}, "metadata": {"labels": {"b": "1", "a": "2"}, "name": "ordered"}}'
        r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/configmaps", data=body,
                          headers={"Content-Type": "application/json"})
        assert r.status_code == 201, r.text
        sent = hook.reviews[-1][1]["request"]["object"]
        assert list(sent) == ["kind", "apiVersion", "metadata", "data"]
        assert list(sent["data"]) == ["x", "y"] and list(sent["metadata"]["labels"]) == ["a", "b"]
        assert list(sent["metadata"])[:2] == ["name", "namespace"]
    finally:
        unconfigure(server, MUTATING, cfg)


def test_the_review_writes_a_query_byte_that_is_not_utf8_as_go_does(server, hook, ns):
    """The options' `fieldManager` keeps the query's byte (http/goquery.py); Go's encoding/json writes it `\\ufffd`
    in the review it posts (the escape, not U+FFFD's own bytes)."""
    cfg = configure(server, "validatingwebhookconfigurations", ns,
                    clientConfig={"url": f"{hook.url}/allow", "caBundle": hook.ca_bundle})
    try:
        r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/configmaps?fieldManager=a%FFb",
                          json={"metadata": {"name": "bytes"}, "data": {"a": "b"}})
        assert r.status_code == 201, r.text
        assert hook.reviews[-1][1]["request"]["options"]["fieldManager"] == "a\ufffdb"
        assert b'"fieldManager":"a\\ufffdb"' in hook.raw[-1]
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)


def test_validating_webhook_allows_and_denies(server, hook, ns):
    cfg = configure(server, "validatingwebhookconfigurations", ns,
                    clientConfig={"url": f"{hook.url}/deny", "caBundle": hook.ca_bundle})
    try:
        r = cm(server, ns, "deny-me")
        assert r.status_code == 403, r.text
        assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": f'admission webhook "{cfg}.example.com" denied the request: no configmaps '
                                       "named deny-me", "code": 403}
        path, review = hook.reviews[-1]
        assert path == "/deny?timeout=10s"
        req = review["request"]
        assert (review["apiVersion"], review["kind"]) == ("admission.k8s.io/v1", "AdmissionReview")
        assert (req["operation"], req["namespace"], req["name"], req["kind"], req["resource"]) == (
            "CREATE", ns, "deny-me", {"group": "", "version": "v1", "kind": "ConfigMap"},
            {"group": "", "version": "v1", "resource": "configmaps"})
        # validating webhooks judge the object as it would be stored
        assert req["object"]["metadata"]["uid"] and req["oldObject"] is None and req["dryRun"] is False
        assert requests.get(f"{server.url}/api/v1/namespaces/{ns}/configmaps/deny-me").status_code == 404
        other = f"wh-{uuid.uuid4().hex[:8]}"  # a namespace outside the selector: no call
        assert requests.post(f"{server.url}/api/v1/namespaces", json={"metadata": {"name": other}}).status_code == 201
        calls = len(hook.reviews)
        assert cm(server, other, "deny-me").status_code == 201
        assert len(hook.reviews) == calls
        requests.delete(f"{server.url}/api/v1/namespaces/{other}")
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)
    assert cm(server, ns, "deny-me").status_code == 201


def test_mutating_webhook_patch_and_update_delete(server, hook, ns):
    cfg = configure(server, "mutatingwebhookconfigurations", ns,
                    clientConfig={"url": f"{hook.url}/label", "caBundle": hook.ca_bundle})
    try:
        r = cm(server, ns, "patched")
        assert r.status_code == 201, r.text
        assert r.json()["metadata"]["labels"] == {"hooked": "yes"}
        assert r.headers["Warning"] == '299 - "labelled by the webhook"'
        obj = r.json()
        obj["data"] = {"a": "c"}
        obj["metadata"]["labels"] = {}
        r = requests.put(f"{server.url}/api/v1/namespaces/{ns}/configmaps/patched", json=obj)
        assert r.status_code == 200 and r.json()["metadata"]["labels"] == {"hooked": "yes"}
        _, review = hook.reviews[-1]
        assert review["request"]["operation"] == "UPDATE" and review["request"]["oldObject"]["data"] == {"a": "b"}
        assert requests.delete(f"{server.url}/api/v1/namespaces/{ns}/configmaps/patched").status_code == 200
        _, review = hook.reviews[-1]
        assert review["request"]["operation"] == "DELETE" and review["request"]["object"] is None
    finally:
        unconfigure(server, "mutatingwebhookconfigurations", cfg)


def test_a_mutating_webhook_s_patch_refused_by_evanphx_is_an_internal_error(server, hook, ns):
    """The mutating dispatcher answers `Patch.Apply`'s error as `NewInternalError(err)`: evanphx/json-patch
    v4.12.0's words (`replace` of a path whose parent is missing: `doc is missing path: %s`, no quotes)."""
    cfg = configure(server, "mutatingwebhookconfigurations", ns,
                    clientConfig={"url": f"{hook.url}/badpatch", "caBundle": hook.ca_bundle})
    try:
        r = cm(server, ns, "badpatch")
        err = "replace operation does not apply: doc is missing path: /nope/x: missing value"
        assert r.status_code == 500 and r.json()["message"] == f"Internal error occurred: {err}", r.text
    finally:
        unconfigure(server, "mutatingwebhookconfigurations", cfg)


def test_a_mutating_webhook_s_patch_the_serializer_cannot_read_is_an_internal_error(server, hook, ns):
    """The dispatcher decodes the patched bytes (`jsonSerializer.Decode(patchedJS, ...)`): a custom resource's,
    into an `Unstructured`, must keep its kind (`NewMissingKindErr(string(patchedJS))`: the bytes evanphx wrote
    of the object the review was sent, sorted at every level, quoted), and any kind's must be a string
    (`SimpleMetaFactory.Interpret`); `NewInternalError` of either (wire/patchedgvk.py). Before, the server put
    the kind back and stored the object."""
    group = f"wh{uuid.uuid4().hex[:8]}.example.com"
    assert create_crd(requests, server.url, schemaless_crd(group, "things", "Thing")).status_code == 201
    cfg = configure(server, MUTATING, ns, None, f"{hook.url}/nokind", hook.ca_bundle, ["things"],
                    api_groups=[group], operations=["CREATE"])
    try:
        body = '{"spec":{"z":1,"b":{"y":2,"c":3}},"metadata":{"name":"t"},"kind":"Thing","apiVersion":"' + group + '/v1"}'
        r = requests.post(f"{server.url}/apis/{group}/v1/namespaces/{ns}/things", data=body,
                          headers={"Content-Type": "application/json"})
        sent = {k: v for k, v in hook.reviews[-1][1]["request"]["object"].items() if k != "kind"}
        shown = json.dumps(sent, separators=(",", ":"))
        assert shown.endswith(',"spec":{"b":{"c":3,"y":2},"z":1}}'), shown
        why = f"Object 'Kind' is missing in '{shown}'"
        assert r.status_code == 500 and r.json()["message"] == f"Internal error occurred: {why}", r.text
        assert r.json()["details"] == {"causes": [{"message": why}]}, r.text
    finally:
        unconfigure(server, MUTATING, cfg)
        requests.delete(f"{server.url}{CRDS}/things.{group}")
    cfg = configure(server, MUTATING, ns, None, f"{hook.url}/kindnumber", hook.ca_bundle, operations=["CREATE"])
    try:
        r = cm(server, ns, "kindnumber")
        why = ("couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field "
               ".kind of type string")
        assert r.status_code == 500 and r.json()["message"] == f"Internal error occurred: {why}", r.text
    finally:
        unconfigure(server, MUTATING, cfg)


def test_a_mutating_webhook_s_patch_evanphx_panics_on_is_the_panic_answer(server, hook, ns):
    """The dispatcher applies the patch in the request's goroutine: evanphx/json-patch v4.12.0's nil pointer
    dereference (`findObject` through a node an `add` of `null` left) is kube-apiserver's panic: no answer."""
    cfg = configure(server, "mutatingwebhookconfigurations", ns,
                    clientConfig={"url": f"{hook.url}/nilpatch", "caBundle": hook.ca_bundle})
    try:
        assert_dropped(lambda: cm(server, ns, "nilpatch"))
    finally:
        unconfigure(server, "mutatingwebhookconfigurations", cfg)


def test_a_mutating_webhook_s_patch_adding_into_a_nil_map_is_the_panic_answer(server, hook, ns):
    """`copy` of an added `null` writes `null`, which `intoDoc` reads into a nil `partialDoc`: the next `add` into
    it assigns to a nil map, a panic in the dispatcher's `patchObj.Apply` (the request's goroutine), answered
    by no answer (before: a 500 `Internal error occurred` in this server's words)."""
    cfg = configure(server, "mutatingwebhookconfigurations", ns,
                    clientConfig={"url": f"{hook.url}/nilmap", "caBundle": hook.ca_bundle})
    try:
        assert_dropped(lambda: cm(server, ns, "nilmap"))
    finally:
        unconfigure(server, "mutatingwebhookconfigurations", cfg)


def test_a_mutating_webhook_s_numbers_in_raw_json_are_kept_as_it_wrote_them(server, hook, ns):
    """The patched bytes are decoded again (`RawExtension` keeps them): `1e2` stays `1e2`, and `-1e400`, which the
    field manager's walk (before admission) never sees, is stored and answered as written, never `null`; a later
    write panics as upstream's field manager does on the live object."""
    name = configure(server, MUTATING, ns, None, f"{hook.url}/rawnum", hook.ca_bundle, ["controllerrevisions"],
                     operations=["CREATE"])
    try:
        path = f"{server.url}/apis/apps/v1/namespaces/{ns}/controllerrevisions"
        r = requests.post(path, data=b'{"metadata":{"name":"r"},"revision":1,"data":{"x":0.10}}',
                          headers={"Content-Type": "application/json"})
        assert r.status_code == 201, r.text
        for text in (r.text, requests.get(f"{path}/r").text):  # (json-patch.v4 writes a touched object as a
            assert '"data":{"big":-1e400,"w":1e2,"x":0.10}' in text  # Go map: its keys sorted)
        # any later write walks the live object (structured-merge-diff), whose reading of -1e400 panics
        assert_dropped(lambda: requests.patch(f"{path}/r", json={"metadata": {"labels": {"a": "b"}}},
                                              headers={"Content-Type": "application/merge-patch+json"}))
        assert_dropped(lambda: requests.patch(  # (of its own kind: versioncheck.go refuses another first)
            f"{path}/r?fieldManager=m", data="apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  labels:\n"
                                              "    a: b\n", headers={"Content-Type": "application/apply-patch+yaml"}))
    finally:
        unconfigure(server, "mutatingwebhookconfigurations", name)


def test_a_mutating_webhook_s_patch_inside_raw_json_keeps_evanphx_s_bytes(server, hook, ns):
    """The dispatcher applies the webhook's JSONPatch with evanphx/json-patch v4.12.0 (`Patch.Apply` on the
    object's JSON, `data` compacted) and decodes the result: `data` and `a` are read (keys sorted, elements kept
    as the nodes they were: `{"y":1,"x":2}`), the appended element and the replaced string are the patch's bytes
    compacted (`\\u00e9` kept, `<` escaped). The create stores them: an update sending them again passes."""
    name = configure(server, MUTATING, ns, None, f"{hook.url}/rawbytes", hook.ca_bundle, ["controllerrevisions"],
                     operations=["CREATE"])
    try:
        path = f"{server.url}/apis/apps/v1/namespaces/{ns}/controllerrevisions"
        want = '{"a":[{"y":1,"x":2},{"z":"\\u00e9","b":"\\u003c"}],"s":"\\u00e9"}'
        r = requests.post(path, data=b'{"metadata":{"name":"r"},"revision":1,"data":{ "s":"t", "a":[ {"y":1, "x":2} ] }}',
                          headers={"Content-Type": "application/json"})
        assert r.status_code == 201, r.text
        for text in (r.text, requests.get(f"{path}/r").text):
            assert f'"data":{want}' in text, text
        body = f'{{"metadata":{{"name":"r","resourceVersion":"{r.json()["metadata"]["resourceVersion"]}"}},' \
               f'"revision":2,"data":{want}}}'
        r = requests.put(f"{path}/r", data=body.encode(), headers={"Content-Type": "application/json"})
        assert r.status_code == 200, r.text
    finally:
        unconfigure(server, "mutatingwebhookconfigurations", name)


@pytest.mark.parametrize("service, cause", [
    ({"name": "no-such-service"}, 'service "no-such-service" not found'),
    ({"name": "hooks", "port": 8443}, 'no service port 8443 found for service "hooks"'),
    ({"name": "hooks", "path": "/check"}, "dial tcp {ip}:443: connect: connection refused"),
    ({"name": "headless"}, 'cannot route to service with ClusterIP "None"'),
])
def test_service_reference_without_endpoints(server, ns, service, cause):
    """A Service whose pods never run (a selector, no ready endpoint): the call fails as on a kind cluster."""
    services = f"{server.url}/api/v1/namespaces/{ns}/services"
    spec = {"selector": {"app": "hooks"}, "ports": [{"port": 443, "targetPort": 8443}]}
    created = requests.post(services, json={"metadata": {"name": "hooks"}, "spec": spec})
    assert created.status_code == 201, created.text
    assert requests.post(services, json={"metadata": {"name": "headless"},
                                         "spec": {**spec, "clusterIP": "None"}}).status_code == 201
    cause = cause.format(ip=created.json()["spec"]["clusterIP"])
    service = {**service, "namespace": ns}
    cfg = configure(server, "validatingwebhookconfigurations", ns, clientConfig={"service": service})
    try:
        r = cm(server, ns, "refused")
        assert r.status_code == 500, r.text
        path = service.get("path", "/")
        err = (f'failed calling webhook "{cfg}.example.com": failed to call webhook: Post '
               f'"https://{service["name"]}.{ns}.svc:{service.get("port", 443)}{path}?timeout=10s": {cause}')
        assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": f"Internal error occurred: {err}", "reason": "InternalError",
                            "details": {"causes": [{"message": err}]}, "code": 500}
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)
    cfg = configure(server, "validatingwebhookconfigurations", ns, clientConfig={"service": service},
                    failurePolicy="Ignore")
    try:
        assert cm(server, ns, "ignored").status_code == 201
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)


def test_untrusted_certificate_fails_closed(server, hook, ns):
    cfg = configure(server, "validatingwebhookconfigurations", ns, clientConfig={"url": f"{hook.url}/allow"})
    try:
        r = cm(server, ns, "untrusted")
        assert r.status_code == 500
        assert r.json()["message"].endswith(
            f'Post "{hook.url}/allow?timeout=10s": tls: failed to verify certificate: x509: certificate signed by '
            "unknown authority")
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)


def test_a_slow_webhook_does_not_stall_the_server(server, hook, ns):
    cfg = configure(server, "validatingwebhookconfigurations", ns,
                    clientConfig={"url": f"{hook.url}/hold", "caBundle": hook.ca_bundle}, timeoutSeconds=30)
    hook.release.clear()
    result: list[requests.Response] = []
    writer = threading.Thread(target=lambda: result.append(cm(server, ns, "held", timeout=60)))
    try:
        calls = len(hook.reviews)
        writer.start()
        for _ in range(3000):  # until the webhook holds the call (no sleeping: each GET takes its own time)
            if len(hook.reviews) > calls:
                break
            requests.get(f"{server.url}/version", timeout=5)
        assert len(hook.reviews) > calls, "the webhook was never called"
        assert requests.get(f"{server.url}/version", timeout=5).status_code == 200  # the loop still answers
        assert not result  # while the write still waits for the webhook
    finally:
        hook.release.set()
        writer.join(60)
        unconfigure(server, "validatingwebhookconfigurations", cfg)
    assert result and result[0].status_code == 201, result


def test_a_review_without_response_fails_closed(server, hook, ns):
    cfg = configure(server, "mutatingwebhookconfigurations", ns,
                    clientConfig={"url": f"{hook.url}/absent", "caBundle": hook.ca_bundle})
    try:
        r = cm(server, ns, "absent")
        assert r.status_code == 500
        assert r.json()["message"] == (f'Internal error occurred: failed calling webhook "{cfg}.example.com": '
                                       "received invalid webhook response: webhook response was absent")
    finally:
        unconfigure(server, "mutatingwebhookconfigurations", cfg)


def test_match_conditions_decide_the_call(server, hook, ns):
    """`matchConditions` (admission/matchconditions.py): false skips the webhook; an evaluation error skips it
    under `Ignore` and refuses the request under `Fail` (`ShouldCallHook`'s 403)."""
    conditions = [{"name": "named", "expression": "object.metadata.name.startsWith('deny')"},
                  {"name": "flagged", "expression": "object.data.flag == 'on'"}]
    cfg = configure(server, "validatingwebhookconfigurations", ns, matchConditions=conditions,
                    clientConfig={"url": f"{hook.url}/deny", "caBundle": hook.ca_bundle})
    try:
        calls = len(hook.reviews)
        assert cm(server, ns, "other").status_code == 201  # first condition false: not called (no flag needed)
        assert len(hook.reviews) == calls
        r = cm(server, ns, "deny-no-flag")  # `data.flag` missing: an evaluation error under Fail
        assert r.status_code == 403, r.text
        assert r.json()["message"] == ('configmaps "deny-no-flag" is forbidden: expression '
                                       "'object.data.flag == 'on'' resulted in error: no such key: flag")
        assert len(hook.reviews) == calls
        r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/configmaps",
                          json={"metadata": {"name": "deny-flagged"}, "data": {"flag": "on"}})
        assert r.status_code == 403 and "denied the request" in r.json()["message"], r.text
        assert len(hook.reviews) == calls + 1
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)
    cfg = configure(server, "mutatingwebhookconfigurations", ns, matchConditions=conditions, failurePolicy="Ignore",
                    clientConfig={"url": f"{hook.url}/label", "caBundle": hook.ca_bundle})
    try:
        r = cm(server, ns, "deny-ignored")  # the same error under Ignore: skipped, no label
        assert r.status_code == 201 and not r.json()["metadata"].get("labels"), r.text
        assert len(hook.reviews) == calls + 1
    finally:
        unconfigure(server, "mutatingwebhookconfigurations", cfg)


def test_match_condition_errors_are_in_cel_gos_words(server, hook, ns):
    """A matchCondition's conversion error is cel-go's (`common/types/string.go`: `time.ParseDuration` refuses
    `33hmhh9`, which cel-rust read as 1d9h; `1µs` it refused, Go reads)."""
    conditions = [{"name": "short", "expression": "duration(object.data.every) < duration('1s')"}]
    cfg = configure(server, "validatingwebhookconfigurations", ns, matchConditions=conditions,
                    clientConfig={"url": f"{hook.url}/deny", "caBundle": hook.ca_bundle})
    url = f"{server.url}/api/v1/namespaces/{ns}/configmaps"
    try:
        r = requests.post(url, json={"metadata": {"name": "bad"}, "data": {"every": "33hmhh9"}})
        assert r.status_code == 403, r.text
        assert r.json()["message"] == ('configmaps "bad" is forbidden: expression '
                                       "'duration(object.data.every) < duration('1s')' resulted in error: type "
                                       "conversion error from 'string' to 'google.protobuf.Duration'")
        r = requests.post(url, json={"metadata": {"name": "micro"}, "data": {"every": "1µs"}})
        assert r.status_code == 403 and "denied the request" in r.json()["message"], r.text
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)


def test_match_conditions_ask_the_authorizer(server, hook, ns):
    """`authorizer` in matchConditions (`matchconditions/matcher.go` compiles them with it): without RBAC every
    check is allowed (AlwaysAllow), so a condition that needs a denial skips the webhook."""
    conditions = [{"name": "may", "expression": "authorizer.group('').resource('secrets').namespace(request.namespace)"
                                                ".check('delete').allowed()"},
                  {"name": "own", "expression": "authorizer.requestResource.check('create').allowed()"}]
    cfg = configure(server, "validatingwebhookconfigurations", ns, matchConditions=conditions,
                    clientConfig={"url": f"{hook.url}/deny", "caBundle": hook.ca_bundle})
    try:
        r = cm(server, ns, "asked")
        assert r.status_code == 403 and "denied the request" in r.json()["message"], r.text
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)
    conditions = [{"name": "never", "expression": "!authorizer.path('/healthz').check('get').allowed()"}]
    cfg = configure(server, "validatingwebhookconfigurations", ns, matchConditions=conditions,
                    clientConfig={"url": f"{hook.url}/deny", "caBundle": hook.ca_bundle})
    try:
        assert cm(server, ns, "skipped").status_code == 201
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)


def test_a_mutating_webhook_s_patch_decodes_raw_json_again_compacted(server, hook, ns):
    """A patch that leaves `data` alone still re-decodes the whole object from the patched JSON (the object's own
    JSON, `data` compacted, kept by evanphx/json-patch): the escape stays, the whitespace is gone from the stored
    bytes, so an update sending the first bytes again is refused and one sending the compacted bytes passes."""
    name = configure(server, MUTATING, ns, None, f"{hook.url}/addlabel-hooked", hook.ca_bundle,
                     ["controllerrevisions"], operations=["CREATE"])
    try:
        path = f"{server.url}/apis/apps/v1/namespaces/{ns}/controllerrevisions"

        def rev(data: str, rv: str = "") -> bytes:
            meta = '{"name":"raw"' + (f',"resourceVersion":"{rv}"' if rv else "") + "}"
            return f'{{"metadata":{meta},"revision":1,"data":{data}}}'.encode()

        r = requests.post(path, data=rev('{ "s" : "\\u00e9" }'), headers={"Content-Type": "application/json"})
        assert r.status_code == 201, r.text
        assert r.json()["metadata"]["labels"] == {"hooked": "yes"}
        assert '"data":{"s":"\\u00e9"}' in r.text
        rv = r.json()["metadata"]["resourceVersion"]
        r = requests.put(f"{path}/raw", data=rev('{ "s" : "\\u00e9" }', rv), headers={"Content-Type": "application/json"})
        assert r.status_code == 422 and r.json()["details"]["causes"][0]["field"] == "data", r.text
        r = requests.put(f"{path}/raw", data=rev('{"s":"\\u00e9"}', rv), headers={"Content-Type": "application/json"})
        assert r.status_code == 200, r.text
    finally:
        unconfigure(server, "mutatingwebhookconfigurations", name)


def test_a_webhook_is_sent_a_built_in_object_with_the_fields_go_writes(server, hook, ns):
    """`json.Marshal` of the typed object decoded from the body (admissionreview.go): the zero values Go always
    writes (a non-`omitempty` string, a by-value struct, a zero Time as `null`), no empty `omitempty` slice, and
    an empty slice without `omitempty` as `[]` (decoded from JSON it is not nil; the stored object, read back
    from protobuf, has `null` there)."""
    name = configure(server, MUTATING, ns, None, f"{hook.url}/allow", hook.ca_bundle, ["events", "roles"],
                     operations=["CREATE"], api_groups=["", "rbac.authorization.k8s.io"])
    try:
        r = requests.post(f"{server.url}/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles",
                          json={"metadata": {"name": "r", "finalizers": []}, "rules": []})
        assert r.status_code == 201, r.text
        sent = json.loads(hook.raw[-1])["request"]["object"]
        assert sent["rules"] == [] and "finalizers" not in sent["metadata"], sent
        assert r.json()["rules"] is None
        r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/events",
                          json={"metadata": {"name": "e"}, "involvedObject": {"kind": "Pod", "name": "p"}})
        assert r.status_code == 201, r.text
        sent = json.loads(hook.raw[-1])["request"]["object"]
        assert sent["reportingComponent"] == "" and sent["reportingInstance"] == "", sent
        assert sent["source"] == {} and sent["firstTimestamp"] is None and sent["eventTime"] is None, sent
    finally:
        unconfigure(server, MUTATING, name)

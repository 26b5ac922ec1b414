"""Error envelopes for malformed and hostile input; stored objects survive them (NS-04, NS-05, NS-22)."""
from __future__ import annotations

import socket

import pytest
import requests

from .conftest import status_of

ACCEPTED = ("the body of the request was in an unknown format - accepted media types include: application/json, "
            "application/yaml, application/vnd.kubernetes.protobuf")


def raw_get(url: str, path: str) -> tuple[int, bytes]:
    host, port = url[len("http://"):].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=5) as c:
        c.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := c.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


@pytest.fixture
def survivor(http, url, namespaces):
    ns = namespaces.create(labels={"keep": "me"})
    name = ns["metadata"]["name"]
    http.post(f"{url}/api/v1/namespaces/{name}/configmaps", json={"metadata": {"name": "c"}, "data": {"a": "b"}})
    yield name
    got = http.get(f"{url}/api/v1/namespaces/{name}").json()
    assert got["metadata"]["labels"]["keep"] == "me" and got["status"]["phase"] == "Active"
    assert http.get(f"{url}/api/v1/namespaces/{name}/configmaps/c").json()["data"] == {"a": "b"}


def test_unknown_path_under_api_v1_ns04(http, url):
    for path in ("/api/v1/foos", "/api/v1/list/configmaps", "/api/v1/namespaces/default/foos",
                 "/api/v1/namespaces/default/configmaps/c/sub", "/api/v1/watch/foos", "/api/v1/namespaces/x/status/y"):
        st = status_of(http.get(url + path))
        assert st == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                      "message": "the server could not find the requested resource", "reason": "NotFound",
                      "details": {}, "code": 404}, path


def test_paths_outside_prefixes_ns05(http, url):
    # (`/` and `/index.html` are the root index: health/index.py)
    for path in ("/foo", "/index.htm", "/apis/apps/v2", "/apis/example.com/v1", "/api/v2", "/metrics2"):
        r = http.get(url + path)
        assert r.status_code == 404 and r.text == "404 page not found\n", path
        assert r.headers["Content-Type"].startswith("text/plain")


@pytest.mark.parametrize("method, path", [("PUT", "/api/v1/namespaces"), ("DELETE", "/api/v1/namespaces"),
                                          ("POST", "/api/v1/namespaces/x/status"),
                                          ("DELETE", "/api/v1/namespaces/x/status"),
                                          ("POST", "/api/v1/namespaces/x"), ("POST", "/api/v1/watch/namespaces"),
                                          ("PUT", "/api/v1/namespaces/x/configmaps"),
                                          ("POST", "/api/v1/namespaces/x/configmaps/y"), ("POST", "/version"),
                                          ("DELETE", "/api")])
def test_wrong_methods_405(http, url, method, path):
    st = status_of(http.request(method, url + path, json={}))
    assert st["code"] == 405 and st["message"] == "the server does not allow this method on the requested resource"


def test_bad_json_ns22(http, url, survivor):
    r = http.post(f"{url}/api/v1/namespaces", data=b"{bad", headers={"Content-Type": "application/json"})
    st = status_of(r)
    assert st["code"] == 400 and st["reason"] == "BadRequest"
    assert st["message"].startswith("the object provided is unrecognized (must be of type Namespace): ")
    assert st["message"].endswith("({bad)")
    st = status_of(http.put(f"{url}/api/v1/namespaces/{survivor}", data=b"\x00\x01",
                            headers={"Content-Type": "application/json"}))
    assert st["code"] == 400 and st["message"].endswith("(0001)")
    st = status_of(http.post(f"{url}/api/v1/namespaces", data=b"", headers={"Content-Type": "application/json"}))
    assert st["code"] == 400 and st["message"].endswith("(<empty>)")


def test_wrong_kind_and_version_ns22(http, url, survivor):
    st = status_of(http.post(f"{url}/api/v1/namespaces", json={"kind": "ConfigMap", "metadata": {"name": "x"}}))
    assert st["code"] == 400 and st["message"].startswith('ConfigMap in version "v1" cannot be handled as a Namespace')
    # a version and kind the scheme does not register: `Scheme.New`'s error (json.go via `UseOrCreateObject`)
    st = status_of(http.post(f"{url}/api/v1/namespaces", json={"apiVersion": "apps/v1", "kind": "Namespace"}))
    assert st["code"] == 400 and st["message"] == (
        'Namespace in version "v1" cannot be handled as a Namespace: no kind "Namespace" is registered for version '
        '"apps/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"')
    st = status_of(http.put(f"{url}/api/v1/namespaces/{survivor}/configmaps/c",
                            json={"kind": "Namespace", "metadata": {"name": "c"}}))
    assert st["code"] == 400
    st = status_of(http.post(f"{url}/api/v1/namespaces", json={"metadata": {"name": ["list"]}}))
    assert st["code"] == 400 and "cannot unmarshal array" in st["message"]


def test_unknown_content_type_415_ns22(http, url, survivor):
    for ctype in ("text/plain", "application/xml", "application/x-www-form-urlencoded"):
        st = status_of(http.post(f"{url}/api/v1/namespaces", data=b"{}", headers={"Content-Type": ctype}))
        assert st["code"] == 415 and st["message"] == ACCEPTED
    st = status_of(http.put(f"{url}/api/v1/namespaces/{survivor}", data=b"{}", headers={"Content-Type": "text/csv"}))
    assert st["code"] == 415


def test_yaml_body_accepted(http, url, namespaces):
    name = namespaces.name()
    r = http.post(f"{url}/api/v1/namespaces", data=f"metadata:\n  name: {name}\n",
                  headers={"Content-Type": "application/yaml"})
    assert r.status_code == 201 and r.json()["spec"]["finalizers"] == ["kubernetes"]


def test_huge_body_413(http, url, survivor):
    big = b'{"metadata":{"name":"x"},"data":{"k":"' + b"a" * (3 * 1024 * 1024) + b'"}}'
    st = status_of(http.post(f"{url}/api/v1/namespaces/{survivor}/configmaps", data=big,
                             headers={"Content-Type": "application/json"}))
    assert st["code"] == 413 and st["reason"] == "RequestEntityTooLarge"
    st = status_of(http.patch(f"{url}/api/v1/namespaces/{survivor}", data=big,
                              headers={"Content-Type": "application/merge-patch+json"}))
    assert st["code"] == 413


def test_weird_paths(http, url, survivor):
    code, body = raw_get(url, "/api/v1/namespaces/..")
    assert code == 400 and b"Name parameter invalid: \\\"..\\\": may not be '..'" in body
    code, body = raw_get(url, "/api/v1/namespaces/%25")
    assert code == 400 and b"may not contain '%'" in body
    st = status_of(http.get(f"{url}/api/v1/namespaces/{survivor}/configmaps/a%25%01%C3%A9"))  # `%q` of the name
    assert st["message"] == 'Name parameter invalid: "a%\\x01é": may not contain \'%\''
    code, body = raw_get(url, f"/api/v1/namespaces/{survivor}%2Fconfigmaps")
    assert code == 200 and b"ConfigMapList" in body  # %2F decodes into a separator, as Go's URL.Path does
    code, body = raw_get(url, f"/api/v1/namespaces/{survivor}/configmaps/..")
    assert code == 400
    r = http.get(f"{url}/api/v1/namespaces/caf%C3%A9")
    assert status_of(r)["message"] == 'namespaces "café" not found'
    st = status_of(http.post(f"{url}/api/v1/namespaces", json={"metadata": {"name": "café"}}))
    assert st["code"] == 422


def test_bad_patches(http, url, survivor):
    for ctype, body in (("application/merge-patch+json", b"{nope"), ("application/json-patch+json", b'{"op":1}'),
                        ("application/strategic-merge-patch+json", b"[1]")):
        r = http.patch(f"{url}/api/v1/namespaces/{survivor}", data=body, headers={"Content-Type": ctype})
        assert r.status_code in (400, 422) and status_of(r)["status"] == "Failure"
    # another kind: `DecodeInto` decodes a v1 Pod, which has no conversion to core.Namespace (the 422 on `patch`)
    r = http.patch(f"{url}/api/v1/namespaces/{survivor}", data=b'[{"op":"replace","path":"/kind","value":"Pod"}]',
                   headers={"Content-Type": "application/json-patch+json"})
    assert r.status_code == 422 and r.json()["details"]["causes"][0]["message"].endswith(
        ": converting (v1.Pod) to (core.Namespace): unknown conversion")


def test_invalid_query_values(http, url, survivor):
    assert status_of(http.get(f"{url}/api/v1/namespaces", params={"limit": "x"}))["code"] == 400
    assert status_of(http.get(f"{url}/api/v1/namespaces", params={"continue": "garbage!!"}))["code"] == 400
    assert status_of(http.get(f"{url}/api/v1/namespaces", params={"watch": "1", "timeoutSeconds": "x"}))["code"] == 400
    assert status_of(http.post(f"{url}/api/v1/namespaces", params={"dryRun": "Some"},
                               json={"metadata": {"name": "dr"}}))["code"] == 422
    # a DeleteOptions body's decoding error is not wrapped (delete.go `scope.err(err, ...)`): `ErrorToAPIStatus`'s 500
    st = status_of(http.delete(f"{url}/api/v1/namespaces/{survivor}", data=b"{bad",
                               headers={"Content-Type": "application/json"}))
    assert (st["code"], st.get("reason"), st["message"]) == (
        500, None, "couldn't get version/kind; json parse error: invalid character 'b' looking for beginning of "
                   "object key string")


def test_not_acceptable(http, url):
    st = status_of(http.get(f"{url}/api/v1/namespaces/default", headers={"Accept": "text/html"}))
    assert st["code"] == 406 and st["reason"] == "NotAcceptable"
    r = http.get(f"{url}/api/v1/namespaces/default", headers={"Accept": "application/vnd.kubernetes.protobuf, "
                                                                         "application/json"})
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/vnd.kubernetes.protobuf"
    r = http.get(f"{url}/api/v1/namespaces/default", headers={"Accept": "application/vnd.kubernetes.protobuf;q=0.5, "
                                                                         "application/json"})
    assert r.status_code == 200 and r.json()["kind"] == "Namespace"


def test_no_traceback_on_garbage_methods(url):
    for method in ("OPTIONS", "TRACE"):
        st = status_of(requests.request(method, f"{url}/api/v1/namespaces"))
        assert st["code"] == 405
    r = requests.request("BREW", f"{url}/api/v1/namespaces")  # refused by the HTTP parser itself
    assert 400 <= r.status_code < 500 and "Traceback" not in r.text


def _get_when_routing_raises(exc: Exception) -> requests.Response:
    """A GET served by a fresh embedded server whose router raises `exc` (a bug, or a storage failure below)."""
    from conformance.reference_server.embedded import start_embedded

    srv = start_embedded()
    try:
        def fail(method, path):
            raise exc

        srv.server.ctx.router.resolve = fail
        return requests.get(f"{srv.url}/api/v1/namespaces")
    finally:
        srv.stop()


def test_internal_bug_is_a_logged_500_without_traceback(caplog):
    r = _get_when_routing_raises(ZeroDivisionError("secret detail"))
    # where kube-apiserver would have panicked: WithPanicRecovery's http.Error
    assert r.status_code == 500 and r.text == "This request caused apiserver to panic. Look in the logs for details.\n"
    assert r.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert r.headers["X-Content-Type-Options"] == "nosniff" and r.headers["Audit-Id"]
    assert any("apiserver panic'd serving GET /api/v1/namespaces" in rec.getMessage()
               for rec in caplog.records)


def test_a_backend_failure_is_error_to_api_status_fallback():
    """A storage failure (etcd unreachable, no quorum) is not a panic: upstream's storage returns the etcd client's
    error and the handler answers ErrorToAPIStatus's fallback, a 500 Status without a reason carrying its text."""
    from conformance.reference_server.storage import BackendError

    r = _get_when_routing_raises(BackendError("etcdserver: request timed out"))
    assert r.status_code == 500 and r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {},
                                                 "status": "Failure", "message": "etcdserver: request timed out",
                                                 "code": 500}

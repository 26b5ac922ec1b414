"""The connect subresources on a cluster without kubelets (http/connect.py over registry/podconnect.py; the dials
themselves: test_http_proxying.py):
`pods/{log,exec,attach,portforward,proxy}`, `services/proxy`, `nodes/proxy`, with upstream's answers
(`pkg/registry/core/pod/strategy.go` LogLocation/streamLocation/ResourceLocation, the service storage's
ResourceLocation, the node strategy's), through raw HTTP, kubectl 1.33 and the official `kubernetes` client."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import requests

from .conftest import status_of
from .kubectl_run import run_kubectl as _kubectl

TWO = {"metadata": {"name": "p"}, "spec": {
    "initContainers": [{"name": "i", "image": "busybox"}],
    "containers": [{"name": "c", "image": "nginx"}, {"name": "d", "image": "x"}]}}
ONE = {"metadata": {"name": "one"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
WEBSOCKET = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
             "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol": "v5.channel.k8s.io"}
SPDY = {"Connection": "Upgrade", "Upgrade": "SPDY/3.1", "X-Stream-Protocol-Version": "v4.channel.k8s.io"}


@pytest.fixture
def ns(http: requests.Session, url: str, namespaces: Any) -> str:
    name = namespaces.create("connect")["metadata"]["name"]
    for pod in (TWO, ONE):
        r = http.post(f"{url}/api/v1/namespaces/{name}/pods", json=pod)
        assert r.status_code == 201, r.text
    return name


def _error(r: requests.Response, code: int, reason: str, message: str) -> dict:
    assert r.status_code == code, r.text
    body = status_of(r)
    assert (body["reason"], body["message"]) == (reason, message)
    return body


def test_discovery_lists_the_subresources_with_upstreams_kinds_and_verbs(http: requests.Session, url: str) -> None:
    got = {r["name"]: (r["kind"], r["verbs"], r["namespaced"]) for r in http.get(f"{url}/api/v1").json()["resources"]}
    proxy = ["create", "delete", "get", "patch", "update"]
    assert got["pods/log"] == ("Pod", ["get"], True)
    assert got["pods/exec"] == ("PodExecOptions", ["create", "get"], True)
    assert got["pods/attach"] == ("PodAttachOptions", ["create", "get"], True)
    assert got["pods/portforward"] == ("PodPortForwardOptions", ["create", "get"], True)
    assert got["pods/proxy"] == ("PodProxyOptions", proxy, True)
    assert got["pods/ephemeralcontainers"] == ("Pod", ["get", "patch", "update"], True)
    assert got["pods/resize"] == ("Pod", ["get", "patch", "update"], True)
    assert got["services/proxy"] == ("ServiceProxyOptions", proxy, True)
    assert got["nodes/proxy"] == ("NodeProxyOptions", proxy, False)
    aggregated = http.get(f"{url}/api", headers={
        "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}).json()
    pods = next(r for r in aggregated["items"][0]["versions"][0]["resources"] if r["resource"] == "pods")
    subs = {s["subresource"]: s["responseKind"]["kind"] for s in pods["subresources"]}
    assert subs["exec"] == "PodExecOptions" and subs["resize"] == "Pod" and subs["log"] == "Pod"


def test_openapi_lists_the_connect_operations(http: requests.Session, url: str) -> None:
    paths = http.get(f"{url}/openapi/v3/api/v1").json()["paths"]
    base = "/api/v1/namespaces/{namespace}/pods/{name}"
    assert paths[f"{base}/exec"]["post"]["operationId"] == "connectCoreV1PostNamespacedPodExec"
    assert paths[f"{base}/log"]["get"]["operationId"] == "readCoreV1NamespacedPodLog"
    assert paths[f"{base}/proxy/{{path}}"]["head"]["operationId"] == "connectCoreV1HeadNamespacedPodProxyWithPath"
    assert paths[f"{base}/resize"]["patch"]["operationId"] == "patchCoreV1NamespacedPodResize"
    assert paths[f"{base}/ephemeralcontainers"]["put"]["operationId"] == "replaceCoreV1NamespacedPodEphemeralcontainers"
    assert paths["/api/v1/nodes/{name}/proxy"]["get"]["operationId"] == "connectCoreV1GetNodeProxy"


def test_log_of_an_unscheduled_pod_is_no_content(http: requests.Session, url: str, ns: str) -> None:
    r = http.get(f"{url}/api/v1/namespaces/{ns}/pods/one/log")
    assert (r.status_code, r.content) == (204, b"")  # LocationStreamer without a location: StreamObject's 204
    r = http.get(f"{url}/api/v1/namespaces/{ns}/pods/p/log", params={"container": "i", "follow": "true"})
    assert r.status_code == 204


def test_log_checks_its_container_and_options(http: requests.Session, url: str, ns: str) -> None:
    base = f"{url}/api/v1/namespaces/{ns}/pods"
    _error(http.get(f"{base}/p/log"), 400, "BadRequest",
           "a container name must be specified for pod p, choose one of: [i c d]")
    _error(http.get(f"{base}/p/log", params={"container": "z"}), 400, "BadRequest",
           "container z is not valid for pod p")
    _error(http.get(f"{base}/gone/log"), 404, "NotFound", 'pods "gone" not found')
    body = _error(http.get(f"{base}/one/log", params={"tailLines": "-1", "limitBytes": "0"}), 422, "Invalid",
                  'PodLogOptions "one" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, '
                  "limitBytes: Invalid value: 0: must be greater than 0]")
    assert body["details"]["kind"] == "PodLogOptions"
    _error(http.get(f"{base}/one/log", params={"sinceSeconds": "0"}), 422, "Invalid",
           'PodLogOptions "one" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0')
    _error(http.get(f"{base}/one/log", params={"tailLines": "x"}), 400, "BadRequest",
           'strconv.ParseInt: parsing "x": invalid syntax')
    _error(http.get(f"{base}/one/log", params={"limitBytes": ""}), 400, "BadRequest",  # Pointer_int64: no nil
           'strconv.ParseInt: parsing "": invalid syntax')
    _error(http.get(f"{base}/one/log", params={"tailLines": "x\ty"}), 400, "BadRequest",  # NumError's %q
           'strconv.ParseInt: parsing "x\\ty": invalid syntax')
    _error(http.get(f"{base}/one/log", params={"sinceTime": "2025-01-01T00:00:00Z", "sinceSeconds": "5"}), 422,
           "Invalid", 'PodLogOptions "one" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` '
           "may be specified")
    _error(http.get(f"{base}/one/log", params={"sinceTime": "yesterday"}), 400, "BadRequest",
           'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"')
    assert http.get(f"{base}/one/log", params={"sinceTime": "2025-01-01T00:00:00Z"}).status_code == 204
    # options are validated before the pod is read
    assert http.get(f"{base}/gone/log", params={"tailLines": "-1"}).status_code == 422
    assert http.post(f"{base}/one/log").status_code == 405


def test_a_pod_bound_to_a_missing_node_answers_the_nodes_not_found(http: requests.Session, url: str, ns: str) -> None:
    base = f"{url}/api/v1/namespaces/{ns}/pods"
    r = http.post(f"{base}/one/binding", json={"metadata": {"name": "one"}, "target": {"kind": "Node", "name": "n1"}})
    assert r.status_code == 201, r.text
    for sub in ("log", "exec", "attach", "portforward"):  # GetConnectionInfo reads the Node first
        _error(http.get(f"{base}/one/{sub}"), 404, "NotFound", 'nodes "n1" not found')
    node = f"n-{ns}"
    assert http.post(f"{url}/api/v1/nodes", json={"metadata": {"name": node}}).status_code == 201
    try:
        r = http.post(f"{base}/p/binding", json={"metadata": {"name": "p"}, "target": {"kind": "Node", "name": node}})
        assert r.status_code == 201, r.text
        # a Node that reports no address: GetPreferredNodeAddress's NoMatchError, a plain error (500)
        for r in (http.get(f"{base}/p/log", params={"container": "c"}), http.get(f"{url}/api/v1/nodes/{node}/proxy/")):
            assert r.status_code == 500, r.text
            assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                "message": "no preferred addresses found; known addresses: []", "code": 500}
    finally:
        http.delete(f"{url}/api/v1/nodes/{node}")


@pytest.mark.parametrize("sub", ["exec", "attach"])
def test_exec_and_attach_need_a_host_after_the_container_checks(http: requests.Session, url: str, ns: str,
                                                                sub: str) -> None:
    base = f"{url}/api/v1/namespaces/{ns}/pods"
    for method, headers in (("GET", WEBSOCKET), ("POST", SPDY), ("POST", {})):
        r = http.request(method, f"{base}/one/{sub}", params={"command": "ls", "stdout": "1"}, headers=headers)
        _error(r, 400, "BadRequest", "pod one does not have a host assigned")
    _error(http.post(f"{base}/p/{sub}", params={"command": "ls"}), 400, "BadRequest",
           "a container name must be specified for pod p, choose one of: [i c d]")
    _error(http.post(f"{base}/p/{sub}", params={"container": "i"}), 400, "BadRequest",
           "pod p does not have a host assigned")  # an init container is a valid target
    assert http.put(f"{base}/one/{sub}").status_code == 405


def test_portforward_and_the_proxies_answer_as_upstream(http: requests.Session, url: str, ns: str) -> None:
    base = f"{url}/api/v1/namespaces/{ns}"
    _error(http.post(f"{base}/pods/p/portforward", params={"ports": "80"}), 400, "BadRequest",
           "pod p does not have a host assigned")  # no container check
    _error(http.get(f"{base}/pods/one/proxy/healthz"), 400, "BadRequest", "address not allowed")
    _error(http.delete(f"{base}/pods/one:8080/proxy/"), 400, "BadRequest", "address not allowed")
    _error(http.get(f"{base}/pods/ftp:one:1/proxy"), 400, "BadRequest", 'invalid pod request "ftp:one:1"')
    _error(http.get(f"{base}/pods/gone/proxy"), 404, "NotFound", 'pods "gone" not found')
    r = http.patch(f"{base}/pods/one/status", data='{"status":{"podIP":"169.254.1.2","podIPs":[{"ip":"169.254.1.2"}]}}',
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200, r.text
    _error(http.get(f"{base}/pods/one/proxy/"), 400, "BadRequest", "address not allowed")  # link-local
    # (a pod IP that is global unicast is dialled: test_http_proxying.py)
    _error(http.get(f"{url}/api/v1/nodes/n1/proxy/stats"), 404, "NotFound", 'nodes "n1" not found')
    r = http.post(f"{base}/services", json={"metadata": {"name": "s"},
                                            "spec": {"ports": [{"name": "web", "port": 80}]}})
    assert r.status_code == 201, r.text
    _error(http.get(f"{base}/services/s:81/proxy/"), 503, "ServiceUnavailable",
           'no service port 81 found for service "s"')
    _error(http.get(f"{base}/services/s/proxy/"), 404, "NotFound", 'endpoints "s" not found')
    r = http.post(f"{base}/endpoints", json={"metadata": {"name": "s"}, "subsets": [
        {"addresses": [{"ip": "10.0.0.9"}], "ports": [{"name": "web", "port": 80}]}]})
    assert r.status_code == 201, r.text
    # an address that names no pod of the namespace is skipped (isValidAddress): the whole id is named
    _error(http.get(f"{base}/services/s:80/proxy/"), 503, "ServiceUnavailable",
           'no endpoints available for service "s:80"')
    r = http.put(f"{base}/endpoints/s", json={"metadata": {"name": "s"}})
    assert r.status_code == 200, r.text
    _error(http.get(f"{base}/services/s/proxy/"), 503, "ServiceUnavailable", 'no endpoints available for service "s"')


def test_the_kubernetes_client(url: str, ns: str) -> None:
    from kubernetes import client
    from kubernetes.stream import stream

    cfg = client.Configuration()
    cfg.host = url
    api = client.CoreV1Api(client.ApiClient(cfg))
    assert api.read_namespaced_pod_log("one", ns) in (None, "")  # the 204
    with pytest.raises(client.ApiException) as info:
        stream(api.connect_get_namespaced_pod_exec, "one", ns, command=["ls"], stdout=True, stderr=True, stdin=False,
               tty=False)
    # the WebSocket handshake is refused with the Status (websocket-client's bad status, wrapped with status 0)
    assert info.value.status == 0 and "Handshake status 400 Bad Request" in str(info.value)
    assert "pod one does not have a host assigned" in str(info.value)



def test_kubectl_logs_exec_attach_and_port_forward(url: str, ns: str, tmp_path: Path) -> None:
    proc = _kubectl(url, tmp_path, "logs", "-n", ns, "one")
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr
    # WebSocket first (its refusal is an upgrade failure), then SPDY: the Status either way
    proc = _kubectl(url, tmp_path, "exec", "-n", ns, "one", "--", "ls")
    assert proc.returncode == 1
    assert proc.stderr.strip() == "Error from server (BadRequest): pod one does not have a host assigned"
    proc = _kubectl(url, tmp_path, "attach", "-n", ns, "one")
    assert proc.returncode == 1
    assert proc.stderr.strip().endswith("Error from server (BadRequest): pod one does not have a host assigned")
    proc = _kubectl(url, tmp_path, "port-forward", "-n", ns, "pod/one", "8080:80")  # kubectl checks the phase
    assert proc.returncode == 1
    assert "unable to forward port because pod is not running. Current status=Pending" in proc.stderr


def test_rbac_asks_for_the_subresource_with_the_methods_verb(tmp_path: Path) -> None:
    """`pods/exec` with `get` for a GET (a WebSocket upgrade too: 1.33 has no
    AuthorizePodWebsocketUpgradeCreatePermission) and `create` for a POST (SPDY)."""
    from conformance.reference_server.embedded import start_embedded

    users = tmp_path / "users.csv"
    users.write_text('admin-token,admin,1,"system:masters"\nalice-token,alice,2,"dev"\n')
    srv = start_embedded(authorization="rbac", users_file=str(users))
    admin = {"Authorization": "Bearer admin-token"}
    alice = {"Authorization": "Bearer alice-token"}
    try:
        base = f"{srv.url}/api/v1/namespaces/default"
        assert requests.post(f"{base}/pods", json=ONE, headers=admin).status_code == 201
        role = {"metadata": {"name": "exec"}, "rules": [{"apiGroups": [""], "resources": ["pods/exec"],
                                                         "verbs": ["get"]}]}
        rb = {"metadata": {"name": "exec"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                                        "name": "exec"},
              "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}]}
        rbac = f"{srv.url}/apis/rbac.authorization.k8s.io/v1/namespaces/default"
        assert requests.post(f"{rbac}/roles", json=role, headers=admin).status_code == 201
        assert requests.post(f"{rbac}/rolebindings", json=rb, headers=admin).status_code == 201
        r = requests.get(f"{base}/pods/one/exec", params={"command": "ls"}, headers={**alice, **WEBSOCKET})
        _error(r, 400, "BadRequest", "pod one does not have a host assigned")
        r = requests.post(f"{base}/pods/one/exec", params={"command": "ls"}, headers={**alice, **SPDY})
        _error(r, 403, "Forbidden", 'pods "one" is forbidden: User "alice" cannot create resource "pods/exec" in API '
                                    'group "" in the namespace "default"')
        r = requests.get(f"{base}/pods/one/log", headers=alice)
        _error(r, 403, "Forbidden", 'pods "one" is forbidden: User "alice" cannot get resource "pods/log" in API '
                                    'group "" in the namespace "default"')
    finally:
        srv.stop()

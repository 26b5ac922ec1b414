"""Pods, Services and Secrets come back as kube-apiserver stores them: decode-time defaults, the always-on
admission plugins' mutations, strategy-set status, required fields refused with upstream's texts."""
from __future__ import annotations

import base64
import ipaddress

import pytest

from conformance.reference_server.registry.service import SERVICE_CIDR

from .conftest import status_of
from .gowritten_zeros import NODE_ZEROS


@pytest.fixture
def ns(namespaces):
    return namespaces.create()["metadata"]["name"]


def test_pod_defaults_and_status(http, url, ns):
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json={
        "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]},
                                                          {"name": "d", "image": "pause:3.9"}]}})
    assert r.status_code == 201, r.text
    pod = r.json()
    spec = pod["spec"]
    assert {k: spec[k] for k in ("restartPolicy", "dnsPolicy", "schedulerName", "terminationGracePeriodSeconds",
                                 "securityContext", "enableServiceLinks", "priority", "preemptionPolicy",
                                 "serviceAccountName")} == {
        "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler",
        "terminationGracePeriodSeconds": 30, "securityContext": {}, "enableServiceLinks": True, "priority": 0,
        "preemptionPolicy": "PreemptLowerPriority", "serviceAccountName": "default"}
    c, d = spec["containers"]
    assert (c["imagePullPolicy"], d["imagePullPolicy"]) == ("Always", "IfNotPresent")
    assert c["terminationMessagePath"] == "/dev/termination-log" and c["terminationMessagePolicy"] == "File"
    assert c["ports"] == [{"containerPort": 80, "protocol": "TCP"}] and c["resources"] == {}
    assert spec["tolerations"] == [
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
         "tolerationSeconds": 300}]
    assert pod["status"] == {"phase": "Pending", "qosClass": "BestEffort"}
    # status is the strategy's on update, too
    pod["status"] = {"phase": "Running"}
    r = http.put(f"{url}/api/v1/namespaces/{ns}/pods/p", json=pod)
    assert r.status_code == 200 and r.json()["status"]["phase"] == "Pending"


def test_pod_qos_guaranteed(http, url, ns):
    lim = {"cpu": "100m", "memory": "64Mi"}
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json={"metadata": {"name": "g"}, "spec": {"containers": [
        {"name": "c", "image": "pause", "resources": {"limits": lim}}]}})
    assert r.status_code == 201 and r.json()["status"]["qosClass"] == "Guaranteed"


def test_pod_nested_defaults(http, url, ns):
    """defaults.go's nested defaults (pods and pod templates alike): probes and their HTTP/gRPC actions, volume
    sources, `fieldRef.apiVersion`, resource lists rounded up to milli precision."""
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json={"metadata": {"name": "nested"}, "spec": {
        "volumes": [{"name": "scratch"}, {"name": "s", "secret": {"secretName": "x"}}, {"name": "h", "hostPath": {
            "path": "/x"}}, {"name": "p", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}},
            {"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {
                "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1n"}}}}}}],
        "containers": [{"name": "c", "image": "nginx:1", "resources": {"requests": {"cpu": "1n"}},
                        "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                        "livenessProbe": {"httpGet": {"port": 80}}, "readinessProbe": {"grpc": {"port": 9}},
                        "lifecycle": {"preStop": {"httpGet": {"port": 80, "path": "/stop"}}}}]}})
    assert r.status_code == 201, r.text
    spec = r.json()["spec"]
    assert spec["volumes"] == [
        {"name": "scratch", "emptyDir": {}}, {"name": "s", "secret": {"secretName": "x", "defaultMode": 420}},
        {"name": "h", "hostPath": {"path": "/x", "type": ""}},
        {"name": "p", "projected": {"sources": [{"serviceAccountToken": {"path": "t", "expirationSeconds": 3600}}],
                                    "defaultMode": 420}},
        {"name": "e", "ephemeral": {"volumeClaimTemplate": {"metadata": {"creationTimestamp": None}, "spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1m"}},
            "volumeMode": "Filesystem"}}}}]  # (a by-value ObjectMeta: its zero Time written `null`)
    [c] = spec["containers"]
    timing = {"timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3}
    assert c["livenessProbe"] == {"httpGet": {"port": 80, "path": "/", "scheme": "HTTP"}, **timing}
    assert c["readinessProbe"] == {"grpc": {"port": 9, "service": ""}, **timing}
    assert c["lifecycle"]["preStop"]["httpGet"] == {"port": 80, "path": "/stop", "scheme": "HTTP"}
    assert c["env"][0]["valueFrom"]["fieldRef"] == {"fieldPath": "metadata.name", "apiVersion": "v1"}
    assert c["resources"]["requests"] == {"cpu": "1m"}

@pytest.mark.parametrize("spec, message", [
    ({}, "spec.containers: Required value"),
    (None, "spec.containers: Required value"),
    ({"containers": [{"image": "pause"}]}, "spec.containers[0].name: Required value"),
    ({"containers": [{"name": "c"}]}, "spec.containers[0].image: Required value"),
    ({"containers": [{"name": "c", "image": "x"}, {"name": "c", "image": "y"}]},
     'spec.containers[1].name: Duplicate value: "c"'),
])
def test_pod_required_fields(http, url, ns, spec, message):
    body = {"metadata": {"name": "p"}, **({"spec": spec} if spec is not None else {})}
    st = status_of(http.post(f"{url}/api/v1/namespaces/{ns}/pods", json=body))
    assert st["code"] == 422 and st["message"] == f'Pod "p" is invalid: {message}'


def test_service_defaults_and_cluster_ip(http, url, ns):
    r = http.post(f"{url}/api/v1/namespaces/{ns}/services", json={"metadata": {"name": "s"},
                                                                   "spec": {"ports": [{"port": 80}]}})
    assert r.status_code == 201, r.text
    svc = r.json()
    spec = svc["spec"]
    assert spec["clusterIPs"] == [spec["clusterIP"]] and spec["clusterIP"].startswith("10.")
    assert {k: spec[k] for k in ("type", "sessionAffinity", "ipFamilies", "ipFamilyPolicy",
                                 "internalTrafficPolicy")} == {
        "type": "ClusterIP", "sessionAffinity": "None", "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
        "internalTrafficPolicy": "Cluster"}
    assert spec["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 80}]
    assert svc["status"] == {"loadBalancer": {}}
    # an update that omits the allocated IP keeps it
    r = http.put(f"{url}/api/v1/namespaces/{ns}/services/s", json={"metadata": {"name": "s"},
                                                                    "spec": {"ports": [{"port": 81}]}})
    assert r.status_code == 200 and r.json()["spec"]["clusterIP"] == spec["clusterIP"]
    st = status_of(http.post(f"{url}/api/v1/namespaces/{ns}/services", json={
        "metadata": {"name": "t"}, "spec": {"clusterIP": spec["clusterIP"], "ports": [{"port": 80}]}}))
    assert st["code"] == 422 and st["message"] == (
        f'Service "t" is invalid: spec.clusterIPs: Invalid value: []string{{"{spec["clusterIP"]}"}}: failed to '
        f'allocate IP {spec["clusterIP"]}: provided IP is already allocated')


def test_put_of_a_missing_service_creates_it(http, url, ns):
    """Service's strategy has `AllowCreateOnUpdate`: a PUT of a missing Service is a create (201) with the create's
    defaults, allocation (`beginCreate` runs on store.go's create-on-update path) and validation."""
    svc_url = f"{url}/api/v1/namespaces/{ns}/services"
    r = http.put(f"{svc_url}/made", json={"apiVersion": "v1", "kind": "Service", "metadata": {"name": "made"},
                                          "spec": {"type": "NodePort", "ports": [{"port": 80}]}})
    assert r.status_code == 201, r.text
    spec = r.json()["spec"]
    assert spec["clusterIPs"] == [spec["clusterIP"]] and ipaddress.ip_address(spec["clusterIP"]) in SERVICE_CIDR
    assert (spec["ipFamilies"], spec["ipFamilyPolicy"], spec["externalTrafficPolicy"]) == (
        ["IPv4"], "SingleStack", "Cluster")
    assert 30000 <= spec["ports"][0]["nodePort"] <= 32767
    assert spec["ports"][0]["targetPort"] == 80 and r.json()["status"] == {"loadBalancer": {}}
    assert http.get(f"{svc_url}/made").json()["spec"]["clusterIP"] == spec["clusterIP"]
    # the create's validation: its required fields and an IP already allocated
    st = status_of(http.put(f"{svc_url}/bad", json={"metadata": {"name": "bad"}}))
    assert st["code"] == 422 and st["message"] == 'Service "bad" is invalid: spec.ports: Required value'
    st = status_of(http.put(f"{svc_url}/dup", json={"metadata": {"name": "dup"}, "spec": {
        "clusterIP": spec["clusterIP"], "ports": [{"port": 80}]}}))
    assert st["code"] == 422 and "provided IP is already allocated" in st["message"]
    assert http.get(f"{svc_url}/dup").status_code == 404


def test_service_without_ports_is_invalid(http, url, ns):
    st = status_of(http.post(f"{url}/api/v1/namespaces/{ns}/services", json={"metadata": {"name": "s"}}))
    assert st["code"] == 422 and st["message"] == 'Service "s" is invalid: spec.ports: Required value'
    r = http.post(f"{url}/api/v1/namespaces/{ns}/services", json={"metadata": {"name": "h"},
                                                                   "spec": {"clusterIP": "None"}})
    assert r.status_code == 201 and r.json()["spec"]["clusterIPs"] == ["None"]


def test_secret_string_data_is_merged_into_data(http, url, ns):
    r = http.post(f"{url}/api/v1/namespaces/{ns}/secrets", json={
        "metadata": {"name": "s"}, "data": {"a": base64.b64encode(b"old").decode()}, "stringData": {"a": "new", "b": "x"}})
    assert r.status_code == 201
    body = r.json()
    assert "stringData" not in body and body["type"] == "Opaque"
    assert body["data"] == {"a": base64.b64encode(b"new").decode(), "b": base64.b64encode(b"x").decode()}


def test_nodes_status_is_served_as_upstreams_node_status_strategy():
    """`nodes/status` (nodeStatusStrategy: the spec kept) is in discovery and answers, as on a cluster."""
    import requests as rq

    from conformance.reference_server.embedded import start_embedded
    srv = start_embedded(flavor="bare")
    try:
        u = srv.url
        names = [r["name"] for r in rq.get(u + "/api/v1").json()["resources"]]
        assert "nodes/status" in names
        assert rq.post(u + "/api/v1/nodes", json={"metadata": {"name": "n1"},
                                                 "spec": {"podCIDR": "10.0.0.0/24"}}).status_code == 201
        node = rq.get(u + "/api/v1/nodes/n1/status").json()
        node["status"], node["spec"]["unschedulable"] = {"capacity": {"cpu": "4"}}, True
        got = rq.put(u + "/api/v1/nodes/n1/status", json=node).json()
        assert got["spec"] == {"podCIDR": "10.0.0.0/24", "podCIDRs": ["10.0.0.0/24"]}  # v1 conversion (node.py)
        assert got["status"] == {"capacity": {"cpu": "4"}, **NODE_ZEROS}
        paths = rq.get(u + "/openapi/v3/api/v1").json()["paths"]
        assert {"/api/v1/nodes/{name}/status", "/api/v1/namespaces/{namespace}/pods/{name}/status",
                "/api/v1/namespaces/{namespace}/services/{name}/status"} <= set(paths)
    finally:
        srv.stop()

"""Struct fields in answers, byte for byte: kube-apiserver decodes a built-in object into its Go type, so each
struct's fields come back in the Go struct's order (k8s.io/api v0.33 `types.go`; an inlined struct's fields at
its place), whatever order the client sent, in the create's answer, GET, LIST and watch alike (wire/gostructs.py,
at store time). Before, a struct kept the order sent, with the server's defaults after it."""
from __future__ import annotations

import json
from typing import Any

import requests

from tests.reference_server.conftest import unique
from tests.reference_server.crds import CRDS, create_crd

JSON = {"Content-Type": "application/json"}
MERGE = {"Content-Type": "application/merge-patch+json"}


def _answers(http: requests.Session, base: str, name: str, created: requests.Response) -> list[bytes]:
    """The create's answer, a GET, a LIST's only item and the watch's ADDED object, as raw bytes."""
    got = http.get(f"{base}/{name}").content
    listed = http.get(base, params={"fieldSelector": f"metadata.name={name}"}).content
    params = {"watch": "1", "resourceVersion": "0", "fieldSelector": f"metadata.name={name}", "timeoutSeconds": "1"}
    with http.get(base, params=params, stream=True) as r:
        watched = r.raw.read()
    return [created.content, got, listed, watched]


def _object(raw: bytes) -> dict[str, Any]:
    """The one object in a raw answer (an object, a list of one, a watch event), its keys in the bytes' order."""
    value = json.loads(raw.splitlines()[0])
    if "items" in value:
        (value,) = value["items"]
    return value.get("object", value) if value.get("type") == "ADDED" else value


def test_pod_fields_in_go_struct_order(http: requests.Session, url: str) -> None:
    name = unique("order")
    base = url + "/api/v1/namespaces/default/pods"
    body = ('{"metadata":{"name":"%s"},"kind":"Pod","apiVersion":"v1","spec":{"restartPolicy":"Never",'
            '"volumes":[{"configMap":{"name":"cm","optional":true},"name":"v"}],'
            '"containers":[{"readinessProbe":{"periodSeconds":5,"httpGet":{"port":80,"path":"/"}},'
            '"volumeMounts":[{"mountPath":"/m","name":"v"}],"image":"i","name":"c",'
            '"lifecycle":{"preStop":{"exec":{"command":["x"]}}}}]}}' % name)
    created = http.post(base, data=body, headers=JSON)
    assert created.status_code == 201, created.text
    try:
        for raw in _answers(http, base, name, created):
            pod = _object(raw)
            assert list(pod)[:3] == ["kind", "apiVersion", "metadata"], raw
            spec = pod["spec"]
            keys = list(spec)
            assert keys.index("volumes") < keys.index("containers") < keys.index("restartPolicy") < \
                keys.index("terminationGracePeriodSeconds") < keys.index("dnsPolicy"), keys
            assert b'"volumes":[{"name":"v","configMap":{"name":"cm","defaultMode":420,"optional":true}}]' in raw
            (c,) = spec["containers"]
            assert list(c)[:2] == ["name", "image"], c
            assert list(c).index("volumeMounts") < list(c).index("readinessProbe") < list(c).index("lifecycle") < \
                list(c).index("terminationMessagePath") < list(c).index("imagePullPolicy"), list(c)
            # ProbeHandler inlined at Probe's head, then Probe's own fields in order
            assert b'"readinessProbe":{"httpGet":{"path":"/","port":80,"scheme":"HTTP"},"timeoutSeconds":1,' \
                   b'"periodSeconds":5,"successThreshold":1,"failureThreshold":3}' in raw, raw
            assert b'"volumeMounts":[{"name":"v","mountPath":"/m"}]' in raw
    finally:
        http.delete(f"{base}/{name}", params={"gracePeriodSeconds": "0"})


def _spec_in_order(http: requests.Session, base: str, name: str, body: str, fragment: bytes,
                   order: tuple[str, ...]) -> None:
    """Create `body`; every answer holds `fragment` and its spec's keys `order` in that order."""
    created = http.post(base, data=body, headers=JSON)
    assert created.status_code == 201, created.text
    try:
        for raw in _answers(http, base, name, created):
            assert fragment in raw, raw
            keys = list(_object(raw)["spec"])
            assert [keys.index(k) for k in order] == sorted(keys.index(k) for k in order), keys
    finally:
        http.delete(f"{base}/{name}")


def test_service_fields_in_go_struct_order(http: requests.Session, url: str) -> None:
    name = unique("order")
    body = ('{"apiVersion":"v1","kind":"Service","metadata":{"name":"%s"},"spec":{"type":"ClusterIP",'
            '"selector":{"b":"1","a":"2"},"ports":[{"targetPort":8080,"port":80,"name":"http"}]}}' % name)
    _spec_in_order(http, url + "/api/v1/namespaces/default/services", name, body,
                   b'"spec":{"ports":[{"name":"http","protocol":"TCP","port":80,"targetPort":8080}],'
                   b'"selector":{"a":"2","b":"1"},"clusterIP":"',
                   ("clusterIPs", "type", "sessionAffinity", "ipFamilies", "ipFamilyPolicy", "internalTrafficPolicy"))


def test_deployment_fields_in_go_struct_order(http: requests.Session, url: str) -> None:
    name = unique("order")
    body = ('{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"%s"},"spec":{'
            '"template":{"spec":{"containers":[{"image":"i","name":"c"}]},"metadata":{"labels":{"app":"x"}}},'
            '"selector":{"matchLabels":{"app":"x"}},"replicas":2}}' % name)
    _spec_in_order(http, url + "/apis/apps/v1/namespaces/default/deployments", name, body,
                   b'"spec":{"replicas":2,"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":'
                   b'{"creationTimestamp":null,"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i",',
                   ("template", "strategy", "revisionHistoryLimit", "progressDeadlineSeconds"))


def test_crd_fields_in_go_struct_order(http: requests.Session, url: str) -> None:
    group = f"{unique('order')}.example.com"
    body = {"kind": "CustomResourceDefinition", "apiVersion": "apiextensions.k8s.io/v1",
            "metadata": {"name": f"gadgets.{group}"},
            "spec": {"versions": [{"schema": {"openAPIV3Schema": {"properties": {"s": {
                "maxLength": 3, "type": "string", "description": "d"}}, "type": "object"}},
                "storage": True, "served": True, "name": "v1"}],
                "scope": "Namespaced", "names": {"kind": "Gadget", "plural": "gadgets"}, "group": group}}
    created = create_crd(http, url, body)
    assert created.status_code == 201, created.text
    base = url + CRDS
    try:
        for raw in _answers(http, base, f"gadgets.{group}", created):
            crd = _object(raw)
            assert list(crd) == ["kind", "apiVersion", "metadata", "spec", "status"], raw
            assert list(crd["spec"])[:4] == ["group", "names", "scope", "versions"], raw
            assert b'"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":' \
                   b'{"type":"object","properties":{"s":{"description":"d","type":"string","maxLength":3}}}}}]' \
                   in raw, raw
            assert b'"names":{"plural":"gadgets","singular":"gadget","kind":"Gadget","listKind":"GadgetList"}' \
                in raw, raw
    finally:
        http.delete(f"{base}/gadgets.{group}")


def test_binding_writes_in_go_struct_order(http: requests.Session, url: str) -> None:
    """pods/binding changes the stored pod itself (`BindingREST`): its `nodeName` lands in PodSpec's place, its
    annotations merged sorted, the PodScheduled condition after `phase` (PodStatus's order)."""
    name = unique("order")
    base = url + "/api/v1/namespaces/default/pods"
    created = http.post(base, json={"metadata": {"name": name, "annotations": {"m": "1"}},
                                    "spec": {"containers": [{"name": "c", "image": "i"}]}})
    assert created.status_code == 201, created.text
    try:
        bound = http.post(f"{base}/{name}/binding", json={"metadata": {"name": name, "annotations": {"a": "2"}},
                                                         "target": {"kind": "Node", "name": "n1"}})
        assert bound.status_code == 201, bound.text
        raw = http.get(f"{base}/{name}").content
        assert b'"annotations":{"a":"2","m":"1"}' in raw, raw
        spec, status = list(_object(raw)["spec"]), list(_object(raw)["status"])
        assert spec.index("serviceAccountName") < spec.index("nodeName") < spec.index("securityContext"), spec
        assert status[:3] == ["phase", "conditions", "qosClass"], status
    finally:
        http.delete(f"{base}/{name}", params={"gracePeriodSeconds": "0"})


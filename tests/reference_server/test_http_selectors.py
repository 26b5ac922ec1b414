"""LIST with label and field selectors over HTTP and through the official client: what `labels.Parse` /
`fields.ParseSelector` accept matches as upstream, what they refuse is a 400 BadRequest carrying their text
(apiserver's get.go `NewBadRequest(err.Error())`), and field labels are checked in the parsed (sorted) order."""
from __future__ import annotations

import json
from typing import Any, Iterator

import pytest
import requests

from .conftest import status_of, unique

CM = {"apiVersion": "v1", "kind": "ConfigMap"}


@pytest.fixture()
def ns(http: requests.Session, url: str) -> Iterator[str]:
    """A namespace with ConfigMaps `empty` (sel=""), `x` (sel=x), `five` (sel=5) and `none` (no label)."""
    name = unique("sel")
    assert http.post(f"{url}/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
    for cm, labels in (("empty", {"sel": ""}), ("x", {"sel": "x"}), ("five", {"sel": "5"}), ("none", {})):
        made = http.post(f"{url}/api/v1/namespaces/{name}/configmaps", json={**CM, "metadata": {
            "name": cm, "labels": labels}})
        assert made.status_code == 201, made.text
    yield name
    http.delete(f"{url}/api/v1/namespaces/{name}")


def _names(http: requests.Session, url: str, ns: str, **params: str) -> list[str]:
    r = http.get(f"{url}/api/v1/namespaces/{ns}/configmaps", params=params)
    assert r.status_code == 200, r.text
    return sorted(i["metadata"]["name"] for i in r.json()["items"])


@pytest.mark.parametrize("selector, names", [
    ("sel in ()", ["empty"]),
    ("sel in (x,)", ["empty", "x"]),
    ("sel in (,x)", ["empty", "x"]),
    ("sel notin ()", ["five", "none", "x"]),
    ("sel>4", ["five"]),
    ("sel<6", ["five"]),
    ("sel==", ["empty"]),
    ("sel in (x),sel", ["x"]),
])
def test_label_selector_matches(http: requests.Session, url: str, ns: str, selector: str,
                                names: list[str]) -> None:
    assert _names(http, url, ns, labelSelector=selector) == names


@pytest.mark.parametrize("selector, message", [
    ("sel in (x y)", "unable to parse requirement: found 'y', expected: ',' or ')'"),
    ("sel in (x,,)", "unable to parse requirement: found ')', expected: ',', or identifier"),
    ("sel in", "unable to parse requirement: found '' expected: '('"),
    ("!", "unable to parse requirement: found '', expected: identifier"),
    ("sel=x,", "found '', expected: identifier after ','"),
    (",sel", "found ',', expected: !, identifier, or 'end of string'"),
    ("sel>x", "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value "
              "must be an integer"),
])
def test_label_selector_refusals(http: requests.Session, url: str, ns: str, selector: str, message: str) -> None:
    st = status_of(http.get(f"{url}/api/v1/namespaces/{ns}/configmaps", params={"labelSelector": selector}))
    assert (st["code"], st["reason"], st["message"]) == (400, "BadRequest", message)


def test_field_selectors(http: requests.Session, url: str, ns: str) -> None:
    assert _names(http, url, ns, fieldSelector="=") == ["empty", "five", "none", "x"]
    assert _names(http, url, ns, fieldSelector="metadata.name==x,metadata.namespace=" + ns) == ["x"]
    refusals = {
        "metadata.name=a=b": "invalid field selector: unescaped character in value: 61",
        "metadata.name=\\q": "invalid field selector: invalid escape sequence: \\q",
        "metadata.name = x": '"metadata.name " is not a known field selector: only "metadata.name", '
                             '"metadata.namespace"',
        "zz=1,aa=2": '"aa" is not a known field selector: only "metadata.name", "metadata.namespace"',
        "zz=1,metadata.name=a=b": "invalid field selector: unescaped character in value: 61",
    }
    for selector, message in refusals.items():
        st = status_of(http.get(f"{url}/api/v1/namespaces/{ns}/configmaps", params={"fieldSelector": selector}))
        assert (st["code"], st["reason"], st["message"]) == (400, "BadRequest", message), selector


def test_official_client_label_selector(url: str, ns: str) -> None:
    from kubernetes import client as k
    from kubernetes.client.rest import ApiException

    cfg = k.Configuration()
    cfg.host = url
    with k.ApiClient(cfg) as api:
        core = k.CoreV1Api(api)
        got = core.list_namespaced_config_map(ns, label_selector="sel in (,x)")
        assert sorted(i.metadata.name for i in got.items) == ["empty", "x"]
        got = core.list_namespaced_config_map(ns, label_selector="sel>4")
        assert [i.metadata.name for i in got.items] == ["five"]
        with pytest.raises(ApiException) as e:
            core.list_namespaced_config_map(ns, label_selector="sel=x,")
    assert e.value.status == 400
    body: dict[str, Any] = json.loads(e.value.body)
    assert (body["reason"], body["message"]) == ("BadRequest", "found '', expected: identifier after ','")


def test_selectors_refused_before_list_options(http: requests.Session, url: str, ns: str) -> None:
    """`DecodeParameters` parses both selectors (400) before `ValidateListOptions` (422), and the field labels are
    converted after it; a watch and a DELETE of the collection read their options the same way."""
    path = f"{url}/api/v1/namespaces/{ns}/configmaps"
    st = status_of(http.get(path, params={"labelSelector": ",a", "resourceVersionMatch": "Exact"}))
    assert (st["code"], st["message"]) == (400, "found ',', expected: !, identifier, or 'end of string'")
    st = status_of(http.get(path, params={"fieldSelector": "a=\\q", "resourceVersionMatch": "Exact"}))
    assert (st["code"], st["message"]) == (400, "invalid field selector: invalid escape sequence: \\q")
    st = status_of(http.get(path, params={"fieldSelector": "zz=1", "resourceVersionMatch": "Exact"}))
    assert st["code"] == 422
    st = status_of(http.get(path, params={"watch": "1", "labelSelector": "sel in (x y)"}))
    assert (st["code"], st["message"]) == (400, "unable to parse requirement: found 'y', expected: ',' or ')'")
    st = status_of(http.delete(path, params={"labelSelector": "!", "resourceVersionMatch": "Exact"}))
    assert (st["code"], st["message"]) == (400, "unable to parse requirement: found '', expected: identifier")
    assert _names(http, url, ns) == ["empty", "five", "none", "x"]


def _listed(http: requests.Session, path: str, selector: str) -> list[str]:
    r = http.get(path, params={"fieldSelector": selector})
    assert r.status_code == 200, (selector, r.text)
    return sorted(i["metadata"]["name"] for i in r.json()["items"])


def test_field_values_of_built_in_kinds(http: requests.Session, url: str, ns: str) -> None:
    """Each kind's `ToSelectableFields`: Services' `spec.type`/`spec.clusterIP` (1.31+), pods' `spec.hostNetwork`
    (`FormatBool`, unset "false") and `spec.host` (renamed `spec.nodeName`), an RC's `status.replicas` (`Itoa`,
    unset "0"), an Event's `source` (`source.component`, else `reportingComponent`)."""
    base = f"{url}/api/v1/namespaces/{ns}"
    for name, spec in (("web", {"ports": [{"port": 80}]}), ("ext", {"type": "ExternalName", "externalName": "a.b"})):
        made = http.post(f"{base}/services", json={"metadata": {"name": name}, "spec": spec})
        assert made.status_code == 201, made.text
    assert _listed(http, f"{base}/services", "spec.type=ExternalName") == ["ext"]
    assert _listed(http, f"{base}/services", "spec.clusterIP!=None,spec.type==ClusterIP") == ["web"]
    st = status_of(http.get(f"{base}/services", params={"fieldSelector": "spec.ports=1"}))
    assert (st["code"], st["message"]) == (400, "field label not supported: spec.ports")

    made = http.post(f"{base}/pods", json={"metadata": {"name": "p"}, "spec": {
        "containers": [{"name": "c", "image": "nginx"}]}})
    assert made.status_code == 201, made.text
    assert _listed(http, f"{base}/pods", "spec.hostNetwork=false") == ["p"]
    assert _listed(http, f"{base}/pods", "spec.hostNetwork=true") == []
    assert _listed(http, f"{base}/pods", "spec.host=") == ["p"]

    made = http.post(f"{base}/replicationcontrollers", json={"metadata": {"name": "rc"}, "spec": {
        "replicas": 0, "selector": {"app": "x"}, "template": {"metadata": {"labels": {"app": "x"}}, "spec": {
            "containers": [{"name": "c", "image": "nginx"}]}}}})
    assert made.status_code == 201, made.text
    assert _listed(http, f"{base}/replicationcontrollers", "status.replicas=0") == ["rc"]

    involved = {"kind": "Pod", "name": "p", "namespace": ns}
    for name, extra in (("by-source", {"source": {"component": "kubelet"}}),
                        ("by-reporter", {"reportingComponent": "ctl", "reportingInstance": "i",
                                         "action": "Do", "eventTime": "2026-01-01T00:00:00.000000Z"})):
        made = http.post(f"{base}/events", json={"metadata": {"name": name}, "involvedObject": involved,
                                                 "reason": "R", **extra})
        assert made.status_code == 201, made.text
    assert _listed(http, f"{base}/events", "source=kubelet") == ["by-source"]
    assert _listed(http, f"{base}/events", "source=ctl") == ["by-reporter"]


def test_named_watch_field_selector(http: requests.Session, url: str, ns: str) -> None:
    """get.go for a path naming one object: a field selector must pin that name (`RequiresExactMatch` on
    `metadata.name`, `==` too); one that selects nothing (`=`) stands for the name."""
    path = f"{url}/api/v1/watch/namespaces/{ns}/configmaps/x"
    refused = http.get(path, params={"fieldSelector": f"metadata.namespace={ns}", "timeoutSeconds": "1"})
    assert refused.status_code == 400, refused.text
    st = status_of(refused)
    assert (st["code"], st["message"]) == (400, "fieldSelector metadata.name doesn't match requested name")
    st = status_of(http.get(path, params={"fieldSelector": "metadata.name!=x", "timeoutSeconds": "1"}))
    assert (st["code"], st["message"]) == (400, "fieldSelector metadata.name doesn't match requested name")
    for selector in (f"metadata.namespace={ns},metadata.name==x", "="):
        with http.get(path, params={"fieldSelector": selector, "timeoutSeconds": "1"}, stream=True) as r:
            assert r.status_code == 200, (selector, r.text)
            first = json.loads(next(r.iter_lines()))
        assert (first["type"], first["object"]["metadata"]["name"]) == ("ADDED", "x"), selector

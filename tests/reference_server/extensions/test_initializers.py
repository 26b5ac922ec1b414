"""KEP-33 namespace initializers on the reference server (extensions/initializers.py): gate parsing, the
merge rule, and the served behaviour with the gate on and off."""
from __future__ import annotations

import uuid

import pytest
import requests

from conformance.reference_server.embedded import start_embedded
from conformance.reference_server.extensions import parse_feature_gates
from conformance.reference_server.extensions.initializers import merged_initializers
from conformance.reference_server.deviations import Deviations
from tests.reference_server.ownserver import own_server

GV = "/apis/admissionregistration.k8s.io/v1alpha1"
CONFIGS = f"{GV}/namespaceinitializerconfigurations"


def test_parse_feature_gates():
    assert parse_feature_gates(["NamespaceInitializers=true"]) == {"NamespaceInitializers"}
    assert parse_feature_gates("NamespaceInitializers=true,NamespaceInitializers=false") == frozenset()
    assert parse_feature_gates(None) == frozenset()
    for bad in ("Nope=true", "NamespaceInitializers", "NamespaceInitializers=yes"):
        with pytest.raises(ValueError):
            parse_feature_gates(bad)


def _cfg(name: str, *inits: str, rv: int = 1) -> dict:
    return {"metadata": {"name": name, "resourceVersion": str(rv)}, "initializers": [{"name": n} for n in inits]}


def test_merge_sorted_by_configuration_name_order_kept_within():
    configs = [_cfg("b", "y.x.io", "b.x.io", rv=1), _cfg("a", "z.x.io", "a.x.io", rv=2)]
    assert merged_initializers(configs) == ["z.x.io", "a.x.io", "y.x.io", "b.x.io"]
    assert merged_initializers(configs, Deviations(["initializers-unsorted"])) == \
        ["y.x.io", "b.x.io", "z.x.io", "a.x.io"]


gated = own_server(feature_gates=["NamespaceInitializers"])


def _ns(url: str, **spec) -> dict:
    name = f"kep-{uuid.uuid4().hex[:8]}"
    r = requests.post(f"{url}/api/v1/namespaces", json={"metadata": {"name": name}, "spec": spec})
    assert r.status_code == 201, r.text
    return r.json()


def test_gate_off_serves_nothing_and_drops_the_field():
    with start_embedded() as srv:
        assert requests.get(srv.url + GV).status_code == 404
        ns = _ns(srv.url, initializers={"pending": [{"name": "a.b.io"}]})
        assert "initializers" not in ns["spec"] and "conditions" not in ns["status"]


def test_gate_on_lifecycle(gated):
    url = gated.url
    name = f"cfg-{uuid.uuid4().hex[:6]}"
    assert requests.post(url + CONFIGS, json={"metadata": {"name": name},
                                              "initializers": [{"name": "one.t.io"}]}).status_code == 201
    try:
        bad = requests.post(url + CONFIGS, json={"metadata": {"name": name + "x"}, "initializers": [{"name": "x"}]})
        assert bad.status_code == 422 and bad.json()["reason"] == "Invalid"
        ns = _ns(url)
        assert ns["spec"]["initializers"] == {"pending": [{"name": "one.t.io"}]}
        assert ns["status"]["phase"] == "Active"
        assert [c["status"] for c in ns["status"]["conditions"] if c["type"] == "Initializing"] == ["True"]
        path = f"{url}/api/v1/namespaces/{ns['metadata']['name']}"
        # adding an initializer is refused; removing the last clears the field and flips the condition
        added = dict(ns, spec={**ns["spec"], "initializers": {"pending": [{"name": "one.t.io"}, {"name": "x.t.io"}]}})
        assert requests.put(path, json=added).status_code == 422
        cur = requests.get(path).json()
        cur["spec"]["initializers"]["pending"] = []
        done = requests.put(path, json=cur).json()
        assert "initializers" not in done["spec"]
        assert [c["status"] for c in done["status"]["conditions"] if c["type"] == "Initializing"] == ["False"]
        assert requests.delete(path).status_code == 200
    finally:
        requests.delete(f"{url}{CONFIGS}/{name}")


def test_initializing_namespace_deletes(gated):
    url = gated.url
    name = f"cfg-{uuid.uuid4().hex[:6]}"
    requests.post(url + CONFIGS, json={"metadata": {"name": name}, "initializers": [{"name": "idle.t.io"}]})
    try:
        ns = _ns(url)
    finally:
        requests.delete(f"{url}{CONFIGS}/{name}")
    r = requests.delete(f"{url}/api/v1/namespaces/{ns['metadata']['name']}")
    assert r.status_code == 200 and r.json()["status"]["phase"] == "Terminating"


def test_optional_initializing_phase():
    with start_embedded(feature_gates=["NamespaceInitializers", "NamespaceInitializingPhase"]) as srv:
        url = srv.url
        requests.post(url + CONFIGS, json={"metadata": {"name": "p"}, "initializers": [{"name": "p.t.io"}]})
        ns = _ns(url)
        assert ns["status"]["phase"] == "Initializing"
        path = f"{url}/api/v1/namespaces/{ns['metadata']['name']}"
        assert requests.put(path + "/status", json=ns).status_code == 200  # Initializing is valid while pending
        ns["spec"]["initializers"]["pending"] = []
        assert requests.put(path, json=ns).json()["status"]["phase"] == "Active"

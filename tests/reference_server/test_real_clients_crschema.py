"""kubectl 1.33 and the official `kubernetes` client reading custom resources stored before their CRD got a
`default`: `kubectl get -o json` (get and list), `CustomObjectsApi` get, list and watch show the defaults, as
upstream's storage codec applies them on decode (`customresource_handler.go`'s `unstructuredDefaulter`)."""
from __future__ import annotations

import json
import uuid

from .test_crschema_read_defaults import CRDS, DEFAULTED, SCHEMA, add_defaults
from .test_real_clients import Kube, kube, served  # noqa: F401 - fixtures
from tests.reference_server.crds import create_crd


def test_kubectl_and_the_official_client_read_the_defaults(kube: Kube) -> None:  # noqa: F811
    from kubernetes import client, config, watch
    group = f"k{uuid.uuid4().hex[:8]}.example.com"
    body = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"gadgets.{group}"},
            "spec": {"group": group, "scope": "Cluster", "names": {"plural": "gadgets", "kind": "Gadget"},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": SCHEMA}}]}}
    base = kube.server.url
    assert create_crd(kube.http, base, body).status_code == 201
    coll = f"{base}/apis/{group}/v1/gadgets"
    made = kube.http.post(coll, json={"apiVersion": f"{group}/v1", "kind": "Gadget", "metadata": {"name": "g1"},
                                      "spec": {"size": 1, "ports": [{"port": 80}]}})
    assert made.status_code == 201, made.text
    add_defaults(kube.http, f"{base}{CRDS}/gadgets.{group}")
    assert json.loads(kube.ok("get", f"gadgets.{group}", "g1", "-o", "json"))["spec"] == DEFAULTED
    listed = json.loads(kube.ok("get", f"gadgets.{group}", "-o", "json"))
    assert [i["spec"] for i in listed["items"]] == [DEFAULTED]
    api_client = config.new_client_from_config(config_file=str(kube.kubeconfig))
    with api_client:
        api = client.CustomObjectsApi(api_client)
        assert api.get_cluster_custom_object(group, "v1", "gadgets", "g1")["spec"] == DEFAULTED
        assert [i["spec"] for i in api.list_cluster_custom_object(group, "v1", "gadgets")["items"]] == [DEFAULTED]
        events = watch.Watch().stream(api.list_cluster_custom_object, group, "v1", "gadgets", timeout_seconds=5)
        first = next(events)
        assert first["type"] == "ADDED" and first["object"]["spec"] == DEFAULTED
        events.close()
    kube.http.delete(f"{base}{CRDS}/gadgets.{group}")

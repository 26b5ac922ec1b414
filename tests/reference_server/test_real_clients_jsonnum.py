"""kubectl 1.33 and the official `kubernetes` client reading custom resources whose bodies held numbers Go reads
otherwise (gojsonnum.py): `1e400` is refused at the write, so `kubectl get -o json` (which cannot read the
`Infinity` a stored one was answered as) keeps working; a float64 2 is answered `2`, an integer to the Python
client as to kube-apiserver's clients."""
from __future__ import annotations

import json
import uuid

from .test_real_clients import Kube, kube, served  # noqa: F401 - fixtures
from tests.reference_server.crds import CRDS, create_crd, schemaless_crd


def test_kubectl_and_the_official_client_read_go_numbers(kube: Kube) -> None:  # noqa: F811
    from kubernetes import client, config
    group = f"j{uuid.uuid4().hex[:8]}.example.com"
    base = kube.server.url
    assert create_crd(kube.http, base, schemaless_crd(group, "gauges", "Gauge", scope="Cluster")).status_code == 201
    coll = f"{base}/apis/{group}/v1/gauges"
    hostile = kube.http.post(coll, data=f'{{"apiVersion":"{group}/v1","kind":"Gauge","metadata":{{"name":"h"}},'
                             '"spec":{"f":1e400}}', headers={"Content-Type": "application/json"})
    assert hostile.status_code == 400, hostile.text
    api_client = config.new_client_from_config(config_file=str(kube.kubeconfig))
    with api_client:
        api = client.CustomObjectsApi(api_client)
        made = api.create_cluster_custom_object(group, "v1", "gauges", {
            "apiVersion": f"{group}/v1", "kind": "Gauge", "metadata": {"name": "g"},
            "spec": {"size": 2.0, "small": 1e-7}})
        assert type(made["spec"]["size"]) is int and made["spec"] == {"size": 2, "small": 1e-7}
        got = api.get_cluster_custom_object(group, "v1", "gauges", "g")
        assert type(got["spec"]["size"]) is int
    listed = json.loads(kube.ok("get", f"gauges.{group}", "-o", "json"))
    assert [i["metadata"]["name"] for i in listed["items"]] == ["g"]
    assert kube.ok("get", f"gauges.{group}", "g", "-o", "jsonpath={.spec.size}") == "2"
    kube.http.delete(f"{base}{CRDS}/gauges.{group}")

"""A mutating webhook is shown a custom resource's own metadata as apiextensions-apiserver's request decoder wrote it
back (`unstructuredSchemaCoercer.apply`: `GetObjectMetaWithOptions` + `SetObjectMeta`, registry/crobjectmeta.py),
not as sent: a null label value is ""."""
from __future__ import annotations

import json
import uuid
from typing import Any

import requests

from conformance.reference_server.embedded import RunningServer
from tests.reference_server.ownserver import own_server

from .crds import create_crd, schemaless_crd
from .test_admission_webhooks import Hook, hook  # noqa: F401 - hook: a fixture
from .webhookconfig import MUTATING, configure, unconfigure


server = own_server("A server of its own: its webhook configuration must not reach other modules' requests.")


def test_a_mutating_webhook_sees_the_decoded_root_metadata(server: RunningServer, hook: Hook) -> None:  # noqa: F811
    group = f"m{uuid.uuid4().hex[:8]}.example.com"
    http = requests.Session()
    assert create_crd(http, server.url, schemaless_crd(group, "hooked", "Hooked", scope="Cluster")).status_code == 201
    configure(server, MUTATING, None, f"cfg-{group}", f"{hook.url}/allow", hook.ca_bundle, ["hooked"],
              operations=["CREATE"], api_groups=[group], session=http)
    r = http.post(f"{server.url}/apis/{group}/v1/hooked", headers={"Content-Type": "application/json"},
                  data=f'{{"apiVersion": "{group}/v1", "kind": "Hooked", '
                       '"metadata": {"name": "h", "labels": {"a": null}, "generation": 1.0}}')
    assert r.status_code == 201, r.text
    path, review = hook.reviews[-1]
    assert path.startswith("/allow")
    assert review["request"]["object"]["metadata"]["labels"] == {"a": ""}
    assert r.json()["metadata"]["labels"] == {"a": ""}


def _sorted_everywhere(value: Any) -> bool:
    if isinstance(value, dict):
        return list(value) == sorted(value) and all(_sorted_everywhere(v) for v in value.values())
    if isinstance(value, list):
        return all(_sorted_everywhere(v) for v in value)
    return True


def test_a_webhook_is_sent_a_custom_resource_sorted_at_every_level(server: RunningServer,  # noqa: F811
                                                                  hook: Hook) -> None:  # noqa: F811
    group = f"o{uuid.uuid4().hex[:8]}.example.com"
    http = requests.Session()
    crd = schemaless_crd(group, "widgets", "Widget", scope="Cluster")
    crd["spec"]["versions"][0]["subresources"] = {
        "status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}
    assert create_crd(http, server.url, crd).status_code == 201
    cfg = configure(server, MUTATING, None, f"cfg-{group}", f"{hook.url}/allow", hook.ca_bundle,
                    ["widgets", "widgets/status", "widgets/scale"], api_groups=[group], session=http)
    base, heads = f"{server.url}/apis/{group}/v1/widgets", {"Content-Type": "application/json"}

    def sent(r: requests.Response, *fields: str) -> list[dict[str, Any]]:
        """The last review's `fields` (its raw bytes as the webhook read them, in that order)."""
        assert r.status_code in (200, 201), r.text
        raw = hook.raw[-1]
        review = json.loads(raw)
        assert review["request"]["resource"]["group"] == group
        return [review["request"][f] for f in fields]

    try:
        body = ('{"spec": {"z": 1, "replicas": 1, "b": {"y": "1", "x": [{"q": 1, "p": 2}]}}, '
                '"metadata": {"name": "w", "labels": {"b": "1", "a": "2"}}, '
                f'"kind": "Widget", "apiVersion": "{group}/v1"}}')
        (obj,) = sent(http.post(base, data=body, headers=heads), "object")
        assert list(obj) == ["apiVersion", "kind", "metadata", "spec"] and _sorted_everywhere(obj), obj
        assert hook.raw[-1].count(b'"spec":{"b":{"x":[{"p":2,"q":1}],"y":"1"},"replicas":1,"z":1}') == 1

        current = http.get(f"{base}/w").json()
        update = {"status": {"replicas": 1, "b": 2}, "spec": {"z": 2, "a": {"d": 1, "c": 0}, "replicas": 1},
                  "metadata": {"resourceVersion": current["metadata"]["resourceVersion"], "name": "w"},
                  "kind": "Widget", "apiVersion": f"{group}/v1"}
        obj, old = sent(http.put(f"{base}/w", data=json.dumps(update), headers=heads), "object", "oldObject")
        assert _sorted_everywhere(obj) and _sorted_everywhere(old), (obj, old)
        assert list(obj["spec"]) == ["a", "replicas", "z"]

        current = http.get(f"{base}/w").json()
        update["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        obj, old = sent(http.put(f"{base}/w/status", data=json.dumps(update), headers=heads), "object", "oldObject")
        assert _sorted_everywhere(obj) and _sorted_everywhere(old), (obj, old)
        assert list(obj["status"]) == ["b", "replicas"]

        scale = {"spec": {"replicas": 3}, "metadata": {"name": "w"}, "apiVersion": "autoscaling/v1", "kind": "Scale"}
        obj, old = sent(http.put(f"{base}/w/scale", data=json.dumps(scale), headers=heads), "object", "oldObject")
        assert list(obj) == list(old) == ["kind", "apiVersion", "metadata", "spec", "status"], (obj, old)

        (old,) = sent(http.delete(f"{base}/w"), "oldObject")
        assert old["metadata"]["name"] == "w" and _sorted_everywhere(old), old
    finally:
        unconfigure(server, MUTATING, cfg)

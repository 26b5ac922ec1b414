"""A mutating webhook is shown a custom resource's own metadata as apiextensions-apiserver's request decoder wrote it
back (`unstructuredSchemaCoercer.apply`: `GetObjectMetaWithOptions` + `SetObjectMeta`, registry/crobjectmeta.py),
not as sent: a null label value is ""."""
from __future__ import annotations

import uuid
from typing import Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded
from tests.reference_server.ownserver import own_server

from .crds import create_crd, schemaless_crd
from .test_admission_webhooks import Hook, hook  # noqa: F401 - hook: a fixture
from .webhookconfig import MUTATING, configure


server = own_server("A server of its own: its webhook configuration must not reach other modules' requests.")


def test_a_mutating_webhook_sees_the_decoded_root_metadata(server: RunningServer, hook: Hook) -> None:  # noqa: F811
    group = f"m{uuid.uuid4().hex[:8]}.example.com"
    http = requests.Session()
    assert create_crd(http, server.url, schemaless_crd(group, "hooked", "Hooked", scope="Cluster")).status_code == 201
    configure(server, MUTATING, None, f"cfg-{group}", f"{hook.url}/allow", hook.ca_bundle, ["hooked"],
              operations=["CREATE"], api_groups=[group], session=http)
    r = http.post(f"{server.url}/apis/{group}/v1/hooked", headers={"Content-Type": "application/json"},
                  data='{"metadata": {"name": "h", "labels": {"a": null}, "generation": 1.0}}')
    assert r.status_code == 201, r.text
    path, review = hook.reviews[-1]
    assert path.startswith("/allow")
    assert review["request"]["object"]["metadata"]["labels"] == {"a": ""}
    assert r.json()["metadata"]["labels"] == {"a": ""}

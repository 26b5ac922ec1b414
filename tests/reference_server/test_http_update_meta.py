"""An update's metadata as `rest.BeforeUpdate` (apiserver pkg/registry/rest/update.go) leaves it: the uid,
creationTimestamp and generation come from storage, `generateName` is the body's (never restored)."""
from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def ns(namespaces: Any) -> str:
    return namespaces.create()["metadata"]["name"]


def test_update_takes_generate_name_from_the_body(http, url, ns):
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    r = http.post(base, json={"metadata": {"name": "gn1", "generateName": "g-"}})
    assert r.status_code == 201, r.text
    created = r.json()["metadata"]
    assert created["generateName"] == "g-"
    r = http.put(f"{base}/gn1", json={"metadata": {"name": "gn1"}})
    assert r.status_code == 200, r.text
    meta = r.json()["metadata"]
    assert "generateName" not in meta
    assert (meta["uid"], meta["creationTimestamp"]) == (created["uid"], created["creationTimestamp"])
    assert "generateName" not in http.get(f"{base}/gn1").json()["metadata"]
    r = http.put(f"{base}/gn1", json={"metadata": {"name": "gn1", "generateName": "h-"}})
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["generateName"] == "h-"

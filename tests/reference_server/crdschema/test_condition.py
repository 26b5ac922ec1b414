"""The NonStructuralSchema condition (`pkg/controller/nonstructuralschema`): a CRD stored while non-structural
schemas were accepted (here: written straight into storage, as an older server left it) gets the condition with
`ValidateStructural`'s errors under its v1 versions' paths; an update that makes it structural removes it."""
from __future__ import annotations

import asyncio
import copy
import time
import uuid
from typing import Any

import requests

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.registry.crd import CRD_KEY

from .conftest import CRDS
from .test_structural import crd
from tests.reference_server.crds import create_crd



def _store_schema(srv: RunningServer, name: str, schema: dict[str, Any]) -> None:
    """Rewrite the stored CRD's schema without validation, on the server's loop."""
    store = srv.server.ctx.registry.store

    def change(obj: dict[str, Any]) -> dict[str, Any]:
        obj = copy.deepcopy(obj)
        obj["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = schema
        obj["metadata"]["generation"] += 1
        return obj

    async def write() -> None:
        store.guaranteed_update(CRD_KEY, "", name, change)
    asyncio.run_coroutine_threadsafe(write(), srv._loop).result(10)


def _condition(srv: RunningServer, name: str, present: bool) -> dict[str, Any] | None:
    """Poll (10 s at most) until the NonStructuralSchema condition is present, or absent."""
    deadline = time.monotonic() + 10
    while True:
        crd_ = requests.get(f"{srv.url}{CRDS}/{name}").json()
        found = next((c for c in crd_["status"].get("conditions") or [] if c["type"] == "NonStructuralSchema"), None)
        if (found is not None) == present or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_a_stored_non_structural_crd_gets_the_condition_until_it_is_mended(srv: RunningServer) -> None:
    group = f"n{uuid.uuid4().hex[:8]}.example.com"
    obj = crd({"type": "object", "properties": {"spec": {"type": "object"}}})
    obj["metadata"]["name"], obj["spec"]["group"] = f"gadgets.{group}", group
    name = obj["metadata"]["name"]
    assert create_crd(requests, srv.url, obj).status_code == 201
    assert _condition(srv, name, present=False) is None

    _store_schema(srv, name, {"type": "object", "properties": {"spec": {"properties": {"a": {}}}}})
    found = _condition(srv, name, present=True)
    assert found is not None
    assert (found["status"], found["reason"]) == ("True", "Violations")
    assert found["message"] == (
        "[spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[a].type: Required value: must not be "
        "empty for specified object fields, spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required "
        "value: must not be empty for specified object fields]")

    current = requests.get(f"{srv.url}{CRDS}/{name}").json()
    current["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"a": {"type": "string"}}}}}
    r = requests.put(f"{srv.url}{CRDS}/{name}", json=current)
    assert r.status_code == 200, r.text
    assert _condition(srv, name, present=False) is None

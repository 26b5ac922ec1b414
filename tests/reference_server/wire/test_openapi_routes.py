"""The operations of the built-in OpenAPI documents, against kube-apiserver 1.33's own.

`data/openapi_v2_golden_1.33.json` holds path items and shared parameters of upstream's v1.33 `swagger.json`
(api/openapi-spec, as the kubernetes client v33.1.0 ships it): generated with every alpha gate on, so its CBOR
media types are dropped here (`CBORServingAndStorage` is off by default in 1.33, as in a kind cluster). The v3
operations come from the same routes through builder3: each is checked against the v2 one it mirrors.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conformance.reference_server.server import build_context
from conformance.reference_server.wire import openapi, openapi_builder

GOLDEN = json.loads((Path(__file__).parent / "data" / "openapi_v2_golden_1.33.json").read_text())
_CBOR = {"application/cbor", "application/cbor-seq", "application/apply-patch+cbor"}
PATHS = sorted(GOLDEN["paths"])


def _without_cbor(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _without_cbor(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_without_cbor(v) for v in x if not (isinstance(v, str) and v in _CBOR)]
    return x


@pytest.fixture(scope="module")
def v2(kinds: list[Any]) -> dict[str, Any]:
    return json.loads(json.dumps(openapi.openapi_v2(kinds)))


@pytest.fixture(scope="module")
def v3(kinds: list[Any]) -> dict[str, Any]:
    docs = openapi.openapi_v3_documents(kinds)
    return {p: item for d in docs.values() for p, item in json.loads(json.dumps(d))["paths"].items()}


@pytest.mark.parametrize("path", PATHS)
def test_v2_path_items_are_upstreams(v2: dict[str, Any], path: str) -> None:
    """Operation ids, descriptions, consumes/produces, schemes, responses, each parameter's words, the common ones
    lifted to the path and the shared ones referenced by upstream's `<name>-<hash>` names."""
    assert v2["paths"][path] == _without_cbor(GOLDEN["paths"][path])
    for name, param in GOLDEN["parameters"].items():
        assert v2["parameters"][name] == param


def test_shared_parameter_names_are_fnv_hashes_of_gos_json() -> None:
    assert openapi_builder.parameter_name(GOLDEN["parameters"]["continue-QfD61s0i"]) == "continue-QfD61s0i"
    body = {"name": "body", "in": "body", "required": True,
            "schema": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"}}
    assert openapi_builder.parameter_name(body) == "body-78PwaGsr"
    # encoding/json's HTML-safe escaping is part of the hashed bytes
    amp = openapi_builder.parameter_name({"name": "x", "in": "query", "type": "string", "description": "a&b"})
    assert amp != openapi_builder.parameter_name({"name": "x", "in": "query", "type": "string",
                                                  "description": "a\\u0026b"})


def _resolved(params: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [GOLDEN["parameters"][p["$ref"].removeprefix("#/parameters/")] if "$ref" in p else p for p in params]


def _as_v3(p: dict[str, Any]) -> dict[str, Any]:
    """builder3's form of a v2 non-body parameter."""
    out = {k: v for k, v in p.items() if k not in ("type", "uniqueItems")}
    out["schema"] = {"type": p["type"], "uniqueItems": True}
    return out


@pytest.mark.parametrize("path", PATHS)
def test_v3_operations_mirror_upstreams_v2_ones(v3: dict[str, Any], path: str) -> None:
    """builder3 over the same routes: the same parameters (bodies as `requestBody`, one media type per consumed
    type, `required` as the body parameter's), responses with one media type per produced type, no consumes,
    produces or schemes."""
    golden, item = _without_cbor(GOLDEN["paths"][path]), v3[path]
    assert sorted(item) == sorted(golden)
    assert item.get("parameters", []) == [_as_v3(p) for p in _resolved(golden.get("parameters", []))]
    for method, want in golden.items():
        if method == "parameters":
            continue
        op, params = item[method], _resolved(want.get("parameters", []))
        assert op["operationId"] == want["operationId"] and op["description"] == want["description"]
        assert op["tags"] == want["tags"] and op["x-kubernetes-action"] == want["x-kubernetes-action"]
        assert not {"consumes", "produces", "schemes"} & set(op)
        assert op.get("parameters", []) == [_as_v3(p) for p in params if p["in"] != "body"]
        body = next((p for p in params if p["in"] == "body"), None)
        if body is None:
            assert "requestBody" not in op
        else:
            schema = {"$ref": body["schema"]["$ref"].replace("#/definitions/", "#/components/schemas/")}
            expected: dict[str, Any] = {"content": {t: {"schema": schema} for t in want["consumes"]}}
            if body.get("required"):
                expected["required"] = True
            assert op["requestBody"] == expected
        for code, response in want["responses"].items():
            if "schema" not in response:
                assert op["responses"][code] == response
                continue
            schema = {k: v.replace("#/definitions/", "#/components/schemas/") for k, v in response["schema"].items()}
            assert op["responses"][code] == {"description": response["description"],
                                             "content": {t: {"schema": schema} for t in want["produces"]}}


def test_deleted_object_kinds_answer_the_object(v2: dict[str, Any]) -> None:
    """A core kind whose registry returns the deleted object (`return_deleted_object`) says so in its DELETE, but a
    Namespace: its REST wraps the store without embedding it, so it is no `MayReturnFullObjectDeleter` to the
    installer (a Status documented) though its store's `ReturnDeletedObject` answers the object."""
    checked = []
    for info in build_context().registry.resources():
        path = next((p for p, item in v2["paths"].items() if "delete" in item and p.endswith(f"/{info.plural}/{{name}}")
                     and item["delete"]["x-kubernetes-group-version-kind"]["kind"] == info.kind), None)
        if path is None:
            continue
        schema = v2["paths"][path]["delete"]["responses"]["200"]["schema"]["$ref"]
        documented = info.return_deleted_object and info.kind != "Namespace"
        assert schema.endswith(f".{info.kind}" if documented else ".Status"), (info.kind, schema)
        checked.append((info.kind, documented))
    assert ("Pod", True) in checked and ("ConfigMap", False) in checked and ("Namespace", False) in checked


def test_every_group_kinds_delete_answer_is_what_its_openapi_documents() -> None:
    """The registry's `return_deleted_object` and the documents' DELETE responses come from one truth: each
    named group's store answers the object exactly when upstream's store sets `ReturnDeletedObject` (the
    storage.k8s.io ones do)."""
    from conformance.reference_server.wire.openapi_routes import DELETE_RETURNS_OBJECT
    stores = build_context().registry.group_stores()
    answered = {(s.group, s.info.kind) for s in stores if s.info.return_deleted_object}
    assert answered == {gk for gk in DELETE_RETURNS_OBJECT if gk[0]} & {(s.group, s.info.kind) for s in stores}
    assert ("storage.k8s.io", "StorageClass") in answered


def test_every_v3_documents_refs_resolve_in_it(kinds: list[Any]) -> None:
    """Each group-version's v3 document defines everything it refers to: kubectl resolves a kind's patch metadata
    there (a missing ObjectMeta in the apiregistration and apiextensions documents made it fall back to a JSON
    merge patch: `unable to resolve #/components/schemas/...ObjectMeta in OpenAPI V3`)."""
    for key, doc in openapi.openapi_v3_documents(kinds).items():
        text = json.dumps(doc)
        schemas = doc["components"]["schemas"]
        for ref in set(re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', text)):
            assert ref in schemas, (key, ref)

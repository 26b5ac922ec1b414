"""Routes to OpenAPI paths, as kube-openapi's builders write them.

Follows k8s.io/kube-openapi (the version kube-apiserver 1.33 vendors) `pkg/builder/openapi.go` (v2: `buildPaths`,
`buildOperations`, `findCommonParameters`, `buildParameter`, the config's `ProtocolList` as each operation's
`schemes`), `pkg/builder/parameters.go` (`deduplicateParameters`: every parameter but the names, `dryRun`,
`fieldValidation` and a kind's own body moved to the document's `parameters`, named `<name>-<hash>` with the
FNV-64 of its JSON) and `pkg/builder3/openapi.go` (v3: `buildRequestBody` with one media type per consumed
type and the body parameter's `required`, responses with one media type per produced type). Both move a
parameter every operation of a path has to the path item (`findCommonParameters`; the last route's copy) and
sort parameters by name, then location (`sortParameters`). The routes themselves come from the installer
(`openapi_routes.py`) or the CRD builder (`crdopenapi.py`).
"""
from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Mapping

__all__ = ["Param", "Route", "paths", "deduplicate", "parameter_name"]

SCHEMES = ["https"]  # kube-apiserver's `ProtocolList`
UNAUTHORIZED = {"description": "Unauthorized"}  # the config's `CommonResponses`


@dataclass(frozen=True)
class Param:
    """One go-restful parameter: a query or path parameter's `type` is its data type, a body's the definition it
    reads."""

    name: str
    where: str
    description: str = ""
    type: str = "string"
    required: bool = False


@dataclass(frozen=True)
class Route:
    """One go-restful route with the metadata kube-openapi reads from it."""

    path: str
    method: str
    operation_id: str
    tag: str
    description: str
    action: str
    gvk: Mapping[str, str]
    params: tuple[Param, ...]
    consumes: tuple[str, ...]
    produces: tuple[str, ...]
    responses: tuple[tuple[str, str, str], ...]  # (code, message, a definition name or "string")


def _ref(name: str, v3: bool) -> dict[str, Any]:
    if name == "string":  # `toSchema` of a simple type
        return {"type": "string"}
    return {"$ref": ("#/components/schemas/" if v3 else "#/definitions/") + name}


def _parameter(p: Param, v3: bool) -> dict[str, Any]:
    """`buildParameter`: every non-body parameter is `uniqueItems` (go-restful's AllowMultiple is false)."""
    out: dict[str, Any] = {"name": p.name, "in": p.where}
    if p.description:
        out["description"] = p.description
    if p.required:
        out["required"] = True
    if p.where == "body":
        out["schema"] = _ref(p.type, v3)
    elif v3:
        out["schema"] = {"type": p.type, "uniqueItems": True}
    else:
        out["type"], out["uniqueItems"] = p.type, True
    return out


def _sorted(params: Iterable[Param]) -> list[Param]:
    """`sortParameters`: by name, then location."""
    return sorted(params, key=lambda p: (p.name, p.where))


def _operation(r: Route, common: set[tuple[str, str]], v3: bool) -> dict[str, Any]:
    own = _sorted(p for p in r.params if (p.name, p.where) not in common and not (v3 and p.where == "body"))
    op: dict[str, Any] = {"description": r.description, "operationId": r.operation_id, "tags": [r.tag]}
    if own:
        op["parameters"] = [_parameter(p, v3) for p in own]
    responses: dict[str, Any] = {}
    for code, message, model in r.responses:
        if v3:
            responses[code] = {"description": message,
                               "content": {t: {"schema": _ref(model, v3)} for t in r.produces}}
        else:
            responses[code] = {"description": message, "schema": _ref(model, v3)}
    responses.setdefault("401", dict(UNAUTHORIZED))
    op["responses"] = responses
    if v3:
        body = next((p for p in r.params if p.where == "body"), None)
        if body is not None:
            request: dict[str, Any] = {"content": {t: {"schema": _ref(body.type, v3)} for t in r.consumes}}
            if body.required:
                request["required"] = True
            op["requestBody"] = request
    else:
        op["consumes"], op["produces"], op["schemes"] = list(r.consumes), list(r.produces), list(SCHEMES)
    op["x-kubernetes-action"] = r.action
    op["x-kubernetes-group-version-kind"] = dict(r.gvk)
    return dict(sorted(op.items()))


def paths(routes: Sequence[Route], v3: bool) -> dict[str, Any]:
    """`buildPaths` (v2) / `buildOpenAPISpec` (v3): one path item per path, its common parameters lifted."""
    by_path: dict[str, list[Route]] = {}
    for r in routes:
        by_path.setdefault(r.path, []).append(r)
    out: dict[str, Any] = {}
    for path, group in by_path.items():
        counts: dict[tuple[str, str], int] = {}
        last: dict[tuple[str, str], Param] = {}
        for r in group:
            for p in r.params:
                counts[(p.name, p.where)] = counts.get((p.name, p.where), 0) + 1
                last[(p.name, p.where)] = p
        common = {k for k, n in counts.items() if n == len(group) and k[1] != "body"}
        item: dict[str, Any] = {r.method: _operation(r, common, v3) for r in group}
        if common:
            item["parameters"] = [_parameter(p, v3) for p in _sorted(last[k] for k in common)]
        out[path] = dict(sorted(item.items()))
    return out


# ---- v2: `deduplicateParameters` -----------------------------------------------------------------------------
_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _go_json(value: Any) -> str:
    """encoding/json's compact form of a string or a `$ref` object (HTML-safe escaping)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return "".join(_GO_ESCAPES.get(c, c) for c in text)


def _go_parameter_json(p: dict[str, Any]) -> str:
    """`spec.Parameter.MarshalJSON`: CommonValidations, SimpleSchema, then ParamProps, each field in its
    struct's order, empty values left out."""
    parts = []
    if p.get("uniqueItems"):
        parts.append('"uniqueItems":true')
    if p.get("type"):
        parts.append('"type":' + _go_json(p["type"]))
    for key in ("description", "name", "in"):
        if p.get(key):
            parts.append(f'"{key}":' + _go_json(p[key]))
    if p.get("required"):
        parts.append('"required":true')
    if "schema" in p:
        parts.append('"schema":{"$ref":' + _go_json(p["schema"]["$ref"]) + "}")
    return "{" + ",".join(parts) + "}"


def _fnv64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        h ^= b
    return h


def parameter_name(p: dict[str, Any]) -> str:
    """The shared parameter's name: `<name>-<base64Hash(json)>` (FNV-64, its first 6 bytes, URL base64)."""
    digest = _fnv64(_go_parameter_json(p).encode()).to_bytes(8, "big")[:6]
    return f"{p.get('name') or 'param'}-{base64.urlsafe_b64encode(digest).decode()}"


def _shared(p: dict[str, Any]) -> bool:
    """`collectSharedParameters`' filter."""
    if p.get("name") == "name" and p.get("in") in ("query", "path"):
        return False
    if p.get("in") == "query" and p.get("name") in ("fieldValidation", "dryRun"):
        return False  # kept inline: kubectl looked for them in the operations
    if p.get("in") == "body":
        return p["schema"].get("$ref", "").startswith("#/definitions/io.k8s.apimachinery")
    return "$ref" not in p


def deduplicate(doc: dict[str, Any]) -> dict[str, Any]:
    """`deduplicateParameters`: each shared parameter becomes a `#/parameters/<name>` reference and the document
    gets `parameters` (changed in place; returned)."""
    shared: dict[str, dict[str, Any]] = {}

    def replace(params: list[dict[str, Any]]) -> None:
        for i, p in enumerate(params):
            if _shared(p):
                name = parameter_name(p)  # a hash collision (none among Kubernetes' parameters) gets `-<n>` upstream
                shared.setdefault(name, p)
                params[i] = {"$ref": "#/parameters/" + name}

    for item in doc.get("paths", {}).values():
        for key, value in item.items():
            if key == "parameters":
                replace(value)
            elif isinstance(value, dict) and isinstance(value.get("parameters"), list):
                replace(value["parameters"])
    doc["parameters"] = dict(sorted(shared.items()))
    return doc

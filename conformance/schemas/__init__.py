"""JSON Schemas for the API objects the suites read, and a validator that says *where* a body is wrong.

`validate(body, "Namespace")` raises an `AssertionError` naming the JSON path, the schema and the clause, so a
suite assertion reads like a conformance finding. Schemas live next to this file (`<Name>.json`) and refer to
each other by relative `$ref` (e.g. `meta.json#/$defs/ObjectMeta`) through one `referencing.Registry`.
"""

from __future__ import annotations

import copy
import json
import threading
from functools import lru_cache
from importlib import resources
from typing import Any, Callable

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where a body fails (or an OpenAPI check runs): a quarter second of start-up
    import jsonschema
    from jsonschema.exceptions import ValidationError
    from referencing import Registry

__all__ = ["BASE_URI", "SCHEMA_NAMES", "schema", "registry", "validate", "errors", "validate_against_openapi"]

BASE_URI = "https://nsconform.dev/schemas/"
SCHEMA_NAMES = ("Namespace", "NamespaceList", "Status", "WatchEvent", "APIResourceList", "APIVersions",
                "ConfigMap", "ConfigMapList", "ConformanceRun")


@lru_cache(maxsize=None)
def _files() -> dict[str, dict[str, Any]]:
    """All schema documents of the package, by file name."""
    out: dict[str, dict[str, Any]] = {}
    for entry in resources.files(__name__).iterdir():
        if entry.name.endswith(".json"):
            out[entry.name] = json.loads(entry.read_text(encoding="utf-8"))
    return out


@lru_cache(maxsize=None)
def registry() -> "Registry":
    """One registry holding every schema under its `$id`, so cross-file `$ref`s resolve offline."""
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    resources_ = [(doc.get("$id", BASE_URI + fname), Resource.from_contents(doc, default_specification=DRAFT202012))
                  for fname, doc in _files().items()]
    return Registry().with_resources(resources_)


def schema(name: str) -> dict[str, Any]:
    """The schema document called `name` (e.g. "Namespace"); `KeyError` lists the known names."""
    try:
        return _files()[f"{name}.json"]
    except KeyError:
        known = sorted(f[:-5] for f in _files() if f != "meta.json")
        raise KeyError(f"no schema {name!r}; known: {', '.join(known)}") from None


@lru_cache(maxsize=None)
def _by_uri() -> dict[str, Any]:
    return {doc.get("$id", BASE_URI + fname): doc for fname, doc in _files().items()}


@lru_cache(maxsize=None)
def _validator(name: str) -> "jsonschema.Draft202012Validator":
    import jsonschema

    doc = schema(name)
    return jsonschema.Draft202012Validator(doc, registry=registry(),
                                           format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


@lru_cache(maxsize=None)
def _fast(name: str) -> Callable[[Any], bool] | None:
    """The compiled check of schema `name` (`fast.py`: True only for a body jsonschema finds valid), or None
    when the schema uses a keyword it does not implement."""
    from .fast import Documents, NotCompilable, compile_schema

    try:
        return compile_schema(schema(name), Documents(_by_uri(), schema(name).get("$id", BASE_URI)))
    except NotCompilable:
        return None


def _valid(body: Any, name: str) -> bool:
    fast = _fast(name)
    return fast is not None and fast(body)


def _path_of(error: "ValidationError") -> str:
    """JSON path of the offending value; for a missing property, the path the property should have had."""
    path = error.json_path
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [p for p in error.validator_value if p not in error.instance]
        if missing:
            key = missing[0]
            path += f".{key}" if str(key).isidentifier() else f"[{key!r}]"
    return path


def _describe(error: "ValidationError", label: str, clause: str | None) -> str:
    where = f"{label}" + (f", clause {clause}" if clause else "")
    return f"{_path_of(error)}: {error.message} (schema {where})"


def errors(body: Any, name: str) -> list[str]:
    """Every violation of schema `name` as `"$.path: message"` lines (empty when valid)."""
    if _valid(body, name):
        return []
    found = sorted(_validator(name).iter_errors(body), key=lambda e: list(e.absolute_path))
    return [f"{_path_of(e)}: {e.message}" for e in found]


def validate(body: Any, name: str, clause: str | None = None) -> None:
    """Assert that `body` matches schema `name`; the message names the JSON path, the schema and the clause."""
    __tracebackhide__ = True
    if _valid(body, name):
        return
    from jsonschema.exceptions import best_match

    error = best_match(_validator(name).iter_errors(body))
    if error is not None:
        raise AssertionError(_describe(error, name, clause))


# --- opt-in: validate against the target's own OpenAPI document ------------------------------------------------

_OPENAPI_URI = "urn:nsconform:target-openapi"
_openapi_lock = threading.Lock()
_openapi_cache: dict[int, tuple[Any, dict[str, Any], "Registry"]] = {}


def _loosen(node: Any, nullable_ok: bool) -> Any:
    """Make Kubernetes' OpenAPI dialect checkable as JSON Schema: int-or-string, `nullable`, v3 `allOf` wrappers."""
    if isinstance(node, list):
        return [_loosen(n, nullable_ok) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _loosen(v, nullable_ok) for k, v in node.items()}
    if out.get("format") == "int-or-string" or out.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out.pop("format", None)
    if nullable_ok and out.get("nullable") is True and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    return out


def _parse_gvk(gvk: Any) -> tuple[str, str, str]:
    """Accept ("", "v1", "Namespace"), {"group","version","kind"}, "v1/Namespace" or "apps/v1/Deployment"."""
    if isinstance(gvk, dict):
        return gvk.get("group", ""), gvk["version"], gvk["kind"]
    if isinstance(gvk, str):
        parts = gvk.split("/")
        if len(parts) == 2:
            return "", parts[0], parts[1]
        if len(parts) == 3:
            return parts[0], parts[1], parts[2]
        raise ValueError(f"gvk {gvk!r}: expected 'version/Kind' or 'group/version/Kind'")
    group, version, kind = gvk
    return group, version, kind


def _openapi(doc: dict[str, Any]) -> tuple[dict[str, Any], "Registry"]:
    """The definitions table and a registry for one OpenAPI document (cached: the documents are megabytes)."""
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT4

    with _openapi_lock:
        hit = _openapi_cache.get(id(doc))
        if hit is not None and hit[0] is doc:
            return hit[1], hit[2]
        v3 = "openapi" in doc or "components" in doc
        loose = _loosen(copy.deepcopy(doc), nullable_ok=v3)
        table = (loose.get("components") or {}).get("schemas", {}) if v3 else loose.get("definitions", {})
        reg = Registry().with_resource(_OPENAPI_URI, Resource.from_contents(loose, default_specification=DRAFT4))
        if len(_openapi_cache) > 8:
            _openapi_cache.clear()
        _openapi_cache[id(doc)] = (doc, table, reg)
        return table, reg


def validate_against_openapi(body: Any, openapi_doc: dict[str, Any], gvk: Any, clause: str | None = None) -> None:
    """Assert `body` matches the target's own schema for `gvk` (from `/openapi/v2` or `/openapi/v3/api/v1`).

    Finds the definition by `x-kubernetes-group-version-kind` and follows `$ref` into `definitions` (v2) or
    `components.schemas` (v3). `LookupError` when the document has no schema for the GVK.
    """
    group, version, kind = _parse_gvk(gvk)
    table, reg = _openapi(openapi_doc)
    v3 = "openapi" in openapi_doc or "components" in openapi_doc
    pointer = "#/components/schemas/" if v3 else "#/definitions/"
    found = None
    for key, definition in table.items():
        for g in definition.get("x-kubernetes-group-version-kind", []) if isinstance(definition, dict) else []:
            if (g.get("group", ""), g.get("version"), g.get("kind")) == (group, version, kind):
                found = key
                break
        if found:
            break
    if found is None:
        raise LookupError(f"the target's OpenAPI document has no schema for {group or 'core'}/{version} {kind}")
    ref = {"$ref": f"{_OPENAPI_URI}{pointer}{found.replace('~', '~0').replace('/', '~1')}"}
    import jsonschema
    from jsonschema.exceptions import best_match

    validator = jsonschema.Draft4Validator(ref, registry=reg)
    error = best_match(validator.iter_errors(body))
    if error is not None:
        raise AssertionError(_describe(error, f"{found} from the target's OpenAPI", clause))

"""Upstream's descriptions (and enums) for the published OpenAPI definitions, from a generated data file.

`kubectl explain` prints a field's `description`; kube-apiserver publishes the Go doc comment of every type and
field. `data/openapi_descriptions.json.gz` holds them for every definition of the served groups, keyed by
upstream's definition name and field, as `tools/openapi_descriptions.py` extracts them from a published spec
(its `version` and `source` say which). A kind added to the server gets its words from here with no edit: the
lookup is by definition name.

Loaded on first use (the first OpenAPI document built), never at import: start-up neither reads nor keeps it.
"""
from __future__ import annotations

import json
import pathlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

DATA = pathlib.Path(__file__).resolve().parent / "data" / "openapi_descriptions.json.gz"
# served definition prefix -> upstream's, for the kinds whose Go package is not `k8s.io/api/<group>`
_UPSTREAM_PREFIX = {
    "io.k8s.api.apiextensions.v1.": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.",
    "io.k8s.api.apiregistration.v1.": "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.",
}

# Go structs embedded inline (`json:",inline"`): upstream publishes no definition for them, their fields are
# described on the type that embeds them
_INLINED_IN = {
    "io.k8s.api.core.v1.EphemeralContainerCommon": "io.k8s.api.core.v1.EphemeralContainer",
    "io.k8s.api.core.v1.ProbeHandler": "io.k8s.api.core.v1.Probe",
    "io.k8s.api.core.v1.VolumeSource": "io.k8s.api.core.v1.Volume",
}


@dataclass(frozen=True)
class Descriptions:
    """{definition: {"": the type's, field: the field's}}; enums {definition: {field: [values]}}."""

    version: str = ""
    source: str = ""
    types: dict[str, dict[str, str]] = field(default_factory=dict)
    enums: dict[str, dict[str, list[Any]]] = field(default_factory=dict)

    def of(self, definition: str) -> dict[str, str]:
        name = upstream_name(definition)
        if name in _INLINED_IN:
            return {k: v for k, v in self.types.get(_INLINED_IN[name], {}).items() if k}
        return self.types.get(name, {})

    def enums_of(self, definition: str) -> dict[str, list[Any]]:
        return self.enums.get(upstream_name(definition), {})


def upstream_name(definition: str) -> str:
    for ours, theirs in _UPSTREAM_PREFIX.items():
        if definition.startswith(ours):
            return theirs + definition[len(ours):]
    return definition


@lru_cache(maxsize=1)
def load(path: pathlib.Path = DATA) -> Descriptions:
    """The data file, read once; an absent or unreadable file gives no descriptions (the schemas stay valid)."""
    import gzip  # here, not at import: start-up does not need it
    try:
        data = json.loads(gzip.decompress(path.read_bytes()))
    except (OSError, ValueError, EOFError):
        return Descriptions()
    return Descriptions(str(data.get("version", "")), str(data.get("source", "")),
                        dict(data.get("descriptions") or {}), dict(data.get("enums") or {}))


def describe(definitions: dict[str, Any], v3: bool, data: Descriptions | None = None) -> dict[str, Any]:
    """`definitions` with upstream's descriptions added where a definition or property has none (and, in v3,
    `enum` where upstream publishes one). Returns new dicts for what it changes: the schemas passed in may be
    shared (memoised) and are left as they are."""
    data = load() if data is None else data
    out: dict[str, Any] = {}
    for name, schema in definitions.items():
        words, enums = data.of(name), (data.enums_of(name) if v3 else {})
        if not (words or enums) or not isinstance(schema, dict):
            out[name] = schema
            continue
        props = schema.get("properties")
        schema = dict(schema)
        if "" in words and "description" not in schema:
            schema = {"description": words[""], **schema}
        if isinstance(props, dict):
            new_props: dict[str, Any] = {}
            for field_name, prop in props.items():
                if isinstance(prop, dict):
                    if field_name in words and "description" not in prop:
                        prop = {"description": _words(words[field_name], v3), **_sibling_ready(prop, v3)}
                    if field_name in enums:
                        prop = _with_enum(prop, enums[field_name])
                new_props[field_name] = prop
            schema["properties"] = new_props
        out[name] = schema
    return out


_ENUM_PARAGRAPH = "\n\nPossible enum values:"


def _words(description: str, v3: bool) -> str:
    """A field's description; in v2 without the `Possible enum values` paragraph openapi-gen appends to an enum
    field's (kube-apiserver 1.33's `/openapi/v2`, `api/openapi-spec/swagger.json`, has none: v2 publishes no enums)."""
    return description if v3 else description.split(_ENUM_PARAGRAPH, 1)[0]


def _sibling_ready(prop: dict[str, Any], v3: bool) -> dict[str, Any]:
    """A v3 `$ref` given a sibling goes under `allOf`, as kube-openapi's v3 writes a described reference."""
    if v3 and "$ref" in prop:
        return {"allOf": [{"$ref": prop["$ref"]}], **{k: v for k, v in prop.items() if k != "$ref"}}
    return prop


def _with_enum(prop: dict[str, Any], values: list[Any]) -> dict[str, Any]:
    """`enum` on a string field, or on the items of a list of them (`[]PolicyType`), as kube-openapi puts it."""
    if prop.get("type") == "array" and isinstance(prop.get("items"), dict):
        items = prop["items"]
        return prop if "enum" in items or "$ref" in items or "allOf" in items else \
            {**prop, "items": {**items, "enum": list(values)}}
    if "enum" in prop or "$ref" in prop or "allOf" in prop:
        return prop
    return {**prop, "enum": list(values)}

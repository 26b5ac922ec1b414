"""Regenerate `conformance/reference_server/wire/data/openapi_descriptions.json.gz` from a published spec.

The reference server's OpenAPI documents are built from its field model (`wire/openapi_schemas.py`); this
file gives them upstream's words: each definition's and each field's `description`, and `enum` where the
source publishes one. Only the definitions of the groups the server serves are kept, keyed by upstream's
definition name, so a kind added to the server later (its definition is in the same package) gets its
descriptions with no edit here.

Sources it reads (the first match wins, by the document's shape):
- kube-apiserver's OpenAPI v3 documents (`api/openapi-spec/v3/*.json`: `components.schemas`, with `enum`),
- its Swagger 2.0 document (`api/openapi-spec/swagger.json`: `definitions`),
- the JSON-Schema bundle `kubernetes-validate` ships on PyPI (`$defs`, a conversion of swagger.json that
  keeps the descriptions verbatim but drops the "Possible enum values" paragraphs and `enum`).

`--enums-from` adds what that bundle drops, from the npm package `kubernetes-models` (its `.d.ts` files are
generated from the same swagger.json: an enum field is a union of string literals, its doc comment the full
description). A field's description is replaced only when the comment is the bundle's text followed by
upstream's "Possible enum values" paragraph, so nothing but that paragraph comes from there.

Usage:
    python tools/openapi_descriptions.py SOURCE [SOURCE ...] [--version v1.33.0] [--out PATH]
    python tools/openapi_descriptions.py --pypi kubernetes-validate==1.33.1 --enums-from kubernetes-models@4.5.1
    (the versions for v1.33.0: the bundle's `v1.33.0-local`; kubernetes-models 4.5.x is generated from 1.33)

A SOURCE is a .json file or a wheel (.whl) holding `kubernetes-json-schema/<version>-local/_definitions.json`.
"""
from __future__ import annotations

import argparse
import gzip
import json
import pathlib
import re
import tarfile
import subprocess
import sys
import tempfile
import zipfile
from typing import Any

OUT = pathlib.Path(__file__).resolve().parent.parent / "conformance/reference_server/wire/data/openapi_descriptions.json.gz"
# upstream packages of every group the server serves (core/v1, the named groups, meta, CRDs, APIServices)
PREFIXES = tuple(f"io.k8s.api.{g}.v1." for g in (
    "core", "apps", "batch", "networking", "policy", "coordination", "discovery", "rbac", "authentication",
    "authorization", "autoscaling", "scheduling", "storage", "node", "certificates", "events",
    "admissionregistration")) + (
    "io.k8s.api.autoscaling.v2.",  # HorizontalPodAutoscalers' storage version (registry/autoscaling.py)
    "io.k8s.api.flowcontrol.v1.",  # flowcontrol.apiserver.k8s.io/v1 (registry/flowcontrol.py)
    "io.k8s.apimachinery.pkg.apis.meta.v1.", "io.k8s.apimachinery.pkg.api.resource.",
    "io.k8s.apimachinery.pkg.util.intstr.", "io.k8s.apimachinery.pkg.runtime.",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.",
    "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.")


def schemas_of(doc: dict[str, Any]) -> dict[str, Any]:
    """The definitions of a v3 document, a Swagger 2.0 document or a JSON-Schema bundle."""
    for path in (("components", "schemas"), ("definitions",), ("$defs",)):
        node: Any = doc
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict):
            return node
    raise SystemExit("no definitions in the source (expected components.schemas, definitions or $defs)")


def extract(schemas: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(descriptions, enums): {definition: {"": type's, field: field's}}, {definition: {field: [values]}}."""
    descriptions: dict[str, dict[str, str]] = {}
    enums: dict[str, dict[str, list[Any]]] = {}
    for name, schema in sorted(schemas.items()):
        if not name.startswith(PREFIXES) or not isinstance(schema, dict):
            continue
        entry: dict[str, str] = {}
        if schema.get("description"):
            entry[""] = schema["description"]
        for field, prop in sorted((schema.get("properties") or {}).items()):
            if not isinstance(prop, dict):
                continue
            if prop.get("description"):
                entry[field] = prop["description"]
            values = prop.get("enum") or (prop.get("items") or {}).get("enum")
            if values and field not in ("apiVersion", "kind"):  # a bundle's own apiVersion/kind pins
                enums.setdefault(name, {})[field] = list(values)
        if entry:
            descriptions[name] = entry
    return descriptions, enums


# kubernetes-models' folders (API group/version) -> upstream's definition prefix
_NPM_GROUPS = {
    "v1": "io.k8s.api.core.v1", "apps/v1": "io.k8s.api.apps.v1", "batch/v1": "io.k8s.api.batch.v1",
    "autoscaling/v1": "io.k8s.api.autoscaling.v1", "autoscaling/v2": "io.k8s.api.autoscaling.v2",
    "policy/v1": "io.k8s.api.policy.v1", "flowcontrol.apiserver.k8s.io/v1": "io.k8s.api.flowcontrol.v1",
    **{f"{g}.k8s.io/v1": f"io.k8s.api.{g}.v1" for g in ("networking", "coordination", "discovery",
                                                         "authentication", "authorization", "scheduling",
                                                         "storage", "node", "certificates", "events",
                                                         "admissionregistration")},
    "rbac.authorization.k8s.io/v1": "io.k8s.api.rbac.v1",
    "apiextensions.k8s.io/v1": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1",
    "apiregistration.k8s.io/v1": "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1",
}
_PROPERTY = re.compile(r'^    "([^"]+)"\??: (.*);$')
_LITERALS = re.compile(r'^(?:Array<)?("[^"]*"(?: \| "[^"]*")*)>?$')


def npm_enums(tarball: pathlib.Path) -> dict[str, dict[str, tuple[list[str], str]]]:
    """{definition: {field: (enum values, doc comment)}} from a `kubernetes-models` tarball's interfaces."""
    out: dict[str, dict[str, tuple[list[str], str]]] = {}
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            parts = member.name.split("/")  # package/<group>/<version>/<Name>.d.ts or package/v1/<Name>.d.ts
            if not member.name.endswith(".d.ts") or len(parts) < 3:
                continue
            prefix = _NPM_GROUPS.get("/".join(parts[1:-1]))
            if prefix is None:
                continue
            text = tar.extractfile(member).read().decode()  # type: ignore[union-attr]
            name = parts[-1][:-len(".d.ts")]
            body = text.partition(f"export interface I{name} {{\n")[2].partition("\n}")[0]
            comment: list[str] = []
            for line in body.splitlines():
                if line.strip() == "/**":
                    comment = []
                elif line.startswith("     *") and not line.strip() == "*/":
                    comment.append(line[len("     * "):] if len(line) > 6 else "")
                elif (m := _PROPERTY.match(line)) and (lit := _LITERALS.match(m.group(2))):
                    values = [json.loads(v) for v in lit.group(1).split(" | ")]
                    doc = "\n".join(comment).replace("\\*", "*")  # the generator escapes `*` in comments
                    out.setdefault(f"{prefix}.{name}", {})[m.group(1)] = (values, doc)
    return out


def add_enums(descriptions: dict[str, Any], enums: dict[str, Any], npm: dict[str, Any]) -> tuple[int, int]:
    """Add `npm_enums`' values (and their "Possible enum values" paragraphs); (fields, paragraphs) added."""
    fields = paragraphs = 0
    for name, entry in npm.items():
        for field, (values, comment) in entry.items():
            if field in ("apiVersion", "kind"):
                continue
            enums.setdefault(name, {}).setdefault(field, values)
            fields += 1
            ours = descriptions.get(name, {}).get(field)
            if ours and comment.startswith(ours + "\n\nPossible enum values:"):
                descriptions[name][field] = comment
                paragraphs += 1
    return fields, paragraphs


def _load(source: pathlib.Path, version: str) -> dict[str, Any]:
    if source.suffix == ".whl":
        with zipfile.ZipFile(source) as wheel:
            member = next((n for n in wheel.namelist()
                           if n.endswith(f"/{version}-local/_definitions.json")), None)
            if member is None:
                raise SystemExit(f"{source}: no {version}-local/_definitions.json")
            return json.loads(wheel.read(member))
    return json.loads(source.read_text())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sources", nargs="*", type=pathlib.Path)
    ap.add_argument("--pypi", help="a requirement to `pip download` and read (e.g. kubernetes-validate==1.33.1)")
    ap.add_argument("--enums-from", help="a kubernetes-models .tgz, or a spec for `npm pack` (kubernetes-models@4.5.1)")
    ap.add_argument("--version", default="v1.33.0", help="the Kubernetes version the source describes")
    ap.add_argument("--out", type=pathlib.Path, default=OUT)
    args = ap.parse_args(argv)
    sources = list(args.sources)
    with tempfile.TemporaryDirectory() as tmp:
        if args.pypi:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp, args.pypi],
                           check=True)
            sources += sorted(pathlib.Path(tmp).glob("*.whl"))
        if not sources:
            ap.error("give a SOURCE or --pypi")
        descriptions: dict[str, Any] = {}
        enums: dict[str, Any] = {}
        for source in sources:
            d, e = extract(schemas_of(_load(source, args.version)))
            for name, entry in d.items():  # first source wins per definition
                descriptions.setdefault(name, entry)
            for name, entry in e.items():
                enums.setdefault(name, entry)
        label = [args.pypi] if args.pypi else []
        label += [s.name for s in args.sources]
        if args.enums_from:
            tarball = pathlib.Path(args.enums_from)
            if not tarball.is_file():
                subprocess.run(["npm", "pack", "--silent", "--pack-destination", tmp, args.enums_from], check=True,
                               stdout=subprocess.DEVNULL)
                tarball = next(pathlib.Path(tmp).glob("*.tgz"))
            added = add_enums(descriptions, enums, npm_enums(tarball))
            print(f"enums: {added[0]} fields, {added[1]} descriptions completed with their enum values")
            label.append(args.enums_from if not pathlib.Path(args.enums_from).is_file() else tarball.name)
    data = {"version": args.version, "source": ", ".join(label), "descriptions": descriptions, "enums": enums}
    raw = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))
    print(f"{args.out}: {len(descriptions)} definitions, {sum(map(len, enums.values()))} enums, "
          f"{len(raw)} bytes JSON, {args.out.stat().st_size} bytes gzipped")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

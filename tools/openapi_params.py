"""Regenerate `conformance/reference_server/wire/data/openapi_params.json` from upstream's Go sources.

kube-apiserver's installer (`apiserver/pkg/endpoints/installer.go` `AddObjectParams`) and the CRD OpenAPI builder
turn each options struct's fields into query parameters whose descriptions are the struct's `SwaggerDoc()`: the
`map_<Kind>` tables of `types_swagger_doc_generated.go`. This tool reads those tables for the options kinds the
server's OpenAPI documents use and writes them, keyed by kind then json field name.

Usage (the files of k8s.io/apimachinery and k8s.io/api v0.33.x):
    python tools/openapi_params.py apimachinery/pkg/apis/meta/v1/types_swagger_doc_generated.go \
        api/core/v1/types_swagger_doc_generated.go [--out PATH]
"""
from __future__ import annotations

import argparse
import json
import pathlib
import re

OUT = pathlib.Path(__file__).resolve().parent.parent / "conformance/reference_server/wire/data/openapi_params.json"
KINDS = ("ListOptions", "GetOptions", "CreateOptions", "UpdateOptions", "PatchOptions", "DeleteOptions",
         "PodLogOptions", "PodAttachOptions", "PodExecOptions", "PodPortForwardOptions", "PodProxyOptions",
         "ServiceProxyOptions", "NodeProxyOptions")
_TABLE = re.compile(r"^var map_(\w+) = map\[string\]string\{\n(.*?)^\}", re.M | re.S)
_ENTRY = re.compile(r'^\s*("(?:[^"\\]|\\.)*")\s*:\s*("(?:[^"\\]|\\.)*"),\s*$', re.M)


def tables(source: str) -> dict[str, dict[str, str]]:
    """Every `map_<Kind>` of a generated swagger-doc file (Go's interpreted string literals read as JSON's)."""
    out: dict[str, dict[str, str]] = {}
    for m in _TABLE.finditer(source):
        out[m.group(1)] = {json.loads(k): json.loads(v) for k, v in _ENTRY.findall(m.group(2))}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+", type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path, default=OUT)
    args = parser.parse_args()
    found: dict[str, dict[str, str]] = {}
    for path in args.sources:
        found.update(tables(path.read_text()))
    missing = [k for k in KINDS if k not in found]
    if missing:
        raise SystemExit(f"not found in the sources: {', '.join(missing)}")
    data = {k: {f: d for f, d in found[k].items() if f} for k in KINDS}
    args.out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()

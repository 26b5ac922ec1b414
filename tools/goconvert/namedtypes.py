"""Regenerate `conformance/reference_server/wire/_gonamed_table.py`: for each scalar field of the shared field
model (`wire.schema`) whose Go type is a named type (`type Protocol string`), the name reflect's
`Type.String()` prints (`v1.Protocol`: the package's name, not its path), which the unstructured converter's
`cannot convert int64 to v1.Protocol` shows (wire/goconvert.py).

It reads the `types.go` of each served group-version of one k8s.io/api release, and apimachinery's meta/v1, from
local git mirrors (the `fetch` tool's, or any clone): every `type X struct {...}` field's JSON name and type,
every named non-struct type, and each file's imports (to resolve `corev1.Protocol` in another group).

Usage:
    python tools/goconvert/namedtypes.py --api API_GIT --apimachinery APIMACHINERY_GIT [--tag v0.33.13] [--out PATH]
"""
from __future__ import annotations

import argparse
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "conformance/reference_server/wire/_gonamed_table.py"
# field model prefix -> (repository, path, Go import path)
SOURCES = {
    "core": ("api", "core/v1/types.go", "k8s.io/api/core/v1"),
    "apps": ("api", "apps/v1/types.go", "k8s.io/api/apps/v1"),
    "batch": ("api", "batch/v1/types.go", "k8s.io/api/batch/v1"),
    "networking": ("api", "networking/v1/types.go", "k8s.io/api/networking/v1"),
    "policy": ("api", "policy/v1/types.go", "k8s.io/api/policy/v1"),
    "coordination": ("api", "coordination/v1/types.go", "k8s.io/api/coordination/v1"),
    "discovery": ("api", "discovery/v1/types.go", "k8s.io/api/discovery/v1"),
    "rbac": ("api", "rbac/v1/types.go", "k8s.io/api/rbac/v1"),
    "scheduling": ("api", "scheduling/v1/types.go", "k8s.io/api/scheduling/v1"),
    "storage": ("api", "storage/v1/types.go", "k8s.io/api/storage/v1"),
    "node": ("api", "node/v1/types.go", "k8s.io/api/node/v1"),
    "autoscaling": ("api", "autoscaling/v1/types.go", "k8s.io/api/autoscaling/v1"),
    "autoscalingv2": ("api", "autoscaling/v2/types.go", "k8s.io/api/autoscaling/v2"),
    "certificates": ("api", "certificates/v1/types.go", "k8s.io/api/certificates/v1"),
    "events": ("api", "events/v1/types.go", "k8s.io/api/events/v1"),
    "admissionregistration": ("api", "admissionregistration/v1/types.go", "k8s.io/api/admissionregistration/v1"),
    "flowcontrol": ("api", "flowcontrol/v1/types.go", "k8s.io/api/flowcontrol/v1"),
    "authentication": ("api", "authentication/v1/types.go", "k8s.io/api/authentication/v1"),
    "authorization": ("api", "authorization/v1/types.go", "k8s.io/api/authorization/v1"),
    "meta": ("apimachinery", "pkg/apis/meta/v1/types.go", "k8s.io/apimachinery/pkg/apis/meta/v1"),
    "types.uid": ("apimachinery", "pkg/types/uid.go", "k8s.io/apimachinery/pkg/types"),  # named types only
    "types.nodename": ("apimachinery", "pkg/types/nodename.go", "k8s.io/apimachinery/pkg/types"),
}
BASIC = {"bool", "string", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64", "byte"}
_STRUCT = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.MULTILINE | re.DOTALL)
_NAMED = re.compile(r"^type (\w+) (\w+)\s*$", re.MULTILINE)
_FIELD = re.compile(r'^\s*\w+\s+(\S+)\s+`[^`]*json:"([^",]*)', re.MULTILINE)
_IMPORT = re.compile(r'^\s*(?:(\w+)\s+)?"([^"]+)"\s*$', re.MULTILINE)


def _source(repos: dict[str, str], tag: str, repo: str, path: str) -> str:
    return subprocess.run(["git", "--git-dir", repos[repo], "show", f"{tag}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def _imports(src: str) -> dict[str, str]:
    block = re.search(r"^import \((.*?)^\)", src, re.MULTILINE | re.DOTALL)
    out = {}
    for alias, path in _IMPORT.findall(block.group(1) if block else ""):
        out[alias or path.rsplit("/", 1)[-1]] = path
    return out


def build(repos: dict[str, str], tag: str) -> dict[str, str]:
    sys.path.insert(0, str(ROOT))
    from conformance.reference_server.wire import schema
    from conformance.reference_server.wire._proto_table import MESSAGES

    parsed = {prefix: _source(repos, tag, repo, path) for prefix, (repo, path, _) in SOURCES.items()}
    by_path = {imp: prefix for prefix, (_, _, imp) in SOURCES.items()}
    named: dict[str, set[str]] = {}
    for prefix, (_, _, imp) in SOURCES.items():
        named.setdefault(imp, set()).update(n for n, base in _NAMED.findall(parsed[prefix]) if base in BASIC)
    out: dict[str, str] = {}
    for prefix, src in parsed.items():
        imports, own = _imports(src), SOURCES[prefix][2]
        for struct, body in _STRUCT.findall(src):
            message = f"{prefix}.{struct}"
            if message not in MESSAGES:
                continue
            model = {f.name: f for f in schema.fields(message)}
            for typ, json_name in _FIELD.findall(body):
                f = model.get(json_name)
                if f is None or f.is_message:
                    continue
                base = re.sub(r"^(\*|\[\]|map\[[^\]]*\])+", "", typ)
                pkg, _, name = base.rpartition(".")
                path = imports.get(pkg) if pkg else own
                if path in by_path and name in named[path]:
                    out[f.qualified] = f"{path.rsplit('/', 1)[1]}.{name}"
    return out


def arguments(out: pathlib.Path, repos: tuple[str, ...] = ("api", "apimachinery")) -> argparse.Namespace:
    """The command line of this directory's generators: the mirrors (`--api API_GIT`, ...), the release tag, the
    table's path."""
    ap = argparse.ArgumentParser()
    for repo in repos:
        ap.add_argument(f"--{repo}", required=True)
    ap.add_argument("--tag", default="v0.33.13")
    ap.add_argument("--out", default=str(out))
    return ap.parse_args()


def main() -> None:
    args = arguments(OUT)
    table = build({"api": args.api, "apimachinery": args.apimachinery}, args.tag)
    doc = (f'"""Generated by tools/goconvert/namedtypes.py from k8s.io/api and k8s.io/apimachinery {args.tag}: '
           "the Go named type\nof each scalar field of the field model whose type is one (`reflect.Type.String()`)."
           '"""')
    lines = [doc, "", "NAMED: dict[str, str] = {"]
    lines += [f"    {k!r}: {v!r}," for k, v in sorted(table.items())]
    lines += ["}", ""]
    pathlib.Path(args.out).write_text("\n".join(lines).replace("'", '"'))
    print(f"{len(table)} fields -> {args.out}")


if __name__ == "__main__":
    main()

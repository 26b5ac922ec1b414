"""Regenerate `conformance/reference_server/controller/workloads/templatehash/data/podtemplate_types.json`: the Go
type model go-spew walks when kube-controller-manager hashes a pod template (`controller.ComputeHash`).

It reads the Go sources of one release from local git mirrors (the `fetch` tool's, or any clone):
k8s.io/api `core/v1/types.go`, and apimachinery's `pkg/apis/meta/v1/{types,time}.go`,
`pkg/api/resource/{quantity,amount}.go`, `pkg/util/intstr/intstr.go`, `pkg/types/uid.go`; parses every
`type X struct {...}` and every named non-struct type (`type Protocol string`, `type ResourceList
map[ResourceName]resource.Quantity`), and keeps those reachable from `v1.PodTemplateSpec`, each with the fields
in declaration order: the Go name spew prints, the type (as go-spew's `%#v` prints it through reflect's
`Type.String()`: the package's name, not its path) and the JSON name (`null` for an inline embedded struct).
`time.Time` and `inf.Dec` are outside these sources; the renderer knows them.

Usage:
    python tools/templatehash/gotypes.py --api API_GIT --apimachinery APIMACHINERY_GIT [--tag v0.33.13] [--out PATH]
"""
from __future__ import annotations

import argparse
import json
import pathlib
import re
import subprocess
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "conformance/reference_server/controller/workloads/templatehash/data/podtemplate_types.json"
ROOT_TYPE = "k8s.io/api/core/v1.PodTemplateSpec"
# (repository, path, Go import path of its package)
SOURCES = [
    ("api", "core/v1/types.go", "k8s.io/api/core/v1"),
    ("apimachinery", "pkg/apis/meta/v1/types.go", "k8s.io/apimachinery/pkg/apis/meta/v1"),
    ("apimachinery", "pkg/apis/meta/v1/time.go", "k8s.io/apimachinery/pkg/apis/meta/v1"),
    ("apimachinery", "pkg/api/resource/quantity.go", "k8s.io/apimachinery/pkg/api/resource"),
    ("apimachinery", "pkg/api/resource/amount.go", "k8s.io/apimachinery/pkg/api/resource"),
    ("apimachinery", "pkg/util/intstr/intstr.go", "k8s.io/apimachinery/pkg/util/intstr"),
    ("apimachinery", "pkg/types/uid.go", "k8s.io/apimachinery/pkg/types"),
]
BASIC = {"bool", "string", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32",
         "uint64", "uintptr", "float32", "float64", "byte", "rune"}
EXTERNAL = {"time.Time", "gopkg.in/inf.v0.Dec"}  # modelled by hand in the renderer
PACKAGE_NAMES = {"gopkg.in/inf.v0": "inf"}

_TYPE_DECL = re.compile(r"^type\s+(\w+)\s+(.*)$")
_IMPORT = re.compile(r'^\s*(?:(\w+)\s+)?"([^"]+)"\s*$')


def package_name(path: str) -> str:
    return PACKAGE_NAMES.get(path, path.rsplit("/", 1)[-1])


def strip_comment(line: str) -> str:
    """The line without its `//` comment (struct tags are backquoted and never hold `//` in these files)."""
    out, quote = [], ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "`\"":
            quote = ch
        elif line.startswith("//", i):
            break
        out.append(ch)
    return "".join(out).rstrip()


class Source:
    """One Go file: its imports (name → path) and its type declarations."""

    def __init__(self, text: str, pkg: str):
        self.pkg = pkg
        self.imports: dict[str, str] = {}
        self.decls: dict[str, Any] = {}
        text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)  # block comments
        lines = [strip_comment(x) for x in text.splitlines()]
        self._imports(lines)
        self._types(lines)

    def _imports(self, lines: list[str]) -> None:
        inside = False
        for line in lines:
            if line.startswith("import ("):
                inside = True
            elif inside and line.strip() == ")":
                inside = False
            elif inside or line.startswith("import "):
                m = _IMPORT.match(line.replace("import ", "", 1) if not inside else line)
                if m:
                    self.imports[m.group(1) or package_name(m.group(2))] = m.group(2)

    def _types(self, lines: list[str]) -> None:
        i = 0
        while i < len(lines):
            m = _TYPE_DECL.match(lines[i])
            i += 1
            if not m:
                continue
            name, rest = m.group(1), m.group(2).strip()
            if rest.startswith("struct"):
                fields: list[list[Any]] = []
                if not rest.endswith("{}"):
                    while lines[i] != "}":
                        field = self._field(lines[i])
                        if field:
                            fields.append(field)
                        i += 1
                    i += 1
                self.decls[name] = {"fields": fields}
            elif not rest.startswith("interface") and not rest.startswith("="):
                self.decls[name] = {"underlying": self.type_expr(rest)}

    def _field(self, line: str) -> list[Any] | None:
        """`Name Type \\`tags\\`` or an embedded `Type \\`tags\\``: [Go name, type, JSON name or None if inline]."""
        tag = ""
        if "`" in line:
            line, tag = line.split("`", 1)
        words = line.split()
        if not words:
            return None
        json_name: Any = None
        m = re.search(r'json:"([^"]*)"', tag)
        if len(words) == 1:  # embedded: its name is the type's own
            type_src = words[0]
            go_name = type_src.lstrip("*").rsplit(".", 1)[-1]
        else:
            go_name, type_src = words[0].rstrip(","), " ".join(words[1:])
        if m:
            opts = m.group(1).split(",")
            json_name = None if "inline" in opts[1:] and not opts[0] else opts[0] or go_name
            if json_name == "-":
                json_name = "-"
        elif len(words) > 1:
            json_name = go_name  # no tag: encoding/json uses the Go name
        return [go_name, self.type_expr(type_src), json_name]

    def type_expr(self, src: str) -> Any:
        """A Go type expression as nested lists: ["ptr", T], ["slice", T], ["map", K, V], a basic type's name,
        or "@<import path>.<Name>" for a named type."""
        src = src.strip()
        if src.startswith("*"):
            return ["ptr", self.type_expr(src[1:])]
        if src.startswith("[]"):
            return ["slice", self.type_expr(src[2:])]
        if src.startswith("map["):
            depth, j = 0, 3
            for j in range(3, len(src)):
                depth += {"[": 1, "]": -1}.get(src[j], 0)
                if depth == 0:
                    break
            return ["map", self.type_expr(src[4:j]), self.type_expr(src[j + 1:])]
        if src in BASIC:
            return {"byte": "uint8", "rune": "int32"}.get(src, src)
        if "." in src:
            alias, name = src.split(".", 1)
            return f"@{self.imports[alias]}.{name}"
        return f"@{self.pkg}.{src}"


def read(git_dir: str, tag: str, path: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{tag}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def reachable(decls: dict[str, Any], root: str) -> dict[str, Any]:
    """The declarations `root` reaches, each with its printed name (`v1.PodSpec`)."""
    out: dict[str, Any] = {}

    def walk(t: Any) -> None:
        if isinstance(t, list):
            for part in t[1:]:
                walk(part)
        elif isinstance(t, str) and t.startswith("@"):
            key = t[1:]
            if key in out or key in EXTERNAL:
                return
            if key not in decls:
                raise SystemExit(f"gotypes: {key} is not declared in the sources read")
            pkg, name = key.rsplit(".", 1)
            out[key] = {"name": f"{package_name(pkg)}.{name}", **decls[key]}
            for field in decls[key].get("fields", ()):
                walk(field[1])
            if "underlying" in decls[key]:
                walk(decls[key]["underlying"])

    walk("@" + root)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--api", required=True, help="git directory of k8s.io/api (kubernetes/api)")
    ap.add_argument("--apimachinery", required=True, help="git directory of k8s.io/apimachinery")
    ap.add_argument("--tag", default="v0.33.13", help="the release tag both repositories are read at")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    repos = {"api": args.api, "apimachinery": args.apimachinery}
    decls: dict[str, Any] = {}
    for repo, path, pkg in SOURCES:
        src = Source(read(repos[repo], args.tag, path), pkg)
        decls.update({f"{pkg}.{name}": d for name, d in src.decls.items()})
    table = {"source": f"k8s.io/api and k8s.io/apimachinery {args.tag}", "root": ROOT_TYPE,
             "types": dict(sorted(reachable(decls, ROOT_TYPE).items()))}
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(table, fh, separators=(",", ":"), sort_keys=False)
        fh.write("\n")
    print(f"{args.out}: {len(table['types'])} types")


if __name__ == "__main__":
    main()

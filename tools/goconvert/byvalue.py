"""Regenerate `conformance/reference_server/wire/_gobyvalue_table.py`: the fields of the shared field model
(`wire.schema`) that Go holds by value -- a string, number, bool or struct, not a pointer, slice, map or
interface -- on which a JSON `null` is ignored by the decoder (sigs.k8s.io/json
internal/golang/encoding/json/decode.go `literalStore`: `case 'n'` zeroes only an Interface, Pointer, Map or
Slice; any other value is left as it was, so a repeated key's `null` keeps the first value). A by-value struct
with its own `UnmarshalJSON` (metav1.Time, resource.Quantity, intstr.IntOrString, runtime.RawExtension) is
listed too; what its `UnmarshalJSON` makes of `null` is `wire/dupkeys.py`'s to say.

It reads every non-test Go file of each served group-version's package of one k8s.io/api release, and of
apimachinery's meta/v1 (the packages `namedtypes.py` reads), from local git mirrors (the `fetch` tool's, or any
clone): every struct field's JSON name and Go type, and every named type's underlying type (`type ResourceList
map[...]`, `type ExtraValue []string`: a map or a slice, however it is named).

The same for the Go structs of the kinds outside the field model that wire/crdtypes.py describes by hand (a
CRD's: k8s.io/apiextensions-apiserver; an APIService's: k8s.io/kube-aggregator).

Beside it, `conformance/reference_server/wire/_gokinds_table.py`: every field of the field model with the Go
kind encoding/json writes it by (`struct` held by value, `pointer`, `slice`, `map`, `interface`, `string`,
`number`, `bool`) and whether its tag says `omitempty` (encode.go `isEmptyValue`: a struct is never empty; a
slice or map of length 0, "", 0 and false are), which wire/gowritten.py writes a stored object by; and
`conformance/reference_server/wire/_godescribed_table.py`: the same for the Go structs a CRD and an APIService
reach, which wire/gowritten_described.py writes them by.

Usage:
    python tools/goconvert/byvalue.py --api API_GIT --apimachinery APIMACHINERY_GIT \
        --apiextensions APIEXTENSIONS_APISERVER_GIT --aggregator KUBE_AGGREGATOR_GIT [--tag v0.33.13] [--out PATH]
"""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from namedtypes import ROOT, SOURCES, _imports, arguments

OUT = ROOT / "conformance/reference_server/wire/_gobyvalue_table.py"
KINDS_OUT = ROOT / "conformance/reference_server/wire/_gokinds_table.py"
DESCRIBED_OUT = ROOT / "conformance/reference_server/wire/_godescribed_table.py"
COMMAND = ("python tools/goconvert/byvalue.py --api API_GIT --apimachinery APIMACHINERY_GIT\n"
           "        --apiextensions APIEXTENSIONS_APISERVER_GIT --aggregator KUBE_AGGREGATOR_GIT --tag {tag}")
_STRUCT = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.MULTILINE | re.DOTALL)
_NAMED = re.compile(r"^type (\w+) (?:= )?([^\s{]+)", re.MULTILINE)  # `type X map[...]...`, `type X = Y`
_FIELD = re.compile(r'^\s*(?:\w+\s+)?([^\s`]+)\s+`[^`]*json:"([^",]*)([^"]*)"', re.MULTILINE)  # embedded or named
_NULLABLE = ("*", "[]", "map[", "interface{", "func(", "chan ")  # what `null` sets to nil (reflect's kinds)


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", repo, *args], check=True, capture_output=True, text=True).stdout


def _package(repo: str, tag: str, path: str) -> list[str]:
    """The sources of the package holding `path` (no tests, no protobuf code)."""
    folder = path.rsplit("/", 1)[0] + "/"
    names = _git(repo, "ls-tree", "--name-only", tag, folder).split()
    return [_git(repo, "show", f"{tag}:{n}") for n in names
            if n.endswith(".go") and not n.endswith(("_test.go", ".pb.go")) and "/zz_generated" not in n]


def build(repos: dict[str, str], tag: str, kinds: dict[str, dict[str, str]] | None = None) -> dict[str, set[str]]:
    """Each table's qualified fields: `BY_VALUE` (the field), `ITEMS` (a slice's items), `VALUES` (a map's
    values) held by value; `NIL_OMITTED`: a pointer, slice or map that Go's encoder omits when nil
    (`omitempty`; one without it, written `null` when nil, is `kinds`'). `kinds`, if given, is filled
    with each message's fields' Go kinds (`_go_kind`), `,omitempty` added where the tag says so."""
    sys.path.insert(0, str(ROOT))
    from conformance.reference_server.wire import schema
    from conformance.reference_server.wire._proto_table import MESSAGES

    packages = {prefix: _package(repos[repo], tag, path) for prefix, (repo, path, _) in SOURCES.items()}
    underlying: dict[tuple[str, str], str] = {}  # (import path, type name) -> underlying type as written
    for prefix, (_, _, imp) in SOURCES.items():
        for src in packages[prefix]:
            underlying.update(((imp, n), base) for n, base in _NAMED.findall(src))
    out: dict[str, set[str]] = {"BY_VALUE": set(), "ITEMS": set(), "VALUES": set(), "NIL_OMITTED": set()}
    for prefix, (_, _, own) in SOURCES.items():
        for src in packages[prefix]:
            imports = _imports(src)
            for struct, body in _STRUCT.findall(src):
                message = f"{prefix}.{struct}"
                if message not in MESSAGES:
                    continue
                model = schema.fields_by_name(message)
                for typ, json_name, options in _FIELD.findall(body):
                    if json_name not in model:
                        continue
                    table = _held(typ, imports, own, underlying)
                    if kinds is not None:
                        omit = ",omitempty" if "omitempty" in options.split(",") else ""
                        kinds.setdefault(message, {})[json_name] = _go_kind(typ, imports, own, underlying) + omit
                    if table is not None:
                        out[table].add(model[json_name].qualified)
                    if table != "BY_VALUE" and "omitempty" in options.split(","):
                        out["NIL_OMITTED"].add(model[json_name].qualified)
    return out


# the kinds outside the field model whose spec and status wire/crdtypes.py describes: kind -> (repository, a file
# of the package, Go import path)
DESCRIBED = {
    "CustomResourceDefinition": ("apiextensions", "pkg/apis/apiextensions/v1/types.go",
                                 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"),
    "APIService": ("aggregator", "pkg/apis/apiregistration/v1/types.go",
                   "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"),
}


def build_described(repos: dict[str, str], tag: str, kinds: dict[str, dict[str, str]] | None = None) -> set[str]:
    """`DESCRIBED_BY_VALUE`: `<kind>.<Go struct>.<json name>` of each field of those kinds' packages held by value.
    `kinds`, if given, is filled with the Go kind (`_go_kind`, `,omitempty` added) of each field of each struct
    the kind's own struct reaches, keyed `<kind>.<Go struct>`."""
    out: set[str] = set()
    for kind, (repo, path, own) in DESCRIBED.items():
        sources = _package(repos[repo], tag, path)
        underlying = {(own, n): base for src in sources for n, base in _NAMED.findall(src)}
        structs: dict[str, list[tuple[str, str, str]]] = {}
        for src in sources:
            imports = _imports(src)
            for struct, body in _STRUCT.findall(src):
                fields = _FIELD.findall(body)
                structs[struct] = [(typ, json_name, _go_kind(typ, imports, own, underlying)
                                    + (",omitempty" if "omitempty" in options.split(",") else ""))
                                   for typ, json_name, options in fields if json_name and json_name != "-"]
                out.update(f"{kind}.{struct}.{json_name}" for typ, json_name, _ in fields
                           if json_name and _held(typ, imports, own, underlying) == "BY_VALUE")
        if kinds is not None:
            for struct in _reached(kind, structs, {n: base for (_, n), base in underlying.items()}):
                if structs[struct]:
                    kinds[f"{kind}.{struct}"] = {name: go_kind for _, name, go_kind in structs[struct]}
    return out


def _reached(root: str, structs: dict[str, list[tuple[str, str, str]]], named: dict[str, str]) -> list[str]:
    """The structs of the package `root`'s fields reach (through pointers, slices, maps and named types), `root`
    first, in the order met."""
    seen = [root]
    for struct in seen:  # (grows as it goes)
        for typ, _, _ in structs.get(struct, ()):
            for _ in range(8):
                typ = re.sub(r"^(\*|\[\]|map\[[^\]]*\])+", "", typ)
                if typ in structs:
                    if typ not in seen:
                        seen.append(typ)
                    break
                if typ not in named or named[typ] == "struct":
                    break
                typ = named[typ]
    return seen


def _held(typ: str, imports: dict[str, str], own: str, underlying: dict[tuple[str, str], str]) -> str | None:
    """Which table a field of Go type `typ` belongs in: `BY_VALUE` (not a pointer, slice, map or interface, written
    so or named so: followed through the packages read; a type of another package is a struct or a scalar),
    `ITEMS` or `VALUES` (a slice or map whose elements are held by value), or None."""
    for _ in range(8):  # (a chain of named types: `type A B`, `type B []string`)
        if typ.startswith("[]"):
            return None if _resolved(typ[2:], imports, own, underlying).startswith(_NULLABLE) else "ITEMS"
        if typ.startswith("map["):
            value = typ[typ.index("]") + 1:]
            return None if _resolved(value, imports, own, underlying).startswith(_NULLABLE) else "VALUES"
        if typ.startswith(_NULLABLE):
            return None
        found = _underlying(typ, imports, own, underlying)
        if found is None or found == "struct":
            return "BY_VALUE"
        typ = found
    return None


_NUMBERS = ("int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32",
            "float64", "byte", "rune")


def _go_kind(typ: str, imports: dict[str, str], own: str, underlying: dict[tuple[str, str], str]) -> str:
    """The reflect kind encoding/json writes a field of Go type `typ` by: `pointer`, `slice`, `map`, `interface`
    (a func or chan too: nil-able), `string`, `number`, `bool`, or `struct` (a struct held by value, or a type of
    a package not read: metav1.Time, resource.Quantity, intstr.IntOrString, runtime.RawExtension are structs)."""
    for _ in range(8):
        if typ.startswith("*"):
            return "pointer"
        if typ.startswith("[]"):
            return "slice"
        if typ.startswith("map["):
            return "map"
        if typ.startswith(_NULLABLE):
            return "interface"
        found = _underlying(typ, imports, own, underlying)
        if found is None:  # a basic type (`corev1.string` once a named one is followed), or one not read
            name = typ.rpartition(".")[2]
            return name if name in ("string", "bool") else "number" if name in _NUMBERS else "struct"
        if found == "struct":
            return "struct"
        typ = found
    return "struct"


def _underlying(typ: str, imports: dict[str, str], own: str, underlying: dict[tuple[str, str], str]) -> str | None:
    """A named type's underlying type as written (qualified as `typ` is), or None (a basic or an unread type)."""
    pkg, _, name = typ.rpartition(".")
    found = underlying.get((imports.get(pkg, "") if pkg else own, name))
    if found is None or found == "struct" or found.startswith(_NULLABLE) or "." in found or not pkg:
        return found
    return f"{pkg}.{found}"


def _resolved(typ: str, imports: dict[str, str], own: str, underlying: dict[tuple[str, str], str]) -> str:
    """`typ` followed through its named types to what it is written as last (`[]string` for `ExtraValue`)."""
    for _ in range(8):
        found = _underlying(typ, imports, own, underlying)
        if found is None or found == "struct":
            return typ
        typ = found
    return typ


def _rows(table: set[str]) -> list[str]:
    """One line a message (its fields' names), wrapped at 120 columns."""
    by_message: dict[str, list[str]] = {}
    for qualified in sorted(table):
        message, _, name = qualified.rpartition(".")
        by_message.setdefault(message, []).append(name)
    lines: list[str] = []
    for message, names in by_message.items():
        lines += _entry(message, [repr(n) for n in names], "frozenset({", "})")
    return lines


def _entry(message: str, items: list[str], opening: str, closing: str) -> list[str]:
    """`message: <opening>items<closing>,` on one line, or, past 120 columns, the items wrapped below it."""
    line = f"    {message!r}: {opening}" + ", ".join(items) + f"{closing},"
    if len(line) <= 120:
        return [line]
    lines = [f"    {message!r}: {opening}"]
    row = "       "
    for item in items:
        if len(row) + len(item) + 2 > 120:
            lines.append(row.rstrip())
            row = "       "
        row += f" {item},"
    return lines + [row, f"    {closing},"]


def main() -> None:
    args = arguments(OUT, ("api", "apimachinery", "apiextensions", "aggregator"))
    kinds: dict[str, dict[str, str]] = {}
    tables = build({"api": args.api, "apimachinery": args.apimachinery}, args.tag, kinds)
    described: dict[str, dict[str, str]] = {}
    tables["DESCRIBED_BY_VALUE"] = build_described({"apiextensions": args.apiextensions,
                                                     "aggregator": args.aggregator}, args.tag, described)
    doc = (f'"""Generated by tools/goconvert/byvalue.py from k8s.io/api, apimachinery, apiextensions-apiserver and '
           f"kube-aggregator\n{args.tag}: the fields of the field model that Go holds by value (no pointer, slice, map "
           "or interface):\n`BY_VALUE` the field itself, `ITEMS` the items of a slice, `VALUES` the values of a map; a "
           "JSON `null` given to one\nleaves it as it was (decode.go `literalStore`), unless its type has an "
           "`UnmarshalJSON` of its own. `NIL_OMITTED`:\nthe pointers, slices and maps (`null` sets them to nil) that "
           "Go writes not at all when nil (`omitempty`;\nthe others, written `null`, and the Go kind of every field: "
           "`_gokinds_table.py`).\n`DESCRIBED_BY_VALUE`: `BY_VALUE` for the Go structs of the "
           'kinds wire/crdtypes.py describes (a CRD, an APIService),\nkeyed `<kind>.<struct>`."""')
    lines = [doc]
    for name, table in tables.items():
        lines += ["", f"{name}: dict[str, frozenset[str]] = {{"]
        lines += _rows(table)
        lines.append("}")
    lines.append("")
    pathlib.Path(args.out).write_text("\n".join(lines).replace("'", '"'))
    print(", ".join(f"{name}: {len(t)} fields" for name, t in tables.items()), f"-> {args.out}")
    kinds_out = pathlib.Path(args.out).with_name(KINDS_OUT.name)
    kinds_out.write_text(_kinds_text(kinds, args.tag))
    print(f"GO_KINDS: {sum(map(len, kinds.values()))} fields -> {kinds_out}")
    described_out = pathlib.Path(args.out).with_name(DESCRIBED_OUT.name)
    described_out.write_text(_described_text(described, args.tag))
    print(f"DESCRIBED_GO_KINDS: {sum(map(len, described.values()))} fields -> {described_out}")


def _kinds_text(kinds: dict[str, dict[str, str]], tag: str) -> str:
    """`_gokinds_table.py`: a message's fields (JSON names, in the Go struct's order) and their Go kinds."""
    doc = (f'"""Generated by tools/goconvert/byvalue.py from k8s.io/api and apimachinery {tag}:\n    '
           + COMMAND.format(tag=tag) + "\nEach field of the field model (`wire/schema.py`) with the reflect kind "
           "encoding/json writes it by: `struct`\n(held by value, its own `MarshalJSON` or not), `pointer`, "
           "`slice`, `map`, `interface`, `string`, `number`, `bool`;\n`,omitempty` where its tag says so "
           '(encode.go `isEmptyValue`: never a struct; a slice or map of length 0,\n"", 0, false)."""')
    lines = [doc, "", "GO_KINDS: dict[str, dict[str, str]] = {"]
    for message in sorted(kinds):
        lines += _entry(message, [f"{name!r}: {kind!r}" for name, kind in kinds[message].items()], "{", "}")
    lines += ["}", ""]
    return "\n".join(lines).replace("'", '"')


_DESCRIBED_DOC = """Each field (JSON name, in the order of the Go struct) of the Go structs a CustomResourceDefinition
(`pkg/apis/apiextensions/v1`) and an APIService (`pkg/apis/apiregistration/v1`) reach, keyed `<kind>.<struct>`,
with the reflect kind encoding/json writes it by, as in `_gokinds_table.py` (`struct` a struct held by value or a
type of another package: metav1.Time, ObjectMeta); a struct with only a `MarshalJSON` of its own (`JSON`,
`JSONSchemaPropsOrArray`, ...: no JSON fields) is not listed (wire/gowritten_described.py).\"\"\""""


def _described_text(kinds: dict[str, dict[str, str]], tag: str) -> str:
    """`_godescribed_table.py`: the fields of the Go structs of a CRD and an APIService (those their own struct
    reaches) with their Go kinds, as `_gokinds_table.py` has them for the field model's."""
    doc = (f'"""Generated by tools/goconvert/byvalue.py from k8s.io/apiextensions-apiserver and kube-aggregator {tag}:\n'
           f"    {COMMAND.format(tag=tag)}\n" + _DESCRIBED_DOC)
    lines = [doc, "", "DESCRIBED_GO_KINDS: dict[str, dict[str, str]] = {"]
    for message in sorted(kinds):
        lines += _entry(message, [f"{name!r}: {kind!r}" for name, kind in kinds[message].items()], "{", "}")
    lines += ["}", ""]
    return "\n".join(lines).replace("'", '"')


if __name__ == "__main__":
    main()

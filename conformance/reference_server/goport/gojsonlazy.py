"""evanphx/json-patch v4.12.0's lazy nodes on JSON text: the bytes `MergePatch` and `Patch.Apply` write.

Upstream: gopkg.in/evanphx/json-patch.v4 v4.12.0 (the version kube-apiserver 1.33 vendors), `patch.go` (`lazyNode`,
`partialDoc`, `partialArray`, `findObject`, the six operations, `equal`, `deepCopy`) and `merge.go` (`doMergePatch`,
`mergeDocs`, `merge`, `pruneNulls`). A `lazyNode` keeps the bytes its value was read from (`eRaw`) until something
reads inside it (`intoDoc`/`intoAry`, also `tryDoc`/`tryAry` in a `test` operation's `equal`); writing one again is
`json.Marshal`: an untouched node's bytes compacted (encoding/json `appendCompact`: whitespace outside strings
dropped, `<`, `>`, `&`, U+2028, U+2029 escaped, nothing else touched: a string's `\\u00e9`, a number's `1.0` kept),
an object that was read a `map[string]*lazyNode` (keys sorted, each written as encoding/json writes a string), an
array that was read its elements; a `null` member or element is a nil node (`null`).

What the server uses this for: every JSON patch, a PATCH's and a mutating webhook's (http/patch.py: v4.12.0's
semantics, such as a `replace` of a missing key adding it, negative indices, `test` comparing bytes, the copy
limit kube-apiserver sets, and its error texts), the bytes a JSON or merge patch leaves in a `RawExtension`
(ControllerRevision `data`, gojsonraw.py), and the text of a patched document no kind decodes (a merge patch that
is an array, a JSON patch replacing the document by one: their 422). `PatchFailed` is evanphx's error;
`GoPanicked` where Go dereferences a nil node or writes into a nil map (kube-apiserver's handler panics: a walk
through a `null` an earlier operation added, an `add` into the `null` a `copy` of one wrote: `intoDoc` reads those
bytes into a nil `partialDoc`, `NilDoc`); `Unfollowed` where Go would read `null` into a nil slice: the caller then
keeps its own answer.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable

from . import gojsonnum
from .gojsonraw import compact
from .gonet.strconv import quote
from ..wire.gotypes import kind_word

_RAW, _DOC, _ARY = 0, 1, 2
_WS = " \t\r\n"
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]', re.DOTALL)
_LITERAL = re.compile(r'[^\s,:\]}]+')
_ATOI = re.compile(r"[+-]?[0-9]+\Z")  # strconv.Atoi's syntax (its int64 range checked apart)


class PatchFailed(Exception):
    """evanphx/json-patch answered an error (`str()`: its text, pkg/errors' `Wrapf` chain as v4.12.0 words it)."""


class Unfollowed(Exception):
    """A case this model does not follow (`null` read into a nil map, whose later use may or may not panic)."""


class GoPanicked(Unfollowed):
    """Where v4.12.0 dereferences a nil pointer (a nil node's bytes or kind): kube-apiserver's handler panics."""


class NilDoc(dict):  # type: ignore[type-arg]
    """A `partialDoc` that `json.Unmarshal` of `null` left nil (no error: `intoDoc`, `tryDoc`): read as empty,
    written `null` (`json.Marshal` of a nil map); writing into it (`partialDoc.add`, `set`) panics."""


def _write_check(con: Container) -> None:
    """`(*d)[key] = val` into a nil map: Go's runtime panic."""
    if isinstance(con, NilDoc):
        raise GoPanicked("assignment to entry in nil map")


class Node:
    """`lazyNode`: `raw` (None: a nil `*json.RawMessage`), and once read, `doc` or `ary`."""

    __slots__ = ("ary", "doc", "raw", "which")

    def __init__(self, raw: str | None) -> None:
        self.raw, self.doc, self.ary, self.which = raw, None, None, _RAW

    @property
    def text(self) -> str:
        if self.raw is None:
            raise GoPanicked("nil raw message")
        return self.raw


MaybeNode = Node | None
Doc = dict[str, MaybeNode]
Ary = list[MaybeNode]


# ---- reading JSON text (already checked well formed: the body was decoded before) -----------------------------
def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _value_end(text: str, i: int) -> int:
    c = text[i]
    if c == '"':
        return _STRING.match(text, i).end()  # type: ignore[union-attr]
    if c in "{[":
        depth = 0
        for m in _TOKEN.finditer(text, i):
            t = m.group()
            if t in "{[":
                depth += 1
            elif t in "}]":
                depth -= 1
                if depth == 0:
                    return m.end()
        raise Unfollowed("unterminated JSON value")
    return _LITERAL.match(text, i).end()  # type: ignore[union-attr]


def _node(raw: str) -> MaybeNode:
    """A member or element as `json.Unmarshal` into `*lazyNode` leaves it: `null` a nil pointer, else its bytes."""
    return None if raw == "null" else Node(raw)


def _read_doc(text: str) -> Doc:
    """`json.Unmarshal(text, &partialDoc)` of an object (a repeated key: the last)."""
    i = _skip(text, 1)
    out: Doc = {}
    while text[i] != "}":
        m = _STRING.match(text, i)
        if m is None:
            raise Unfollowed("object key expected")
        key = json.loads(m.group())
        i = _skip(text, _skip(text, m.end()) + 1)  # (past the colon)
        end = _value_end(text, i)
        out[key] = _node(text[i:end])
        i = _skip(text, end)
        if text[i] == ",":
            i = _skip(text, i + 1)
    return out


def _read_ary(text: str) -> Ary:
    i = _skip(text, 1)
    out: Ary = []
    while text[i] != "]":
        end = _value_end(text, i)
        out.append(_node(text[i:end]))
        i = _skip(text, end)
        if text[i] == ",":
            i = _skip(text, i + 1)
    return out


def _try(n: Node, which: int) -> bool:
    """`tryDoc` (`which` _DOC) or `tryAry` (_ARY): the node read so when its bytes are an object (an array)."""
    if n.raw is None:
        return False
    if n.raw == "null":  # (only a `copy` of a node of no bytes writes these: `deepCopy` marshals it)
        if which != _DOC:
            raise Unfollowed("null read into a partialArray")
        n.doc, n.which = NilDoc(), _DOC
        return True
    if n.raw[:1] != ("{" if which == _DOC else "["):
        return False
    if which == _DOC:
        n.doc = _read_doc(n.raw)
    else:
        n.ary = _read_ary(n.raw)
    n.which = which
    return True


def _try_doc(n: Node) -> bool:
    return _try(n, _DOC)


def _try_ary(n: Node) -> bool:
    return _try(n, _ARY)


def _into(n: Node, which: int) -> Doc | Ary:
    """`intoDoc`/`intoAry`: the node read as an object (an array); PatchFailed when it is none."""
    if n.which != which:
        if n.raw is None:
            raise PatchFailed("invalid state detected")
        if not _try(n, which):
            raise PatchFailed("json: cannot unmarshal into Go value of type jsonpatch."
                              + ("partialDoc" if which == _DOC else "partialArray"))
    return n.doc if which == _DOC else n.ary  # type: ignore[return-value]


def into_doc(n: Node) -> Doc:
    return _into(n, _DOC)  # type: ignore[return-value]


def into_ary(n: Node) -> Ary:
    return _into(n, _ARY)  # type: ignore[return-value]


# ---- writing -----------------------------------------------------------------------------------------------------
def marshal(n: MaybeNode) -> str:
    """`json.Marshal` of a node (`MarshalJSON`, then encoding/json's compaction of what it returns)."""
    if n is None or n.which == _RAW and n.raw is None:
        return "null"
    if n.which == _DOC:
        return marshal_doc(n.doc)  # type: ignore[arg-type]
    if n.which == _ARY:
        return marshal_ary(n.ary)  # type: ignore[arg-type]
    return compact(n.raw)  # type: ignore[arg-type]


def marshal_doc(doc: Doc) -> str:
    """A `partialDoc`: keys sorted (encoding/json's map order: byte order of the UTF-8 keys, which is code point
    order), each written as encoding/json writes a string; a nil one `null`."""
    if isinstance(doc, NilDoc):
        return "null"
    return "{" + ",".join(gojsonnum.encode(k) + ":" + marshal(doc[k]) for k in sorted(doc)) + "}"


def marshal_ary(ary: Ary) -> str:
    return "[" + ",".join(marshal(v) for v in ary) + "]"


# ---- merge.go ------------------------------------------------------------------------------------------------------
def _merge(cur: Node, patch: Node) -> Node:
    try:
        cur_doc = into_doc(cur)
    except PatchFailed:
        _prune(patch)
        return patch
    try:
        patch_doc = into_doc(patch)
    except PatchFailed:
        return patch
    _merge_docs(cur_doc, patch_doc)
    return cur


def _merge_docs(doc: Doc, patch: Doc) -> None:
    for k, v in patch.items():
        if v is None:
            doc.pop(k, None)
        else:
            cur = doc.get(k)
            if cur is None:
                _prune(v)
                doc[k] = v
            else:
                doc[k] = _merge(cur, v)


def _prune(n: Node) -> None:
    """`pruneNulls`: every object and array inside read (so written again), an object's nulls dropped."""
    try:
        _prune_doc(into_doc(n))
    except PatchFailed:
        try:
            _prune_ary(into_ary(n))
        except PatchFailed:
            pass


def _prune_doc(doc: Doc) -> Doc:
    for k, v in list(doc.items()):
        if v is None:
            del doc[k]
        else:
            _prune(v)
    return doc


def _prune_ary(ary: Ary) -> Ary:
    for v in ary:
        if v is not None:
            _prune(v)
    return ary


def _top(text: str) -> tuple[str, str]:
    """(the document's text without surrounding whitespace, its first character)."""
    text = text.strip(_WS)
    return text, text[:1]


def merge_patch(doc_text: str, patch_text: str) -> str:
    """`MergePatch(docData, patchData)` (`doMergePatch` with mergeMerge false): the bytes it returns."""
    doc, first = _top(doc_text)
    patch, pfirst = _top(patch_text)
    if doc == "null":
        raise PatchFailed("Invalid JSON Document")
    if patch == "null":
        raise PatchFailed("Invalid JSON Patch")
    if first == "{" and pfirst == "{":
        out = _read_doc(doc)
        _merge_docs(out, _read_doc(patch))
        return marshal_doc(out)
    if pfirst == "{":  # (the document no object: the patch, pruned, is the result)
        return marshal_doc(_prune_doc(_read_doc(patch)))
    if pfirst != "[":
        raise PatchFailed("Invalid JSON Patch")
    return marshal_ary(_prune_ary(_read_ary(patch)))


# ---- patch.go: RFC 6902 (error texts: github.com/pkg/errors `Wrapf`, "<message>: <cause>") ---------------------------
Container = Doc | Ary
_MISSING = "missing value"  # ErrMissing
# `AccumulatedCopySizeLimit`: kube-apiserver sets it to its JSONPatchMaxCopyBytes (server/config.go, 3 MiB)
COPY_LIMIT = 3 * 1024 * 1024
_BAD_INDEX = "invalid index referenced"  # ErrInvalidIndex


def _atoi(key: str) -> int:
    """strconv.Atoi (its errors' text)."""
    if not _ATOI.match(key):
        raise PatchFailed(f"strconv.Atoi: parsing {quote(key)}: invalid syntax")
    value = int(key)
    if not -(1 << 63) <= value < 1 << 63:
        raise PatchFailed(f"strconv.Atoi: parsing {quote(key)}: value out of range")
    return value


def _invalid_index(idx: int) -> PatchFailed:
    return PatchFailed(f"Unable to access invalid index: {idx}: {_BAD_INDEX}")


def _index(key: str, size: int, upper_first: bool = False) -> int:
    """An array index as `partialArray`'s methods take it (`SupportNegativeIndices`: `-1` the last); `add` and
    `remove` check the upper bound before a negative index is moved, `get` after."""
    idx = _atoi(key)
    if upper_first and idx >= size:
        raise _invalid_index(idx)
    if idx < 0:
        if idx < -size:
            raise _invalid_index(idx)
        idx += size
    if idx >= size:
        raise _invalid_index(idx)
    return idx


def _get(con: Container, key: str) -> MaybeNode:
    if isinstance(con, dict):
        return con.get(key)  # (a missing key is a nil node, no error)
    return con[_index(key, len(con))]


def _set(con: Container, key: str, val: MaybeNode) -> None:
    if isinstance(con, dict):
        _write_check(con)
        con[key] = val
    else:
        con[_index(key, len(con))] = val


def _add(con: Container, key: str, val: MaybeNode) -> None:
    if isinstance(con, dict):
        _write_check(con)
        con[key] = val
        return
    if key == "-":
        con.append(val)
        return
    try:
        _atoi(key)
    except PatchFailed as exc:
        raise PatchFailed(f"value was not a proper array index: '{key}': {exc}") from None
    con.insert(_index(key, len(con) + 1, upper_first=True), val)


def _remove(con: Container, key: str) -> None:
    if isinstance(con, dict):
        if key not in con:
            raise PatchFailed(f"Unable to remove nonexistent key: {key}: {_MISSING}")
        del con[key]
    else:
        del con[_index(key, len(con), upper_first=True)]


def _decode_key(k: str) -> str:
    return k.replace("~1", "/").replace("~0", "~")  # (strings.NewReplacer: one pass; "~01" is "~1" both ways)


def _find(root: Container, path: str) -> tuple[Container, str] | None:
    """`findObject`: the container of the path's last part, and that part decoded; None where it finds none."""
    split = path.split("/")
    if len(split) < 2:
        return None
    doc = root
    for part in split[1:-1]:
        try:
            nxt = _get(doc, _decode_key(part))
        except PatchFailed:
            return None
        if nxt is None:
            return None
        try:
            doc = into_ary(nxt) if nxt.text.lstrip(" \n\t")[:1] == "[" else into_doc(nxt)  # (`isArray`)
        except PatchFailed:
            return None
    return doc, _decode_key(split[-1])


def _field(op: dict[str, MaybeNode], name: str, missing: str) -> str:
    """`Operation.Path()`/`From()`: the member read as a string (its decoding error, or `missing`, else)."""
    n = op.get(name)
    if n is None or n.raw is None:
        raise PatchFailed(f"{missing}: {_MISSING}")
    value = json.loads(n.raw)
    if not isinstance(value, str):
        raise PatchFailed(f"json: cannot unmarshal {kind_word(value)} into Go value of type string")
    return value


def _path(op: dict[str, MaybeNode]) -> str:
    return _field(op, "path", "operation missing path field")


def _from(op: dict[str, MaybeNode]) -> str:
    return _field(op, "from", "operation, missing from field")


def _value(op: dict[str, MaybeNode]) -> MaybeNode:
    """`Operation.value()`: a node of the `value` member's bytes (a `null` one: a node of none), nil when absent."""
    if "value" not in op:
        return None
    n = op["value"]
    return Node(None) if n is None else Node(n.raw)


def _compact_plain(n: Node) -> str | None:
    return None if n.raw is None else compact(n.raw, escape=False)


def equal(n: Node, o: MaybeNode) -> bool:
    """`lazyNode.equal`, with its side effect: each node it looks inside is read (`tryDoc`/`tryAry`)."""
    if o is None:
        raise GoPanicked("equal against a nil node")
    if n.which == _RAW and not _try_doc(n) and not _try_ary(n):
        return o.which == _RAW and _compact_plain(n) == _compact_plain(o)
    if n.which == _DOC:
        if o.which == _RAW and not _try_doc(o):
            return False
        if o.which != _DOC or len(n.doc) != len(o.doc):  # type: ignore[arg-type]
            return False
        for k, v in n.doc.items():  # type: ignore[union-attr]
            if k not in o.doc:  # type: ignore[operator]
                return False
            ov = o.doc[k]  # type: ignore[index]
            if (v is None) != (ov is None):
                return False
            if v is not None and not equal(v, ov):
                return False
        return True
    if o.which != _ARY and not _try_ary(o):
        return False
    if len(n.ary) != len(o.ary):  # type: ignore[arg-type]
        return False
    for v, ov in zip(n.ary, o.ary):  # type: ignore[arg-type]
        if v is None:
            raise GoPanicked("equal on a nil node")
        if not equal(v, ov):
            return False
    return True


def _at_path(root: Container, op: dict[str, MaybeNode], name: str, act: Callable[[Container, str], None]) -> Container:
    """`add` and `remove`: the path read (any error is ErrMissing's), its container found, `act` on its key."""
    try:
        path = _path(op)
    except PatchFailed:
        raise PatchFailed(f"{name} operation failed to decode path: {_MISSING}") from None
    found = _find(root, path)
    if found is None:
        raise PatchFailed(f'{name} operation does not apply: doc is missing path: "{path}": {_MISSING}')
    try:
        act(*found)
    except PatchFailed as exc:
        raise PatchFailed(f"error in {name} for path: '{path}': {exc}") from None
    return root


def _op_add(root: Container, op: dict[str, MaybeNode], copied: list[int]) -> Container:
    return _at_path(root, op, "add", lambda con, key: _add(con, key, _value(op)))


def _op_remove(root: Container, op: dict[str, MaybeNode], copied: list[int]) -> Container:
    return _at_path(root, op, "remove", _remove)


def _op_replace(root: Container, op: dict[str, MaybeNode], copied: list[int]) -> Container:
    try:
        path = _path(op)
    except PatchFailed as exc:
        raise PatchFailed(f"replace operation failed to decode path: {exc}") from None
    if path == "":
        val = _value(op)
        if val is None:
            raise GoPanicked("replace of the document by a nil node")
        if val.which == _RAW and not _try_doc(val) and not _try_ary(val):
            return root  # (`errors.Wrapf(err, ...)` of a nil err is nil: no error, nothing replaced)
        return val.ary if val.which == _ARY else val.doc  # type: ignore[return-value]
    found = _find(root, path)
    if found is None:
        raise PatchFailed(f"replace operation does not apply: doc is missing path: {path}: {_MISSING}")
    con, key = found
    try:
        _get(con, key)  # (a missing index refused; a missing key is no error in v4.12.0: it is added)
    except PatchFailed:
        raise PatchFailed(f"replace operation does not apply: doc is missing key: {path}: {_MISSING}") from None
    _set(con, key, _value(op))
    return root


def _located(root: Container, op: dict[str, MaybeNode], name: str, member: str) -> tuple[str, Container, str]:
    """`move` and `copy`: their `from` or `path` read and its container found, errors in `name`'s words (`copy`
    words any `path` error as ErrMissing's)."""
    try:
        where = _from(op) if member == "from" else _path(op)
    except PatchFailed as exc:
        cause = _MISSING if (name, member) == ("copy", "path") else exc
        raise PatchFailed(f"{name} operation failed to decode {member}: {cause}") from None
    found = _find(root, where)
    if found is None:
        what = "from path" if member == "from" else "destination path"
        raise PatchFailed(f"{name} operation does not apply: doc is missing {what}: {where}: {_MISSING}")
    return (where, *found)


def _op_move(root: Container, op: dict[str, MaybeNode], copied: list[int]) -> Container:
    _, con, key = _located(root, op, "move", "from")
    try:
        val = _get(con, key)
        _remove(con, key)
    except PatchFailed as exc:
        raise PatchFailed(f"error in move for path: '{key}': {exc}") from None
    path, *found = _located(root, op, "move", "path")
    try:
        _add(found[0], found[1], val)
    except PatchFailed as exc:
        raise PatchFailed(f"error in move for path: '{path}': {exc}") from None
    return root


def _op_test(root: Container, op: dict[str, MaybeNode], copied: list[int]) -> Container:
    try:
        path = _path(op)
    except PatchFailed as exc:
        raise PatchFailed(f"test operation failed to decode path: {exc}") from None
    failed = PatchFailed(f"testing value {path} failed: test failed")
    want = _value(op)
    if path == "":
        self = Node(None)
        if isinstance(root, dict):
            self.doc, self.which = root, _DOC
        else:
            self.ary, self.which = root, _ARY
        if not equal(self, want):
            raise failed
        return root
    found = _find(root, path)
    if found is None:
        raise PatchFailed(f"test operation does not apply: is missing path: {path}: {_MISSING}")
    try:
        val = _get(*found)
    except PatchFailed as exc:
        raise PatchFailed(f"error in test for path: '{path}': {exc}") from None
    if val is None:
        if want is None:
            raise GoPanicked("test of a missing value without a value")
        if want.raw is None:
            return root
        raise failed
    if want is None or not equal(val, want):
        raise failed
    return root


def _op_copy(root: Container, op: dict[str, MaybeNode], copied: list[int]) -> Container:
    frm, con, key = _located(root, op, "copy", "from")
    try:
        val = _get(con, key)
    except PatchFailed as exc:
        raise PatchFailed(f"error in copy for from: '{frm}': {exc}") from None
    _, con, key = _located(root, op, "copy", "path")
    copy_text = None if val is None else marshal(val)  # (`deepCopy`: the value written, read lazily again)
    copied[0] += 0 if copy_text is None else len(copy_text.encode("utf-8"))
    if copied[0] > COPY_LIMIT:
        raise PatchFailed(f"Unable to complete the copy, the accumulated size increase of copy is {copied[0]}, "
                          f"exceeding the limit {COPY_LIMIT}")
    try:
        _add(con, key, None if copy_text is None else Node(copy_text))
    except PatchFailed as exc:
        raise PatchFailed(f"error while adding value during copy: {exc}") from None
    return root


_OPS = {"add": _op_add, "remove": _op_remove, "replace": _op_replace, "move": _op_move, "test": _op_test,
        "copy": _op_copy}


def _kind(op: dict[str, MaybeNode]) -> str:
    """`Operation.Kind()`: the `op` member read as a string, else "unknown"."""
    n = op.get("op")
    if n is None or n.raw is None:
        return "unknown"
    value = json.loads(n.raw)
    return value if isinstance(value, str) else "unknown"


def apply_patch(doc_text: str, patch_text: str) -> str:
    """`DecodePatch(patch).Apply(doc)`: the bytes it returns (PatchFailed: `Apply`'s error, its text; a patch
    `DecodePatch` refuses is the caller's to refuse first)."""
    doc, first = _top(doc_text)
    patch, pfirst = _top(patch_text)
    if pfirst != "[" or first not in "{[" or not doc:
        raise Unfollowed("not a patch of a document")
    root: Container = _read_ary(doc) if first == "[" else _read_doc(doc)
    copied = [0]  # (the bytes `copy` operations added so far)
    for element in _read_ary(patch):
        op = {} if element is None else _read_doc(element.text) if element.text[:1] == "{" else None
        if op is None:
            raise Unfollowed("an operation that is no object")
        kind = _kind(op)
        if kind not in _OPS:
            raise PatchFailed(f"Unexpected kind: {kind}")
        root = _OPS[kind](root, op, copied)
    return marshal_doc(root) if isinstance(root, dict) else marshal_ary(root)


__all__ = ["GoPanicked", "NilDoc", "Node", "PatchFailed", "Unfollowed", "apply_patch", "equal", "into_ary", "into_doc", "marshal",
           "merge_patch"]

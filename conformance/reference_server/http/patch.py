"""PATCH bodies: JSON patch (RFC 6902), JSON merge patch (RFC 7386), strategic merge patch (`strategicpatch`).

Pure functions over JSON values; errors are the StatusErrors `handlers/patch.go` produces.
"""
from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .. import apierrors as E
from ..goport import gojsonlazy, gojsonnum
from ..warning import add_warning
from ..wire import legacyscheme, patchedgvk
from ..wire.legacyscheme import INTERNAL
from ..wire.gomaps import ordered_like
from ..wire.gotypes import kind_word
from ..wire.patchmeta import EMPTY, Node
from ..wire.textdecode import loads_json
from .decode import PATCHED_JS, patch_invalid, version_kind_error
from .strategicpatch import strategic_merge_patch

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH, APPLY_PATCH)
# `customresource_handler.go`: custom resources have no Go types, hence no strategic merge.
CUSTOM_RESOURCE_PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, APPLY_PATCH)
MAX_JSON_PATCH_OPERATIONS = 10000

class PatchApplyError(E.StatusError):
    """`Patch.Apply`'s error as handlers/patch.go answers it: `NewGenericServerResponse(422, "", {}, "",
    err.Error(), 0, false)`, which (isUnexpectedResponse false) carries no cause: the client sees the generic
    message and `details: {}`; `text` keeps evanphx's words for a mutating webhook's patch (the dispatcher's
    `NewInternalError(err)` shows them)."""

    def __init__(self, text: str) -> None:
        super().__init__(E.status_dict(422, "Invalid", "the server rejected our request due to an error in our "
                                       "request", {}))
        self.text = text


def _apply_error(msg: str) -> E.StatusError:
    return PatchApplyError(msg)


# ---- RFC 7386 ------------------------------------------------------------------------------------
def _merged_non_object(patch: Any, raw: bytes | None) -> E.StatusError:
    """A merge patch that is not an object, as `applyJSPatch` (apiserver handlers/patch.go) answers it under
    `fieldValidation=Ignore`: evanphx/json-patch v4.12.0's `MergePatch` (merge.go `doMergePatch`) refuses `null`
    and a scalar with `ErrBadJSONPatch` (a 400 with its text); an array becomes the patched document itself (the
    nulls inside its objects pruned, each object's keys in Go's map order), which the JSON serializer then cannot
    decode into any kind (`SimpleMetaFactory.Interpret`): the 422 on `patch` naming it, shown as `MergePatch`
    wrote it (`raw`, the patch's bytes: gojsonlazy.py keeps each scalar's bytes as sent, compacted)."""
    if not isinstance(patch, list):
        return E.bad_request("Invalid JSON Patch")
    patched = [_pruned(v, ordered=True) for v in patch]
    shown = None
    if raw is not None:
        try:
            shown = gojsonlazy.merge_patch("{}", raw.decode("utf-8", "replace"))
        except (gojsonlazy.PatchFailed, gojsonlazy.Unfollowed):
            shown = None
    return patch_invalid(patched, MERGE_PATCH, patch, version_kind_error(patched), shown)  # type: ignore[arg-type]


def _pruned(value: Any, ordered: bool = False) -> Any:
    """`pruneNulls`: an object's null members dropped, recursively, through arrays too (an array's nulls kept), a
    copy; `ordered`: each object's keys in Go's map order (what `json.Marshal` of the result writes)."""
    if isinstance(value, dict):
        items = sorted(value.items()) if ordered else value.items()
        return {k: _pruned(v, ordered) for k, v in items if v is not None}
    if isinstance(value, list):
        return [_pruned(v, ordered) for v in value]
    return copy.deepcopy(value)


def merge_patch(target: Any, patch: Any) -> Any:
    """evanphx/json-patch v4 `mergeDocs`: a value that is not an object replaces the target's, pruned of the nulls
    inside its objects where the target's was no object (`merge`: `pruneNulls(patch)`), as sent where it was one."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch) if isinstance(target, dict) else _pruned(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


# ---- RFC 6902 ------------------------------------------------------------------------------------
def _pointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise _apply_error(f'JSON pointer must be empty or start with a "/": {path!r}')
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _parent(doc: Any, parts: list[str], path: str) -> tuple[Any, str]:
    cur = doc
    for p in parts[:-1]:
        if isinstance(cur, dict) and p in cur:
            cur = cur[p]
        elif isinstance(cur, list) and p.isdigit() and int(p) < len(cur):
            cur = cur[int(p)]
        else:
            raise _apply_error(f'doc is missing path: "{path}": missing value')
    return cur, parts[-1]


def _get(doc: Any, path: str) -> Any:
    parts = _pointer(path)
    if not parts:
        return doc
    parent, last = _parent(doc, parts, path)
    if isinstance(parent, dict) and last in parent:
        return parent[last]
    if isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        return parent[int(last)]
    raise _apply_error(f'doc is missing path: "{path}": missing value')


def _remove(doc: Any, path: str) -> Any:
    parts = _pointer(path)
    if not parts:
        raise _apply_error("unable to remove the document root")
    parent, last = _parent(doc, parts, path)
    if isinstance(parent, dict) and last in parent:
        return parent.pop(last)
    if isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        return parent.pop(int(last))
    raise _apply_error(f'unable to remove nonexistent key: {last}: missing value')


def _add(doc: Any, path: str, value: Any, replace: bool = False) -> Any:
    parts = _pointer(path)
    if not parts:
        return value
    parent, last = _parent(doc, parts, path)
    if isinstance(parent, dict):
        if replace and last not in parent:
            raise _apply_error(f'replace operation does not apply: doc is missing key: {path}: missing value')
        parent[last] = value
    elif isinstance(parent, list):
        if last == "-" and not replace:
            parent.append(value)
        elif last.isdigit() and (int(last) < len(parent) or (not replace and int(last) == len(parent))):
            if replace:
                parent[int(last)] = value
            else:
                parent.insert(int(last), value)
        else:
            raise _apply_error(f"Unable to access invalid index: {last}: invalid index referenced")
    else:
        raise _apply_error(f'doc is missing path: "{path}": missing value')
    return doc


def json_patch(doc: Any, ops: Any, raw: bytes | None = None) -> Any:
    """Apply RFC 6902 operations; a malformed patch ⇒ 400 (`DecodePatch`), a failing operation ⇒ 422. `raw`, the
    patch's bytes: applied as evanphx/json-patch v4.12.0 applies them (gojsonlazy.py, on the document's JSON),
    the result read again as kube-apiserver decodes it (a case gojsonlazy does not follow: as below)."""
    if ops is None:
        ops = []  # (`json.Unmarshal` of `null` into a `Patch`: nil, no error, nothing to apply)
    if not isinstance(ops, list):
        raise E.bad_request(f"json: cannot unmarshal {kind_word(ops)} into Go value of type jsonpatch.Patch")
    if len(ops) > MAX_JSON_PATCH_OPERATIONS:
        raise E.request_entity_too_large(f"The allowed maximum operations in a JSON patch is "
                                         f"{MAX_JSON_PATCH_OPERATIONS}, got {len(ops)}")
    for op in ops:
        if op is not None and not isinstance(op, dict):
            raise E.bad_request(f"json: cannot unmarshal {kind_word(op)} into Go value of type jsonpatch.Operation")
    applied = _evanphx(doc, raw) if raw is not None else None
    try:
        mine = _operations(doc, ops)
    except E.StatusError:
        if applied is None:
            raise
        mine = doc  # (evanphx applies what the walk below refuses: a `replace` of a missing key, index `-1`, ...)
    return mine if applied is None else ordered_like(applied, mine)


def _evanphx(doc: Any, raw: bytes) -> Any:
    """The patched document as evanphx/json-patch v4.12.0 writes it and kube-apiserver reads it again; its error
    (`PatchApplyError`); None where gojsonlazy does not follow it (or the result holds a number no float64 holds,
    read from the stored object)."""
    try:
        text = gojsonlazy.apply_patch(gojsonnum.encode(doc), raw.decode("utf-8", "replace"))
    except gojsonlazy.PatchFailed as exc:
        raise _apply_error(str(exc)) from None
    except gojsonlazy.GoPanicked as exc:  # (`WithPanicRecovery`'s 500)
        raise E.GoPanic(f"runtime error: invalid memory address or nil pointer dereference ({exc})") from None
    except gojsonlazy.Unfollowed:
        return None
    try:
        return loads_json(text.encode())
    except (ValueError, E.StatusError):
        return None


def _operations(doc: Any, ops: list[Any]) -> Any:
    """The operations applied to the decoded document (where evanphx is not followed, and the key order)."""
    doc = copy.deepcopy(doc)
    for op in ops:
        if op is None:
            raise _apply_error("Unexpected kind: unknown")
        kind, path = op.get("op"), op.get("path")
        if not isinstance(path, str):
            raise _apply_error(f"{kind} operation does not apply: missing path")
        if kind in ("add", "replace", "test") and "value" not in op:
            raise _apply_error(f"{kind} operation does not apply: missing value")
        if kind == "add":
            doc = _add(doc, path, copy.deepcopy(op["value"]))
        elif kind == "remove":
            _remove(doc, path)
        elif kind == "replace":
            doc = _add(doc, path, copy.deepcopy(op["value"]), replace=True)
        elif kind in ("move", "copy"):
            frm = op.get("from")
            if not isinstance(frm, str):
                raise _apply_error(f"{kind} operation does not apply: missing from")
            value = _remove(doc, frm) if kind == "move" else copy.deepcopy(_get(doc, frm))
            doc = _add(doc, path, value)
        elif kind == "test":
            if _get(doc, path) != op["value"]:
                raise _apply_error(f"testing value {path} failed: test failed")
        else:
            raise _apply_error(f"Unexpected kind: {kind}")
    return doc


def _patched_array(doc: dict[str, Any], out: list[Any], patch: Any, raw: bytes | None) -> E.StatusError:
    """A JSON patch that `replace`s the document by an array: `Apply` returns it, and the JSON serializer cannot
    decode it into any kind (handlers/patch.go `applyPatchToCurrentObject`'s `DecodeInto` error): the 422 on
    `patch` showing the bytes evanphx wrote."""
    shown = patched_text(doc, JSON_PATCH, raw) if raw is not None else None
    return patch_invalid(out, JSON_PATCH, patch, version_kind_error(out), shown)  # type: ignore[arg-type]


def patched_text(doc: Any, patch_type: str, raw: bytes) -> str | None:
    """The bytes evanphx/json-patch v4.12.0 returns for a JSON or merge patch of `doc` (`patchedObjJS`: the
    object's JSON as kube-apiserver encodes it, patched); None for other patches and where it errs."""
    try:
        text = raw.decode("utf-8", "replace")
        if patch_type == JSON_PATCH:
            return gojsonlazy.apply_patch(gojsonnum.encode(doc), text)
        if patch_type == MERGE_PATCH:
            return gojsonlazy.merge_patch(gojsonnum.encode(doc), text)
    except (gojsonlazy.PatchFailed, gojsonlazy.Unfollowed):
        pass
    return None


@contextmanager
def patched_js(doc: Any, patch_type: str, raw: bytes) -> Iterator[None]:
    """Within: a JSON or merge patch's 422 on `patch` shows `patched_text` (decode.py `PATCHED_JS`, computed only
    then); `doc` is the object the patch ran on, unchanged."""
    token = PATCHED_JS.set(lambda: patched_text(doc, patch_type, raw))
    try:
        yield
    finally:
        PATCHED_JS.reset(token)


def refuse_patched_gvk(patched: dict[str, Any], patch_type: str, patch: Any, custom: bool,
                       into: tuple[str, str, str] | None = None, mode: str = "Ignore", prior: list[str] | None = None,
                       name: str = "") -> legacyscheme.Read | None:
    """A JSON or merge patch's result whose version and kind the JSON serializer cannot read (wire/patchedgvk.py:
    a `kind` or `apiVersion` no string, an `apiVersion` of two slashes, a custom resource's `kind` gone): the 422
    on `patch` `applyPatchToCurrentObject` makes of `DecodeInto`'s error, the patched bytes shown (`PATCHED_JS`),
    and quoted again in a missing kind's message. Within `patched_js`; `custom`: a custom resource.

    `into`: a built-in kind's served `(group, version, kind)`, whose version and kind read then meet `DecodeInto`'s decoder
    (`patchedgvk.read`): a version or kind the scheme does not register, another kind (`unknown conversion`), a
    group without a version are that 422; a version removed (or `__internal`) is the kind's internal one
    (`gvkWithDefaults` from `ObjectKinds(into)`), so the JSON is read into the internal object itself, whose
    fields have no JSON names (kjson matches them case-sensitively) but its embedded ObjectMeta's
    (`internal_meta`): under Strict (`mode`) the 422 naming its unknown fields after the patch's own (`prior`),
    under Warn those as warnings; without a top-level `name` `applyPatch`'s `checkName` refuses it (`name`: the
    URL's), else the caller updates it with its ObjectMeta alone (`internal_object`). Returns what the decoder
    read of a built-in kind's version and kind (`other_version` finds another registered version of it there),
    else None."""
    if patch_type not in (JSON_PATCH, MERGE_PATCH):
        return None
    shown: list[str] = []

    def text() -> str:
        if not shown:
            lazy = PATCHED_JS.get()
            shown.append((lazy() if lazy is not None else None) or gojsonnum.encode(patched))
        return shown[0]
    why = patchedgvk.decode_error(patched, custom, text)
    found = None if why is not None or into is None else patchedgvk.read(patched, (into[0], INTERNAL, into[2]), into)
    if found is not None:
        why = patchedgvk.scheme_error(found, text)
    if why is not None:
        raise patch_invalid(patched, patch_type, patch, why, text())
    if found is not None and found.internal and (meta := internal_meta(patched)) is not None:
        unknown = [f'unknown field "{key}"' for key in sorted(patched)
                   if key not in ("apiVersion", "kind") and key not in _OBJECT_META_NAMES]
        if mode == "Strict" and (prior or unknown):
            raise patch_invalid(patched, patch_type, patch,
                                "strict decoding error: " + ", ".join([*(prior or []), *unknown]), text())
        if mode == "Warn":  # rest.go `addStrictDecodingWarnings`: recorded, so sent with the 400 (warning.py)
            for strict in [*(prior or []), *unknown]:
                add_warning(strict)
        if not meta.get("name"):
            raise E.bad_request(f"the name of the object ({name} based on URL) was undeterminable: name must be "
                                "provided")
    return found


def internal_meta(patched: dict[str, Any]) -> dict[str, Any] | None:
    """The `metav1.ObjectMeta` the internal type (embedding it untagged, so its fields' JSON names at the top level)
    reads from the patched object's top level: its fields there, a null one left unset; None where it is not
    followed (README "Known gaps"): a key with a capital (an internal field's Go name, `Data`, which kjson would
    read) or a value not of its field's JSON type (the decoder's error), a timestamp, owner reference or managed
    field entry (their nested types)."""
    meta: dict[str, Any] = {}
    for key, value in patched.items():
        if key[:1].isupper():
            return None
        if key not in _OBJECT_META_NAMES or value is None:
            continue
        if not _META_TYPES[key](value):
            return None
        meta[key] = value
    return meta


def internal_object(patched: dict[str, Any]) -> dict[str, Any]:
    """The patched object as the internal type holds it (`internal_meta` not None): its `kind`
    (`metav1.TypeMeta`'s, embedded too) and its ObjectMeta; every other field unknown (dropped)."""
    out: dict[str, Any] = {"metadata": internal_meta(patched) or {}}
    if isinstance(patched.get("kind"), str):
        out["kind"] = patched["kind"]
    return out


def other_version(found: legacyscheme.Read | None, into: tuple[str, str, str], converter: Any) -> str | None:
    """The `apiVersion` of another registered version of the kind `into` (`(group, version, kind)`, the route's)
    that the patched object named (`found`: `refuse_patched_gvk`'s), where this server converts it (`converter`:
    the kind's fieldmanager/versionconverter.py `VersionConverter`, None for a kind served in one version): json.go
    `UseOrCreateObject` made that version's Go type (`Scheme.New`), so the patched JSON is decoded as that
    version's (its fields only, its defaults), then converted (versioning.go `Decode`); None otherwise (the
    route's own version, or one this server does not serve: README "Known gaps")."""
    if found is None or found.error is not None or found.internal or converter is None:
        return None
    if (found.group, found.kind) != (into[0], into[2]) or found.version == into[1]:
        return None
    api_version = legacyscheme.group_version(found.group, found.version)
    return api_version if converter.serves(api_version) else None


def scheme_kind(store: Any) -> tuple[str, str, str] | None:
    """`refuse_patched_gvk`'s `into` for a store's kind: `(group, version, kind)` where kube-apiserver's scheme
    holds it (wire/legacyscheme.py), None for another scheme's (a CRD, an APIService)."""
    group = getattr(store, "group", "")
    return (group, getattr(store, "version", "v1"), store.info.kind) if legacyscheme.holds(group) else None


def _string(value: Any) -> bool:
    return isinstance(value, str)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -2 ** 63 <= value < 2 ** 63


def _string_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _unfollowed(value: Any) -> bool:
    return False


# the JSON names of `metav1.ObjectMeta`'s fields, which an internal type (embedding it untagged) holds at its top
# level, and the values `internal_meta` follows there
_META_TYPES = {
    "name": _string, "generateName": _string, "namespace": _string, "selfLink": _string, "uid": _string,
    "resourceVersion": _string, "generation": _integer, "creationTimestamp": _unfollowed,
    "deletionTimestamp": _unfollowed, "deletionGracePeriodSeconds": _integer, "labels": _string_map,
    "annotations": _string_map, "ownerReferences": _unfollowed, "finalizers": _strings, "managedFields": _unfollowed}
_OBJECT_META_NAMES = frozenset(_META_TYPES)


def apply_patch(doc: dict[str, Any], patch_type: str, patch: Any, meta: Node = EMPTY,
                raw: bytes | None = None) -> dict[str, Any]:
    """Dispatch on the PATCH media type (apply-patch is refused by the caller); `meta` is the kind's
    strategic-merge metadata (`wire.patchmeta.for_kind`); `raw`: the patch's bytes, as sent."""
    if patch_type == JSON_PATCH:
        out = json_patch(doc, patch, raw)
        if isinstance(out, list):
            raise _patched_array(doc, out, patch, raw)
    elif patch_type == MERGE_PATCH:
        if not isinstance(patch, dict):  # (under Strict and Warn refused before: `decode.patch_decode_error`)
            raise _merged_non_object(patch, raw)
        out = merge_patch(doc, patch)
    elif patch_type == STRATEGIC_PATCH:
        if not isinstance(patch, dict):  # `strategicPatchObject`: the decoder's error, bare
            raise E.bad_request(f"json: cannot unmarshal {kind_word(patch)} into Go value of type "
                                "map[string]interface {}")
        out = strategic_merge_patch(doc, patch, meta)
    else:
        raise E.router_unsupported_media_type()
    if not isinstance(out, dict):
        raise _apply_error("the patched object is not a JSON object")
    return out

"""PATCH bodies: JSON patch (RFC 6902), JSON merge patch (RFC 7386), strategic merge patch.

Pure functions over JSON values; errors are the StatusErrors `handlers/patch.go` produces.
"""
from __future__ import annotations

import copy
from typing import Any

from .. import apierrors as E

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH, APPLY_PATCH)
MAX_JSON_PATCH_OPERATIONS = 10000

# patchMergeKey of the list fields of the served kinds (strategic merge); other lists are replaced.
MERGE_KEYS = {"conditions": "type", "containers": "name", "initContainers": "name", "ephemeralContainers": "name",
              "env": "name", "volumes": "name", "volumeMounts": "mountPath", "ownerReferences": "uid",
              "imagePullSecrets": "name", "secrets": "name", "ports": None, "hostAliases": "ip",
              "volumeDevices": "devicePath", "readinessGates": None}
PRIMITIVE_MERGE_LISTS = frozenset({"finalizers@metadata"})


def _apply_error(msg: str) -> E.StatusError:
    """`NewGenericServerResponse(422, …, err.Error())`."""
    return E.StatusError(E.status_dict(422, "Invalid", "the server rejected our request due to an error in our request",
                                       {"causes": [{"reason": "UnexpectedServerResponse", "message": msg}]}))


# ---- RFC 7386 ------------------------------------------------------------------------------------
def merge_patch(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
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


def json_patch(doc: Any, ops: Any) -> Any:
    """Apply RFC 6902 operations; a malformed patch ⇒ 400, a failing operation ⇒ 422."""
    if not isinstance(ops, list):
        raise E.bad_request("json: cannot unmarshal object into Go value of type jsonpatch.Patch")
    if len(ops) > MAX_JSON_PATCH_OPERATIONS:
        raise E.request_entity_too_large(f"The allowed maximum operations in a JSON patch is "
                                         f"{MAX_JSON_PATCH_OPERATIONS}, got {len(ops)}")
    doc = copy.deepcopy(doc)
    for op in ops:
        if not isinstance(op, dict):
            raise E.bad_request("json: cannot unmarshal into Go value of type jsonpatch.Operation")
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


# ---- strategic merge -----------------------------------------------------------------------------
def strategic_merge(target: Any, patch: Any, parent_key: str = "") -> Any:
    """Merge like RFC 7386, but keyed lists merge by their patchMergeKey and `$patch` directives apply."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    directive = patch.get("$patch")
    if directive == "delete":
        return None
    body = {k: v for k, v in patch.items() if not k.startswith("$")}
    if directive == "replace":
        return copy.deepcopy(body)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if k.startswith("$deleteFromPrimitiveList/"):
            field = k.split("/", 1)[1]
            if isinstance(out.get(field), list) and isinstance(v, list):
                out[field] = [x for x in out[field] if x not in v]
    for k, v in body.items():
        if v is None:
            out.pop(k, None)
        elif isinstance(v, dict):
            merged = strategic_merge(out.get(k), v, k)
            if merged is None:
                out.pop(k, None)
            else:
                out[k] = merged
        elif isinstance(v, list) and isinstance(out.get(k), list):
            out[k] = _merge_list(out[k], v, k, parent_key)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _merge_key(key: str, items: list[Any]) -> str | None:
    if key not in MERGE_KEYS:
        return None
    mk = MERGE_KEYS[key]
    if mk is None and key == "ports":
        sample = next((i for i in items if isinstance(i, dict)), {})
        mk = "containerPort" if "containerPort" in sample else "port"
    if mk is None and key == "readinessGates":
        mk = "conditionType"
    return mk


def _merge_list(old: list[Any], patch: list[Any], key: str, parent_key: str) -> list[Any]:
    if f"{key}@{parent_key}" in PRIMITIVE_MERGE_LISTS:
        out = list(old)
        for v in patch:
            if isinstance(v, dict) and v.get("$patch") == "replace":
                return [x for x in patch if not isinstance(x, dict)]
            if v not in out:
                out.append(v)
        return out
    mk = _merge_key(key, old + patch)
    if mk is None or not all(isinstance(i, dict) for i in patch):
        return copy.deepcopy([i for i in patch if not (isinstance(i, dict) and "$patch" in i)])
    if any(i.get("$patch") == "replace" for i in patch):
        return copy.deepcopy([i for i in patch if "$patch" not in i])
    out = copy.deepcopy(old)
    for item in patch:
        idx = next((n for n, o in enumerate(out) if isinstance(o, dict) and o.get(mk) == item.get(mk)), None)
        if item.get("$patch") == "delete":
            if idx is not None:
                out.pop(idx)
            continue
        if idx is None:
            out.append(copy.deepcopy({k: v for k, v in item.items() if not k.startswith("$")}))
        else:
            out[idx] = strategic_merge(out[idx], item, key)
    return out


def apply_patch(doc: dict[str, Any], patch_type: str, patch: Any) -> dict[str, Any]:
    """Dispatch on the PATCH media type (apply-patch is refused by the caller)."""
    if patch_type == JSON_PATCH:
        out = json_patch(doc, patch)
    elif patch_type == MERGE_PATCH:
        if not isinstance(patch, dict):
            raise E.bad_request("json: cannot unmarshal non-object into Go value of type map[string]interface {}")
        out = merge_patch(doc, patch)
    elif patch_type == STRATEGIC_PATCH:
        if not isinstance(patch, dict):
            raise E.bad_request("json: cannot unmarshal non-object into Go value of type map[string]interface {}")
        out = strategic_merge(doc, patch)
    else:
        raise E.router_unsupported_media_type()
    if not isinstance(out, dict):
        raise _apply_error("the patched object is not a JSON object")
    return out

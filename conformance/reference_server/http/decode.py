"""Request body decoding (NS-22): content-type dispatch, kind/version checks, field validation.

`decode_body` is the one hook where other wire formats plug in: protobuf goes to `wire.protobuf.decode`.
"""
from __future__ import annotations

import json
import re

import yaml
from collections.abc import Callable
from contextvars import ContextVar
from functools import lru_cache
from typing import Any

from .. import apierrors as E
from ..goport.gofmt import plain_v
from ..goport.gojsonnum import (encode_raw_literals, first_overflow, keep_literals, overflow_error, overflow_seen,
                                remarshal)
from ..goport.gojsonraw import go_text
from ..fieldmanager.manager import refuse_raw_overflow
from ..fieldmanager.toversioned import convert_error, failed_to_convert
from ..registry import crobjectmeta
from ..wire import apiservicetypes, crdtypes, dupkeys, goconvert, gometa, gonull, gotypes, jsonkindconvert, legacyscheme
from ..wire.dupkeys import Repeats
from ..wire.gomime import MediaTypeError, parse_media_type
from ..wire.goyaml import GoYAMLLoader
from ..wire.gojson import syntax_error
from ..wire.openapi_schemas import object_meta_fields, unknown_in
from ..wire.schema import GROUP_KINDS, KIND_MESSAGES
from ..wire.textdecode import BodyError, check_depth, loads_json, loads_json_once, loads_yaml_once
from . import hooks

APPLY_PATCH = "application/apply-patch+yaml"  # patch.py's (which imports this module through strategicpatch)
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"

JSON_TYPES = ("application/json", "")
YAML_TYPE = "application/yaml"
PROTOBUF_TYPE = "application/vnd.kubernetes.protobuf"


_UNREADABLE = "\x00unreadable"  # a Content-Type `mime.ParseMediaType` refuses: matches no serializer (the 415)


@lru_cache(maxsize=256)
def _parsed(content_type: str) -> str:
    try:
        return parse_media_type(content_type)[0]
    except MediaTypeError:
        return _UNREADABLE


def media_type(content_type: str | None) -> str:
    """A request body's media type as `NegotiateInputSerializerForMediaType` reads it: "" (the first serializer,
    JSON) without a header, else `mime.ParseMediaType`'s lower-cased type (wire/gomime.py); a header it refuses
    (`application/json; charset`) matches nothing, so it is the 415."""
    if not content_type:
        return ""
    return _parsed(content_type)


def summarize(raw: bytes, n: int = 30) -> str:
    """`summarizeData`: text for JSON-looking bodies, hex otherwise."""
    if not raw:
        return "<empty>"
    if raw[:1] == b"{":
        return raw[:n].decode("utf-8", "replace") + (" ..." if len(raw) > n else "")
    return raw[:n].hex() + (" ..." if len(raw) > n else "")


def _unrecognized(expected_kind: str, err: str, raw: bytes) -> E.StatusError:
    """create.go `transformDecodeError`'s 400 of the decoder's error `err` (kept as `base`: a DELETE's
    DeleteOptions answers it bare, http/deleteoptions.py)."""
    out = E.bad_request(f"the object provided is unrecognized (must be of type {expected_kind}): "
                        f"{err} ({summarize(raw)})")
    out.base = err  # type: ignore[attr-defined]
    return out


def parse_raw(content_type: str | None, raw: bytes, expected_kind: str, repeats: list[Repeats] | None = None
              ) -> Any:
    """Bytes → Python value by media type; unknown type ⇒ 415, undecodable ⇒ 400. `repeats`: where to note the
    keys a JSON or YAML body repeats, for a strict decoder to name them (`apply_field_validation`)."""
    mt = media_type(content_type)
    if mt in JSON_TYPES:
        try:
            if not raw:
                raise ValueError("unexpected end of JSON input")
            if repeats is None:
                return loads_json(raw)
            value, again = loads_json_once(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise _unrecognized(expected_kind, f"couldn't get version/kind; json parse error: {_json_msg(exc, raw)}",
                                raw) from None
        pairs = dupkeys.json_pairs(raw) if again else None
        if again:
            repeats.append(Repeats(json=pairs))
        return _interpreted(value, raw, expected_kind, pairs)
    if mt == YAML_TYPE:
        try:
            value, again = loads_yaml_once(raw)  # (empty: go-yaml reads no document, `YAMLToJSON` writes null)
            if again and repeats is not None:  # `YAMLToJSONStrict` (json.go `unmarshal`)
                found = dupkeys.yaml_error(raw.decode("utf-8"), GoYAMLLoader)
                if found is not None:
                    repeats.append(Repeats(yaml=found))
        except BodyError as exc:
            raise _unrecognized(expected_kind, str(exc), raw) from None
        except (yaml.YAMLError, ValueError, UnicodeDecodeError) as exc:
            raise _unrecognized(expected_kind, f"couldn't get version/kind; json parse error: {exc}", raw) from None
        return _interpreted(value, raw, expected_kind, yaml_body=True)
    if mt == PROTOBUF_TYPE:
        decoder = hooks.protobuf_decoder()
        if decoder is None:
            raise E.unsupported_media_type(mt)
        try:
            value = decoder(raw)
            check_depth(value)
            return value
        except (ValueError, UnicodeDecodeError) as exc:
            raise _unrecognized(expected_kind, str(exc), raw) from None
    raise E.unsupported_media_type(mt)


def _interpreted(value: Any, raw: bytes, expected_kind: str, pairs: Any = None, yaml_body: bool = False) -> Any:
    """`value` once the JSON serializer's `SimpleMetaFactory.Interpret` reads its `apiVersion` and `kind`
    (wire/gometa.py), else its error as `transformDecodeError` answers it (no kind read: `unrecognized`)."""
    err = gometa.interpret_error(value, pairs, sorted_keys=yaml_body)
    if err is not None and isinstance(value, dict):  # (a body that is no object: `decode_value`'s to refuse)
        raise _unrecognized(expected_kind, err, raw)
    return value


def _json_msg(exc: Exception, raw: bytes = b"") -> str:
    """A body that is not JSON: Go's `SyntaxError` text (wire/gojson.py); else (too deep, ...) the error's own."""
    if not isinstance(exc, UnicodeDecodeError):
        found = syntax_error(raw)
        if found is not None:
            return found
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at offset {exc.pos}"
    return str(exc)


def custom_kind_error(value: Any, raw: bytes, expected_kind: str, route_version: str, strict: bool,
                      yaml_body: bool) -> E.StatusError | None:
    """A custom resource's body whose `kind` is missing, `null`, `""` or no string (a `null` body, an empty YAML
    one, too), as apiextensions-apiserver's JSON serializer refuses it decoding into an `Unstructured` (apimachinery
    v0.33 pkg/runtime/serializer/json/json.go `Decode`), through create.go / update.go `transformDecodeError`; None
    when `unstructured.GetKind` reads one. Its missing `apiVersion` is not refused here (TODO(109023)): see
    http/crbodygvk.py.

    `strict` (fieldValidation Strict and Warn: the strict serializer): `unmarshal` reads a plain map, then `Decode`
    returns `runtime.NewMissingKindErr(originalData)` with no kind: `the object provided is unrecognized (must be of
    type Foo): Object 'Kind' is missing in '<body as sent>' (<summary>)`. Ignore: `kjson` calls
    `Unstructured.UnmarshalJSON` (`UnstructuredJSONScheme.Decode`), whose `NewMissingKindErr` quotes the JSON it
    read (a YAML body's `YAMLToJSON`: `json.Marshal`, keys sorted), returned with the kind `Interpret` read,
    defaulted from the route's `route_version` (`group/version`, `gvkWithDefaults`): `Foo in version "v1" cannot be
    handled as a Foo: ...`."""
    if value is not None and not isinstance(value, dict):
        return None  # (`Interpret`'s error: `decode_value`'s)
    if isinstance(value, dict) and isinstance(value.get("kind"), str) and value["kind"]:
        return None
    if strict:
        return _unrecognized(expected_kind, f"Object 'Kind' is missing in '{raw.decode('utf-8', 'replace')}'", raw)
    if yaml_body:
        data = go_text(remarshal(value))
    else:  # (the top-level value's own bytes, which encoding/json hands `UnmarshalJSON`: no space around them)
        data = raw.strip(b" \t\r\n").decode("utf-8", "replace")
    api_version, kind, _ = gometa.interpret(value, gometa.members(value, sorted_keys=yaml_body))
    group, found = legacyscheme.parse_group_version(api_version)
    route_group, route = legacyscheme.parse_group_version(route_version)
    if not found and (not group or group == route_group):
        found = route  # `gvkWithDefaults`
    return cannot_be_handled(kind or expected_kind, found, expected_kind, f"Object 'Kind' is missing in '{data}'")


_GO_TYPES = {"metadata": "v1.ObjectMeta", "spec": "v1.{kind}Spec", "status": "v1.{kind}Status"}


def decode_body(content_type: str | None, raw: bytes, expected_kind: str, repeats: list[Repeats] | None = None
                ) -> dict[str, Any]:
    """Decode a request body that must be an object of `expected_kind` in core v1 (NS-22).

    A missing kind/apiVersion is defaulted from the route, as the apiserver's decoder does. `repeats`: as
    `parse_raw`'s.
    """
    return decode_value(parse_raw(content_type, raw, expected_kind, repeats), raw, expected_kind,
                        yaml_body=media_type(content_type) == YAML_TYPE)


def version_kind_error(value: Any) -> str:
    """The JSON serializer's first step on a body that is not an object (`SimpleMetaFactory.Interpret`)."""
    if value is None:  # (no error to encoding/json, which leaves the struct as it was)
        return f"{gometa.PREFIX}json: cannot unmarshal null into Go value of type {gometa.STRUCT}"
    return gometa.interpret(value, ())[2] or ""


def cannot_be_handled(kind: str, version: str, into_kind: str, why: str) -> E.StatusError:
    """create.go / update.go `transformDecodeError` (endpoints/handlers/rest.go) of a decoder error returned with
    the kind it read (`gvk.Kind` not empty): `<Kind> in version "<gvk.Version>" cannot be handled as a
    <into's Kind>: <err>`, a 400. The version is `gvk.Version` alone, without its group."""
    return E.bad_request(f'{kind} in version "{version}" cannot be handled as a {into_kind}: {why}')


def refuse_unhandled(obj: dict[str, Any], raw: bytes, route_version: str, kind: str, yaml_body: bool = False
                     ) -> None:
    """A create or update body of a kind of kube-apiserver's scheme (wire/legacyscheme.py), its `apiVersion` and
    `kind` as `Interpret` reads them (a key in any case; a YAML body's in `YAMLToJSON`'s sorted order), read as the
    serializer and the versioning codec read them into the route's kind (`route_version`: `group/version`, or
    `v1`), defaulted from it: what they refuse (a version or kind `Scheme.New` does not know, another kind's
    `unknown conversion`, a group without a version), through `transformDecodeError`; then create.go / update.go's
    `AcceptsGroupVersion`: another registered version of the kind (or its internal one) decodes, and is refused
    as `the API version in the data (autoscaling/v1) does not match the expected API version (autoscaling/v2)`."""
    api_version, read_kind, _ = gometa.interpret(obj, gometa.members(obj, sorted_keys=yaml_body))
    group, version = legacyscheme.parse_group_version(route_version)
    found = legacyscheme.read(api_version, read_kind, (group, legacyscheme.INTERNAL, kind), version,
                              (group, version, kind))
    if found.error is not None:
        why = found.error + (f" in '{raw.decode('utf-8', 'replace')}'" if found.missing_version else "")
        raise cannot_be_handled(found.kind, found.version, kind, why)
    read_version = legacyscheme.group_version(found.group, found.version)
    if read_version != route_version:
        raise E.bad_request(f"the API version in the data ({read_version}) does not match the expected API version "
                            f"({route_version})")


def decode_value(obj: Any, raw: bytes, expected_kind: str, schema_kind: str | None = None,
                 route_version: str | None = "v1", yaml_body: bool = False) -> dict[str, Any]:
    """`decode_body` after parsing: `obj` (from `raw`) as an object of `expected_kind` in core v1. `schema_kind`:
    the name the field model knows the kind by where it is not `expected_kind` (a custom resource's
    `<group>/<Kind>`, which a core kind's Go type must not judge). `route_version`: the route's `group/version`
    of a kind of kube-apiserver's scheme, its body's version and kind read as `refuse_unhandled` reads them (a
    YAML body's: `yaml_body`); None (a CRD, an APIService, a custom resource: other schemes), the body's
    `apiVersion` already the route's (or `v1`), its kind checked here."""
    if obj is None and "/" not in (schema_kind or expected_kind):
        obj = {}  # `null` (an empty YAML body's too): encoding/json leaves the typed object as it was, its zero
    if not isinstance(obj, dict):
        raise _unrecognized(expected_kind, version_kind_error(obj), raw)
    kind, version = obj.get("kind"), obj.get("apiVersion")
    if kind is not None and not isinstance(kind, str) or version is not None and not isinstance(version, str) \
            or isinstance(version, str) and version.count("/") > 1:
        raise _unrecognized(expected_kind, gometa.interpret_error(obj) or "", raw)  # (`parse_raw` read no pairs)
    if route_version is not None:
        refuse_unhandled(obj, raw, route_version, expected_kind, yaml_body)
    elif version and version != "v1":
        raise E.bad_request(f"the API version in the data ({version}) does not match the expected API version (v1)")
    elif kind and kind != expected_kind:
        if kind not in hooks.KNOWN_KINDS:
            raise _unrecognized(expected_kind, f'no kind "{kind}" is registered for version "v1" in scheme '
                                f'"{legacyscheme.SCHEME}"', raw)
        raise cannot_be_handled(kind, "v1", expected_kind,
                                f"converting (v1.{kind}) to (core.{expected_kind}): unknown conversion")
    _check_shapes(obj, expected_kind, schema_kind or expected_kind)
    if obj.get("metadata") is None:  # `"metadata": null` leaves Go's zero ObjectMeta
        obj["metadata"] = {}
    obj["kind"], obj["apiVersion"] = expected_kind, "v1"
    return obj


_UNSTORED_MESSAGES = {"Scale": "autoscaling.Scale"}  # the `/scale` subresource's autoscaling/v1 Scale
# the named groups' kinds of the field model, whose Go type `groups.check_shape` walks (a number no float64 holds
# is refused there in its field's words, and kept as sent in a `RawExtension`: ControllerRevision `data`)
_TYPED_GROUP_KINDS = frozenset(k for _, kinds in GROUP_KINDS.values() for k in kinds)


def check_go_types(obj: dict[str, Any], kind: str) -> str | None:
    """The Go decode error of `obj` as the served kind's Go type (None: it decodes)."""
    message = KIND_MESSAGES.get(kind) or _UNSTORED_MESSAGES.get(kind)
    if message is not None:
        return gotypes.type_error(obj, message)
    if kind == "CustomResourceDefinition":  # its spec is outside the field model
        return crdtypes.type_error(obj)
    if kind == apiservicetypes.KIND:  # so is an APIService's (kube-aggregator's types)
        return apiservicetypes.type_error(obj)
    if kind in _TYPED_GROUP_KINDS:
        return gotypes.object_meta_error(obj, kind)
    # a kind outside the field model (`<group>/<Kind>`: a custom resource): the numbers util/json cannot hold
    # (decoded into `interface{}`: `convertNumber`'s words), then its metadata as `unstructuredSchemaCoercer.apply`
    # decodes it (`GetObjectMetaWithOptions`: registry/crobjectmeta.py)
    return _overflow(obj) or crobjectmeta.decode_error(obj.get("metadata"))


def refuse_overflow(patch: Any) -> None:
    """A strategic-merge patch holding a number no float64 holds: `strategicPatchObject`'s 400, the decoder's
    bare words (`kjson.UnmarshalCaseSensitivePreserveInts(patchBytes, &patchMap)` → `NewBadRequest(err.Error())`)."""
    err = _overflow(patch)
    if err is not None:
        raise E.bad_request(err)


def _overflow(obj: Any) -> str | None:
    found = first_overflow(obj) if overflow_seen() else None
    return overflow_error(found) if found is not None else None


def patch_type_error(patched: dict[str, Any], kind: str, patch_type: str, patch: Any,
                     message: str | None = None) -> None:
    """A patch whose result no longer decodes into the Go type: `422 Invalid` on field `patch`
    (`handlers/patch.go`: `NewInvalid(schema.GroupKind{}, "", field.Invalid(field.NewPath("patch"), …))`).
    The value is the patched JSON (JSON and merge patch: the Go decoder's words) or the patch map printed with
    `%+v` (strategic, whose result the unstructured converter decodes: wire/goconvert.py's words, integers
    wrapped in place; a CRD's and an APIService's: wire/jsonkindconvert.py's). A server-side apply's merged object goes through the same converter, which refuses as
    upstream's 500 (fieldmanager/toversioned.py).
    `message`: the field model's message of a named group's kind (else the core kind's, by `kind`)."""
    strategic = patch_type.startswith("application/strategic")
    go_message = message or KIND_MESSAGES.get(kind) or _UNSTORED_MESSAGES.get(kind)
    if (strategic or patch_type == APPLY_PATCH) and (go_message is not None or kind in jsonkindconvert.TABLES):
        err = goconvert.from_unstructured(patched, go_message) if go_message is not None else \
            jsonkindconvert.from_unstructured(patched, kind)  # a CRD, an APIService: their Go types' tables
        if err is not None and patch_type == APPLY_PATCH:  # a plain error upstream: 500, no reason
            raise E.StatusError(E.status_dict(500, None, failed_to_convert(
                patch if isinstance(patch, dict) else {}, err)))
    else:
        err = gotypes.type_error(patched, message) if message is not None else \
            check_go_types(patched, kind)
        if err is not None and patch_type == APPLY_PATCH and isinstance(patch, dict) and \
                (refused := convert_error(patch, err)) is not None:
            raise E.StatusError(E.status_dict(500, None, refused))
        if err is not None and strategic and getattr(err, "bare", None):  # the converter's words
            err = err.bare  # type: ignore[attr-defined]
    if err is None:
        refuse_raw_overflow(patched)  # the field manager's walk, before admission
        return
    raise patch_invalid(patched, patch_type, patch, err)


def patched_meta_error(patched: dict[str, Any], patch_type: str) -> str | None:
    """A strategic-merge patch's result whose `apiVersion` or `kind` is no string, as the unstructured converter
    that reads it back refuses it before any other field (`FromUnstructuredWithValidation`: `TypeMeta`, inlined
    first, `Kind` before `APIVersion`, wire/goconvert.py's words); None otherwise. A JSON or merge patch's result is
    read by the JSON serializer (`SimpleMetaFactory.Interpret`): http/patch.py `refuse_patched_gvk`, called first."""
    if patch_type.startswith("application/strategic"):
        return goconvert.type_meta_error(patched)
    return None


# `string(patchedObjJS)` of the JSON or merge patch being checked (http/patch.py `patched_js`: evanphx's bytes),
# set by the PATCH handler around the patched object's checks; None: the patched value written again.
PATCHED_JS: ContextVar[Callable[[], str | None] | None] = ContextVar("PATCHED_JS", default=None)


def patch_invalid(patched: dict[str, Any], patch_type: str, patch: Any, why: str,
                  shown: str | None = None) -> E.StatusError:
    """handlers/patch.go's `NewInvalid(schema.GroupKind{}, "", field.Invalid(field.NewPath("patch"), …))`: the
    value shown is the patch map printed `%+v` for a strategic patch, else the patched JSON (`shown`, or
    `PATCHED_JS`: the bytes evanphx/json-patch wrote; else the value with numbers as the patch wrote them)."""
    strategic = patch_type.startswith("application/strategic")
    if shown is None and not strategic and (patched_js := PATCHED_JS.get()) is not None:
        shown = patched_js()
    if shown is None:
        shown = go_map_format(patch) if strategic else encode_raw_literals(patched)
    e = E.invalid("", "", [E.field_invalid("patch", shown, why)])
    e.status.get("details", {}).pop("kind", None)
    return e


def go_map_format(v: Any) -> str:
    """Go's `%+v` of a decoded JSON value, which for maps, slices and scalars is its `%v` (`+` only names struct
    fields): `gofmt.plain_v` (maps print with sorted keys, floats as Go prints them)."""
    return plain_v(v)


def _check_shapes(obj: dict[str, Any], kind: str, schema_kind: str) -> None:
    """The Go unmarshal type errors a malformed-but-valid JSON body would hit."""
    err = check_go_types(obj, schema_kind)
    if err:
        refused = cannot_be_handled(kind, "v1", kind, err)
        refused.why = err  # type: ignore[attr-defined]  # (a custom resource's is worded again: http/crbodygvk.py)
        raise refused
    _check_shapes_legacy(obj, kind, custom=schema_kind != kind)


def _check_shapes_legacy(obj: dict[str, Any], kind: str, custom: bool = False) -> None:
    def fail(path: str, value: Any, go_type: str) -> None:
        raise cannot_be_handled(kind, "v1", kind, f"json: cannot unmarshal {gotypes.kind_word(value)} into Go "
                                                  f"struct field {kind}.{path} of type {go_type}")

    if custom:
        return  # a custom resource's metadata is `check_go_types`' (null label values decode), the rest its schema's
    for f, go in _GO_TYPES.items():
        if f in obj and obj[f] is not None and not isinstance(obj[f], dict):
            fail(f, obj[f], go.format(kind=kind))
    meta = obj.get("metadata") or {}
    for f in ("name", "generateName", "namespace", "resourceVersion", "uid"):
        if f in meta and meta[f] is not None and not isinstance(meta[f], str):
            fail(f"metadata.{f}", meta[f], "types.UID" if f == "uid" else "string")
    for f in ("labels", "annotations"):
        v = meta.get(f)
        if v is not None:
            if not isinstance(v, dict):
                fail(f"metadata.{f}", v, "map[string]string")
            for val in v.values():
                if not isinstance(val, str) and not (val is None and not custom):  # a typed null: "" (gonull)
                    fail(f"metadata.{f}", val, "string")
    if meta.get("finalizers") is not None:
        if not isinstance(meta["finalizers"], list) or not all(
                isinstance(x, str) or x is None and not custom for x in meta["finalizers"]):
            fail("metadata.finalizers", meta["finalizers"], "[]string")
    spec = obj.get("spec") or {}
    if kind == "Namespace" and spec.get("finalizers") is not None:
        fl = spec["finalizers"]
        if not isinstance(fl, list) or not all(isinstance(x, (str, type(None))) for x in fl):
            fail("spec.finalizers", fl, "v1.FinalizerName")
    if kind == "ConfigMap" and obj.get("data") is not None:
        if not isinstance(obj["data"], dict) or not all(isinstance(x, (str, type(None))) for x in obj["data"].values()):
            fail("data", obj["data"], "map[string]string")


@lru_cache(maxsize=256)
def _schema(kind: str, top_level: frozenset[str], message: str | None = None) -> dict[str, Any]:
    """The nested field model (`wire.openapi.known_fields`: a core kind's, or a named group's `message`), else top
    level + ObjectMeta. Built once per kind (`known_fields` deep-copies the model: ~0.3 ms a write) and only ever
    read (`_merged` copies)."""
    known = hooks.wire_attr("openapi", "known_fields")
    if known is not None:
        try:
            return known(kind, message)
        except KeyError:
            pass
    return {"apiVersion": None, "kind": None, "metadata": object_meta_fields(), **{f: None for f in top_level}}


def _merged(schema: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(schema)
    for k, v in extra.items():
        out[k] = _merged(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def unknown_fields(obj: dict[str, Any], kind: str, top_level: frozenset[str], message: str | None = None) -> list[str]:
    """Paths of the fields the Go types would not know (they are dropped on decode)."""
    return unknown_in(obj, _schema(kind, top_level, message), "", drop=False)


class StrictDecodingError(E.StatusError):
    """`runtime.NewStrictDecodingError` under `fieldValidation=Strict`: its `text` (`strict decoding error:
    unknown field "x", ...`), which each handler words its own way (`strict_create_error`, `strict_patch_error`);
    on its own, a plain 400 with the text."""

    def __init__(self, text: str):
        super().__init__(E.bad_request(text).status)
        self.text = text


def strict_create_error(exc: StrictDecodingError, kind: str, version: str) -> E.StatusError:
    """create.go / update.go: the decoder's strict error through `transformDecodeError`, a 400 naming the kind."""
    return E.bad_request(f'{kind} in version "{version}" cannot be handled as a {kind}: {exc.text}')


def strict_patch_error(exc: StrictDecodingError, patched: dict[str, Any], patch_type: str, patch: Any
                       ) -> E.StatusError:
    """patch.go: a JSON or merge patch's result (`applyJSPatch`) or a strategic one's (`applyPatchToObject`) with
    unknown fields: `patch_invalid` with the strict text."""
    return patch_invalid(patched, patch_type, patch, exc.text)


class _AnyTopLevel(dict):
    """A top-level field model in which every field is known (a custom resource whose schema preserves unknown
    fields at its root); the modelled ones (`metadata`) are still walked."""

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: Any) -> Any:
        return dict.get(self, key)


def apply_field_validation(obj: dict[str, Any], kind: str, top_level: frozenset[str], mode: str,
                           extra: dict[str, Any] | None = None, keep_unknown: bool = False,
                           message: str | None = None, repeats: list[Repeats] | None = None,
                           prior: list[str] | None = None, pruned: list[str] | None = None) -> list[str]:
    """Strict ⇒ 400 `strict decoding error: unknown field "x"`; Warn ⇒ warnings; unknown fields are dropped.
    Paths are quoted as Go's `strconv.Quote` does. `extra`: fields an enabled extension adds to the kind
    (`reference_server.extensions.extra_fields`); `keep_unknown`: every top-level field is known (a custom
    resource's schema with `x-kubernetes-preserve-unknown-fields` at its root), `metadata` still checked;
    `message`: a named group's kind's Go type in the field model (`http/groups.py` `go_message`); `repeats`: the
    keys the body repeated (`parse_raw`), named among the unknown fields as the strict decoder names them;
    `prior`: a patch's own strict errors (`patch_strict_errors`), named before the patched object's; `pruned`: a
    custom resource's fields its schema prunes (`crschema.unknown_paths`), named after its metadata's (those in
    the order of Go's sorted map keys), all as `schemaCoercingDecoder` words them (`unknown field "%s"`, unescaped)."""
    schema = _schema(kind, top_level, message)
    if extra:
        schema = _merged(schema, extra)
    if keep_unknown or pruned is not None:
        schema = _AnyTopLevel(schema)
    outside = {"CustomResourceDefinition": crdtypes.unknown_fields,  # their specs are outside the field model
               apiservicetypes.KIND: apiservicetypes.unknown_fields}.get(kind)
    if repeats and repeats[0].json is not None and "/" not in kind:
        _merge_repeats(obj, repeats[0].json, schema, kind, message)
    if "/" not in kind:  # a null as Go's decoder holds it (a custom resource keeps its nulls: `interface{}`)
        gonull.settle(obj, message or KIND_MESSAGES.get(kind))
        if kind in _GO_DESCRIBED:  # its metadata an ObjectMeta, its spec and status Go type descriptors
            _settle_go_described(obj, kind)
    order = {k: i for i, k in enumerate(obj)}
    unknown = unknown_in(obj, schema, "", drop=mode != "Strict")
    if outside is not None:
        unknown = sorted(unknown + outside(obj, mode != "Strict"),
                         key=lambda u: order.get(u.split(".", 1)[0].split("[", 1)[0], 0))
    if pruned is not None:  # customresource_handler.go: `fmt.Errorf(`unknown field "%s"`, unknownField)`
        errors = [f'unknown field "{u}"' for u in dupkeys.capped(sorted(unknown, key=_map_order) + pruned)]
    else:
        errors = [dupkeys.unknown(u) for u in dupkeys.capped(unknown)]
    if repeats and mode != "Ignore":
        errors = _with_repeats(errors, repeats[0], schema, kind, message)
    if prior:
        errors = [*prior, *errors]
    if errors and mode == "Strict":
        raise StrictDecodingError("strict decoding error: " + ", ".join(errors))
    return [w for e in errors for w in dupkeys.yaml_warnings(e)] if mode == "Warn" else []


def _map_order(path: str) -> list[tuple[int, str]]:
    """A metadata path's place when its map is walked in Go's sorted-key order (`utiljson.Marshal` then
    `UnmarshalStrict`: objectmeta/coerce.go `GetObjectMetaWithOptions`): key by key, an index as a number."""
    return [(int(index), "") if index else (-1, name) for index, name in _PATH_PART.findall(path)]


_PATH_PART = re.compile(r"\[(\d+)\]|([^.\[]+)")


# the kinds outside the field model whose spec and status are Go type descriptors (wire/crdtypes.py's)
_GO_DESCRIBED = {"CustomResourceDefinition": crdtypes.STRUCTS, apiservicetypes.KIND: apiservicetypes.STRUCTS}


def _merge_repeats(obj: dict[str, Any], tree: Any, schema: Any, kind: str, message: str | None) -> None:
    """A typed kind's body that repeats keys, as its Go type holds it (`dupkeys.typed_value`: a repeated struct
    or map merged into the first), in place of Python's reading (the last one kept)."""
    structs = _GO_DESCRIBED.get(kind)
    raw_fields = dupkeys.raw_extension_fields(message or KIND_MESSAGES.get(kind))
    merged = dupkeys.go_typed_value(tree, schema.get("metadata"), kind, structs) if structs is not None else \
        dupkeys.typed_value(tree, schema, raw_fields, message or KIND_MESSAGES.get(kind))
    # the decoder's settled kind and version; a RawExtension as read (the last one: its bytes, numbers as sent),
    # unless that one was `null`, which its `UnmarshalJSON` ignores (the one before kept)
    settled = {k: obj[k] for k in ("kind", "apiVersion", *raw_fields) if k in obj}
    for k in raw_fields:
        if settled.get(k, 0) is None and merged.get(k) is not None:
            settled[k] = keep_literals(merged[k])
    obj.clear()
    obj.update(merged)
    obj.update(settled)
    if obj.get("metadata") is None:
        obj["metadata"] = {}


def _settle_go_described(obj: dict[str, Any], kind: str) -> None:
    """`gonull.settle` for a CRD or an APIService: `spec` and `status` held by value (a `null` one dropped)."""
    if isinstance(obj.get("metadata"), dict):
        gonull.settle(obj["metadata"], "meta.ObjectMeta")
    for key in ("spec", "status"):
        if key in obj and obj[key] is None:
            del obj[key]
        elif key in obj:
            gonull.settle_go(obj[key], f"{kind}{key.capitalize()}", _GO_DESCRIBED[kind])


def _with_repeats(errors: list[str], repeats: Repeats, schema: Any, kind: str, message: str | None) -> list[str]:
    """The strict errors of a body that repeats keys (json.go `unmarshal`): a YAML body's go-yaml error first
    (`YAMLToJSONStrict`), then the JSON decoder's; a typed kind's unknown and duplicate fields in the order its
    decoder meets them; a custom resource's duplicates (read into a map) before the unknown fields its schema
    prunes (customresource_handler.go `schemaCoercingDecoder`)."""
    if repeats.yaml is not None:
        return [repeats.yaml, *errors]
    if "/" in kind:  # `<group>/<Kind>`: a custom resource
        return dupkeys.capped(dupkeys.untyped_errors(repeats.json) + errors)
    if kind in _GO_DESCRIBED:  # a CRD's or an APIService's spec and status: their Go types' descriptors
        return dupkeys.go_typed_errors(repeats.json, schema.get("metadata"), kind, _GO_DESCRIBED[kind])
    return dupkeys.typed_errors(repeats.json, schema, dupkeys.raw_extension_fields(message or KIND_MESSAGES.get(kind)))


def patch_strict_errors(patch_type: str, patch: Any, raw: bytes, repeated: bool) -> list[str]:
    """The strict errors of reading a patch itself (patch.go `applyJSPatch`, `strategicPatchObject`), which
    precede the patched object's: a JSON patch's operations read into `jsonPatchOp` (`json patch unknown field
    "[0].x"`, `json patch duplicate field "[0].op"`), a merge or strategic-merge patch's map its duplicate fields.
    `repeated`: the body repeats a key (`textdecode.loads_json_once`)."""
    if patch_type == JSON_PATCH:
        if not isinstance(patch, list) or not repeated and all(
                not isinstance(op, dict) or op.keys() <= dupkeys.JSON_PATCH_OP.keys() for op in patch):
            return []
        return [f"json patch {e}" for e in dupkeys.typed_errors(dupkeys.json_pairs(raw), dupkeys.JSON_PATCH_OP)]
    if not repeated or not isinstance(patch, dict):
        return []
    return dupkeys.untyped_errors(dupkeys.json_pairs(raw))


def patch_decode_error(patch_type: str, patch: Any) -> str | None:
    """Under Strict and Warn, patch.go's strict read of a JSON patch (`kjson.UnmarshalStrict(patchBytes,
    &[]jsonPatchOp{})`) or a merge patch (into a map) before it is applied: its first type error, which
    `applyJSPatch` answers 400 `error decoding patch: ...`; None: it decodes."""
    if patch is None:
        return None
    if patch_type == MERGE_PATCH and not isinstance(patch, dict):
        return f"json: cannot unmarshal {gotypes.kind_word(patch)} into Go value of type map[string]interface {{}}"
    if patch_type != JSON_PATCH:
        return None
    if not isinstance(patch, list):
        return f"json: cannot unmarshal {gotypes.kind_word(patch)} into Go value of type []handlers.jsonPatchOp"
    for op in patch:
        if op is None:
            continue
        if not isinstance(op, dict):
            return f"json: cannot unmarshal {gotypes.kind_word(op)} into Go value of type handlers.jsonPatchOp"
        for key, value in op.items():
            if key in ("op", "path", "from") and value is not None and not isinstance(value, str):
                return (f"json: cannot unmarshal {gotypes.kind_word(value)} into Go struct field jsonPatchOp.{key} "
                        "of type string")
    return None


def apply_strict_error(raw: bytes) -> str | None:
    """`yaml.UnmarshalStrict` of an apply configuration that repeats a key (sigs.k8s.io/yaml: go-yaml's strict
    error, wrapped as its YAML to JSON step's), or None where go-yaml finds no repeat."""
    found = dupkeys.yaml_error(raw.decode("utf-8"), GoYAMLLoader)
    return None if found is None else f"error converting YAML to JSON: {found}"

"""A DELETE's DeleteOptions body as kube-apiserver 1.33 decodes it.

Upstream: apiserver pkg/endpoints/handlers/delete.go `DeleteResource` and `DeleteCollection`: a body of any length
(`len(body) > 0`) is decoded by the meta internal version's codecs (`apihelpers.GetMetaInternalVersionCodecs()`,
`DecoderToVersion(s.Serializer, meta.k8s.io/v1).Decode(body, &defaultGVK, options)`) and the query's options are
then not read at all (its `dryRun` neither); an empty body leaves them to the query. A decoding error goes to
`scope.err` unwrapped: `ErrorToAPIStatus` answers any error that is no `APIStatus` as a 500 with no reason and the
error's text (create.go's `transformDecodeError` is what makes a create's a 400).

The JSON serializer (apimachinery runtime/serializer/json/json.go `Decode`) first reads `apiVersion` and `kind`
with encoding/json (`SimpleMetaFactory.Interpret`: case-insensitive keys, the last one kept), defaults them
(`gvkWithDefaults`: meta.k8s.io/v1 DeleteOptions), and decodes into `*metav1.DeleteOptions` when the kind is one
of its (`meta.k8s.io/v1`, the internal version); else the scheme makes the named kind (`UseOrCreateObject`:
`DeleteOptions`, `CreateOptions`, `UpdateOptions` and the `Status` family are unversioned there: any group and
version name them) and the versioning codec converts it, which only a DeleteOptions survives
(`converting (v1.CreateOptions) to (v1.DeleteOptions): unknown conversion`), once the body decoded into that kind
(its Go type: the field model's, or wire/metakinds.py's; a field of the wrong JSON type is the decoder's error
instead); a kind the scheme does not know is
`no kind "Pod" is registered for version "v1" in scheme "pkg/apis/meta/internalversion/scheme/register.go:27"`.
The body is decoded with sigs.k8s.io/json's case-sensitive decoder: a field of the wrong JSON type is its
`json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64` (the first
in the order the body gives them, a repeated key's each time), a repeated key decoded as Go decodes into what
the first left (wire/dupkeys.py `typed_value`), a `null` as Go keeps it (wire/gonull.py).
"""
from __future__ import annotations

from typing import Any

from .. import apierrors as E
from ..wire import dupkeys, gometa, gonull, gotypes, metakinds, schema
from ..wire.dupkeys import Pairs, Repeats
from .decode import YAML_TYPE, media_type, parse_raw

GROUP = "meta.k8s.io"
MESSAGE = "meta.DeleteOptions"
# `runtime.NewScheme()` of apimachinery pkg/apis/meta/internalversion/scheme/register.go, line 27, as
# `naming.GetNameFromCallsite` trims a -trimpath build's file name (as kube-apiserver's legacy scheme's reads
# "pkg/api/legacyscheme/scheme.go:30")
SCHEME = "pkg/apis/meta/internalversion/scheme/register.go:27"
# kinds any group and version name (`AddUnversionedTypes`: internalversion/register.go, metav1 register.go)
_UNVERSIONED = ("DeleteOptions", "CreateOptions", "UpdateOptions", "Status", "APIVersions", "APIGroupList",
                "APIGroup", "APIResourceList")
# the other kinds of the scheme, by meta.k8s.io version, and their Go types (`v1.X` unless named)
_REGISTERED: dict[str, dict[str, str]] = {
    "v1": {k: f"v1.{k}" for k in ("WatchEvent", "ListOptions", "GetOptions", "PatchOptions", "Table",
                                  "TableOptions", "PartialObjectMetadata", "PartialObjectMetadataList")},
    "v1beta1": {"Table": "v1.Table", "TableOptions": "v1.TableOptions",
                "PartialObjectMetadata": "v1.PartialObjectMetadata",
                "PartialObjectMetadataList": "v1beta1.PartialObjectMetadataList"},
    "__internal": {"WatchEvent": "v1.InternalEvent", "ListOptions": "internalversion.ListOptions",
                   "GetOptions": "v1.GetOptions", "Table": "v1.Table", "TableOptions": "v1.TableOptions",
                   "PartialObjectMetadata": "v1.PartialObjectMetadata",
                   "PartialObjectMetadataList": "v1beta1.PartialObjectMetadataList"},
}
_FIELDS: dict[str, Any] = {"kind": None, "apiVersion": None, "gracePeriodSeconds": None,
                           "preconditions": {"uid": None, "resourceVersion": None}, "orphanDependents": None,
                           "propagationPolicy": None, "dryRun": None,
                           "ignoreStoreReadErrorWithClusterBreakingPotential": None}


def failed(message: str) -> E.StatusError:
    """`ErrorToAPIStatus` of an error that is no `APIStatus`: 500, no reason, the error's text."""
    return E.StatusError(E.status_dict(500, None, message))


def decode(content_type: str | None, raw: bytes) -> dict[str, Any]:
    """The DeleteOptions a non-empty body gives (its fields as Go holds them: a nil pointer absent)."""
    repeats: list[Repeats] = []
    try:
        value = parse_raw(content_type, raw, "DeleteOptions", repeats)
    except E.StatusError as exc:  # (the decoder's own error, which a create's `transformDecodeError` wraps)
        base = getattr(exc, "base", None)
        if base is None:
            raise
        raise failed(base) from None
    pairs = repeats[0].json if repeats and isinstance(repeats[0].json, Pairs) else None
    if value is None:  # `null`: encoding/json and sigs.k8s.io/json leave the struct as it was
        return {}
    members = gometa.members(value, pairs, sorted_keys=media_type(content_type) == YAML_TYPE)
    group, version, kind = _interpret(value, members, raw)
    if kind == "DeleteOptions":  # (meta.k8s.io/v1 or internal: into `options`; else made anew and converted)
        err = _type_error(members, MESSAGE)
        if err:
            raise failed(err)
        obj = dupkeys.typed_value(pairs, _FIELDS, message=MESSAGE) if pairs is not None else dict(value)
        gonull.settle(obj, MESSAGE)
        return obj
    go_type = _REGISTERED.get(version, {}).get(kind) if group == GROUP else None
    if go_type is None and kind in _UNVERSIONED:
        go_type = f"v1.{kind}"
    if go_type is None:
        if version == "__internal":
            raise failed(f'no kind "{kind}" is registered for the internal version of group "{group}" in scheme '
                         f'"{SCHEME}"')
        raise failed(f'no kind "{kind}" is registered for version "{_group_version(group, version)}" in scheme '
                     f'"{SCHEME}"')
    raise failed(_decode_error(members, go_type, media_type(content_type) == YAML_TYPE)
                 or f"converting ({go_type}) to (v1.DeleteOptions): unknown conversion")


def _decode_error(members: list[tuple[str, Any]], go_type: str, yaml_body: bool) -> str | None:
    """The decoder's first error for the body as `go_type` (the kind the scheme made), before any conversion: the
    field model's message (`v1beta1.PartialObjectMetadataList` has v1's JSON fields and Go types), else the Go
    types of wire/metakinds.py."""
    message = "meta." + go_type.split(".", 1)[1]
    if go_type.startswith(("v1.", "v1beta1.")) and message in schema.MESSAGES:
        return _type_error(members, message)
    if go_type in metakinds.STRUCTS:
        return metakinds.type_error(members, go_type, yaml_body)
    return None


def _interpret(value: Any, members: list[tuple[str, Any]], raw: bytes) -> tuple[str, str, str]:
    """`SimpleMetaFactory.Interpret` (wire/gometa.py), `ParseGroupVersion` and `gvkWithDefaults`: (group, version,
    kind)."""
    api_version, kind, error = gometa.interpret(value, members)
    if error is not None:
        raise failed(error)
    gv = gometa.parse_group_version(api_version)
    if gv is None:
        raise failed(f"unexpected GroupVersion string: {api_version}")
    group, version = gv
    kind = kind or "DeleteOptions"
    if not version and (not group or group == GROUP):
        group, version = group or GROUP, "v1"
    if not version:
        raise failed(f"Object 'apiVersion' is missing in '{raw.decode('utf-8', 'replace')}'")
    return group, version, kind


def _group_version(group: str, version: str) -> str:
    """`GroupVersion.String()`."""
    return f"{group}/{version}" if group else version


def _type_error(members: list[tuple[str, Any]], message: str) -> str | None:
    """sigs.k8s.io/json's first type error decoding the members into `message`'s Go type, each member (a repeated
    one each time) in turn, a nested struct's members likewise."""
    fields = schema.json_fields(message)
    for key, item in members:
        f = fields.get(key)
        if f is None:
            continue
        inner = item if isinstance(item, Pairs) else item.items() if isinstance(item, dict) else None
        if f.is_message and not f.repeated and f.map_key is None and inner is not None and f.type in schema.MESSAGES:
            for inner_key, inner_item in inner:
                err = gotypes.type_error({key: {inner_key: dupkeys.plain(inner_item)}}, message)
                if err:
                    return err
            continue
        err = gotypes.type_error({key: dupkeys.plain(item)}, message)
        if err:
            return err
    return None

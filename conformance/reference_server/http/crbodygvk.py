"""A custom resource's created or updated body naming another version, group or kind than its route's, as
kube-apiserver 1.33 reads it.

create.go / update.go decode the body with the CR's `DecoderToVersion` into `r.New()`, an `Unstructured` of the
route's kind. Its versioning codec (apimachinery versioning.go `Decode`) decodes into a fresh `Unstructured`, as the
target names a version, and the JSON serializer (json.go `Decode`) returns the version and kind the data itself
holds (`into.GetObjectKind().GroupVersionKind()`: no default from the route, so a missing `apiVersion` is the empty
group-version). `schemaCoercingDecoder` prunes only where that group and kind are the CRD's
(registry/crtypemeta.py `decode_schema`), and the codec "converts" with `UnsafeObjectConvertor(Scheme)`, a copy of
the `Unstructured` into `r.New()`, which so takes the data's version and kind. Then, in this order:
- a strict decoding error (fieldValidation Strict) is `transformDecodeError`'s 400, which names the data's kind
  and version, `into`'s kind being the data's too (the copy) and read by the `UnstructuredObjectTyper`: a data
  without a version is its `NewMissingVersionErr("object has no apiVersion field")`; under Warn the unknown fields
  are warnings, sent with what follows;
- `AcceptsGroupVersion` (no delegate for a CR: the route's group-version only) refuses any other group-version,
  a missing one too: `the API version in the data (<gv>) does not match the expected API version (<route>)`;
- another kind of the route's group-version reaches the strategy, whose `ValidateTypeMeta` refuses it
  (registry/crd.py, registry/crtypemeta.py: the 422 under the object's own kind), through `/status` the old
  object's kind is kept.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import apierrors as E
from ..warning import add_warning
from ..wire import legacyscheme
from .decode import StrictDecodingError, cannot_be_handled

# crdserverscheme/unstructured.go `ObjectKinds` of an `Unstructured` without a version
MISSING_VERSION = "Object 'apiVersion' is missing in 'object has no apiVersion field'"


def decoded(probe: dict[str, Any], api_version: str, kind: str, decode: Callable[[dict[str, Any]], dict[str, Any]]
            ) -> dict[str, Any]:
    """`probe` through `decode` (http/decode.py `decode_value`, whose checks judge the route's core-style kind)
    with the `apiVersion` and `kind` it holds kept as they are (`kind` a string: `custom_kind_error` passed it).
    An `apiVersion` that is no string, or has more than one `/`, is left for `decode` to refuse (`Interpret`).
    One naming no group-version (absent, `null`, `""`, `"/"`) stays so, as upstream's `Unstructured` reads it
    (json.go `Decode`, TODO(109023): `kind` required, `apiVersion` not): neither pruned nor accepted,
    `refuse_other_version`'s 400 `()`."""
    kept = {k: probe[k] for k in ("apiVersion", "kind") if k in probe}
    version = probe.get("apiVersion")
    if isinstance(version, str) and version.count("/") <= 1:
        probe["apiVersion"] = "v1"
    probe["kind"] = kind
    try:
        obj = decode(probe)
    except E.StatusError as exc:
        if (why := getattr(exc, "why", None)) is None:
            raise
        raise coerce_error(kept, kind, why) from None  # (its metadata's Go types: `GetObjectMetaWithOptions`)
    obj.pop("apiVersion", None)
    obj.update(kept)
    return obj


def data_gvk(obj: dict[str, Any]) -> tuple[str, str, str]:
    """`Unstructured.GroupVersionKind()`: the group, version and kind its `apiVersion` and `kind` hold ("" where
    absent or no string)."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    group, version = legacyscheme.parse_group_version(api_version if isinstance(api_version, str) else "")
    return group, version, kind if isinstance(kind, str) else ""


def coerce_error(obj: dict[str, Any], route_kind: str, why: str) -> E.StatusError:
    """`schemaCoercingDecoder`'s own error (`r.New()` left as it was): `transformDecodeError` names the data's kind
    and version, then the route's kind."""
    _, version, kind = data_gvk(obj)
    return cannot_be_handled(kind, version, route_kind, why)


def strict_error(exc: StrictDecodingError, obj: dict[str, Any]) -> E.StatusError:
    """The strict decoding error through `transformDecodeError`, `r.New()` holding the data's version and kind."""
    _, version, kind = data_gvk(obj)
    if not version:
        return E.bad_request(MISSING_VERSION)
    return cannot_be_handled(kind, version, kind, exc.text)


def refuse_other_version(obj: dict[str, Any], api_version: str, warnings: list[str]) -> None:
    """create.go / update.go `AcceptsGroupVersion`: the data's group-version (`GroupVersion.String()`) must be
    the route's `api_version`; the strict warnings (`warnings`, fieldValidation Warn) are sent with the 400."""
    group, version, _ = data_gvk(obj)
    found = legacyscheme.group_version(group, version)
    if found == api_version:
        return
    for text in warnings:
        add_warning(text)
    raise E.bad_request(f"the API version in the data ({found}) does not match the expected API version "
                        f"({api_version})")


__all__ = ["MISSING_VERSION", "coerce_error", "data_gvk", "decoded", "refuse_other_version", "strict_error"]

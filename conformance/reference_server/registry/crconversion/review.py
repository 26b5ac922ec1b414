"""The ConversionReview a conversion webhook is sent and the checks of its answer, with upstream's error texts
(`apiextensions-apiserver/pkg/apiserver/conversion/webhook_converter.go`: `createConversionReviewObjects`,
`getConvertedObjectsFromResponse`, `Convert`, `validateConvertedObject`, `restoreObjectMeta`)."""
from __future__ import annotations

import copy
import uuid
from typing import Any

from ...apierrors import FieldError, aggregate
from ...goport.gofmt import go_type as _go_type
from ..validation import validate_annotations, validate_labels

GROUP = "apiextensions.k8s.io"
KIND = "ConversionReview"
TIMEOUT_SECONDS = 30  # the webhook rest client's timeout (util/webhook: `defaultRequestTimeout`), `?timeout=30s`


class ConversionError(Exception):
    """A failed conversion: upstream's error text (a 500 without a reason where a request meets it)."""


def gvk(api_version: str, kind: str) -> str:
    """Go's `GroupVersionKind.String()` of an object's apiVersion and kind."""
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}, Kind={kind}"


def review_version(versions: list[str]) -> str | None:
    """The first of the CRD's `conversionReviewVersions` this server speaks (v1, v1beta1), or None."""
    return next((v for v in versions if v in ("v1", "v1beta1")), None)


def request(version: str, objects: list[dict[str, Any]], desired: str) -> dict[str, Any]:
    """The ConversionReview of `version` (its `request` only; `response` is what the webhook fills)."""
    return {"kind": KIND, "apiVersion": f"{GROUP}/{version}",
            "request": {"uid": str(uuid.uuid4()), "desiredAPIVersion": desired, "objects": objects}}


def converted_objects(sent: dict[str, Any], body: Any) -> list[Any]:
    """`getConvertedObjectsFromResponse`: the answer's converted objects, or a `ConversionError` (its text
    without the `conversion webhook for ... failed: ` prefix the caller adds)."""
    body = body if isinstance(body, dict) else {}
    v1 = sent["apiVersion"] == f"{GROUP}/v1"
    if v1 and (body.get("apiVersion") != sent["apiVersion"] or body.get("kind") != KIND):
        raise ConversionError(f"expected webhook response of {gvk(sent['apiVersion'], KIND)}, got "
                              f"{gvk(str(body.get('apiVersion') or ''), str(body.get('kind') or ''))}")
    resp = body.get("response")
    if not isinstance(resp, dict):
        raise ConversionError("no response provided")
    uid = sent["request"]["uid"]
    if v1 and resp.get("uid") != uid:  # v1beta1 answers were never checked for their uid (compatibility)
        raise ConversionError(f'expected response.uid="{uid}", got "{resp.get("uid") or ""}"')
    result = resp.get("result") if isinstance(resp.get("result"), dict) else {}
    if result.get("status") != "Success":
        if result.get("message"):
            raise ConversionError(str(result["message"]))
        raise ConversionError(f"response.result.status was '{result.get('status') or ''}', not 'Success'")
    objects = resp.get("convertedObjects")
    return list(objects) if isinstance(objects, list) else []


def _validate_converted(original: dict[str, Any], converted: dict[str, Any]) -> None:
    """`validateConvertedObject`: kind, name, namespace and uid unchanged."""
    om, cm = original.get("metadata") or {}, converted.get("metadata") or {}
    cm = cm if isinstance(cm, dict) else {}
    for label, a, b in (("kind", original.get("kind"), converted.get("kind")),
                        ("name", om.get("name"), cm.get("name")),
                        ("namespace", om.get("namespace"), cm.get("namespace")),
                        ("UID", om.get("uid"), cm.get("uid"))):
        if (a or "") != (b or ""):
            raise ConversionError(f"must have the same {label}: {a or ''} != {b or ''}")


def _annotation_errors(annotations: dict[str, str]) -> list[FieldError]:
    """`apivalidation.ValidateAnnotations(stringMap, field.NewPath("metadata", "annotation"))`: upstream's path is
    `metadata.annotation` (webhook_converter.go `restoreObjectMeta`); the total size in bytes, as Go's `len`."""
    return validate_annotations(annotations, "metadata.annotation")


def restore_object_meta(original: dict[str, Any], converted: dict[str, Any]) -> None:
    """`restoreObjectMeta`: the original's metadata, with the converted object's labels and annotations
    (validated when they changed)."""
    if "metadata" not in converted:
        raise ConversionError("missing metadata in converted object")
    response_meta = converted["metadata"]
    if not isinstance(response_meta, dict):
        raise ConversionError(f"invalid metadata of type {_go_type(response_meta)} in converted object")
    meta = copy.deepcopy(original.get("metadata") or {})
    for f in ("labels", "annotations"):
        field = response_meta.get(f)
        if field is None:
            meta.pop(f, None)
            continue
        if not isinstance(field, dict):
            raise ConversionError(f"invalid metadata.{f} of type {_go_type(field)} in converted object")
        before = meta.get(f) or {}
        for k, v in field.items():
            if not isinstance(v, str):
                raise ConversionError(f"metadata.{f}[{k}] must be a string, but is {_go_type(v)} in converted "
                                      "object")
        if field != before:
            errs = validate_labels(field, "metadata.labels") if f == "labels" else _annotation_errors(field)
            if errs:
                raise ConversionError(aggregate(errs))
        meta[f] = field
    converted["metadata"] = meta


def check_converted(original: dict[str, Any], answer: Any, desired: str) -> dict[str, Any]:
    """The checks `Convert` makes of one converted object (a single object's texts: `index 0`)."""
    prefix = f"conversion webhook for {gvk(str(original.get('apiVersion') or ''), str(original.get('kind') or ''))}"
    if not isinstance(answer, dict):
        raise ConversionError(f"{prefix} failed: json: cannot unmarshal {_go_type(answer).lstrip('[]')} into Go "
                              "value of type map[string]interface {}")
    converted = copy.deepcopy(answer)
    received = str(converted.get("apiVersion") or "")
    if received != desired:
        raise ConversionError(f"{prefix} returned invalid object at index 0: invalid groupVersion (expected "
                              f"{desired}, received {received})")
    if converted.get("kind") != original.get("kind"):
        raise ConversionError(f"{prefix} returned invalid object at index 0: invalid kind (expected "
                              f"{original.get('kind') or ''}, received {converted.get('kind') or ''})")
    try:
        _validate_converted(original, converted)
    except ConversionError as exc:
        raise ConversionError(f"{prefix} returned invalid object: {exc}") from None
    try:
        restore_object_meta(original, converted)
    except ConversionError as exc:
        raise ConversionError(f"{prefix} returned invalid metadata: {exc}") from None
    return converted

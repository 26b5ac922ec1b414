"""`fieldValidation` of the bodies decoded outside the generic handlers' `_decode`: pods/eviction, pods/binding and
bindings, `*/scale` (PUT), serviceaccounts/token (TokenRequest), the access and authentication reviews.

Upstream decodes each of them in the generic create or update handler (staging/src/k8s.io/apiserver/pkg/endpoints/
handlers/create.go, update.go: `EvictionREST`, `BindingREST`, `TokenREST` are `NamedCreater`s, the reviews and the
legacy `bindings` `Creater`s, `ScaleREST` an `Updater`), with the strict serializer under `Strict` and `Warn`: its
strict errors (unknown and repeated fields, as http/decode.py's `apply_field_validation` names them) are a 400
through `transformDecodeError` (`<Kind> in version "<v>" cannot be handled as a <Kind>: strict decoding error: ...`)
or, under `Warn`, warnings (`addStrictDecodingWarnings`); under `Ignore` the unknown fields are dropped.
"""
from __future__ import annotations

from typing import Any, Mapping

from multidict import CIMultiDict

from ..warning import add_warning, recorded, warning_headers
from ..wire.dupkeys import Repeats
from . import hooks
from .decode import StrictDecodingError, apply_field_validation, strict_create_error


def validate_fields(obj: dict[str, Any], kind: str, version: str, message: str | None, mode: str,
                    repeats: list[Repeats], extra: dict[str, Any] | None = None) -> None:
    """The strict decoder's verdict on the decoded `obj` of `kind` (`message`: its Go type in the field model;
    `extra`: top-level fields of a kind the model lacks, with their nested models): Strict ⇒ the 400, Warn ⇒ the
    request's warnings (warning.py), unknown fields dropped. `version`: the body's version (`gvk.Version`)."""
    try:
        warnings = apply_field_validation(obj, kind, frozenset(extra or ()), mode, extra, message=message,
                                          repeats=repeats)
    except StrictDecodingError as exc:
        raise strict_create_error(exc, kind, version) from None
    for text in warnings:
        add_warning(text)


def warned() -> Mapping[str, str] | None:
    """The `Warning` headers of what the request recorded (None: nothing), for a handler's answer."""
    texts = recorded()
    return CIMultiDict(warning_headers(texts)) if texts else None


def binding_fields() -> dict[str, Any]:
    """A core/v1 Binding's fields beyond its metadata (`target`: an ObjectReference), which the field model (its
    `KIND_MESSAGES`) lacks."""
    known = hooks.wire_attr("openapi", "known_fields")  # (as decode.py's `_schema`: the wire tables are a hook)
    return {"target": known("ObjectReference", "core.ObjectReference") if known is not None else None}


# a nested metav1.DeleteOptions carries its TypeMeta (`json:",inline"`), which the field model leaves to the top level
EVICTION_FIELDS: dict[str, Any] = {"deleteOptions": {"apiVersion": None, "kind": None}}

SCALE_MESSAGE = "autoscaling.Scale"  # the `/scale` subresource's autoscaling/v1 Scale in the field model

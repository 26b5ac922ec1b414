"""The Go types of an APIService (`apiregistration.k8s.io/v1`), whose spec the shared field model (`wire.schema`)
does not hold: kube-aggregator decodes a body into the structs of
`staging/src/k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/types.go` (1.33) with the strict JSON decoder
(sigs.k8s.io/json), so a value of the wrong JSON type is its 400 (`json: cannot unmarshal string into Go struct
field APIServiceSpec.spec.groupPriorityMinimum of type int32`) and a field those structs lack is a strict decoding
error (`unknown field "spec.typo"`).

The table is in the form and in the declaration order of `wire.crdtypes`' (whose decoder walks it: document
order, first mismatch answered), and `wire.jsonkindconvert` walks it as upstream's unstructured converter does.
`spec.service.port` is `*int32` and `spec.caBundle` a `[]byte` (base64); a condition's `lastTransitionTime` is a
`metav1.Time` (its own `UnmarshalJSON`)."""
from __future__ import annotations

from typing import Any

from . import crdtypes

KIND = "APIService"
_STR = "s"
STRUCTS: dict[str, dict[str, Any]] = {
    "APIServiceSpec": {
        "service": "ServiceReference", "group": _STR, "version": _STR, "insecureSkipTLSVerify": "b",
        "caBundle": "y", "groupPriorityMinimum": "i32", "versionPriority": "i32"},
    "ServiceReference": {"namespace": _STR, "name": _STR, "port": "i32"},
    "APIServiceStatus": {"conditions": ("slice", "APIServiceCondition")},
    "APIServiceCondition": {
        "type": ("named", "v1.APIServiceConditionType"), "status": ("named", "v1.ConditionStatus"),
        "lastTransitionTime": "time", "reason": _STR, "message": _STR},
}


def type_error(obj: dict[str, Any]) -> str | None:
    """The decode error of an APIService body (its metadata as every kind's), or None."""
    return crdtypes.type_error(obj, KIND, STRUCTS)


def unknown_fields(obj: dict[str, Any], drop: bool) -> list[str]:
    """The unknown fields of an APIService body's spec and status, as the strict decoder names them; `drop`:
    remove them."""
    return crdtypes.unknown_fields(obj, drop, KIND, STRUCTS)

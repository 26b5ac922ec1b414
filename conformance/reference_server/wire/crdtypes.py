"""The Go decode errors of a CustomResourceDefinition body (`apiextensions.k8s.io/v1`), whose spec the shared field
model (`wire.schema`) does not hold: kube-apiserver decodes the body into the Go types of
`staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/types.go` and `types_jsonschema.go`
(sigs.k8s.io/json, Go's `encoding/json` decoder), so a schema value of the wrong JSON type is a 400:
`json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties
of type v1.JSONSchemaProps` (the innermost struct, the JSON names of the struct fields on the way; map keys and list
indexes are not named).

As `encoding/json` does: a mismatch is saved (the first one is answered) and decoding goes on, but the custom
`UnmarshalJSON`s of `marshal.go` stop it: `JSONSchemaPropsOrBool` (`additionalProperties`, `additionalItems`) answers
`boolean or JSON schema expected` for anything but an object or a bool, and an error met while it or
`JSONSchemaPropsOrArray` (`items`) decodes its schema is answered with the outer field's place (`addErrorContext`);
`JSONSchemaPropsOrStringArray` (`dependencies`) ignores what is neither; `JSON` (`default`, `example`, `enum`) takes
any value, which the conversion to the internal version then reads (`pkg/apis/apiextensions/v1/conversion.go`:
a number no float64 holds is refused there, in the same 400). A number is worded as the body wrote it (`1e3`).

`unknown_fields`: the fields the Go types do not have, as the strict decoder names them (sigs.k8s.io/json's
`strictFieldStack`: `spec.versions[0].schema.openAPIV3Schema.properties.spec.typo`, map keys joined with a dot);
inside a custom `UnmarshalJSON` the decoding is not strict, so those are dropped without a word."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

from ..goport.gojsonnum import GoFloat, first_overflow, overflow_error, overflow_seen
from . import gotypes


@dataclass
class _TypeError:
    """An `UnmarshalTypeError`: `Struct.Field` is filled in by the decoder's context."""

    value: str
    go_type: str
    struct: str = ""
    field: str = ""

    def text(self) -> str:
        if self.value.startswith("base64 "):
            return gotypes.base64_error(self.value)
        if not self.struct:
            return f"json: cannot unmarshal {self.value} into Go value of type {self.go_type}"
        return f"json: cannot unmarshal {self.value} into Go struct field {self.struct}.{self.field} of type " \
            f"{self.go_type}"


_Err = Union[_TypeError, str]  # a type error, or a custom UnmarshalJSON's own words

# Go types: a scalar code of gotypes ("s", "b", "i32", "i64", "f64", "y"), ("named", go name) for a named string,
# "json" (any value), "time" (metav1.Time), a struct name, ("slice", elem[, named]), ("map", elem[, named]), or a
# custom unmarshaler
_STR, _BOOL, _I32, _I64, _F64 = "s", "b", "i32", "i64", "f64"
_SCALAR_NAMES = {"s": "string", "b": "bool", "i32": "int32", "i64": "int64", "f64": "float64", "y": "[]uint8"}
_STRINGS = ("slice", _STR)
STRUCTS: dict[str, dict[str, Any]] = {
    "CustomResourceDefinitionSpec": {
        "group": _STR, "names": "CustomResourceDefinitionNames", "scope": ("named", "v1.ResourceScope"),
        "versions": ("slice", "CustomResourceDefinitionVersion"), "conversion": "CustomResourceConversion",
        "preserveUnknownFields": _BOOL},
    "CustomResourceDefinitionNames": {
        "plural": _STR, "singular": _STR, "shortNames": _STRINGS, "kind": _STR, "listKind": _STR,
        "categories": _STRINGS},
    "CustomResourceConversion": {"strategy": ("named", "v1.ConversionStrategyType"), "webhook": "WebhookConversion"},
    "WebhookConversion": {"clientConfig": "WebhookClientConfig", "conversionReviewVersions": _STRINGS},
    "WebhookClientConfig": {"url": _STR, "service": "ServiceReference", "caBundle": "y"},
    "ServiceReference": {"namespace": _STR, "name": _STR, "path": _STR, "port": _I32},
    "CustomResourceDefinitionVersion": {
        "name": _STR, "served": _BOOL, "storage": _BOOL, "deprecated": _BOOL, "deprecationWarning": _STR,
        "schema": "CustomResourceValidation", "subresources": "CustomResourceSubresources",
        "additionalPrinterColumns": ("slice", "CustomResourceColumnDefinition"),
        "selectableFields": ("slice", "SelectableField")},
    "CustomResourceValidation": {"openAPIV3Schema": "JSONSchemaProps"},
    "CustomResourceSubresources": {"status": "CustomResourceSubresourceStatus",
                                   "scale": "CustomResourceSubresourceScale"},
    "CustomResourceSubresourceStatus": {},
    "CustomResourceSubresourceScale": {"specReplicasPath": _STR, "statusReplicasPath": _STR,
                                       "labelSelectorPath": _STR},
    "CustomResourceColumnDefinition": {"name": _STR, "type": _STR, "format": _STR, "description": _STR,
                                       "priority": _I32, "jsonPath": _STR},
    "SelectableField": {"jsonPath": _STR},
    "CustomResourceDefinitionStatus": {
        "conditions": ("slice", "CustomResourceDefinitionCondition"), "acceptedNames": "CustomResourceDefinitionNames",
        "storedVersions": _STRINGS},
    "CustomResourceDefinitionCondition": {
        "type": ("named", "v1.CustomResourceDefinitionConditionType"), "status": ("named", "v1.ConditionStatus"),
        "lastTransitionTime": "time", "reason": _STR, "message": _STR},
    "JSONSchemaProps": {
        "id": _STR, "$schema": ("named", "v1.JSONSchemaURL"), "$ref": _STR, "description": _STR, "type": _STR,
        "format": _STR, "title": _STR, "default": "json", "maximum": _F64, "exclusiveMaximum": _BOOL,
        "minimum": _F64, "exclusiveMinimum": _BOOL, "maxLength": _I64, "minLength": _I64, "pattern": _STR,
        "maxItems": _I64, "minItems": _I64, "uniqueItems": _BOOL, "multipleOf": _F64, "enum": ("slice", "json"),
        "maxProperties": _I64, "minProperties": _I64, "required": _STRINGS, "items": "or-array",
        "allOf": ("slice", "JSONSchemaProps"), "oneOf": ("slice", "JSONSchemaProps"),
        "anyOf": ("slice", "JSONSchemaProps"), "not": "JSONSchemaProps", "properties": ("map", "JSONSchemaProps"),
        "additionalProperties": "or-bool", "patternProperties": ("map", "JSONSchemaProps"),
        "dependencies": ("map", "or-string-array", "v1.JSONSchemaDependencies"), "additionalItems": "or-bool",
        "definitions": ("map", "JSONSchemaProps", "v1.JSONSchemaDefinitions"), "externalDocs": "ExternalDocumentation",
        "example": "json", "nullable": _BOOL, "x-kubernetes-preserve-unknown-fields": _BOOL,
        "x-kubernetes-embedded-resource": _BOOL, "x-kubernetes-int-or-string": _BOOL,
        "x-kubernetes-list-map-keys": _STRINGS, "x-kubernetes-list-type": _STR, "x-kubernetes-map-type": _STR,
        "x-kubernetes-validations": ("slice", "ValidationRule", "v1.ValidationRules")},
    "ExternalDocumentation": {"description": _STR, "url": _STR},
    "ValidationRule": {"rule": _STR, "message": _STR, "messageExpression": _STR,
                       "reason": ("named", "v1.FieldValueErrorReason"), "fieldPath": _STR, "optionalOldSelf": _BOOL},
}
_CUSTOM_NAMES = {"or-array": "v1.JSONSchemaPropsOrArray", "or-bool": "v1.JSONSchemaPropsOrBool",
                 "or-string-array": "v1.JSONSchemaPropsOrStringArray", "json": "v1.JSON", "time": "v1.Time"}


def go_name(t: Any) -> str:
    """The Go type's name as an UnmarshalTypeError prints it."""
    if isinstance(t, tuple):
        if t[0] == "named":
            return t[1]
        if len(t) > 2:
            return t[2]
        return ("[]" if t[0] == "slice" else "map[string]") + go_name(t[1])
    if t in _SCALAR_NAMES:
        return _SCALAR_NAMES[t]
    return _CUSTOM_NAMES.get(t) or f"v1.{t}"


class _Fatal(Exception):
    def __init__(self, err: _Err):
        self.err = err


class _Decoder:
    """One `decodeState`: the first saved error, and the struct/field context of `addErrorContext`."""

    def __init__(self, structs: dict[str, dict[str, Any]] | None = None) -> None:
        self.structs = STRUCTS if structs is None else structs  # another kind's Go types (wire/apiservicetypes.py)
        self.saved: _Err | None = None
        self.struct = ""
        self.fields: list[str] = []

    def _context(self, err: _Err) -> _Err:
        if isinstance(err, _TypeError) and (self.struct or self.fields):
            return _TypeError(err.value, err.go_type, self.struct, ".".join(self.fields))
        return err

    def save(self, err: _Err) -> None:
        if self.saved is None:
            self.saved = self._context(err)

    def decode(self, v: Any, t: Any) -> None:
        if v is None:  # null leaves Go's zero value (and a nil pointer: no UnmarshalJSON is called)
            return
        if t == "json":
            return
        if t == "time":  # `Time.UnmarshalJSON`: `json.Unmarshal(b, &str)`, then `time.Parse(RFC3339)`; fatal
            inner = _TypeError(gotypes.kind_word(v), "string") if not isinstance(v, str) else gotypes.time_error(v)
            if inner is not None:
                raise _Fatal(self._context(inner))
            return
        if t in ("or-bool", "or-array", "or-string-array"):
            self._custom(v, t)
            return
        if isinstance(t, tuple) and t[0] == "named":
            if not isinstance(v, str):
                self.save(_TypeError(gotypes.kind_word(v), t[1]))
            return
        if isinstance(t, tuple):
            if not isinstance(v, list if t[0] == "slice" else dict):
                self.save(_TypeError(gotypes.kind_word(v), go_name(t)))
                return
            for item in (v if t[0] == "slice" else v.values()):
                self.decode(item, t[1])
            return
        if t in _SCALAR_NAMES:
            got = gotypes.scalar_error(v, t)
            if got:
                self.save(_TypeError(got, _SCALAR_NAMES[t]))
            return
        if not isinstance(v, dict):
            self.save(_TypeError(gotypes.kind_word(v), go_name(t)))
            return
        fields, outer = self.structs[t], (self.struct, len(self.fields))
        for key, value in v.items():
            ft = fields.get(key)
            if ft is None:  # an unknown field: dropped (or a strict-decoding warning)
                continue
            self.struct = t
            self.fields.append(key)
            self.decode(value, ft)
            del self.fields[outer[1]:]
        self.struct = outer[0]

    def _custom(self, v: Any, t: str) -> None:
        """`marshal.go`'s `UnmarshalJSON`s: their error stops the decoding, in the outer field's context."""
        inner: _Err | None = None
        if isinstance(v, dict):
            inner = decode_error(v, "JSONSchemaProps")
        elif isinstance(v, list) and t != "or-bool":
            inner = decode_error(v, ("slice", "JSONSchemaProps") if t == "or-array" else _STRINGS)
        elif t == "or-bool" and not isinstance(v, bool):
            inner = "boolean or JSON schema expected"
        if inner is not None:
            raise _Fatal(self._context(inner))


def decode_error(v: Any, t: Any) -> _Err | None:
    """The error `json.Unmarshal(v, &<t>)` returns: a fatal one, else the first saved one."""
    d = _Decoder()
    try:
        d.decode(v, t)
    except _Fatal as fatal:
        return fatal.err
    return d.saved


def decode_text(v: Any, t: Any) -> str | None:
    """`decode_error`'s text: what a custom `UnmarshalJSON` of marshal.go returns when the unstructured converter
    calls it alone (wire/jsonkindconvert.py), its type errors in the context of its own decoding."""
    err = decode_error(v, t)
    return err.text() if isinstance(err, _TypeError) else err


def type_error(obj: dict[str, Any], kind: str = "CustomResourceDefinition",
               structs: dict[str, dict[str, Any]] | None = None) -> str | None:
    """The decode error of a CRD body (its metadata as every kind's, its spec and status as above), or None;
    `kind` and `structs`: another kind outside the field model, whose spec and status are `<kind>Spec` and
    `<kind>Status` of `structs` (wire/apiservicetypes.py)."""
    d = _Decoder(structs)
    for key, value in obj.items():
        if key == "metadata":
            err = gotypes.object_meta_error({"metadata": value}, kind)
            if err:
                d.save(err)
        elif key in ("spec", "status"):
            d.struct, d.fields = kind, [key]
            try:
                d.decode(value, f"{kind}{key.capitalize()}")
            except _Fatal as fatal:
                return fatal.err.text() if isinstance(fatal.err, _TypeError) else fatal.err
    if isinstance(d.saved, _TypeError):
        return d.saved.text()
    if d.saved is None and kind == "CustomResourceDefinition" and overflow_seen():  # (its `JSON` fields)
        return _conversion_error(obj)
    return d.saved


def _conversion_error(obj: dict[str, Any]) -> str | None:
    """The v1 → internal conversion's error, which the decoder answers as its own: `Convert_v1_JSON_To_apiextensions_
    JSON` reads each `JSON` (`default`, `example`, `enum`) with util/json into an `interface{}`, refusing a number
    no float64 holds in `convertNumber`'s words (the literal as written)."""
    for key in ("spec", "status"):
        if key in obj:
            found = _json_overflow(obj[key], f"CustomResourceDefinition{key.capitalize()}")
            if found is not None:
                return overflow_error(found)
    return None


def _json_overflow(v: Any, t: Any) -> GoFloat | None:
    """The first number no float64 holds inside a `JSON` field of `v` (a value of Go type `t`)."""
    if v is None:
        return None
    if t == "json":
        return first_overflow(v)
    if t in ("or-bool", "or-array", "or-string-array"):
        if isinstance(v, dict):
            return _json_overflow(v, "JSONSchemaProps")
        return _json_overflow(v, ("slice", "JSONSchemaProps")) if isinstance(v, list) and t == "or-array" else None
    if isinstance(t, tuple) and t[0] in ("slice", "map"):
        items = v if t[0] == "slice" and isinstance(v, list) else \
            v.values() if t[0] == "map" and isinstance(v, dict) else ()
        return next((found for item in items if (found := _json_overflow(item, t[1])) is not None), None)
    if not isinstance(t, str) or t not in STRUCTS or not isinstance(v, dict):
        return None
    fields = STRUCTS[t]
    return next((found for key, value in v.items() if key in fields
                 and (found := _json_overflow(value, fields[key])) is not None), None)


def unknown_fields(obj: dict[str, Any], drop: bool, kind: str = "CustomResourceDefinition",
                   structs: dict[str, dict[str, Any]] | None = None) -> list[str]:
    """The unknown fields of a CRD body's spec and status, in document order; `drop`: remove them (those a custom
    unmarshaler decodes are removed always: the stored object never has them). `kind`, `structs`: as
    `type_error`'s."""
    out: list[str] = []
    for key in ("spec", "status"):
        if key in obj:
            _unknown(obj[key], f"{kind}{key.capitalize()}", key, drop, True, out, structs or STRUCTS)
    return out


def _unknown(v: Any, t: Any, path: str, drop: bool, strict: bool, out: list[str],
             structs: dict[str, dict[str, Any]]) -> None:
    if t in ("or-bool", "or-array", "or-string-array"):
        if isinstance(v, dict):
            _unknown(v, "JSONSchemaProps", path, True, False, out, structs)
        elif isinstance(v, list) and t == "or-array":
            _unknown(v, ("slice", "JSONSchemaProps"), path, True, False, out, structs)
        return
    if isinstance(t, tuple) and t[0] in ("slice", "map"):
        if t[0] == "slice" and isinstance(v, list):
            for i, item in enumerate(v):
                _unknown(item, t[1], f"{path}[{i}]", drop, strict, out, structs)
        elif t[0] == "map" and isinstance(v, dict):
            for k, item in v.items():
                _unknown(item, t[1], f"{path}.{k}", drop, strict, out, structs)
        return
    if not isinstance(t, str) or t not in structs or not isinstance(v, dict):
        return
    fields = structs[t]
    for key in list(v):
        if key in fields:
            _unknown(v[key], fields[key], f"{path}.{key}", drop, strict, out, structs)
            continue
        if strict:
            out.append(f"{path}.{key}")
        if drop:
            del v[key]

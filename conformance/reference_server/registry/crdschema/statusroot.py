"""The root of a CRD schema when the status subresource is on, as apiextensions-apiserver 1.33 checks it:
`staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`
`validateCustomResourceDefinitionValidation` (`allowedFieldsAtRootSchema`), so that `properties[status]` can be
extracted as the status's schema without losing validation.

The first set field of the internal `apiextensions.JSONSchemaProps` (in struct order) that is not allowed at the root
refuses the schema, whose value the error prints with Go's `%#v` (`go_schema`): a set pointer prints as an address,
which differs per process upstream; this server prints fixed ones. A `type` other than `object` is its own error.
Both stop the check (upstream breaks out of its loop)."""
from __future__ import annotations

from typing import Any

from ...apierrors import FieldError, field_invalid
from ...goport.gofmt import sharp_v, sharp_v_strings
from ..crdrules.crdwrite import go_string, rule_go_value

ALLOWED = ("Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum",
           "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required",
           "Items", "Properties", "ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations")

# the internal struct's fields in order: (Go name, JSON name, kind); kinds: s string, b bool, p pointer (its Go
# type), l []string, e []JSON, j []JSONSchemaProps, m map[string]JSONSchemaProps (its Go type), d dependencies, v rules
_A = "apiextensions."
FIELDS: tuple[tuple[str, str, str, str], ...] = (
    ("ID", "id", "s", ""), ("Schema", "$schema", "s", ""), ("Ref", "$ref", "p", "*string"),
    ("Description", "description", "s", ""), ("Type", "type", "s", ""), ("Nullable", "nullable", "b", ""),
    ("Format", "format", "s", ""), ("Title", "title", "s", ""), ("Default", "default", "p", f"*{_A}JSON"),
    ("Maximum", "maximum", "p", "*float64"), ("ExclusiveMaximum", "exclusiveMaximum", "b", ""),
    ("Minimum", "minimum", "p", "*float64"), ("ExclusiveMinimum", "exclusiveMinimum", "b", ""),
    ("MaxLength", "maxLength", "p", "*int64"), ("MinLength", "minLength", "p", "*int64"),
    ("Pattern", "pattern", "s", ""), ("MaxItems", "maxItems", "p", "*int64"), ("MinItems", "minItems", "p", "*int64"),
    ("UniqueItems", "uniqueItems", "b", ""), ("MultipleOf", "multipleOf", "p", "*float64"), ("Enum", "enum", "e", ""),
    ("MaxProperties", "maxProperties", "p", "*int64"), ("MinProperties", "minProperties", "p", "*int64"),
    ("Required", "required", "l", ""), ("Items", "items", "p", f"*{_A}JSONSchemaPropsOrArray"),
    ("AllOf", "allOf", "j", ""), ("OneOf", "oneOf", "j", ""), ("AnyOf", "anyOf", "j", ""),
    ("Not", "not", "p", f"*{_A}JSONSchemaProps"), ("Properties", "properties", "m", "map[string]"),
    ("AdditionalProperties", "additionalProperties", "p", f"*{_A}JSONSchemaPropsOrBool"),
    ("PatternProperties", "patternProperties", "m", "map[string]"), ("Dependencies", "dependencies", "d", ""),
    ("AdditionalItems", "additionalItems", "p", f"*{_A}JSONSchemaPropsOrBool"),
    ("Definitions", "definitions", "m", f"{_A}JSONSchemaDefinitions"),
    ("ExternalDocs", "externalDocs", "p", f"*{_A}ExternalDocumentation"), ("Example", "example", "p", f"*{_A}JSON"),
    ("XPreserveUnknownFields", "x-kubernetes-preserve-unknown-fields", "p", "*bool"),
    ("XEmbeddedResource", "x-kubernetes-embedded-resource", "b", ""),
    ("XIntOrString", "x-kubernetes-int-or-string", "b", ""), ("XListMapKeys", "x-kubernetes-list-map-keys", "l", ""),
    ("XListType", "x-kubernetes-list-type", "p", "*string"), ("XMapType", "x-kubernetes-map-type", "p", "*string"),
    ("XValidations", "x-kubernetes-validations", "v", ""),
)
_ADDRESS = "0xc000b5e2a0"  # a fixed stand-in for a pointer's address


def _set(kind: str, v: Any) -> bool:
    """Not Go's zero value once decoded (a present empty list or map is a non-nil slice or map)."""
    if kind == "s":
        return isinstance(v, str) and v != ""
    if kind == "b":
        return v is True
    return v is not None


def validate_status_root(schema: dict[str, Any], path: str) -> list[FieldError]:
    """The errors of a root schema whose version has the status subresource on."""
    for name, key, kind, _ in FIELDS:
        if not _set(kind, schema.get(key)):
            continue
        if name == "Type":
            if schema.get("type") != "object":
                return [field_invalid(f"{path}.type", schema.get("type"), 'only "object" is allowed as the type at '
                                      "the root of the schema if the status subresource is enabled")]
            continue
        if name not in ALLOWED:
            return [FieldError("FieldValueInvalid", path, f"Invalid value: {go_schema(schema)}: only "
                               f"[{' '.join(ALLOWED)}] fields are allowed at the root of the schema if the status "
                               "subresource is enabled")]
    return []


def go_schema(s: Any) -> str:
    """`%#v` of the internal `apiextensions.JSONSchemaProps` a v1 schema converts to."""
    s = s if isinstance(s, dict) else {}
    return f"{_A}JSONSchemaProps{{" + ", ".join(f"{name}:{_field(kind, go, s.get(key))}"
                                                for name, key, kind, go in FIELDS) + "}"


def _field(kind: str, go: str, v: Any) -> str:
    set_ = _set(kind, v)
    if kind == "s":
        return go_string(v if set_ else "")
    if kind == "b":
        return "true" if set_ else "false"
    if kind == "p":
        return f"({go})({_ADDRESS if set_ else 'nil'})"
    if kind == "l":
        return sharp_v_strings(v)
    if kind == "e":
        return f"[]{_A}JSON{{" + ", ".join(sharp_v(x) for x in v) + "}" if isinstance(v, list) else f"[]{_A}JSON(nil)"
    if kind == "j":
        return (f"[]{_A}JSONSchemaProps{{" + ", ".join(go_schema(x) for x in v) + "}") if isinstance(v, list) \
            else f"[]{_A}JSONSchemaProps(nil)"
    if kind == "m":
        head = f"{go}{_A}JSONSchemaProps" if go == "map[string]" else go
        return (head + "{" + ", ".join(f"{go_string(k)}:{go_schema(v[k])}" for k in sorted(v)) + "}") \
            if isinstance(v, dict) else f"{head}(nil)"
    if kind == "d":
        return (f"{_A}JSONSchemaDependencies{{" + ", ".join(f"{go_string(k)}:{_dependency(v[k])}" for k in sorted(v))
                + "}") if isinstance(v, dict) else f"{_A}JSONSchemaDependencies(nil)"
    rules = [r if isinstance(r, dict) else {} for r in v] if isinstance(v, list) else None
    return f"{_A}ValidationRules(nil)" if rules is None else \
        f"{_A}ValidationRules{{" + ", ".join(rule_go_value(r) for r in rules) + "}"


def _dependency(v: Any) -> str:
    schema = f"(*{_A}JSONSchemaProps)({_ADDRESS})" if isinstance(v, dict) else f"(*{_A}JSONSchemaProps)(nil)"
    prop = _field("l", "", v if isinstance(v, list) else None)
    return f"{_A}JSONSchemaPropsOrStringArray{{Schema:{schema}, Property:{prop}}}"

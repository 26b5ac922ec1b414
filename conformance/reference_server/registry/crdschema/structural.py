"""Is a CRD's schema structural? As apiextensions-apiserver 1.33 decides when a CRD is written.

Follows `staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/`:
- `convert.go` `NewStructural`: the fields a structural schema cannot hold at all (`id`, `$schema`, `$ref`,
  `patternProperties`, `dependencies`, `additionalItems`, `definitions`, `items` as an array,
  `x-kubernetes-preserve-unknown-fields: false`): `new_structural_error`, the first one met;
- `validation.go` `ValidateStructural` (with the options CRDs get: no nested `additionalProperties`, no nested
  `x-kubernetes-validations`): a type for every specified field, nothing but value validations inside
  `allOf`/`anyOf`/`oneOf`/`not` (the two `x-kubernetes-int-or-string` patterns excepted), the root and embedded
  resources' `apiVersion`/`kind`/`metadata`, and `complete.go`'s completeness: every field or items a junctor
  names is also specified outside it. The errors come sorted by their text, as upstream sorts them.

Schemas are the JSON the client sent (dicts), walked as upstream walks its `Structural` (which `NewStructural`
builds from the same fields)."""
from __future__ import annotations

from typing import Any

from ...apierrors import FieldError, field_forbidden, field_invalid, field_required
from ...goport.goregexp import error_text as regexp_error

ROOT, ITEM, FIELD = "root", "item", "field"
_INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]
_UNSUPPORTED = (("id", "id"), ("$schema", "schema"), ("$ref", "$ref"), ("patternProperties", "patternProperties"),
                ("dependencies", "dependencies"), ("additionalItems", "additionalItems"),
                ("definitions", "definitions"))
# ValueValidation's fields: what the root's `metadata` may not carry besides name/generateName
_VALUE_VALIDATION = ("format", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength",
                     "pattern", "maxItems", "minItems", "uniqueItems", "multipleOf", "maxProperties",
                     "minProperties", "required", "enum", "not", "allOf", "anyOf", "oneOf")
_GENERIC_AND_EXTENSIONS = ("description", "title", "nullable", "additionalProperties", "x-kubernetes-embedded-resource",
                           "x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields",
                           "x-kubernetes-list-map-keys", "x-kubernetes-list-type", "x-kubernetes-map-type",
                           "x-kubernetes-validations", "items")


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _type(s: dict[str, Any]) -> str:
    t = s.get("type")
    return t if isinstance(t, str) else ""


def _props(s: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in _dict(s.get("properties")).items() if isinstance(v, dict)}


def _clauses(s: dict[str, Any], key: str) -> list[dict[str, Any]]:
    v = s.get(key)
    return [c if isinstance(c, dict) else {} for c in v] if isinstance(v, list) else []


def _set(v: Any) -> bool:
    """Set as Go sees a decoded field: not its zero value (nil, false, "", empty)."""
    return v is not None and v is not False and v != "" and v != [] and v != {}


# ---- NewStructural -----------------------------------------------------------------------------------------------
def new_structural_error(s: Any) -> str | None:
    """`NewStructural`'s error for `s`, or None when the schema converts."""
    if not isinstance(s, dict):
        return None
    for key, name in _UNSUPPORTED:
        if _set(s.get(key)):
            return f"OpenAPIV3Schema '{name}' is not supported"
    for sub in ([s["not"]] if isinstance(s.get("not"), dict) else []) + \
            _clauses(s, "allOf") + _clauses(s, "anyOf") + _clauses(s, "oneOf"):
        if err := new_structural_error(sub):
            return err
    if err := new_structural_error(s.get("additionalProperties")):
        return err
    if s.get("x-kubernetes-preserve-unknown-fields") is False:
        return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"
    items = s.get("items")
    if isinstance(items, list) and items:
        return "OpenAPIV3Schema 'items' must be a schema, but is an array"
    if err := new_structural_error(items):
        return err
    for sub in _props(s).values():
        if err := new_structural_error(sub):
            return err
    return None


# ---- validateStructuralInvariants ------------------------------------------------------------------------------
def validate_structural(path: str, s: dict[str, Any]) -> list[FieldError]:
    """`ValidateStructural(path, NewStructural(s))`, sorted as upstream sorts (by the error's text)."""
    errs: list[FieldError] = []
    _invariants(s, ROOT, path, errs)
    errs += _completeness(s, s, path, path)
    return sorted(errs, key=str)


def is_structural(s: Any) -> bool:
    """`!schemaIsNonStructural`: converts, and no structural error."""
    if not isinstance(s, dict):
        return True
    return new_structural_error(s) is None and not validate_structural("", s)


def _is_int_or_string_pattern(clauses: list[dict[str, Any]]) -> bool:
    return [{k: v for k, v in c.items() if k != "example"} for c in clauses] == \
        _INT_OR_STRING_ANY_OF


def _invariants(s: Any, lvl: str, p: str, errs: list[FieldError]) -> None:
    if not isinstance(s, dict):
        return
    typ = _type(s)
    items = s.get("items") if isinstance(s.get("items"), dict) else None
    if typ == "array" and items is None:
        errs.append(field_required(f"{p}.items", "must be specified"))
    _invariants(items, ITEM, f"{p}.items", errs)
    for k, v in _props(s).items():
        _invariants(v, FIELD, f"{p}.properties[{k}]", errs)
    extra = s.get("additionalProperties")
    if extra is not None:
        if lvl == ROOT:
            errs.append(field_forbidden(f"{p}.additionalProperties", "must not be used at the root"))
        _invariants(extra, FIELD, f"{p}.additionalProperties", errs)

    int_or_string = s.get("x-kubernetes-int-or-string") is True
    embedded = s.get("x-kubernetes-embedded-resource") is True
    preserve = s.get("x-kubernetes-preserve-unknown-fields") is True
    if int_or_string and preserve:
        errs.append(field_invalid(f"{p}.x-kubernetes-preserve-unknown-fields", True,
                                  "must be false if x-kubernetes-int-or-string is true"))
    if int_or_string and embedded:
        errs.append(field_invalid(f"{p}.x-kubernetes-embedded-resource", True,
                                  "must be false if x-kubernetes-int-or-string is true"))

    skip_any_of = _is_int_or_string_pattern(_clauses(s, "anyOf"))
    all_of = _clauses(s, "allOf")
    skip_first_all_of_any_of = bool(all_of) and _is_int_or_string_pattern(_clauses(all_of[0], "anyOf"))
    _value_validation(s, skip_any_of, skip_first_all_of_any_of, p, errs)

    check_metadata = lvl == ROOT or embedded
    if embedded and typ != "object":
        if not typ:
            errs.append(field_required(f"{p}.type", "must be object if x-kubernetes-embedded-resource is true"))
        else:
            errs.append(field_invalid(f"{p}.type", typ, "must be object if x-kubernetes-embedded-resource is true"))
    elif not typ and not int_or_string and not preserve:
        detail = {ROOT: "must not be empty at the root", ITEM: "must not be empty for specified array items",
                  FIELD: "must not be empty for specified object fields"}[lvl]
        errs.append(field_required(f"{p}.type", detail))
    if embedded and extra is not None:
        errs.append(field_forbidden(f"{p}.additionalProperties",
                                    "must not be used if x-kubernetes-embedded-resource is set"))
    if lvl == ROOT and typ and typ != "object":
        errs.append(field_invalid(f"{p}.type", typ, "must be object at the root"))

    props = _props(s)
    for name in ("kind", "apiVersion"):
        if name in props and check_metadata and _type(props[name]) != "string":
            errs.append(field_invalid(f"{p}.properties[{name}].type", _type(props[name]), "must be string"))
    if "metadata" in props:
        _metadata_invariants(props["metadata"], check_metadata, lvl, f"{p}.properties[metadata]", errs)
    if embedded and not preserve and not props:
        errs.append(field_required(f"{p}.properties", "must not be empty if x-kubernetes-embedded-resource is true "
                                   "without x-kubernetes-preserve-unknown-fields"))


def _metadata_invariants(s: dict[str, Any], check_metadata: bool, lvl: str, p: str, errs: list[FieldError]) -> None:
    """`validateStructuralMetadataInvariants`: the root's metadata may restrict only name and generateName."""
    if check_metadata and _type(s) != "object":
        errs.append(field_invalid(f"{p}.type", _type(s), "must be object"))
    if lvl != ROOT:
        return
    props = set(_props(s)) if isinstance(s.get("properties"), dict) else set()
    named = props <= {"name", "generateName"} and bool(props)
    other = [k for k in _VALUE_VALIDATION + _GENERIC_AND_EXTENSIONS
             if ((s.get(k) is not None) if k in _PRESENT_COUNTS + ("required",) else _set(s.get(k)))]
    if (props and not named) or other:
        errs.append(field_forbidden(p, "must not specify anything other than name and generateName, but metadata is "
                                       "implicitly specified"))


def _value_validation(v: dict[str, Any], skip_any_of: bool, skip_first_all_of_any_of: bool, p: str,
                      errs: list[FieldError]) -> None:
    """`validateValueValidation`: the junctors below a node, and its pattern."""
    if not skip_any_of:
        for i, c in enumerate(_clauses(v, "anyOf")):
            _nested(c, False, False, f"{p}.anyOf[{i}]", errs)
    for i, c in enumerate(_clauses(v, "allOf")):
        _nested(c, skip_first_all_of_any_of and i == 0, False, f"{p}.allOf[{i}]", errs)
    for i, c in enumerate(_clauses(v, "oneOf")):
        _nested(c, False, False, f"{p}.oneOf[{i}]", errs)
    if isinstance(v.get("not"), dict):
        _nested(v["not"], False, False, f"{p}.not", errs)
    pattern = v.get("pattern")
    if isinstance(pattern, str) and pattern and (err := regexp_error(pattern)):
        errs.append(field_invalid(f"{p}.pattern", pattern, f"must be a valid regular expression, but isn't: {err}"))


_FORBIDDEN_NESTED = (
    ("type", "must be empty to be structural"),
    ("additionalProperties", "must be undefined to be structural"),
    ("default", "must be undefined to be structural"),
    ("title", "must be empty to be structural"),
    ("description", "must be empty to be structural"),
    ("nullable", "must be false to be structural"),
    ("externalDocs", "must be undefined to be structural"),
    ("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
    ("x-kubernetes-embedded-resource", "must be false to be structural"),
    ("x-kubernetes-int-or-string", "must be false to be structural"),
    ("x-kubernetes-list-map-keys", "must be empty to be structural"),
    ("x-kubernetes-list-type", "must be undefined to be structural"),
    ("x-kubernetes-map-type", "must be undefined to be structural"),
    ("x-kubernetes-validations", "must be empty to be structural"),
)
_PRESENT_COUNTS = ("additionalProperties", "default", "externalDocs", "x-kubernetes-list-type", "x-kubernetes-map-type")


def _nested(v: dict[str, Any], skip_any_of: bool, skip_all_of_any_of: bool, p: str, errs: list[FieldError]) -> None:
    """`validateNestedValueValidation`: inside a junctor only value validations may appear."""
    _value_validation(v, skip_any_of, skip_all_of_any_of, p, errs)
    if isinstance(v.get("items"), dict):
        _nested(v["items"], False, False, f"{p}.items", errs)
    for k, sub in _props(v).items():
        _nested(sub, False, False, f"{p}.properties[{k}]", errs)
    for key, detail in _FORBIDDEN_NESTED:
        value = v.get(key)
        if (value is not None) if key in _PRESENT_COUNTS else _set(value):
            errs.append(field_forbidden(f"{p}.{key}", detail))
    if "metadata" in _props(v):
        errs.append(field_forbidden(f"{p}.properties[metadata]", "must not be specified in a nested context"))


# ---- complete.go -------------------------------------------------------------------------------------------------
def _completeness(v: dict[str, Any], s: dict[str, Any] | None, s_path: str, v_path: str) -> list[FieldError]:
    """`validateValueValidationCompleteness`: the junctors of `v`, against the structural node `s`."""
    if s is None:
        return [field_required(s_path, f"because it is defined in {v_path}")]
    errs: list[FieldError] = []
    if isinstance(v.get("not"), dict):
        errs += _nested_completeness(v["not"], s, s_path, f"{v_path}.not")
    for key in ("allOf", "anyOf", "oneOf"):
        for i, c in enumerate(_clauses(v, key)):
            errs += _nested_completeness(c, s, s_path, f"{v_path}.{key}[{i}]")
    return errs


def _nested_completeness(v: dict[str, Any] | None, s: dict[str, Any] | None, s_path: str,
                         v_path: str) -> list[FieldError]:
    if v is None:
        return []
    if s is None:
        return [field_required(s_path, f"because it is defined in {v_path}")]
    errs = _completeness(v, s, s_path, v_path)
    items = v.get("items") if isinstance(v.get("items"), dict) else None
    s_items = s.get("items") if isinstance(s.get("items"), dict) else None
    errs += _nested_completeness(items, s_items, f"{s_path}.items", f"{v_path}.items")
    s_props = _props(s)
    for k, sub in _props(v).items():
        if k not in s_props:
            errs.append(field_required(f"{s_path}.properties[{k}]",
                                       f"because it is defined in {v_path}.properties[{k}]"))
        else:
            errs += _nested_completeness(sub, s_props[k], f"{s_path}.properties[{k}]", f"{v_path}.properties[{k}]")
    return errs

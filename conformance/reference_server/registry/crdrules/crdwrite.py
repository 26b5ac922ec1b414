"""The CRD write (`pkg/apis/apiextensions/validation/validation.go` `ValidateCustomResourceDefinitionOpenAPISchema`):
each rule's fields checked (`rule is not specified`, the message, messageExpression, reason and fieldPath), then,
when the node and its children have no such error, every rule compiled (`compiler.py`); a rule that does not compile
is `x-kubernetes-validations[i].rule: Invalid value: apiextensions.ValidationRule{...}: compilation failed: ...`;
`oldSelf` is refused under lists that are not map lists and maps that are not correlatable, `optionalOldSelf`
without `oldSelf`. Schema errors come before CEL errors (`OpenAPISchemaErrorList.AllErrors`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...apierrors import FieldError, field_invalid, field_not_supported, field_required
from ...goport.gofmt import go_quote
from .compiler import Types, compile_rule, valid_field_path
from .cost import TotalCost, child_cardinality, decl_type, expression_cost, over_limit, size_estimator

REASONS = ("FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired")


go_string = go_quote  # `%#v` of a struct's string field (`strconv.Quote`); crschema.py and validator.py print with it


def rule_go_value(rule: dict[str, Any]) -> str:
    """`%#v` of the internal `apiextensions.ValidationRule` (field.Invalid's value for a rule): a set pointer prints
    as an address, which differs per process upstream; this server prints a fixed one."""
    reason = "(*apiextensions.FieldValueErrorReason)(nil)" if rule.get("reason") is None else \
        "(*apiextensions.FieldValueErrorReason)(0xc000a1c0a0)"
    optional = "(*bool)(nil)" if rule.get("optionalOldSelf") is None else "(*bool)(0xc000a1c0a8)"
    return (f"apiextensions.ValidationRule{{Rule:{go_string(str(rule.get('rule') or ''))}, "
            f"Message:{go_string(str(rule.get('message') or ''))}, "
            f"MessageExpression:{go_string(str(rule.get('messageExpression') or ''))}, Reason:{reason}, "
            f"FieldPath:{go_string(str(rule.get('fieldPath') or ''))}, OptionalOldSelf:{optional}}}")


def _invalid_rule(path: str, rule: dict[str, Any], detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {rule_go_value(rule)}: {detail}")


@dataclass
class _Errors:
    schema: list[FieldError] = field(default_factory=list)
    cel: list[FieldError] = field(default_factory=list)
    total: TotalCost = field(default_factory=TotalCost)  # the schema's rule costs (cost.py)
    unchanged: bool = False  # an update left this schema as it was: no per-expression cost limit


def _static_rule_errors(rules: list[Any], schema: dict[str, Any], at: str) -> list[FieldError]:
    """The checks of each rule's fields before any compilation."""
    errs: list[FieldError] = []
    for i, rule in enumerate(rules):
        rule = rule if isinstance(rule, dict) else {}
        p = f"{at}.x-kubernetes-validations[{i}]"
        text, message = str(rule.get("rule") or ""), str(rule.get("message") or "")
        if not text.strip():
            errs.append(field_required(f"{p}.rule", "rule is not specified"))
        elif message and not message.strip():
            errs.append(field_invalid(f"{p}.message", message, "message must be non-empty if specified"))
        elif "\n" in message.strip():
            errs.append(field_invalid(f"{p}.message", message, "message must not contain line breaks"))
        elif "\n" in text.strip() and not message.strip():
            errs.append(field_required(f"{p}.message", "message must be specified if rule contains line breaks"))
        expression = str(rule.get("messageExpression") or "")
        if expression and not expression.strip():
            errs.append(field_required(f"{p}.messageExpression", "messageExpression must be non-empty if specified"))
        if rule.get("reason") is not None and rule.get("reason") not in REASONS:
            errs.append(field_not_supported(f"{p}.reason", rule.get("reason"), REASONS))
        path = str(rule.get("fieldPath") or "")
        if path and not path.strip():
            errs.append(field_invalid(f"{p}.fieldPath", path, "fieldPath must be non-empty if specified"))
        if "\n" in path:
            errs.append(field_invalid(f"{p}.fieldPath", path, "fieldPath must not contain line breaks"))
        if path and valid_field_path(path, schema) is None:
            errs.append(field_invalid(f"{p}.fieldPath", path, "fieldPath must be a valid path"))
    return errs


def _walk_crd(schema: Any, at: str, out: _Errors, types: Types, type_name: str, uncorrelatable: str | None,
              stored: frozenset[str], root: bool = False, cardinality: int | None = 1) -> bool:
    """Check the rules of `schema` and below (children first, as upstream recurses before a node's own rules);
    True when a schema error was found at this node or below. `cardinality`: how many times the node may occur
    (`CELSchemaContext.MaxCardinality`, None unbounded)."""
    if not isinstance(schema, dict):
        return False
    found = False
    extra = schema.get("additionalProperties")
    map_type = schema.get("x-kubernetes-map-type")
    forbid_here = uncorrelatable or (at if map_type not in (None, "granular", "atomic") else None)
    below = child_cardinality(schema, cardinality)
    if isinstance(extra, dict):
        found |= _walk_crd(extra, f"{at}.additionalProperties", out, types, "", uncorrelatable, stored,
                           cardinality=below)
    for name, sub in (schema.get("properties") or {}).items() if isinstance(schema.get("properties"), dict) else ():
        found |= _walk_crd(sub, f"{at}.properties[{name}]", out, types, "", forbid_here, stored, cardinality=below)
    if isinstance(schema.get("items"), dict):
        list_forbid = uncorrelatable or (at if schema.get("x-kubernetes-list-type") != "map" else None)
        found |= _walk_crd(schema["items"], f"{at}.items", out, types, "", list_forbid, stored, cardinality=below)
    rules = schema.get("x-kubernetes-validations")
    if not isinstance(rules, list) or not rules:
        return found
    static = _static_rule_errors(rules, schema, at)
    out.schema += static
    if found or static:
        return True
    resource = root or bool(schema.get("x-kubernetes-embedded-resource"))
    self_type = types.of(schema, type_name or f"selfType{id(schema)}", resource_root=resource)
    decl = decl_type(schema, resource)
    sizes = size_estimator(decl) if decl is not None else None
    for i, rule in enumerate(rules):
        p = f"{at}.x-kubernetes-validations[{i}]"
        rule = rule if isinstance(rule, dict) else {}
        compiled = compile_rule(rule, schema, self_type, types, new=str(rule.get("rule") or "") not in stored,
                                sizes=sizes)
        cost = expression_cost(compiled.max_cost, cardinality, decl) if decl is not None else 0
        _observe(out, f"{p}.rule", "estimated rule cost", cost)
        if compiled.error:
            out.cel.append(_invalid_rule(f"{p}.rule", rule, compiled.error))
        if compiled.message_error:
            out.cel.append(_invalid_rule(f"{p}.messageExpression", rule, compiled.message_error))
        elif compiled.message_program is not None:
            _observe(out, f"{p}.messageExpression", "estimated messageExpression cost", compiled.message_max_cost)
        if compiled.uses_old_self:
            if uncorrelatable is not None:
                out.cel.append(field_invalid(f"{p}.rule", rule.get("rule"), "oldSelf cannot be used on the "
                                             f"uncorrelatable portion of the schema within {uncorrelatable}"))
        elif rule.get("optionalOldSelf") is not None:
            out.cel.append(field_invalid(f"{p}.optionalOldSelf", rule.get("optionalOldSelf"),
                                         "may not be set if oldSelf is not used in rule"))
    return False


def _observe(out: _Errors, path: str, name: str, cost: int) -> None:
    """An expression's cost: over the per-expression limit (unless the schema is unchanged), and into the total."""
    err = None if out.unchanged else over_limit(path, name, cost)
    if err is not None:
        out.cel.append(err)
    out.total.observe(path, cost)


def _schemas(crd: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Each schema with its path as the internal version names it: `spec.validation.openAPIV3Schema` when every
    version has the same schema (the v1 conversion hoists it), else each version's."""
    versions = [v for v in ((crd.get("spec") or {}).get("versions") or []) if isinstance(v, dict)]
    schemas = [(v.get("schema") or {}).get("openAPIV3Schema") if isinstance(v.get("schema"), dict) else None
               for v in versions]
    if schemas and all(s == schemas[0] for s in schemas):
        return [("spec.validation.openAPIV3Schema", schemas[0])] if isinstance(schemas[0], dict) else []
    return [(f"spec.versions[{i}].schema.openAPIV3Schema", s) for i, s in enumerate(schemas) if isinstance(s, dict)]


def _expressions(crd: dict[str, Any] | None) -> frozenset[str]:
    """The rules a CRD already has (`findPreexistingExpressions`): compiled in the stored expressions' environment."""
    found: set[str] = set()

    def walk(s: Any) -> None:
        if isinstance(s, dict):
            for r in s.get("x-kubernetes-validations") or []:
                if isinstance(r, dict):
                    found.add(str(r.get("rule") or ""))
            for v in s.values():
                walk(v)
        elif isinstance(s, list):
            for v in s:
                walk(v)
    if crd is not None:
        for _, s in _schemas(crd):
            walk(s)
    return frozenset(found)


def validate_crd_rules(crd: dict[str, Any], old: dict[str, Any] | None = None,
                       uncompiled: frozenset[str] = frozenset()) -> list[FieldError]:
    """Every rule of every version's schema, checked and compiled; schema errors before CEL errors. The schemas
    at `uncompiled` paths are not structural: upstream reports no CEL errors for them (its `celContext` is nil)."""
    errs: list[FieldError] = []
    stored = _expressions(old)
    for at, schema in _schemas(crd):
        out = _Errors(unchanged=old is not None and _unchanged(crd, old, at))
        _walk_crd(schema, at, out, Types(), "", None, stored, root=True)
        # a schema that is not structural compiles no rule upstream: neither CEL nor cost errors
        errs += out.schema + ([] if at in uncompiled else out.cel + out.total.errors(at))
    return errs


def _version_schemas(crd: dict[str, Any]) -> list[tuple[str, Any]]:
    versions = [v for v in ((crd.get("spec") or {}).get("versions") or []) if isinstance(v, dict)]
    return [(str(v.get("name")), (v.get("schema") or {}).get("openAPIV3Schema") if isinstance(v.get("schema"), dict)
             else None) for v in versions]


def _unchanged(crd: dict[str, Any], old: dict[str, Any], at: str) -> bool:
    """`findVersionsWithUnchangedSchemas` for the version whose schema is at `at` (the first version's for the
    hoisted `spec.validation`, as the internal `spec.version`)."""
    new_schemas = _version_schemas(crd)
    if not new_schemas:
        return False
    name, schema = new_schemas[0 if at.startswith("spec.validation") else int(at.split("[")[1].split("]")[0])]
    return any(n == name and s == schema for n, s in _version_schemas(old))

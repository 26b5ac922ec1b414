"""CustomResourceDefinitions' `x-kubernetes-validations` rules: compiled when the CRD is written, enforced on every
write of its custom resources (create, update, `/status`).

Follows apiextensions-apiserver 1.33 (v0.33):
- `pkg/apis/apiextensions/validation/validation.go` (the CRD write: `rule is not specified`, the message,
  messageExpression, reason and fieldPath checks, then per schema node `cel.Compile`; a rule that does not compile
  is `x-kubernetes-validations[i].rule: Invalid value: apiextensions.ValidationRule{...}: compilation failed: ...`,
  `oldSelf` refused under lists that are not map lists, `optionalOldSelf` without `oldSelf`);
- `pkg/apiserver/schema/cel/compilation.go` (`self`/`oldSelf` typed by the node's schema, the resource root with
  `apiVersion`, `kind` and `metadata.name`/`generateName`; `cel expression must evaluate to a bool`,
  `messageExpression must evaluate to a string`; property names escaped by `apiserver/pkg/cel/escaping.go`);
- `pkg/apiserver/schema/cel/validation.go` (`Validator`: a node's rules run before its children's, from the root
  whose path is nil (`<nil>`); a failed rule is `field.Invalid(path, <schema type>, message)` or the `reason`'s
  error, `fieldPath` appended; evaluation errors `<err> evaluating rule: <rule>`; transition rules (`oldSelf`) only
  where an old value correlates: object properties and map values, map-list items by key; `optionalOldSelf` rules
  always, with `oldSelf` an optional);
- `pkg/registry/customresource/strategy.go` (rules are skipped, with one error, when the schema validation found a
  blocking error; on update, CRDValidationRatcheting, GA and locked on in 1.33 (`pkg/features/kube_features.go`):
  an error of a rule without `oldSelf` is dropped when its node, or its nearest correlatable ancestor, is unchanged
  (`apiserver/pkg/cel/common/equality.go` `CorrelatedObject`); upstream turns it into a warning, not sent here).

The CEL engine and partial type checker are `cel/`'s; validators are built once per CRD uid and resourceVersion."""
from __future__ import annotations

import base64
import binascii
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from .. import cel
from ..apierrors import FieldError, field_invalid, field_not_supported, field_required

REASONS = ("FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired")
MAX_MESSAGE = 5 * 1024  # celconfig.MaxEvaluatedMessageExpressionSizeBytes
# strategy.go hasBlockingErr: schema errors after which the rules are not run
BLOCKING = frozenset({"FieldValueNotSupported", "FieldValueRequired", "FieldValueTooLong", "FieldValueTooMany",
                      "FieldValueTypeInvalid"})
NOT_CHECKED = ("some validation rules were not checked because the object was invalid; correct the existing "
               "errors to complete validation")
_RESERVED = frozenset({"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
                       "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void",
                       "while"})
_EXPAND = re.compile(r"(__|[-./]|[^a-zA-Z0-9\-./_])")
_EXPANSIONS = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}
_STRINGS = re.compile(r"""[rRbB]{0,2}(?:'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*")""")
_OLD_SELF = re.compile(r"(?<![\w.])oldSelf\b")


def escape(name: str) -> str | None:
    """`cel.Escape`: the CEL field name of a property, None when it has none (the property is not visible)."""
    if not name or name[0].isdigit():
        return None
    if name in _RESERVED:
        return f"__{name}__"
    bad = False

    def expand(m: re.Match[str]) -> str:
        nonlocal bad
        out = _EXPANSIONS.get(m.group(0))
        bad = bad or out is None
        return out or ""
    out = _EXPAND.sub(expand, name)
    return None if bad else out


def _outside_strings(text: str, pattern: re.Pattern[str], repl: str | None = None) -> str | bool:
    """Whether `pattern` occurs outside string literals, or (`repl` given) the text with it replaced there."""
    parts, last, found = [], 0, False
    for m in _STRINGS.finditer(text):
        chunk = text[last:m.start()]
        found = found or bool(pattern.search(chunk))
        parts += [pattern.sub(repl, chunk) if repl is not None else chunk, m.group(0)]
        last = m.end()
    tail = text[last:]
    found = found or bool(pattern.search(tail))
    parts.append(pattern.sub(repl, tail) if repl is not None else tail)
    return "".join(parts) if repl is not None else found


def uses_old_self(rule: str) -> bool:
    return bool(_outside_strings(rule, _OLD_SELF))


# ---- CEL types of a schema node (`model.SchemaDeclType`) -----------------------------------------------------
class _Types:
    """Object types declared for one CRD's schema nodes (name -> fields), for the checker."""

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, Any]] = {}

    def of(self, schema: Any, name: str, resource_root: bool = False) -> Any:
        from ..cel.types import (BOOL, BYTES, DOUBLE, DURATION, INT, STRING, TIMESTAMP, UNKNOWN, Type, list_of,
                                 map_of)
        if not isinstance(schema, dict) or schema.get("x-kubernetes-int-or-string"):
            return UNKNOWN
        typ = schema.get("type")
        if typ == "object" or resource_root or schema.get("x-kubernetes-embedded-resource"):
            props = schema.get("properties")
            extra = schema.get("additionalProperties")
            if isinstance(props, dict) and props or resource_root or schema.get("x-kubernetes-embedded-resource"):
                fields: dict[str, Any] = {}
                self.objects[name] = fields  # before the fields: a name is declared once
                for prop, sub in (props or {}).items():
                    escaped = escape(prop)
                    if escaped is not None:
                        fields[escaped] = self.of(sub, f"{name}.{escaped}")
                if resource_root or schema.get("x-kubernetes-embedded-resource"):
                    meta = f"{name}.metadata"
                    self.objects[meta] = {"name": STRING, "generateName": STRING}
                    fields.update(apiVersion=STRING, kind=STRING, metadata=Type(meta))
                return Type(name)
            if isinstance(extra, dict):
                return map_of(STRING, self.of(extra, f"{name}.@values"))
            return UNKNOWN  # preserve-unknown-fields, or an object without properties: not typed here
        if typ == "array":
            return list_of(self.of(schema.get("items"), f"{name}.@items"))
        if typ == "string":
            return {"date-time": TIMESTAMP, "date": TIMESTAMP, "duration": DURATION, "byte": BYTES}.get(
                schema.get("format"), STRING)
        return {"integer": INT, "number": DOUBLE, "boolean": BOOL}.get(typ, UNKNOWN)


def _type_issues(expression: str, variables: dict[str, Any], objects: dict[str, Any], new: bool) -> tuple[Any, str]:
    """The expression's type and cel-go's issues text of its type errors ("" when none or not known)."""
    from ..cel.checker import NEWER_THAN_COMPATIBILITY, Checker
    from ..cel.engine import issue_text
    from ..cel.parser import ParseError, parse
    from ..cel.types import OBJECTS, UNKNOWN
    try:
        tree = parse(expression)
    except ParseError:
        return UNKNOWN, ""
    checker = Checker(variables, None, {**OBJECTS, **objects}, NEWER_THAN_COMPATIBILITY if new else frozenset())
    try:
        out = checker.check(tree)
    except RecursionError:
        return UNKNOWN, ""
    return out, "\n".join(issue_text(expression, at, message) for at, message in sorted(checker.errors))


@dataclass
class Compiled:
    """One rule (`CompilationResult`): its programs, or the error detail of the rule and its messageExpression."""

    rule: dict[str, Any]
    program: Any = None
    error: str = ""
    uses_old_self: bool = False
    message_program: Any = None
    message_error: str = ""
    field_path: str | None = None  # NormalizedRuleFieldPath


def _optional_old_self(rule: str, present: bool) -> str:
    """The rule with `oldSelf` an optional (`optionalOldSelf: true`): `optional.of(__oldSelf)` or `none`."""
    out = _outside_strings(rule, _OLD_SELF, "(optional.of(__oldSelf))" if present else "(optional.none())")
    return str(out)


def compile_rule(rule: dict[str, Any], schema: dict[str, Any], self_type: Any, types: _Types,
                 new: bool = True) -> Compiled:
    """`compileRule`: a rule whose text is blank compiles to nothing; `new`: checked in the environment of new
    expressions (a rule the old CRD did not have), else of stored ones."""
    from ..cel.checker import uncertain
    from ..cel.types import BOOL, STRING, optional_of
    text = str(rule.get("rule") or "")
    out = Compiled(rule)
    if not text.strip():
        return out
    optional = rule.get("optionalOldSelf") is True
    variables = {"self": self_type, "oldSelf": optional_of(self_type) if optional else self_type}
    try:
        program = cel.compile_expression(text, ("self", "oldSelf"))
    except cel.CompileError as exc:
        out.error = f"compilation failed: {exc}"
        return out
    result, issues = _type_issues(text, variables, types.objects, new)
    if issues:
        out.error = f"compilation failed: {issues}"
        return out
    if not uncertain(result) and result != BOOL:
        out.error = "cel expression must evaluate to a bool"
        return out
    out.uses_old_self = uses_old_self(text)
    if optional and out.uses_old_self:
        program = tuple(cel.compile_expression(_optional_old_self(text, present), ("self", "__oldSelf"))
                        for present in (False, True))
    out.program = program
    message = str(rule.get("messageExpression") or "")
    if message:
        try:
            out.message_program = cel.compile_expression(message, ("self", "oldSelf"))
        except cel.CompileError as exc:
            out.message_error = f"messageExpression compilation failed: {exc}"
            return out
        result, issues = _type_issues(message, variables, types.objects, new)
        if issues:
            out.message_program, out.message_error = None, f"messageExpression compilation failed: {issues}"
        elif not uncertain(result) and result != STRING:
            out.message_program, out.message_error = None, "messageExpression must evaluate to a string"
    if rule.get("fieldPath"):
        out.field_path = valid_field_path(str(rule["fieldPath"]), schema)
    return out


# ---- fieldPath (`ValidFieldPath`) ---------------------------------------------------------------------------
_PATH_TOKEN = re.compile(r"'(?:[^'\\]|\\.)*'|[.\[\]]|[^.\[\]']+|'")
_UNESCAPE = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "'": "'", "\\": "\\"}


def valid_field_path(path: str, schema: dict[str, Any]) -> str | None:
    """The field path `path` names in `schema` as field.Path prints it (relative, no leading dot), None when it is
    not a valid path (`.a.b`, `['a.b']` for a property, `.k`/`['k']` for a map key)."""
    tokens = _PATH_TOKEN.findall(path)
    out = ""
    node: Any = schema
    i = 0

    def step(name: str) -> bool:
        nonlocal out, node
        if not isinstance(node, dict):
            return False
        if isinstance(node.get("properties"), dict) and node["properties"]:
            if name not in node["properties"]:
                return False
            out, node = (f"{out}.{name}" if out else name), node["properties"][name]
            return True
        if isinstance(node.get("additionalProperties"), dict):
            out, node = f"{out}[{name}]", node["additionalProperties"]
            return True
        return False
    while i < len(tokens):
        tok = tokens[i]
        if tok == "[":
            if i + 2 >= len(tokens) or tokens[i + 2] != "]":
                return None
            quoted = tokens[i + 1]
            if len(quoted) < 2 or quoted[0] != "'" or quoted[-1] != "'":
                return None
            bad = [False]

            def unescape(m: re.Match[str]) -> str:
                ch = _UNESCAPE.get(m.group(0)[1])
                bad[0] = bad[0] or ch is None
                return ch or ""
            name = re.sub(r"\\.", unescape, quoted[1:-1])
            if bad[0] or not step(name):
                return None
            i += 3
        elif tok == ".":
            if i + 1 >= len(tokens) or not step(tokens[i + 1]):
                return None
            i += 2
        else:
            return None
    return out


# ---- the CRD write ------------------------------------------------------------------------------------------
def _go_string(s: str) -> str:
    """Go's `%q` of a string, as `%#v` prints a struct's string fields."""
    from json import dumps
    return dumps(s, ensure_ascii=False)


def rule_go_value(rule: dict[str, Any]) -> str:
    """`%#v` of the internal `apiextensions.ValidationRule` (field.Invalid's value for a rule): a set pointer prints
    as an address, which differs per process upstream; this server prints a fixed one."""
    reason = "(*apiextensions.FieldValueErrorReason)(nil)" if rule.get("reason") is None else \
        "(*apiextensions.FieldValueErrorReason)(0xc000a1c0a0)"
    optional = "(*bool)(nil)" if rule.get("optionalOldSelf") is None else "(*bool)(0xc000a1c0a8)"
    return (f"apiextensions.ValidationRule{{Rule:{_go_string(str(rule.get('rule') or ''))}, "
            f"Message:{_go_string(str(rule.get('message') or ''))}, "
            f"MessageExpression:{_go_string(str(rule.get('messageExpression') or ''))}, Reason:{reason}, "
            f"FieldPath:{_go_string(str(rule.get('fieldPath') or ''))}, OptionalOldSelf:{optional}}}")


def _invalid_rule(path: str, rule: dict[str, Any], detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {rule_go_value(rule)}: {detail}")


@dataclass
class _Errors:
    schema: list[FieldError] = field(default_factory=list)
    cel: list[FieldError] = field(default_factory=list)


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


def _walk_crd(schema: Any, at: str, out: _Errors, types: _Types, type_name: str, uncorrelatable: str | None,
              stored: frozenset[str], root: bool = False) -> bool:
    """Check the rules of `schema` and below (children first, as upstream recurses before a node's own rules);
    True when a schema error was found at this node or below."""
    if not isinstance(schema, dict):
        return False
    found = False
    extra = schema.get("additionalProperties")
    map_type = schema.get("x-kubernetes-map-type")
    forbid_here = uncorrelatable or (at if map_type not in (None, "granular", "atomic") else None)
    if isinstance(extra, dict):
        found |= _walk_crd(extra, f"{at}.additionalProperties", out, types, "", uncorrelatable, stored)
    for name, sub in (schema.get("properties") or {}).items() if isinstance(schema.get("properties"), dict) else ():
        found |= _walk_crd(sub, f"{at}.properties[{name}]", out, types, "", forbid_here, stored)
    if isinstance(schema.get("items"), dict):
        list_forbid = uncorrelatable or (at if schema.get("x-kubernetes-list-type") != "map" else None)
        found |= _walk_crd(schema["items"], f"{at}.items", out, types, "", list_forbid, stored)
    rules = schema.get("x-kubernetes-validations")
    if not isinstance(rules, list) or not rules:
        return found
    static = _static_rule_errors(rules, schema, at)
    out.schema += static
    if found or static:
        return True
    self_type = types.of(schema, type_name or f"selfType{id(schema)}",
                        resource_root=root or bool(schema.get("x-kubernetes-embedded-resource")))
    for i, rule in enumerate(rules):
        p = f"{at}.x-kubernetes-validations[{i}]"
        rule = rule if isinstance(rule, dict) else {}
        compiled = compile_rule(rule, schema, self_type, types, new=str(rule.get("rule") or "") not in stored)
        if compiled.error:
            out.cel.append(_invalid_rule(f"{p}.rule", rule, compiled.error))
        if compiled.message_error:
            out.cel.append(_invalid_rule(f"{p}.messageExpression", rule, compiled.message_error))
        if compiled.uses_old_self:
            if uncorrelatable is not None:
                out.cel.append(field_invalid(f"{p}.rule", rule.get("rule"), "oldSelf cannot be used on the "
                                             f"uncorrelatable portion of the schema within {uncorrelatable}"))
        elif rule.get("optionalOldSelf") is not None:
            out.cel.append(field_invalid(f"{p}.optionalOldSelf", rule.get("optionalOldSelf"),
                                         "may not be set if oldSelf is not used in rule"))
    return False


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


def validate_crd_rules(crd: dict[str, Any], old: dict[str, Any] | None = None) -> list[FieldError]:
    """Every rule of every version's schema, checked and compiled; schema errors before CEL errors."""
    errs: list[FieldError] = []
    stored = _expressions(old)
    for at, schema in _schemas(crd):
        out = _Errors()
        _walk_crd(schema, at, out, _Types(), "", None, stored, root=True)
        errs += out.schema + out.cel
    return errs


# ---- custom resources: the validator tree ---------------------------------------------------------------
@dataclass
class Node:
    """`Validator`: a schema node's compiled rules and the children that have rules below them."""

    schema: dict[str, Any]
    rules: list[Compiled]
    resource_root: bool
    properties: dict[str, Node]
    items: Node | None
    additional: Node | None


def _has_rules(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    if schema.get("x-kubernetes-validations"):
        return True
    subs = list((schema.get("properties") or {}).values()) if isinstance(schema.get("properties"), dict) else []
    subs += [schema.get("items"), schema.get("additionalProperties")]
    return any(_has_rules(s) for s in subs)


def build(schema: Any, types: _Types | None = None, name: str = "selfType", root: bool = True) -> Node | None:
    """The validator of `schema` (None when no rule is set at or below it)."""
    if not _has_rules(schema):
        return None
    types = types or _Types()
    resource_root = root or bool(schema.get("x-kubernetes-embedded-resource"))
    listed = schema.get("x-kubernetes-validations") or []
    self_type = types.of(schema, name, resource_root) if listed else None
    rules = [compile_rule(r if isinstance(r, dict) else {}, schema, self_type, types, new=False) for r in listed]
    props: dict[str, Node] = {}
    for prop, sub in (schema.get("properties") or {}).items() if isinstance(schema.get("properties"), dict) else ():
        child = build(sub, types, f"{name}.{escape(prop) or prop}", False)
        if child is not None:
            props[prop] = child
    return Node(schema, rules, resource_root, props,
                build(schema.get("items"), types, f"{name}.@items", False),
                build(schema.get("additionalProperties"), types, f"{name}.@values", False))


_VALIDATORS: OrderedDict[tuple[str, str], Node | None] = OrderedDict()


def validator_for(crd: dict[str, Any], schema: Any) -> Node | None:
    """The storage version's validator, built once per CRD uid and resourceVersion."""
    meta = crd.get("metadata") or {}
    key = (str(meta.get("uid") or meta.get("name")), str(meta.get("resourceVersion") or ""))
    if key not in _VALIDATORS:
        _VALIDATORS[key] = build(schema)
        while len(_VALIDATORS) > 256:
            _VALIDATORS.popitem(last=False)
    return _VALIDATORS[key]


def _to_cel(value: Any, schema: Any, resource_root: bool = False) -> Any:
    """`UnstructuredToVal`: property names escaped, numbers doubles, date-time strings timestamps, the metadata
    of a resource root reduced to `name` and `generateName`."""
    if not isinstance(schema, dict) or value is None:
        return value
    if isinstance(value, dict):
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        extra = schema.get("additionalProperties")
        root = resource_root or bool(schema.get("x-kubernetes-embedded-resource"))
        out: dict[str, Any] = {}
        for k, v in value.items():
            if root and k == "metadata" and isinstance(v, dict):
                out[k] = {m: v[m] for m in ("name", "generateName") if m in v}
            elif k in props:
                escaped = escape(k)
                if escaped is not None:
                    out[escaped] = _to_cel(v, props[k])
            elif isinstance(extra, dict):
                out[k] = _to_cel(v, extra)
            else:
                out[k] = v
        return out
    if isinstance(value, list):
        return [_to_cel(v, schema.get("items")) for v in value]
    if schema.get("type") == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if schema.get("type") == "string" and isinstance(value, str) and schema.get("format") in _FORMATS:
        try:
            return _FORMATS[schema["format"]](value)
        except (ValueError, binascii.Error):
            return value  # upstream: an error value, which fails the rules that read it
    return value


_GO_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
_GO_DURATION = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)")
_WORD_DURATION = re.compile(r"^\s*(\d+)\s*(d|w|day|days|week|weeks)\s*$")


def _duration(text: str) -> timedelta:
    """strfmt.ParseDuration: Go's `time.ParseDuration`, else `<n> d|w`."""
    sign, rest = (-1, text[1:]) if text.startswith("-") else (1, text.removeprefix("+"))
    if rest == "0":
        return timedelta(0)
    seconds, pos = 0.0, 0
    for m in _GO_DURATION.finditer(rest):
        if m.start() != pos or m.group(1) in ("", "."):
            break
        seconds, pos = seconds + float(m.group(1)) * _GO_UNITS[m.group(2)], m.end()
    else:
        if pos == len(rest) and pos:
            return timedelta(seconds=sign * seconds)
    word = _WORD_DURATION.match(text)
    if word:
        return timedelta(days=int(word.group(1)) * (7 if word.group(2).startswith("w") else 1))
    raise ValueError(text)


def _date(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)


def _date_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))


_FORMATS = {"date-time": _date_time, "date": _date, "duration": _duration,
            "byte": lambda text: base64.b64decode(text, validate=True)}


def _equal(a: Any, b: Any) -> bool:
    """reflect.DeepEqual over JSON values (a bool is not a number, an int not a float)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _map_key(item: Any, keys: list[str]) -> tuple[Any, ...] | None:
    if not isinstance(item, dict):
        return None
    return tuple(repr(item.get(k)) for k in keys)


def _old_item(schema: dict[str, Any], item: Any, old: Any) -> Any:
    """`makeMapList(...).Get`: the old item of a map list with the same keys; None for other lists."""
    if schema.get("x-kubernetes-list-type") != "map" or not isinstance(old, list):
        return None
    keys = [str(k) for k in schema.get("x-kubernetes-list-map-keys") or []]
    key = _map_key(item, keys)
    return next((o for o in old if key is not None and _map_key(o, keys) == key), None)


class _Same:
    """A correlated pair of values (`CorrelatedObject`), compared only when an error asks (`CachedDeepEqual`)."""

    __slots__ = ("new", "old", "_equal")

    def __init__(self, new: Any, old: Any):
        self.new, self.old, self._equal = new, old, None

    def equal(self) -> bool:
        if self._equal is None:
            self._equal = _equal(self.new, self.old)
        return self._equal


@dataclass
class _Correlation:
    """Ratcheting state (`ratchetingOptions`): this node's correlated pair (None: it does not correlate) and the
    nearest correlatable ancestor's."""

    current: _Same | None
    parent: _Same | None = None

    def ratchet(self) -> bool:
        """`shouldRatchetError`."""
        same = self.current if self.current is not None else self.parent
        return same is not None and same.equal()


def _child_correlation(corr: _Correlation | None, new: Any, old: Any, correlates: bool) -> _Correlation | None:
    """`ratchetingOptions.key`/`index`: an uncorrelatable node passes its nearest correlatable ancestor on."""
    if corr is None:
        return None
    if corr.current is None:
        return corr
    return _Correlation(_Same(new, old) if correlates else None, corr.current)


def _type_word(schema: dict[str, Any]) -> str:
    return str(schema.get("type") or "")


def _child(base: str | None, name: str) -> str:
    return f"{base}.{name}" if base is not None else name


def _rule_text(rule: dict[str, Any]) -> str:
    """`ruleErrorString`: the message when set, else the rule."""
    return str(rule.get("message") or "").strip() or str(rule.get("rule") or "").strip()


def _failure(path: str | None, schema: dict[str, Any], detail: str, reason: Any) -> FieldError:
    """`fieldErrorForReason`."""
    where = path if path is not None else "<nil>"
    if reason == "FieldValueForbidden":
        return FieldError("FieldValueForbidden", where, f"Forbidden: {detail}")
    if reason == "FieldValueRequired":
        return FieldError("FieldValueRequired", where, f"Required value: {detail}")
    if reason == "FieldValueDuplicate":
        return FieldError("FieldValueDuplicate", where, f"Duplicate value: {_go_string(_type_word(schema))}")
    return field_invalid(where, _type_word(schema), detail)


def _message(compiled: Compiled, activation: dict[str, Any]) -> str:
    """The messageExpression's value when it is a usable string, else `message`, else `failed rule: <rule>`."""
    if compiled.message_program is not None:
        try:
            value = compiled.message_program.evaluate(activation)
        except cel.EvalError:
            value = None
        if isinstance(value, str) and value.strip() and "\n" not in value.strip() \
                and len(value.strip().encode()) <= MAX_MESSAGE:
            return value.strip()
    message = str(compiled.rule.get("message") or "")
    return message.strip() if message else f"failed rule: {_rule_text(compiled.rule)}"


class _Stop(Exception):
    """The call cost limit was exceeded: no further rules run."""


def _expressions_of(node: Node, path: str | None, obj: Any, old: Any, corr: _Correlation | None,
                    errs: list[FieldError]) -> None:
    schema = node.schema
    where = path if path is not None else "<nil>"
    activation = {"self": obj}
    if old is not None:
        activation["oldSelf"] = old
    for compiled in node.rules:
        rule = compiled.rule
        if compiled.error:
            errs.append(field_invalid(where, _type_word(schema), f"rule compile error: {compiled.error}"))
            continue
        if compiled.program is None:
            continue
        optional = rule.get("optionalOldSelf") is True and compiled.uses_old_self
        if compiled.uses_old_self and old is None and not optional:
            continue
        try:
            if optional:
                value = compiled.program[old is not None].evaluate({"self": obj, "__oldSelf": old})
            else:
                value = compiled.program.evaluate(activation)
        except cel.EvalError as exc:
            text = str(exc)
            if text.startswith(("no such overload", "Unsupported", "No such overload")):
                errs.append(field_invalid(where, _type_word(schema), "'no such overload': call arguments did not "
                                          "match a supported operator, function or macro signature for rule: "
                                          f"{_rule_text(rule)}"))
            elif text.startswith("operation cancelled: actual cost limit exceeded"):
                errs.append(field_invalid(where, _type_word(schema), f"'{text}': no further validation rules "
                                          f"will be run due to call cost exceeds limit for rule: {_rule_text(rule)}"))
                raise _Stop from None
            else:
                errs.append(field_invalid(where, _type_word(schema), f"{text} evaluating rule: {_rule_text(rule)}"))
            continue
        if value is True:
            continue
        target = path
        if compiled.field_path:
            target = _child(path, compiled.field_path)
        if not compiled.uses_old_self and corr is not None and corr.ratchet():
            continue  # ratcheted: upstream sends it as a warning
        errs.append(_failure(target, schema, _message(compiled, activation), rule.get("reason")))


def _validate(node: Node | None, path: str | None, obj: Any, old: Any, corr: _Correlation | None,
              errs: list[FieldError]) -> None:
    if node is None or obj is None:
        return
    _expressions_of(node, path, obj, old, corr, errs)
    schema = node.schema
    if isinstance(obj, list) and node.items is not None:
        for i, item in enumerate(obj):
            old_item = _old_item(schema, item, old)
            _validate(node.items, f"{path if path is not None else ''}[{i}]", item, old_item,
                      _child_correlation(corr, item, old_item, old_item is not None), errs)
    elif isinstance(obj, dict):
        old_map = old if isinstance(old, dict) else {}
        if node.additional is not None:  # additionalProperties and properties are exclusive
            for k, v in obj.items():
                _validate(node.additional, f"{path if path is not None else ''}[{k}]", v, old_map.get(k),
                          _child_correlation(corr, v, old_map.get(k), k in old_map), errs)
        for k, child in node.properties.items():
            escaped = escape(k)
            if escaped is None or escaped not in obj:
                continue
            if corr is not None and path is None and k in ("apiVersion", "kind"):
                sub_corr: _Correlation | None = _Correlation(None)
            else:
                sub_corr = _child_correlation(corr, obj[escaped], old_map.get(escaped), escaped in old_map)
            _validate(child, _child(path, k), obj[escaped], old_map.get(escaped), sub_corr, errs)


def validate(node: Node | None, schema: Any, obj: dict[str, Any], old: dict[str, Any] | None,
             prior: list[FieldError]) -> list[FieldError]:
    """The rules' errors for a custom resource (`old` on update); `prior`: the schema validation's errors (a
    blocking one means the rules are not run: one error says so)."""
    if node is None:
        return []
    if any(e.type in BLOCKING for e in prior):
        return [FieldError("FieldValueInvalid", "<nil>", f'Invalid value: "null": {NOT_CHECKED}')]  # Go's nil: "null"
    new_val = _to_cel(obj, schema, resource_root=True)
    old_val = _to_cel(old, schema, resource_root=True) if old is not None else None
    # the root correlates the whole objects, metadata included (`NewCorrelatedObject(uNew.Object, uOld.Object)`)
    corr = _Correlation(_Same(obj, old)) if old is not None else None
    errs: list[FieldError] = []
    try:
        _validate(node, None, new_val, old_val, corr, errs)
    except _Stop:
        pass
    return errs

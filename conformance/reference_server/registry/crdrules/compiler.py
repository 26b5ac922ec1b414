"""One `x-kubernetes-validations` rule compiled at one schema node (`pkg/apiserver/schema/cel/compilation.go`
`compileRule`): `self` and `oldSelf` typed by the node's schema (`apiserver/pkg/cel/common/schemas.go`
`SchemaDeclType`: the resource root with `apiVersion`, `kind` and `metadata.name`/`generateName`; property names
escaped by `apiserver/pkg/cel/escaping.go`), `compilation failed: ...` from the engine and `cel/`'s partial
checker, `cel expression must evaluate to a bool`, the messageExpression's errors; and a rule's `fieldPath`
(`validation.go` `ValidFieldPath`)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ... import cel

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
class Types:
    """Object types declared for one CRD's schema nodes (name -> fields), for the checker."""

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, Any]] = {}

    def of(self, schema: Any, name: str, resource_root: bool = False) -> Any:
        from ...cel.types import (BOOL, BYTES, DOUBLE, DURATION, INT, STRING, TIMESTAMP, UNKNOWN, Type, list_of,
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


_RECEIVER_COSTED = re.compile(r"\.\s*(?:startsWith|endsWith)\s*\(")


def _type_issues(expression: str, variables: dict[str, Any], objects: dict[str, Any], new: bool,
                 sizes: Any = None) -> tuple[Any, str, tuple[int, int] | None, tuple[int, int] | None]:
    """The expression's type, cel-go's issues text of its type errors ("" when none or not known), and, with a size
    estimator, its estimated (min, max) cost (`cel/cost.py`; None when not known) and the estimate the runtime
    budget may start from (`cel/budget.py`): the same but where startsWith/endsWith are costed by their receiver,
    as the tracker costs them (cel-go's estimator sizes their argument: its estimate bounds nothing then)."""
    from ...cel.checker import NEWER_THAN_COMPATIBILITY, Checker
    from ...cel.cost import estimate
    from ...cel.engine import issue_text
    from ...cel.parser import ParseError, parse
    from ...cel.types import OBJECTS, UNKNOWN
    try:
        tree = parse(expression)
    except ParseError:
        return UNKNOWN, "", None, None
    checker = Checker(variables, None, {**OBJECTS, **objects}, NEWER_THAN_COMPATIBILITY if new else frozenset())
    try:
        out = checker.output(tree)  # the base environment's AST validators too (since 1.29: literals, regexes)
    except RecursionError:
        return UNKNOWN, "", None, None
    issues = checker.issues()
    cost = runtime = None
    if sizes is not None and not issues:
        try:
            cost = runtime = estimate(tree, checker, sizes)
            if _RECEIVER_COSTED.search(expression):
                runtime = estimate(tree, checker, sizes, tracked=True)
        except RecursionError:
            pass
    return out, "\n".join(issue_text(expression, at, message) for at, message in issues), cost, runtime


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
    max_cost: int = 0  # MaxCost and MessageExpressionMaxCost: the estimates, when compiled with a size estimator
    message_max_cost: int = 0
    cost: tuple[int, int] | None = None  # the (min, max) estimates, for the runtime budget (cel/budget.py)
    message_cost: tuple[int, int] | None = None


def _optional_old_self(rule: str, present: bool) -> str:
    """The rule with `oldSelf` an optional (`optionalOldSelf: true`): `optional.of(__oldSelf)` or `none`."""
    out = _outside_strings(rule, _OLD_SELF, "(optional.of(__oldSelf))" if present else "(optional.none())")
    return str(out)


def compile_rule(rule: dict[str, Any], schema: dict[str, Any], self_type: Any, types: Types,
                 new: bool = True, sizes: Any = None) -> Compiled:
    """`compileRule`: a rule whose text is blank compiles to nothing; `new`: checked in the environment of new
    expressions (a rule the old CRD did not have), else of stored ones; `sizes`: the node's size estimator
    (`cost.size_estimator`), to estimate the rule's and messageExpression's costs."""
    from ...cel.checker import uncertain
    from ...cel.types import BOOL, STRING, optional_of
    text = str(rule.get("rule") or "")
    out = Compiled(rule)
    if not text.strip():
        return out
    optional = rule.get("optionalOldSelf") is True
    variables = {"self": self_type, "oldSelf": optional_of(self_type) if optional else self_type}
    from .values import time_paths  # values.py uses this module's `escape`
    durations, times = holds_durations(schema), time_paths(schema)
    try:
        program = cel.compile_expression(text, ("self", "oldSelf"), durations, times)
    except cel.CompileError as exc:
        out.error = f"compilation failed: {exc}"
        return out
    result, issues, cost, runtime = _type_issues(text, variables, types.objects, new, sizes)
    if issues:
        out.error = f"compilation failed: {issues}"
        return out
    if not uncertain(result) and result != BOOL:
        out.error = "cel expression must evaluate to a bool"
        return out
    out.uses_old_self, out.cost = uses_old_self(text), runtime
    out.max_cost = cost[1] if cost else 0
    if optional and out.uses_old_self:
        program = tuple(cel.compile_expression(_optional_old_self(text, present), ("self", "__oldSelf"), durations,
                                               times) for present in (False, True))
    out.program = program
    message = str(rule.get("messageExpression") or "")
    if message:
        try:
            out.message_program = cel.compile_expression(message, ("self", "oldSelf"), durations, times)
        except cel.CompileError as exc:
            out.message_error = f"messageExpression compilation failed: {exc}"
            return out
        result, issues, cost, runtime = _type_issues(message, variables, types.objects, new, sizes)
        if issues:
            out.message_program, out.message_error = None, f"messageExpression compilation failed: {issues}"
        elif not uncertain(result) and result != STRING:
            out.message_program, out.message_error = None, "messageExpression must evaluate to a string"
        else:
            out.message_cost, out.message_max_cost = runtime, cost[1] if cost else 0
    if rule.get("fieldPath"):
        out.field_path = valid_field_path(str(rule["fieldPath"]), schema)
    return out


_TIME_FORMATS = frozenset({"duration", "date-time", "date"})


def holds_durations(schema: Any) -> bool:
    """Whether a node's values may hold durations or timestamps (`format: duration`/`date-time`/`date` strings,
    values.py): its rules' `+` and `-` then check them as cel-go does (cel/desugar.py)."""
    todo = [schema]
    while todo:
        node = todo.pop()
        if not isinstance(node, dict):
            continue
        if node.get("type") == "string" and node.get("format") in _TIME_FORMATS:
            return True
        props = node.get("properties")
        todo.extend(props.values() if isinstance(props, dict) else ())
        todo.extend(node.get(k) for k in ("items", "additionalProperties"))
    return False


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

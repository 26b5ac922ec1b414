"""Which variables an expression may name (`plugin/cel/compile.go` `createEnvForOpts`: `object`, `oldObject`,
`namespaceObject`, `request` always; `params` when the policy has a paramKind; `authorizer` where the caller
declares it; `variables` only in a policy with `spec.variables`, the composition compiler), the type each kind of
expression must have (`CompileCELExpression`'s `ReturnTypes` check) and the error detail validation.go gives an
expression that does not compile.

Types come from `checker.py` (cel-go's checker over our parser): `object`, `oldObject` and `params` are dyn, as in
upstream's write-time compile; syntax is cel-go's parser's to judge (`syntax.py`, through the engine), and its tree
stands in where our hand-written parser cannot read an expression."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping

from .engine import CompileError, compile_expression, issue_text
from .types import Type

BASE = ("object", "oldObject", "namespaceObject", "request")
BOOL, STRING_OR_NULL, ANY = ("bool",), ("string", "null_type"), ()


def declared(*, params: bool = False, authorizer: bool = True, variables: bool = False) -> frozenset[str]:
    names = set(BASE)
    if params:
        names.add("params")
    if authorizer:
        names.add("authorizer")
    if variables:
        names.add("variables")
    return frozenset(names)


@dataclass(frozen=True, eq=False)
class Schemas:
    """Types for `object`/`oldObject`/`params` from a kind's schema, and the object types they name."""

    variables: Mapping[str, Type]
    objects: Mapping[str, Mapping[str, Type]]


def _typed(expression: str, names: frozenset[str], composition: Mapping[str, Type] | None,
           schemas: Schemas | None = None, new: bool = False) -> tuple[Type, str]:
    """The expression's type and cel-go's issues text for its type errors ("" when none); `new`: checked in the
    environment of new expressions (`environment.NewExpressions`), not stored ones."""
    from .checker import NEWER_THAN_COMPATIBILITY, Checker, variable_types
    from .parser import ParseError, parse
    from .types import OBJECTS, UNKNOWN
    try:
        tree = parse(expression)
    except ParseError:
        return UNKNOWN, ""
    checker = Checker(variable_types(names, composition, schemas and schemas.variables), composition,
                      {**OBJECTS, **schemas.objects} if schemas else OBJECTS,
                      NEWER_THAN_COMPATIBILITY if new else frozenset())
    try:
        out = checker.output(tree)
    except RecursionError:
        return UNKNOWN, ""
    issues = "\n".join(issue_text(expression, at, message) for at, message in checker.issues())
    return out, issues


@lru_cache(maxsize=256)
def composition_types(variables: tuple[tuple[str, str], ...], params: bool,
                      schemas: Schemas | None = None) -> dict[str, Type]:
    """`spec.variables` typed in order, each seeing those before it (the composition compiler)."""
    names = declared(params=params, variables=True)
    types: dict[str, Type] = {}
    for name, expression in variables:
        try:
            compile_expression(expression, names)
            out, issues = _typed(expression, names, dict(types), schemas)
            types[name] = Type("?") if issues else out
        except CompileError:
            types[name] = Type("?")
    return types


def type_check(expression: str, schemas: Schemas, params: bool,
               variables: tuple[tuple[str, str], ...] | None) -> str:
    """The issues of `expression` with `object`/`oldObject`/`params` typed by a schema, as the
    validatingadmissionpolicy-status controller's `typeCheckingCompiler` words them (no output type check):
    "" when it type-checks or this checker cannot tell."""
    names = declared(params=params, variables=variables is not None)
    composition = composition_types(variables, params, schemas) if variables is not None else None
    try:
        compile_expression(expression, names)
    except CompileError as exc:
        return _all_issues(exc, expression, names, composition, schemas)
    return _typed(expression, names, composition, schemas)[1]


def _all_issues(exc: CompileError, expression: str, names: frozenset[str], composition: Mapping[str, Type] | None,
                schemas: Schemas | None = None, new: bool = False) -> str:
    """The engine stops at the first undeclared name; cel-go's checker reports every issue, as ours does (a syntax
    error is cel-go's parser's issues text, from `syntax.py`)."""
    if "undeclared reference" in str(exc):
        issues = _typed(expression, names, composition, schemas, new)[1]
        if issues:
            return issues
    return str(exc)


def compile_detail(expression: str, names: frozenset[str], returns: Iterable[str] = ANY,
                   variables: tuple[tuple[str, str], ...] | None = None) -> str | None:
    """`CompileCELExpression`'s error detail, or None when `expression` compiles: `compilation failed: <issues>`
    (syntax, undeclared names, type errors), then `must evaluate to <type> but got <type>` when the output type is
    known and not one of `returns` (empty: any type). `variables`: the policy's (name, expression) pairs, typing
    `variables.<name>` when the policy has any."""
    composition = None
    if variables is not None and "variables" in names:
        composition = composition_types(variables, "params" in names)
    try:
        compile_expression(expression, names)
    except CompileError as exc:
        return f"compilation failed: {_all_issues(exc, expression, names, composition, new=True)}"
    from .checker import uncertain
    out, issues = _typed(expression, names, composition, new=True)
    if issues:
        return f"compilation failed: {issues}"
    wanted = tuple(returns)
    if wanted and not uncertain(out) and str(out) not in wanted:
        if len(wanted) == 1:
            return f"must evaluate to {wanted[0]} but got {out}"
        return f"must evaluate to one of [{' '.join(wanted)}] but got {out}"
    return None

"""Which variables an expression may name (`plugin/cel/compile.go` `createEnvForOpts`: `object`, `oldObject`,
`namespaceObject`, `request` always; `params` when the policy has a paramKind; `authorizer` where the caller
declares it; `variables` only in a policy with `spec.variables`, the composition compiler) and the error detail
validation.go gives an expression that does not compile."""
from __future__ import annotations

from .engine import CompileError, compile_expression

BASE = ("object", "oldObject", "namespaceObject", "request")


def declared(*, params: bool = False, authorizer: bool = True, variables: bool = False) -> frozenset[str]:
    names = set(BASE)
    if params:
        names.add("params")
    if authorizer:
        names.add("authorizer")
    if variables:
        names.add("variables")
    return frozenset(names)


def compile_detail(expression: str, names: frozenset[str]) -> str | None:
    """`CompileCELExpression`'s `compilation failed: <issues>`, or None when `expression` compiles. Only the parse
    and the declared names are checked: the engine has no type checker (an expression upstream refuses with
    `must evaluate to bool` or `found no matching overload` is accepted here)."""
    try:
        compile_expression(expression, names)
    except CompileError as exc:
        return f"compilation failed: {exc}"
    return None

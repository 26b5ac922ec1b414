"""The rules run on a custom resource (`pkg/apiserver/schema/cel/validation.go` `Validator`): a node's rules
before its children's, from the root whose path is nil (`<nil>`); a failed rule is `field.Invalid(path, <schema
type>, message)` or its `reason`'s error, `fieldPath` appended; evaluation errors `<err> evaluating rule: <rule>`;
transition rules (`oldSelf`) only where an old value correlates (object properties and map values, map-list items
by key); `optionalOldSelf` rules always, `oldSelf` an optional. `pkg/registry/customresource/strategy.go`: the rules
are skipped, with one error, after a blocking schema error; on update CRDValidationRatcheting (GA and locked on in
1.33, `pkg/features/kube_features.go`) drops an error of a rule without `oldSelf` when its node, or its nearest
correlatable ancestor, is unchanged (`apiserver/pkg/cel/common/equality.go` `CorrelatedObject`) and sends it as a
warning instead (`<path>: <error body>`, warning.py: a `Warning: 299` header on the answer)."""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from ... import cel
from ...cel.budget import OUT_OF_BUDGET, Budget, OutOfBudget
from ...cel.runtimecost import LIMIT_EXCEEDED
from ...apierrors import FieldError, field_invalid
from ...warning import add_warning
from ..correlation import deep_equal as _equal
from ..correlation import old_item as _old_item
from .compiler import Compiled, Types, compile_rule, escape
from .cost import decl_type, size_estimator
from .crdwrite import go_string
from .values import to_cel

MAX_MESSAGE = 5 * 1024  # celconfig.MaxEvaluatedMessageExpressionSizeBytes
# strategy.go hasBlockingErr: schema errors after which the rules are not run
BLOCKING = frozenset({"FieldValueNotSupported", "FieldValueRequired", "FieldValueTooLong", "FieldValueTooMany",
                      "FieldValueTypeInvalid"})
NOT_CHECKED = ("some validation rules were not checked because the object was invalid; correct the existing "
               "errors to complete validation")
MESSAGE_OUT_OF_BUDGET = ("messageExpression evaluation failed due to running out of cost budget, no further "
                         "validation rules will be run")


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


def build(schema: Any, types: Types | None = None, name: str = "selfType", root: bool = True) -> Node | None:
    """The validator of `schema` (None when no rule is set at or below it)."""
    if not _has_rules(schema):
        return None
    types = types or Types()
    resource_root = root or bool(schema.get("x-kubernetes-embedded-resource"))
    listed = schema.get("x-kubernetes-validations") or []
    self_type = types.of(schema, name, resource_root) if listed else None
    decl = decl_type(schema, resource_root) if listed else None
    sizes = size_estimator(decl) if decl is not None else None  # the estimates the runtime budget starts from
    rules = [compile_rule(r if isinstance(r, dict) else {}, schema, self_type, types, new=False, sizes=sizes)
             for r in listed]
    props: dict[str, Node] = {}
    for prop, sub in (schema.get("properties") or {}).items() if isinstance(schema.get("properties"), dict) else ():
        child = build(sub, types, f"{name}.{escape(prop) or prop}", False)
        if child is not None:
            props[prop] = child
    return Node(schema, rules, resource_root, props,
                build(schema.get("items"), types, f"{name}.@items", False),
                build(schema.get("additionalProperties"), types, f"{name}.@values", False))


_VALIDATORS: OrderedDict[tuple[str, str], Node | None] = OrderedDict()
_UNBUILT: Any = object()


def validator_for(crd: dict[str, Any], schema: Any, version: str = "") -> Node | None:
    """A version's validator (the storage version's when `version` is not named), built once per CRD uid,
    resourceVersion and version."""
    meta = crd.get("metadata") or {}
    key = (str(meta.get("uid") or meta.get("name")), str(meta.get("resourceVersion") or ""), version)
    node = _VALIDATORS.get(key, _UNBUILT)
    if node is not _UNBUILT:
        return node
    node = _VALIDATORS[key] = build(schema)
    while len(_VALIDATORS) > 256:  # (the node itself is returned: a rehearsal thread may trim the table meanwhile)
        try:
            _VALIDATORS.popitem(last=False)
        except KeyError:
            break
    return node


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
        return FieldError("FieldValueDuplicate", where, f"Duplicate value: {go_string(_type_word(schema))}")
    return field_invalid(where, _type_word(schema), detail)


def _message(compiled: Compiled, activation: dict[str, Any], budget: Budget) -> str:
    """The messageExpression's value when it is a usable string, else `message`, else `failed rule: <rule>`
    (`evalMessageExpression`: `_StopMessage` when it runs out of the budget or past the per-call limit)."""
    if compiled.message_program is not None:
        try:
            value = budget.evaluate(compiled.message_program, activation, compiled.message_cost)
        except OutOfBudget:
            raise _StopMessage(MESSAGE_OUT_OF_BUDGET) from None
        except cel.EvalError as exc:
            if str(exc).startswith(LIMIT_EXCEEDED):
                raise _StopMessage("no further validation rules will be run due to call cost exceeds limit for "
                                   f"messageExpression: {go_string(str(compiled.rule.get('messageExpression')))}") \
                    from None
            value = None
        if isinstance(value, str) and value.strip() and "\n" not in value.strip() \
                and len(value.strip().encode()) <= MAX_MESSAGE:
            return value.strip()
    message = str(compiled.rule.get("message") or "")
    return message.strip() if message else f"failed rule: {_rule_text(compiled.rule)}"


class _Stop(Exception):
    """The call cost limit was exceeded, or the budget: no further rules run."""


class _StopMessage(Exception):
    """A messageExpression exceeded the budget or the call cost limit: its error, and no further rules run."""


def _expressions_of(node: Node, path: str | None, obj: Any, old: Any, corr: _Correlation | None,
                    errs: list[FieldError], budget: Budget) -> None:
    schema = node.schema
    where = path if path is not None else "<nil>"
    if node.rules and budget.spent >= budget.total and budget.remaining <= 0:
        errs.append(field_invalid(where, _type_word(schema), OUT_OF_BUDGET))
        raise _Stop
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
                value = budget.evaluate(compiled.program[old is not None], {"self": obj, "__oldSelf": old},
                                        compiled.cost)
            else:
                value = budget.evaluate(compiled.program, activation, compiled.cost)
        except OutOfBudget:
            errs.append(field_invalid(where, _type_word(schema), OUT_OF_BUDGET))
            raise _Stop from None
        except cel.EvalError as exc:
            text = str(exc)  # cel-go's words already (cel/engine.error_text)
            if text.startswith(("no such overload", "Unsupported", "No such overload")):
                errs.append(field_invalid(where, _type_word(schema), "'no such overload': call arguments did not "
                                          "match a supported operator, function or macro signature for rule: "
                                          f"{_rule_text(rule)}"))
            elif text.startswith(LIMIT_EXCEEDED):
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
        ratchet = not compiled.uses_old_self and corr is not None and corr.ratchet()
        try:
            failure = _failure(target, schema, _message(compiled, activation, budget), rule.get("reason"))
        except _StopMessage as stop:
            failure, stopped = field_invalid(target if target is not None else "<nil>", _type_word(schema),
                                             str(stop)), True
        else:
            stopped = False
        if ratchet:
            add_warning(str(failure))  # ratcheted: `warning.AddWarning(ctx, "", e.Error())`
        else:
            errs.append(failure)
        if stopped:
            raise _Stop


def _validate(node: Node | None, path: str | None, obj: Any, old: Any, corr: _Correlation | None,
              errs: list[FieldError], budget: Budget) -> None:
    if node is None or obj is None:
        return
    _expressions_of(node, path, obj, old, corr, errs, budget)
    schema = node.schema
    if isinstance(obj, list) and node.items is not None:
        for i, item in enumerate(obj):
            old_item = _old_item(schema, item, old)
            _validate(node.items, f"{path if path is not None else ''}[{i}]", item, old_item,
                      _child_correlation(corr, item, old_item, old_item is not None), errs, budget)
    elif isinstance(obj, dict):
        old_map = old if isinstance(old, dict) else {}
        if node.additional is not None:  # additionalProperties and properties are exclusive
            for k, v in obj.items():
                _validate(node.additional, f"{path if path is not None else ''}[{k}]", v, old_map.get(k),
                          _child_correlation(corr, v, old_map.get(k), k in old_map), errs, budget)
        for k, child in node.properties.items():
            escaped = escape(k)
            if escaped is None or escaped not in obj:
                continue
            if corr is not None and path is None and k in ("apiVersion", "kind"):
                sub_corr: _Correlation | None = _Correlation(None)
            else:
                sub_corr = _child_correlation(corr, obj[escaped], old_map.get(escaped), escaped in old_map)
            _validate(child, _child(path, k), obj[escaped], old_map.get(escaped), sub_corr, errs, budget)


def validate(node: Node | None, schema: Any, obj: dict[str, Any], old: dict[str, Any] | None,
             prior: list[FieldError]) -> list[FieldError]:
    """The rules' errors for a custom resource (`old` on update); `prior`: the schema validation's errors (a
    blocking one means the rules are not run: one error says so)."""
    if node is None:
        return []
    if any(e.type in BLOCKING for e in prior):
        return [FieldError("FieldValueInvalid", "<nil>", f'Invalid value: "null": {NOT_CHECKED}')]  # Go's nil: "null"
    new_val = to_cel(obj, schema, resource_root=True)
    old_val = to_cel(old, schema, resource_root=True) if old is not None else None
    # the root correlates the whole objects, metadata included (`NewCorrelatedObject(uNew.Object, uOld.Object)`)
    corr = _Correlation(_Same(obj, old)) if old is not None else None
    errs: list[FieldError] = []
    try:
        _validate(node, None, new_val, old_val, corr, errs, Budget())  # RuntimeCELCostBudget per object
    except _Stop:
        pass
    return errs


def validate_value(node: Node | None, schema: Any, path: str, value: Any, old: Any,
                   resource_root: bool, budget: Budget | None = None) -> list[FieldError]:
    """The rules' errors for one value at a schema node, paths below `path` and no ratcheting (`Validator.Validate`
    without `WithRatcheting`): how `structuraldefaulting.ValidateDefaults` checks a `default` (`old` is the
    default itself, then None for `optionalOldSelf` rules), under `budget` (a fresh RuntimeCELCostBudget if None)."""
    if node is None:
        return []
    errs: list[FieldError] = []
    try:
        _validate(node, path, to_cel(value, schema, resource_root=resource_root),
                  None if old is None else to_cel(old, schema, resource_root=resource_root), None, errs,
                  budget if budget is not None else Budget())
    except _Stop:
        pass
    return errs

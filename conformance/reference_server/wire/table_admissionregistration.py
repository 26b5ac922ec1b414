"""Table printers of the admissionregistration.k8s.io/v1 kinds (registry/admissionregistration.py), after upstream's
`pkg/printers/internalversion/printers.go` (`printValidatingWebhook`, `printMutatingWebhook`,
`printValidatingAdmissionPolicy`, `printValidatingAdmissionPolicyBinding`): the same columns, in the same order,
with the same cells.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

UNSET = "<unset>"
Col = Callable[..., dict[str, Any]]


def _gogo_selector(selector: dict[str, Any]) -> str:
    """`(*metav1.LabelSelector).String()`, the gogo-protobuf generated form."""
    labels = selector.get("matchLabels") or {}
    pairs = "".join(f"{k}: {v}," for k, v in sorted(labels.items()))
    exprs = "".join(
        "&LabelSelectorRequirement{Key:%s,Operator:%s,Values:[%s],}," % (
            e.get("key", ""), e.get("operator", ""), " ".join(e.get("values") or []))
        for e in selector.get("matchExpressions") or [] if isinstance(e, dict))
    return f"&LabelSelector{{MatchLabels:map[string]string{{{pairs}}},MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}"


def printers(col: Col, name: dict[str, Any], age_col: dict[str, Any],
             age: Callable[[dict[str, Any], datetime], str]) -> dict[str, tuple[list[dict[str, Any]], Callable]]:
    """kind → (columns, printer), built with `table`'s column helpers."""

    def n(obj: dict[str, Any]) -> str:
        return obj["metadata"].get("name", "")

    def webhooks(obj: dict[str, Any], now: datetime) -> list[Any]:
        return [n(obj), len(obj.get("webhooks") or []), age(obj, now)]

    def policy(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec = obj.get("spec") or {}
        kind = spec.get("paramKind")
        param = f"{kind.get('apiVersion', '')}/{kind.get('kind', '')}" if isinstance(kind, dict) else UNSET
        return [n(obj), len(spec.get("validations") or []), param, age(obj, now)]

    def binding(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec = obj.get("spec") or {}
        ref, param = spec.get("paramRef"), UNSET
        if isinstance(ref, dict):
            if ref.get("name"):
                param = f"{ref.get('namespace')}/{ref['name']}" if ref.get("namespace") else f"*/{ref['name']}"
            elif isinstance(ref.get("selector"), dict):
                param = _gogo_selector(ref["selector"])
        return [n(obj), spec.get("policyName", ""), param, age(obj, now)]

    hooks_col = col("Webhooks", "Webhooks indicates the number of webhooks registered in this configuration",
                    type_="integer")
    return {
        "ValidatingWebhookConfiguration": ([name, hooks_col, age_col], webhooks),
        "MutatingWebhookConfiguration": ([name, hooks_col, age_col], webhooks),
        "ValidatingAdmissionPolicy": ([name, col("Validations", "Validations indicates the number of validation rules "
                                                                "defined in this configuration", type_="integer"),
                                       col("ParamKind", "ParamKind specifies the kind of resources used to "
                                                        "parameterize this policy"), age_col], policy),
        "ValidatingAdmissionPolicyBinding": ([name, col("PolicyName", "PolicyName indicates the policy definition "
                                                                      "which the policy binding binded to"),
                                              col("ParamRef", "ParamRef indicates the param resource which sets the "
                                                              "configration param"), age_col], binding),
    }

"""A `metav1.LabelSelector` as the apps/batch validation uses it: `LabelSelectorAsSelector` (whether it
parses) and `Selector.Matches`."""
from __future__ import annotations

from typing import Any

from ..shapes import as_dict, as_list
from ..validation import is_label_value, is_qualified_name


def selector_matches(selector: dict[str, Any], labels: dict[str, Any]) -> bool:
    """`metav1.LabelSelectorAsSelector(...).Matches(labels)`."""
    match_labels = selector.get("matchLabels")
    for k, v in (match_labels.items() if isinstance(match_labels, dict) else ()):
        if labels.get(k) != v:
            return False
    exprs = selector.get("matchExpressions")
    for req in exprs if isinstance(exprs, list) else ():
        if not isinstance(req, dict):
            continue
        key, op, values = req.get("key"), req.get("operator"), req.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def selector_parses(selector: Any) -> bool:
    """Whether `metav1.LabelSelectorAsSelector` accepts the selector (operators, value counts, label syntax)."""
    sel = as_dict(selector)
    for key, value in as_dict(sel.get("matchLabels")).items():
        if is_qualified_name(str(key)) or not isinstance(value, str) or is_label_value(value):
            return False
    for req in as_list(sel.get("matchExpressions")):
        req = as_dict(req)
        op, values = req.get("operator"), as_list(req.get("values"))
        if op in ("In", "NotIn") and not values or op in ("Exists", "DoesNotExist") and values:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
        if is_qualified_name(str(req.get("key") or "")) or any(is_label_value(str(v)) for v in values):
            return False
    return True




def validate_label_selector(selector: Any, path: str) -> list:
    """`metav1validation.ValidateLabelSelector` (strict label values), admissionregistration's (imported when
    called: that module imports the workload kinds' declarations)."""
    from ..admissionregistration import validate_label_selector as validate

    return validate(selector, path)

"""Which requests a policy's `matchConstraints` or a binding's `matchResources` select
(`staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/matching/matching.go`): the namespace and object
selectors first, then `excludeResourceRules` (a match excludes), then `resourceRules` (none: everything the
selectors let through), each rule also by `resourceNames`. `matchPolicy` makes no difference here: every resource
but HorizontalPodAutoscalers is served in one version."""
from __future__ import annotations

from typing import Any, Callable

from ..webhooks.matching import Attributes, rule_matches, selectors_match


def _rules_match(rules: list[Any], a: Attributes) -> bool:
    for rule in rules:
        if not isinstance(rule, dict) or not rule_matches(rule, a):
            continue
        names = rule.get("resourceNames") or []
        if not names or a.name in names:
            return True
    return False


def matches(match: dict[str, Any] | None, a: Attributes, obj: dict[str, Any] | None, old: dict[str, Any] | None,
            namespace_labels: Callable[[str], dict[str, Any] | None]) -> bool:
    """`Matcher.Matches`; a binding without `matchResources` matches every request its policy matches."""
    if match is None:
        return True
    if not selectors_match(match, a, obj, old, namespace_labels):
        return False
    if _rules_match(match.get("excludeResourceRules") or [], a):
        return False
    rules = match.get("resourceRules") or []
    return not rules or _rules_match(rules, a)

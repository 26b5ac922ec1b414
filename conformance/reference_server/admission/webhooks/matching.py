"""Which webhooks a request reaches (`staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/`):
rules by operation, group, version, resource/subresource and scope (`rules/rules.go`), then the namespace selector
(`namespace/matcher.go`) and the object selector (`object/matcher.go`). Pure functions."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ...registry.workloads import selector_matches

# `IsExemptAdmissionConfigurationResource`: webhooks never see writes of the objects that configure them
EXEMPT = frozenset({"validatingwebhookconfigurations", "mutatingwebhookconfigurations",
                    "validatingadmissionpolicies", "validatingadmissionpolicybindings"})


@dataclass(frozen=True)
class Attributes:
    """`admission.Attributes`: what a request does, to what."""

    operation: str           # CREATE | UPDATE | DELETE | CONNECT
    group: str
    version: str
    resource: str
    subresource: str
    namespace: str           # "" for a cluster-scoped object (a namespace's own name for namespaces)
    name: str
    kind: str
    kind_gv: tuple[str, str] | None = None  # the kind's group/version where it is not the resource's (Scale)
    custom: bool = False     # the object is a custom resource (an `unstructured.Unstructured`), not a Go type


def _split(resource: str) -> tuple[str, str]:
    res, _, sub = resource.partition("/")
    return res, sub


def rule_matches(rule: dict[str, Any], a: Attributes) -> bool:
    """`rules.Matcher.Matches`: operation, group, version, resource and scope."""
    ops = rule.get("operations") or []
    if "*" not in ops and a.operation not in ops:
        return False
    groups, versions = rule.get("apiGroups") or [], rule.get("apiVersions") or []
    if "*" not in groups and a.group not in groups:
        return False
    if "*" not in versions and a.version not in versions:
        return False
    if not any((res in ("*", a.resource)) and (sub in ("*", a.subresource))
               for res, sub in map(_split, rule.get("resources") or [])):
        return False
    scope = rule.get("scope") or "*"
    is_namespace = (a.group, a.version, a.resource) == ("", "v1", "namespaces")
    if scope == "Namespaced":
        return not is_namespace and bool(a.namespace)
    if scope == "Cluster":
        return is_namespace or not a.namespace
    return True


def _labels(obj: dict[str, Any] | None) -> dict[str, Any]:
    return ((obj or {}).get("metadata") or {}).get("labels") or {}


def selectors_match(hook: dict[str, Any], a: Attributes, obj: dict[str, Any] | None, old: dict[str, Any] | None,
                    namespace_labels: Callable[[str], dict[str, Any] | None]) -> bool:
    """`MatchNamespaceSelector` (a cluster-scoped object other than a namespace always matches; a namespace is
    judged by its own labels) and `MatchObjectSelector` (the new or the old object's labels)."""
    ns_selector = hook.get("namespaceSelector") or {}
    if ns_selector.get("matchLabels") or ns_selector.get("matchExpressions"):
        if a.resource == "namespaces" and not a.group:
            labels = _labels(obj if obj is not None else old)
        elif not a.namespace:
            labels = None
        else:
            labels = namespace_labels(a.namespace) or {}
        if labels is not None and not selector_matches(ns_selector, labels):
            return False
    obj_selector = hook.get("objectSelector") or {}
    if obj_selector.get("matchLabels") or obj_selector.get("matchExpressions"):
        return any(o is not None and selector_matches(obj_selector, _labels(o)) for o in (obj, old))
    return True


def rule_matching(configurations: list[dict[str, Any]], a: Attributes) -> list[dict[str, Any]]:
    """The webhooks of `configurations` whose rules the request meets, selectors not judged: configurations
    sorted by name (upstream's `configuration` manager), webhooks in their order. The mutating dispatcher judges
    each one's selectors when it comes to it, on the object as the earlier webhooks patched it
    (`ShouldCallHook(..., attrForCheck, ...)`: the versioned attributes, whose `GetObject` is `VersionedObject`)."""
    if a.resource in EXEMPT and a.group == "admissionregistration.k8s.io":
        return []
    out: list[dict[str, Any]] = []
    for cfg in sorted(configurations, key=lambda c: (c.get("metadata") or {}).get("name", "")):
        for hook in cfg.get("webhooks") or []:
            rules = hook.get("rules") or [] if isinstance(hook, dict) else []
            if any(isinstance(r, dict) and rule_matches(r, a) for r in rules):
                out.append(hook)  # type: ignore[arg-type]
    return out


def matching(configurations: list[dict[str, Any]], a: Attributes, obj: dict[str, Any] | None,
             old: dict[str, Any] | None,
             namespace_labels: Callable[[str], dict[str, Any] | None]) -> list[dict[str, Any]]:
    """The webhooks of `configurations` the request reaches (`rule_matching`'s whose selectors match)."""
    return [hook for hook in rule_matching(configurations, a) if selectors_match(hook, a, obj, old, namespace_labels)]

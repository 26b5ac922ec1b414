"""A ResourceQuota's `spec.scopes` and `spec.scopeSelector`: `validateResourceQuotaScopes`,
`validateScopeSelector` and `validateScopedResourceSelectorRequirement` of `pkg/apis/core/validation/
validation.go` (1.33), with `IsStandardResourceQuotaScope` and `IsResourceQuotaScopeValidForResource` of
`pkg/apis/core/helper/helpers.go`.

Upstream prints the whole scope list (or selector) as the bad value of most of these errors, with `%#v`:
`[]core.ResourceQuotaScope{"BestEffort"}` and `core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelector
Requirement{...}}`; this module rebuilds those texts. The selector's "conflicting scopes" error prints
`spec.Scopes` (not the selector), as upstream does.
"""
from __future__ import annotations

from typing import Any

from ...apierrors import FieldError, field_invalid, field_required
from ...goport.gofmt import go_quote, sharp_v_strings
from ..shapes import as_dict, as_list

STANDARD_SCOPES = frozenset({"Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass",
                             "CrossNamespacePodAffinity", "VolumeAttributesClass"})
_POD_COUNT = frozenset({"pods"})
_POD_COMPUTE = frozenset({"cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"})
_PVC = frozenset({"persistentvolumeclaims", "requests.storage"})
_CONFLICTS = (("BestEffort", "NotBestEffort"), ("NotTerminating", "Terminating"))
_EXISTS_ONLY = ("BestEffort", "NotBestEffort", "Terminating", "NotTerminating")
EXISTS_ONLY_MESSAGE = ("must be 'Exist' only operator when scope is any of ResourceQuotaScopeTerminating, "
                       "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort and "
                       "ResourceQuotaScopeNotBestEffort")


def scope_valid_for_resource(scope: str, resource: str) -> bool:
    """`IsResourceQuotaScopeValidForResource`."""
    if scope in ("Terminating", "NotTerminating", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity"):
        return resource in _POD_COUNT or resource in _POD_COMPUTE
    if scope == "BestEffort":
        return resource in _POD_COUNT
    if scope == "VolumeAttributesClass":
        return resource in _PVC
    return True


def scopes_shown(scopes: Any) -> str:
    """`%#v` of `[]core.ResourceQuotaScope`."""
    return sharp_v_strings(scopes, "[]core.ResourceQuotaScope")


def selector_shown(selector: dict[str, Any]) -> str:
    """`%#v` of the dereferenced `*core.ScopeSelector`."""
    exprs = selector.get("matchExpressions")
    if not isinstance(exprs, list):
        inner = "[]core.ScopedResourceSelectorRequirement(nil)"
    else:
        inner = "[]core.ScopedResourceSelectorRequirement{" + ", ".join(
            f"core.ScopedResourceSelectorRequirement{{ScopeName:{go_quote(str(as_dict(e).get('scopeName') or ''))}, "
            f"Operator:{go_quote(str(as_dict(e).get('operator') or ''))}, "
            f"Values:{sharp_v_strings(as_dict(e).get('values'))}}}" for e in exprs) + "}"
    return f"core.ScopeSelector{{MatchExpressions:{inner}}}"


def _invalid_shown(path: str, shown: str, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {shown}: {detail}")


def _hard_names(spec: dict[str, Any]) -> list[str]:
    """The `spec.hard` names as upstream's sorted `hardLimits.List()` gives them."""
    from ..resourcequota import STANDARD_QUOTA_RESOURCES, _huge_pages

    return sorted(str(k) for k in as_dict(spec.get("hard")) if k in STANDARD_QUOTA_RESOURCES or _huge_pages(str(k)))


def _conflicts(scopes: set[str]) -> int:
    return sum(1 for pair in _CONFLICTS if set(pair) <= scopes)


def scopes_errors(spec: dict[str, Any]) -> list[FieldError]:
    """`validateResourceQuotaScopes`."""
    scopes = spec.get("scopes")
    if not as_list(scopes):
        return []
    shown, hard = scopes_shown(scopes), _hard_names(spec)
    errs: list[FieldError] = []
    for scope in (str(s) for s in as_list(scopes)):
        if scope not in STANDARD_SCOPES:
            errs.append(_invalid_shown("spec.scopes", shown, "unsupported scope"))
        errs += [_invalid_shown("spec.scopes", shown, "unsupported scope applied to resource")
                 for k in hard if not scope_valid_for_resource(scope, k)]
    conflicts = _conflicts({str(s) for s in as_list(scopes)})
    return errs + [_invalid_shown("spec.scopes", shown, "conflicting scopes")] * conflicts


def scope_selector_errors(spec: dict[str, Any]) -> list[FieldError]:
    """`validateScopeSelector` → `validateScopedResourceSelectorRequirement`."""
    selector = spec.get("scopeSelector")
    if selector is None:
        return []
    selector = as_dict(selector)
    path, hard, shown = "spec.scopeSelector.matchExpressions", _hard_names(spec), selector_shown(selector)
    errs: list[FieldError] = []
    names: set[str] = set()
    for req in (as_dict(r) for r in as_list(selector.get("matchExpressions"))):
        name, op, values = str(req.get("scopeName") or ""), str(req.get("operator") or ""), req.get("values")
        if name not in STANDARD_SCOPES:
            errs.append(field_invalid(f"{path}.scopeName", name, "unsupported scope"))
        errs += [_invalid_shown(path, shown, "unsupported scope applied to resource")
                 for k in hard if not scope_valid_for_resource(name, k)]
        if name in _EXISTS_ONLY and op != "Exists":
            errs.append(field_invalid(f"{path}.operator", op, EXISTS_ONLY_MESSAGE))
        if op in ("In", "NotIn"):
            if not as_list(values):
                errs.append(field_required(f"{path}.values", "must be at least one value when `operator` is 'In' "
                                                             "or 'NotIn' for scope selector"))
        elif op in ("Exists", "DoesNotExist"):
            if as_list(values):
                errs.append(_invalid_shown(f"{path}.values", sharp_v_strings(values),
                                           "must be no value when `operator` is 'Exist' or 'DoesNotExist' for "
                                           "scope selector"))
        else:
            errs.append(field_invalid(f"{path}.operator", op, "not a valid selector operator"))
        names.add(name)
    shown_scopes = scopes_shown(spec.get("scopes"))
    return errs + [_invalid_shown(path, shown_scopes, "conflicting scopes")] * _conflicts(names)

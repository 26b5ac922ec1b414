"""A pod spec's `affinity`: `validateAffinity` of `pkg/apis/core/validation/validation.go` (1.33):
`validateNodeAffinity` (`ValidateNodeSelector`, `ValidateNodeSelectorRequirement`,
`ValidateNodeFieldSelectorRequirement`, `ValidatePreferredSchedulingTerms`; a required term's values must be label
values, kubernetes#128212, unless the old pod's already were not: `AllowInvalidLabelValueInRequiredNodeAffinity`;
a preferred term's are warned of, registry/podwarnings.py) and `validatePodAffinity` /
`validatePodAntiAffinity` (terms' label and namespace selectors, namespaces,
`validateMatchLabelKeysAndMismatchLabelKeys`, topologyKey; weights 1-100), and `validateTopologySpreadConstraints`
(maxSkew, topologyKey, whenUnsatisfiable, repeated {topologyKey, whenUnsatisfiable} pairs, minDomains, the node
inclusion policies, `validateMatchLabelKeysInTopologySpread`, the label selector).
A pod's terms are judged after its strategy merged their matchLabelKeys into the selectors (1.33's
MatchLabelKeysInPodAffinity, registry/podprepare.py); a template's are not merged, as upstream's."""
from __future__ import annotations

from typing import Any

from ...apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ..shapes import as_dict, as_list
from ..validation import is_dns1123_label, is_dns1123_subdomain, is_label_value, is_qualified_name
from .fields import field_duplicate, integer

WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
NODE_INCLUSION_POLICIES = ("Honor", "Ignore")
NOT_POSITIVE = "must be greater than zero"


def _label_name(name: Any, path: str) -> list[FieldError]:
    """`ValidateLabelName`."""
    return [field_invalid(path, name, m) for m in is_qualified_name(str(name))]


def _requirement(req: dict[str, Any], path: str, check_values: bool) -> list[FieldError]:
    """`ValidateNodeSelectorRequirement(rq, allowInvalidLabelValueInRequiredNodeAffinity=not check_values)`."""
    errs: list[FieldError] = []
    op, values = req.get("operator") or "", as_list(req.get("values"))
    if op in ("In", "NotIn"):
        if not values:
            errs.append(field_required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif op in ("Exists", "DoesNotExist"):
        if values:
            errs.append(field_forbidden(f"{path}.values",
                                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(field_required(f"{path}.values",
                                       "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        errs.append(field_invalid(f"{path}.operator", op, "not a valid selector operator"))
    errs += _label_name(req.get("key") or "", f"{path}.key")
    if check_values:
        errs += [field_invalid(f"{path}.values[{k}]", value, m) for k, value in enumerate(values)
                 if isinstance(value, str) for m in is_label_value(value)]
    return errs


def _field_requirement(req: dict[str, Any], path: str) -> list[FieldError]:
    """`ValidateNodeFieldSelectorRequirement`: only `metadata.name In/NotIn <one node name>`."""
    errs: list[FieldError] = []
    op, values = req.get("operator") or "", as_list(req.get("values"))
    if op in ("In", "NotIn"):
        if len(values) != 1:
            errs.append(field_required(f"{path}.values", "must be only one value when `operator` is 'In' or "
                                                         "'NotIn' for node field selector"))
    else:
        errs.append(field_invalid(f"{path}.operator", op, "not a valid selector operator"))
    key = req.get("key") or ""
    if key != "metadata.name":
        errs.append(field_invalid(f"{path}.key", key, "not a valid field selector key"))
    else:
        for i, v in enumerate(values):
            errs += [field_invalid(f"{path}.values[{i}]", v, m) for m in is_dns1123_subdomain(str(v))]
    return errs


def _term(term: dict[str, Any], path: str, check_values: bool) -> list[FieldError]:
    """`ValidateNodeSelectorTerm`."""
    errs: list[FieldError] = []
    for j, req in enumerate(as_list(term.get("matchExpressions"))):
        errs += _requirement(as_dict(req), f"{path}.matchExpressions[{j}]", check_values)
    for j, req in enumerate(as_list(term.get("matchFields"))):
        errs += _field_requirement(as_dict(req), f"{path}.matchFields[{j}]")
    return errs


def _required_terms(spec: Any) -> list[Any]:
    node = as_dict(as_dict(as_dict(spec).get("affinity")).get("nodeAffinity"))
    return as_list(as_dict(node.get("requiredDuringSchedulingIgnoredDuringExecution")).get("nodeSelectorTerms"))


def has_invalid_required_values(spec: Any) -> bool:
    """`hasInvalidLabelValueInRequiredNodeAffinity`: a required node selector term's value that is not a label
    value (an old pod's, which its update may then keep)."""
    return has_invalid_term_values(_required_terms(spec))


def has_invalid_term_values(terms: list[Any]) -> bool:
    """`HasInvalidLabelValueInNodeSelectorTerms`: a value of these node selector terms that is not a label value."""
    return any(isinstance(v, str) and is_label_value(v) for term in terms
               for req in as_list(as_dict(term).get("matchExpressions")) for v in as_list(as_dict(req).get("values")))


def validate_node_selector(selector: dict[str, Any], path: str, check_values: bool) -> list[FieldError]:
    """`ValidateNodeSelector`: at least one term, each `ValidateNodeSelectorTerm` (`check_values`: a required
    term's values must be label values, unless the old object already had such a value)."""
    rpath = f"{path}.nodeSelectorTerms"
    terms = as_list(selector.get("nodeSelectorTerms"))
    if not terms:
        return [field_required(rpath, "must have at least one node selector term")]
    errs: list[FieldError] = []
    for i, term in enumerate(terms):
        errs += _term(as_dict(term), f"{rpath}[{i}]", check_values)
    return errs


def _node_affinity(na: dict[str, Any], path: str, check_values: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    required = na.get("requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required, dict):
        errs += validate_node_selector(required, f"{path}.requiredDuringSchedulingIgnoredDuringExecution",
                                       check_values)
    for i, pref in enumerate(as_dict(p) for p in as_list(na.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        here = f"{path}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
        weight = integer(pref.get("weight")) or 0
        if not 0 < weight <= 100:
            errs.append(field_invalid(f"{here}.weight", weight, "must be in the range 1-100"))
        errs += _term(as_dict(pref.get("preference")), f"{here}.preference", False)
    return errs


def _pod_affinity_term(term: dict[str, Any], path: str) -> list[FieldError]:
    """`validatePodAffinityTerm` (its namespaces' path is upstream's `namespace`)."""
    from ..workloadvalidation.labelselector import validate_label_selector

    errs: list[FieldError] = []
    for key in ("labelSelector", "namespaceSelector"):
        if isinstance(term.get(key), dict):
            errs += validate_label_selector(term[key], f"{path}.{key}")
    for name in as_list(term.get("namespaces")):
        errs += [field_invalid(f"{path}.namespace", name, m) for m in is_dns1123_label(str(name))]
    errs += _match_and_mismatch_label_keys(term, path)
    topology = term.get("topologyKey") or ""
    if not topology:
        errs.append(field_required(f"{path}.topologyKey", "can not be empty"))
    return errs + _label_name(topology, f"{path}.topologyKey")


def _pod_affinity(pa: dict[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    rpath = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
    for i, term in enumerate(as_list(pa.get("requiredDuringSchedulingIgnoredDuringExecution"))):
        errs += _pod_affinity_term(as_dict(term), f"{rpath}[{i}]")
    ppath = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    for i, weighted in enumerate(as_dict(w) for w in as_list(pa.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        weight = integer(weighted.get("weight")) or 0
        if not 0 < weight <= 100:
            errs.append(field_invalid(f"{ppath}[{i}].weight", weight, "must be in the range 1-100"))
        errs += _pod_affinity_term(as_dict(weighted.get("podAffinityTerm")), f"{ppath}[{i}].podAffinityTerm")
    return errs


def validate_affinity(affinity: Any, path: str, *, allow_invalid_required_values: bool = False) -> list[FieldError]:
    """`validateAffinity`."""
    affinity = as_dict(affinity)
    errs: list[FieldError] = []
    if isinstance(affinity.get("nodeAffinity"), dict):
        errs += _node_affinity(affinity["nodeAffinity"], f"{path}.nodeAffinity", not allow_invalid_required_values)
    for key in ("podAffinity", "podAntiAffinity"):
        if isinstance(affinity.get(key), dict):
            errs += _pod_affinity(affinity[key], f"{path}.{key}")
    return errs


def _selector_keys(selector: Any) -> list[str]:
    """A label selector's keys: matchLabels', then matchExpressions'."""
    sel = as_dict(selector)
    return [str(k) for k in as_dict(sel.get("matchLabels"))] + \
        [str(as_dict(e).get("key") or "") for e in as_list(sel.get("matchExpressions"))]


def _label_keys(keys: list[Any], selector: Any, path: str) -> list[FieldError]:
    """`validateLabelKeys`."""
    if not keys:
        return []
    if not isinstance(selector, dict):
        return [field_forbidden(path, "must not be specified when labelSelector is not set")]
    errs: list[FieldError] = []
    for i, key in enumerate(keys):
        errs += _label_name(key, f"{path}[{i}]")
    return errs


def _match_and_mismatch_label_keys(term: dict[str, Any], path: str) -> list[FieldError]:
    """`validateMatchLabelKeysAndMismatchLabelKeys` (its "both" error's path lacks `matchLabelKeys`, as upstream's)."""
    match, mismatch = as_list(term.get("matchLabelKeys")), as_list(term.get("mismatchLabelKeys"))
    selector = term.get("labelSelector")
    errs = _label_keys(match, selector, f"{path}.matchLabelKeys") + \
        _label_keys(mismatch, selector, f"{path}.mismatchLabelKeys")
    if isinstance(selector, dict):
        index = {key: i for i, key in enumerate(match)}
        seen = {str(k) for k in as_dict(selector.get("matchLabels"))}
        for expr in as_list(selector.get("matchExpressions")):
            key = as_dict(expr).get("key")
            if key in index and key in seen:
                errs.append(field_invalid(f"{path}[{index[key]}]", key, "exists in both matchLabelKeys and "
                                                                         "labelSelector"))
            seen.add(key)
    mismatched = set(map(str, mismatch))
    for i, key in enumerate(match):
        if key in mismatched:
            errs.append(field_invalid(f"{path}.matchLabelKeys[{i}]", key,
                                      "exists in both matchLabelKeys and mismatchLabelKeys"))
    return errs


def _min_domains(c: dict[str, Any], path: str) -> list[FieldError]:
    """`validateMinDomains`."""
    n = integer(c.get("minDomains"))
    if n is None:
        return []
    errs = [field_invalid(path, n, NOT_POSITIVE)] if n <= 0 else []
    action = c.get("whenUnsatisfiable") or ""
    if action != "DoNotSchedule":
        errs.append(field_invalid(path, n, f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"))
    return errs


def _match_label_keys_in_spread(c: dict[str, Any], path: str) -> list[FieldError]:
    """`validateMatchLabelKeysInTopologySpread`."""
    keys = as_list(c.get("matchLabelKeys"))
    if not keys:
        return []
    selector = c.get("labelSelector")
    errs: list[FieldError] = []
    if not isinstance(selector, dict):
        errs.append(field_forbidden(path, "must not be specified when labelSelector is not set"))
    in_selector = set(_selector_keys(selector))
    for i, key in enumerate(keys):
        errs += _label_name(key, f"{path}[{i}]")
        if key in in_selector:
            errs.append(field_invalid(f"{path}[{i}]", key, "exists in both matchLabelKeys and labelSelector"))
    return errs


def validate_topology_spread_constraints(constraints: Any, path: str) -> list[FieldError]:
    """`validateTopologySpreadConstraints` (a create's options: the label selector checked strictly)."""
    if not constraints:
        return []
    from ..workloadvalidation.labelselector import validate_label_selector

    items = [as_dict(c) for c in as_list(constraints)]
    errs: list[FieldError] = []
    for i, c in enumerate(items):
        here = f"{path}[{i}]"
        skew = integer(c.get("maxSkew")) or 0
        if skew <= 0:
            errs.append(field_invalid(f"{here}.maxSkew", skew, NOT_POSITIVE))
        key, action = c.get("topologyKey") or "", c.get("whenUnsatisfiable") or ""
        if not key:
            errs.append(field_required(f"{here}.topologyKey", "can not be empty"))
        if action not in WHEN_UNSATISFIABLE:
            errs.append(field_not_supported(f"{here}.whenUnsatisfiable", action, WHEN_UNSATISFIABLE))
        if any((r.get("topologyKey") or "") == key and (r.get("whenUnsatisfiable") or "") == action
               for r in items[i + 1:]):
            errs.append(field_duplicate(f"{here}.{{topologyKey, whenUnsatisfiable}}", f"{{{key}, {action}}}"))
        errs += _min_domains(c, f"{here}.minDomains")
        for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            value = c.get(policy)
            if value is not None and value not in NODE_INCLUSION_POLICIES:
                errs.append(field_not_supported(f"{here}.{policy}", value, NODE_INCLUSION_POLICIES))
        errs += _match_label_keys_in_spread(c, f"{here}.matchLabelKeys")
        if isinstance(c.get("labelSelector"), dict):
            errs += validate_label_selector(c["labelSelector"], f"{here}.labelSelector")
    return errs

"""A pod spec's `affinity`: `validateAffinity` of `pkg/apis/core/validation/validation.go` (1.33):
`validateNodeAffinity` (`ValidateNodeSelector`, `ValidateNodeSelectorRequirement`,
`ValidateNodeFieldSelectorRequirement`, `ValidatePreferredSchedulingTerms`) and `validatePodAffinity` /
`validatePodAntiAffinity` (terms' label and namespace selectors, namespaces, topologyKey; weights 1-100).
Not checked: matchLabelKeys/mismatchLabelKeys."""
from __future__ import annotations

from typing import Any

from ...apierrors import FieldError, field_forbidden, field_invalid, field_required
from ..shapes import as_dict, as_list
from ..validation import is_dns1123_label, is_dns1123_subdomain, is_qualified_name
from .fields import integer


def _label_name(name: Any, path: str) -> list[FieldError]:
    """`ValidateLabelName`."""
    return [field_invalid(path, name, m) for m in is_qualified_name(str(name))]


def _requirement(req: dict[str, Any], path: str) -> list[FieldError]:
    """`ValidateNodeSelectorRequirement`."""
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
    return errs + _label_name(req.get("key") or "", f"{path}.key")


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


def _term(term: dict[str, Any], path: str) -> list[FieldError]:
    """`ValidateNodeSelectorTerm`."""
    errs: list[FieldError] = []
    for j, req in enumerate(as_list(term.get("matchExpressions"))):
        errs += _requirement(as_dict(req), f"{path}.matchExpressions[{j}]")
    for j, req in enumerate(as_list(term.get("matchFields"))):
        errs += _field_requirement(as_dict(req), f"{path}.matchFields[{j}]")
    return errs


def _node_affinity(na: dict[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    required = na.get("requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required, dict):
        rpath = f"{path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
        terms = as_list(required.get("nodeSelectorTerms"))
        if not terms:
            errs.append(field_required(rpath, "must have at least one node selector term"))
        for i, term in enumerate(terms):
            errs += _term(as_dict(term), f"{rpath}[{i}]")
    for i, pref in enumerate(as_dict(p) for p in as_list(na.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        here = f"{path}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
        weight = integer(pref.get("weight")) or 0
        if not 0 < weight <= 100:
            errs.append(field_invalid(f"{here}.weight", weight, "must be in the range 1-100"))
        errs += _term(as_dict(pref.get("preference")), f"{here}.preference")
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


def validate_affinity(affinity: Any, path: str) -> list[FieldError]:
    """`validateAffinity`."""
    affinity = as_dict(affinity)
    errs: list[FieldError] = []
    if isinstance(affinity.get("nodeAffinity"), dict):
        errs += _node_affinity(affinity["nodeAffinity"], f"{path}.nodeAffinity")
    for key in ("podAffinity", "podAntiAffinity"):
        if isinstance(affinity.get(key), dict):
            errs += _pod_affinity(affinity[key], f"{path}.{key}")
    return errs

"""A PersistentVolume's `spec.nodeAffinity` on update, as `ValidatePersistentVolumeUpdate` of
`pkg/apis/core/validation/validation.go` (1.33) judges it: once set, it may not change
(`validatePvNodeAffinity`), except that a requirement's key may move from a beta topology label to its GA
successor (`betaToGALabel`, compared by `getMaskNodeSelectorLabelChangeEqualities`, `apiequality.Semantic` with
that one exception). A volume stored without one may be given one. 1.35's MutablePVNodeAffinity (alpha) is not in
1.33.

The refusal prints the new value as 1.33's `field.ErrorBody` does: Go's `%#v` of the internal
`core.VolumeNodeAffinity` (its `Required` pointer's address a stand-in), or `"null"` when the field was removed."""
from __future__ import annotations

from typing import Any

from ..apierrors import FieldError
from .shapes import as_dict, as_list
from .workloadvalidation.gofmt import go_pointer

# `betaToGALabel`: v1.LabelFailureDomainBetaZone/Region, kubeletapis.LabelOS/LabelArch, v1.LabelInstanceType
BETA_TO_GA = {
    "failure-domain.beta.kubernetes.io/zone": "topology.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region": "topology.kubernetes.io/region",
    "beta.kubernetes.io/os": "kubernetes.io/os",
    "beta.kubernetes.io/arch": "kubernetes.io/arch",
    "beta.kubernetes.io/instance-type": "node.kubernetes.io/instance-type",
}
IMMUTABLE = "field is immutable, except for updating from beta label to GA"


def _text(value: Any) -> Any:
    """A string field as the decoded struct holds it (unset and "" alike)."""
    return value if value is not None else ""


def _requirements_equal(new: Any, old: Any) -> bool:
    """Two `[]NodeSelectorRequirement` under the masked equalities (nil and empty alike, as `Semantic`)."""
    new, old = as_list(new), as_list(old)
    if len(new) != len(old):
        return False
    for n, o in zip((as_dict(r) for r in new), (as_dict(r) for r in old)):
        new_key, old_key = _text(n.get("key")), _text(o.get("key"))
        if old_key != new_key and BETA_TO_GA.get(old_key) != new_key:
            return False
        if _text(n.get("operator")) != _text(o.get("operator")) or as_list(n.get("values")) != as_list(o.get("values")):
            return False
    return True


def _selectors_equal(new: Any, old: Any) -> bool:
    """Two `*NodeSelector`: both nil, or terms pairwise equal."""
    if new is None or old is None:
        return new is None and old is None
    new_terms = as_list(as_dict(new).get("nodeSelectorTerms"))
    old_terms = as_list(as_dict(old).get("nodeSelectorTerms"))
    return len(new_terms) == len(old_terms) and all(
        _requirements_equal(as_dict(n).get(key), as_dict(o).get(key))
        for n, o in zip(new_terms, old_terms) for key in ("matchExpressions", "matchFields"))


def _go_value(affinity: Any) -> str:
    """`field.ErrorBody`'s rendering of the new `*core.VolumeNodeAffinity`."""
    if affinity is None:
        return '"null"'
    return f"core.VolumeNodeAffinity{{Required:{go_pointer(as_dict(affinity).get('required'), '*core.NodeSelector')}}}"


def node_affinity_update_errors(new_spec: dict[str, Any], old_spec: dict[str, Any]) -> list[FieldError]:
    """`validatePvNodeAffinity(new, old, field.NewPath("nodeAffinity"))` when the stored volume has one (upstream's
    path lacks `spec`)."""
    old = old_spec.get("nodeAffinity")
    if old is None:
        return []
    new = new_spec.get("nodeAffinity")
    if new is not None and _selectors_equal(as_dict(new).get("required"), as_dict(old).get("required")):
        return []
    return [FieldError("FieldValueInvalid", "nodeAffinity", f"Invalid value: {_go_value(new)}: {IMMUTABLE}")]


__all__ = ["BETA_TO_GA", "node_affinity_update_errors"]

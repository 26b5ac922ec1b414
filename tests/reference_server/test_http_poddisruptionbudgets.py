"""PodDisruptionBudget validation (registry/workloads.py, upstream's `ValidatePodDisruptionBudgetSpec`): what a
client gets for both bounds, negative or malformed or over-100% values, an invalid selector and an unsupported
`unhealthyPodEvictionPolicy`; on update too."""
from __future__ import annotations

import json
from typing import Any

import pytest

PERCENT = ("a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex "
           "used for validation is '[0-9]+%')")


@pytest.mark.parametrize("spec,field,detail", [
    ({"minAvailable": -1}, "spec.minAvailable", "Invalid value: -1: must be greater than or equal to 0"),
    ({"maxUnavailable": "abc"}, "spec.maxUnavailable",
     f'Invalid value: intstr.IntOrString{{Type:1, IntVal:0, StrVal:"abc"}}: {PERCENT}'),
    ({"minAvailable": "150%"}, "spec.minAvailable",
     'Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%'),
    ({"unhealthyPodEvictionPolicy": "Sometimes"}, "spec.unhealthyPodEvictionPolicy",
     'Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"'),
    ({"selector": {"matchExpressions": [{"key": "a", "operator": "In"}]}}, "spec.selector.matchExpressions[0].values",
     "Required value: must be specified when `operator` is 'In' or 'NotIn'"),
    ({"minAvailable": 1, "maxUnavailable": 1}, "spec",  # Go's %#v of the internal struct; addresses stand-ins
     "Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc000000000), "
     "Selector:(*v1.LabelSelector)(nil), MaxUnavailable:(*intstr.IntOrString)(0xc000000000), "
     "UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: minAvailable and maxUnavailable "
     "cannot be both set"),
])
def test_invalid_budgets(http: Any, url: str, namespaces: Any, spec: dict, field: str, detail: str) -> None:
    ns = namespaces.create("pdbv")["metadata"]["name"]
    base = f"{url}/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets"
    r = http.post(base, json={"metadata": {"name": "b"}, "spec": spec})
    assert r.status_code == 422, r.text
    assert r.json()["message"] == f'PodDisruptionBudget.policy "b" is invalid: {field}: {detail}'
    assert r.json()["details"]["causes"][0]["field"] == field
    ok = http.post(base, json={"metadata": {"name": "ok"}, "spec": {"minAvailable": "50%", "selector": {}}})
    assert ok.status_code == 201, ok.text
    r = http.patch(f"{base}/ok", data=json.dumps({"spec": {"minAvailable": None, **spec}}),
                   headers={"Content-Type": "application/merge-patch+json"})  # the same rules on update
    assert (r.status_code, [c["field"] for c in r.json()["details"]["causes"]]) == (422, [field])

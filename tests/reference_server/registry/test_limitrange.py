"""registry/limitrange.py: `ValidateLimitRange` (pkg/apis/core/validation) through the API, on the defaulted object
(`SetDefaults_LimitRangeItem`): 422 with upstream's paths, the `%#v` of the offending Quantity and upstream's
messages; a valid LimitRange is stored with its defaults."""
from __future__ import annotations

from typing import Any

import pytest

from tests.reference_server.conftest import status_of


def _struct(value: int, text: str, scale: int = 0) -> str:
    return (f"resource.Quantity{{i:resource.int64Amount{{value:{value}, scale:{scale}}}, "
            f'd:resource.infDecAmount{{Dec:(*inf.Dec)(nil)}}, s:"{text}", Format:"DecimalSI"}}')


def _post(http, url, ns: str, limits: list[dict[str, Any]]):
    return http.post(f"{url}/api/v1/namespaces/{ns}/limitranges",
                     json={"metadata": {"name": "lr"}, "spec": {"limits": limits}})


@pytest.mark.parametrize("limits, causes", [
    ([{"type": "Container", "max": {"cpu": "1"}, "min": {"cpu": "2"}}], [
        f"spec.limits[0].min[cpu]: Invalid value: {_struct(2, '2')}: min value 2 is greater than max value 1",
        # defaultRequest ← default ← max (1), below min
        f"spec.limits[0].defaultRequest[cpu]: Invalid value: {_struct(1, '1')}: min value 2 is greater than "
        "default request value 1",
        f"spec.limits[0].default[cpu]: Invalid value: {_struct(2, '2')}: min value 2 is greater than default value 1"]),
    ([{"type": "Pod", "default": {"cpu": "1"}, "maxLimitRequestRatio": {"cpu": "500m"}}, {"type": "Pod"}], [
        "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'",
        f"spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: {_struct(500, '500m', -3)}: ratio 500m is less "
        "than 1",
        'spec.limits[1].type: Duplicate value: "Pod"']),
    ([{"type": "Bogus"}, {"type": "PersistentVolumeClaim"}], [
        'spec.limits[0].type: Invalid value: "Bogus": must be a standard limit type or fully qualified',
        "spec.limits[1].limits: Required value: either minimum or maximum storage value is required, but neither "
        "was provided"]),
    ([{"type": "Pod", "max": {"cpu": "4"}, "min": {"cpu": "1", "foo": "1"}, "maxLimitRequestRatio": {"cpu": "5"}}], [
        'spec.limits[0].min[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
        'spec.limits[0].min[foo]: Invalid value: "foo": must be a standard resource for containers',
        f"spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: {_struct(5, '5')}: ratio 5 is greater than "
        "max/min = 4.000000"]),
    ([{"type": "Container", "default": {"example.com/gpu": "2"}, "defaultRequest": {"example.com/gpu": "1"}}], [
        f"spec.limits[0].defaultRequest[example.com/gpu]: Invalid value: {_struct(1, '1')}: default value 2 must "
        "equal to defaultRequest value 1 in example.com/gpu"]),
])
def test_invalid_limit_ranges(http, url, namespaces, limits, causes):
    ns = namespaces.create()["metadata"]["name"]
    r = _post(http, url, ns, limits)
    assert r.status_code == 422, r.text
    got = [f'{c["field"]}: {c["message"]}' for c in status_of(r)["details"]["causes"]]
    assert got == causes


def test_values_print_as_sent(http, url, namespaces):
    """The Quantity struct is the one upstream parsed from the text sent ("0.5": not canonical, so no cached
    string); the message's values are canonical (`String()`), and what is stored is canonical."""
    ns = namespaces.create()["metadata"]["name"]
    r = _post(http, url, ns, [{"type": "Container", "max": {"cpu": "0.5"}, "min": {"cpu": "1"}}])
    assert r.status_code == 422, r.text
    shown = ('resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)'
             '(nil)}, s:"", Format:"DecimalSI"}')
    assert [f'{c["field"]}: {c["message"]}' for c in status_of(r)["details"]["causes"]][1] == (
        f"spec.limits[0].defaultRequest[cpu]: Invalid value: {shown}: min value 1 is greater than default request "
        "value 500m")


def test_valid_limit_range_is_stored_defaulted(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    r = _post(http, url, ns, [{"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "64Mi"},
                               "maxLimitRequestRatio": {"cpu": "4"}}])
    assert r.status_code == 201, r.text
    item = r.json()["spec"]["limits"][0]
    assert (item["default"], item["defaultRequest"]) == ({"cpu": "2"}, {"cpu": "2", "memory": "64Mi"})

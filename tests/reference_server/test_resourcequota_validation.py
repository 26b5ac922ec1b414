"""registry/resourcequota.py: ValidateResourceQuota / ValidateResourceQuotaUpdate / ValidateResourceQuotaStatusUpdate
(pkg/apis/core/validation/validation.go) as the registry answers them: 422 with upstream's paths and messages."""
from __future__ import annotations

import pytest

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.registry import Registry
from conformance.reference_server.quantity import FORMAT_WRONG, SUFFIX_WRONG, parse_error
from conformance.reference_server.registry.resourcequota import go_struct, is_integer_resource
from conformance.reference_server.storage import MemoryStore

NS = "q"


@pytest.fixture
def quotas():
    reg = Registry(MemoryStore())
    reg.namespaces.create({"metadata": {"name": NS}})
    return reg.content("resourcequotas")


def _refused(call) -> list[str]:
    with pytest.raises(StatusError) as exc:
        call()
    assert exc.value.code == 422 and exc.value.status["reason"] == "Invalid"
    return [f'{c["field"]}: {c["message"]}' for c in exc.value.status["details"]["causes"]]


def _create(quotas, hard, name="rq", **spec):
    return quotas.create({"metadata": {"name": name, "namespace": NS}, "spec": {"hard": hard, **spec}})


def test_spec_quantities_on_create(quotas):
    assert _refused(lambda: _create(quotas, {"pods": "-1"})) == [
        'spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0']
    # an integer resource with a fraction: the %#v of the Go struct (ParseQuantity kept "1500m": canonical)
    assert _refused(lambda: _create(quotas, {"pods": "1500m"})) == [
        'spec.hard[pods]: Invalid value: resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, '
        'd:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1500m", Format:"DecimalSI"}: must be an integer']
    assert _refused(lambda: _create(quotas, {"count/deployments.apps": "0.5"})) == [
        'spec.hard[count/deployments.apps]: Invalid value: resource.Quantity{i:resource.int64Amount{value:5, '
        'scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}: must be an integer']
    assert _refused(lambda: _create(quotas, {"cpu": "-1.5"})) == [
        'spec.hard[cpu]: Invalid value: "-1500m": must be greater than or equal to 0']


def test_resource_names(quotas):
    assert _refused(lambda: _create(quotas, {"foo": "1"})) == [
        'spec.hard[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
        'spec.hard[foo]: Invalid value: "foo": must be a standard resource for quota']
    assert _refused(lambda: _create(quotas, {"storage": "1Gi"})) == [  # standard, but not for quota
        'spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota']
    created = _create(quotas, {"cpu": "1.5m", "requests.nvidia.com/gpu": "2", "hugepages-2Mi": "1Gi",
                               "count/pods": "3", "services.loadbalancers": "0"})
    assert created["spec"]["hard"]["cpu"] == "1500u"  # canonical, as the Go struct re-encodes


def test_status_on_create_is_dropped_and_scopes_are_immutable(quotas):
    created = quotas.create({"metadata": {"name": "rq", "namespace": NS}, "spec": {"hard": {"pods": "1"}},
                             "status": {"hard": {"pods": "-1"}}})
    assert created["status"] == {}  # (dropped: the zero ResourceQuotaStatus Go writes, a struct held by value)

    def scoped(cur):
        cur["spec"]["scopes"] = ["BestEffort"]
        return cur
    assert _refused(lambda: quotas.update(NS, "rq", transform=scoped)) == [
        'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: field is immutable']


def test_status_update(quotas):
    _create(quotas, {"pods": "2"})

    def status(cur):
        cur["status"] = {"hard": {"pods": "-2"}, "used": {"pods": "0.5", "bad name": "1"}}
        return cur
    assert _refused(lambda: quotas.update(NS, "rq", transform=status, strategy=quotas.status_strategy)) == [
        'status.hard[pods]: Invalid value: "-2": must be greater than or equal to 0',
        'status.used[pods]: Invalid value: resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, '
        'd:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}: must be an integer',
        "status.used[bad name]: Invalid value: \"bad name\": name part must consist of alphanumeric characters, "
        "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
        "or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        'status.used[bad name]: Invalid value: "bad name": must be a standard resource for quota']


@pytest.mark.parametrize("name, integer", [("pods", True), ("cpu", False), ("count/pods", True),
                                           ("example.com/gpu", True), ("requests.example.com/gpu", False),
                                           ("kubernetes.io/x", False), ("hugepages-2Mi", False)])
def test_integer_resources(name, integer):
    assert is_integer_resource(name) is integer


@pytest.mark.parametrize("text, shown", [
    ("1500m", 'value:1500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1500m", Format:"DecimalSI"}'),
    ("1.50", 'value:150, scale:-2}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}'),
    ("15e-1", 'value:15, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalExponent"}'),
    (1.5, 'value:15, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}')])
def test_go_struct_of_the_fast_path(text, shown):
    assert go_struct(text) == "resource.Quantity{i:resource.int64Amount{" + shown


@pytest.mark.parametrize("text, err", [("abc", "FORMAT"), ("1.2.3", "FORMAT"), ("", "FORMAT"), ("1 m", "FORMAT"),
                                       ("1ki", "SUFFIX"), ("1e", "SUFFIX"), ("--1", "SUFFIX"), ("1mm", "SUFFIX"),
                                       ("1.", None), (".5", None), ("-", None), ("3e+2", None), ("12Gi", None)])
def test_parse_error_follows_parse_quantity_not_its_regular_expression(text, err):
    assert parse_error(text) == {"FORMAT": FORMAT_WRONG, "SUFFIX": SUFFIX_WRONG, None: None}[err]


def test_a_quantity_that_does_not_parse_is_a_decoding_error(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    r = http.post(f"{url}/api/v1/namespaces/{ns}/resourcequotas",
                  json={"metadata": {"name": "rq"}, "spec": {"hard": {"pods": "ten"}}})
    assert r.status_code == 400 and r.json()["reason"] == "BadRequest"
    assert r.json()["message"] == f'ResourceQuota in version "v1" cannot be handled as a ResourceQuota: {FORMAT_WRONG}'
    r = http.post(f"{url}/api/v1/namespaces/{ns}/resourcequotas",
                  json={"metadata": {"name": "rq"}, "spec": {"hard": {"pods": "-2"}}})
    assert r.status_code == 422 and r.json()["message"] == (
        'ResourceQuota "rq" is invalid: spec.hard[pods]: Invalid value: "-2": must be greater than or equal to 0')

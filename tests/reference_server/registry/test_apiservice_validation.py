"""registry/apiservice.py: `ValidateAPIService` and `ValidateAPIServiceStatusUpdate` (kube-aggregator
`pkg/apis/apiregistration/validation/validation.go`), their messages and order."""
from __future__ import annotations

import pytest

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.registry.store import DeleteOptions
from conformance.reference_server.server import build_context


def _apiservice(name: str, group: str, version: str, **spec) -> dict:
    return {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": name},
            "spec": {"group": group, "version": version, "groupPriorityMinimum": 100, "versionPriority": 10, **spec}}


def _causes(obj: dict) -> list[tuple[str, str]]:
    with pytest.raises(StatusError) as err:
        build_context(flavor="bare").registry.apiservices.create(obj)
    assert err.value.code == 422
    return [(c["field"], c["message"]) for c in err.value.status["details"]["causes"]]


def test_the_legacy_group_is_named_v1_dot():
    registry = build_context(flavor="bare").registry
    registry.apiservices.delete("", "v1.", DeleteOptions())  # (made by the server's start)
    made = registry.apiservices.create(_apiservice("v1.", "", "v1"))
    assert made["metadata"]["name"] == "v1."


def test_the_name_must_be_version_dot_group_and_a_path_segment():
    assert _causes(_apiservice("v1.other.example.com", "example.com", "v1")) == [
        ("metadata.name", 'Invalid value: "v1.other.example.com": must be `spec.version+"."+spec.group`: '
                          '"v1.example.com"')]
    assert _causes(_apiservice("v1.a/b", "a/b", "v1"))[0] == ("metadata.name", 'Invalid value: "v1.a/b": may not '
                                                                               "contain '/'")


def test_spec_rules_in_upstreams_order():
    assert _causes(_apiservice("v2.", "", "v2", groupPriorityMinimum=0, caBundle="YWJj")) == [
        ("spec.group", "Required value: only v1 may have an empty group and it better be legacy kube"),
        ("spec.groupPriorityMinimum", "Invalid value: 0: must be positive and less than 20000"),
        ("spec.caBundle", 'Invalid value: "3 bytes": local APIServices may not have a caBundle')]
    assert _causes(_apiservice("V1.example.com", "example.com", "V1"))[-1] == (
        "spec.version", "Invalid value: \"V1\": a DNS-1035 label must consist of lower case alphanumeric characters "
                        "or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. "
                        "'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
    assert _causes(_apiservice("v1.example.com", "example.com", "v1", service={"namespace": ""},
                               insecureSkipTLSVerify=True, caBundle="YWJj")) == [
        ("spec.service.namespace", "Required value"), ("spec.service.name", "Required value"),
        ("spec.insecureSkipTLSVerify", "Invalid value: true: may not be true if caBundle is present")]


def test_a_condition_status_must_be_true_false_or_unknown():
    registry = build_context(flavor="bare").registry
    store = registry.apiservices
    with pytest.raises(StatusError) as err:
        store.update("", "v1.apps", transform=lambda o: {**o, "status": {"conditions": [
            {"type": "Available", "status": "Maybe"}]}}, strategy=store.status_strategy)
    assert [(c["field"], c["message"]) for c in err.value.status["details"]["causes"]] == [
        ("status.conditions[0].status", 'Unsupported value: "Maybe": supported values: "True", "False", "Unknown"')]

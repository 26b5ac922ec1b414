"""Decode → default → admission → validate, as kube-apiserver: `SetDefaults_Namespace` copies the name into the
`kubernetes.io/metadata.name` label before validation (pkg/apis/core/v1/defaults.go)."""
from __future__ import annotations

import pytest

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.registry import Registry
from conformance.reference_server.storage import MemoryStore

LABEL = "kubernetes.io/metadata.name"
NAME_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
            "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
LABEL_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
             "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
             "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


@pytest.fixture
def reg() -> Registry:
    return Registry(MemoryStore())


def refused(reg: Registry, body: dict) -> dict:
    with pytest.raises(StatusError) as info:
        reg.namespaces.create(body)
    return info.value.status


@pytest.mark.parametrize("name", ["-lead", "trail-"])
def test_a_name_that_is_no_label_value_has_two_causes(reg, name):
    st = refused(reg, {"metadata": {"name": name}})
    assert [c["field"] for c in st["details"]["causes"]] == ["metadata.name", "metadata.labels"]
    assert st["message"] == (f'Namespace "{name}" is invalid: [metadata.name: Invalid value: "{name}": {NAME_MSG}, '
                             f'metadata.labels: Invalid value: "{name}": {LABEL_MSG}]')


def test_a_name_longer_than_63_has_two_causes(reg):
    name = "a" * 64
    st = refused(reg, {"metadata": {"name": name}})
    causes = st["details"]["causes"]
    assert [c["field"] for c in causes] == ["metadata.name", "metadata.labels"]
    assert causes[1]["message"] == f'Invalid value: "{name}": must be no more than 63 characters'


def test_an_invalid_name_that_is_a_label_value_has_one_cause(reg):
    st = refused(reg, {"metadata": {"name": "Upper"}})
    assert [c["field"] for c in st["details"]["causes"]] == ["metadata.name"]


def test_a_bad_value_sent_for_the_label_is_overwritten_not_refused(reg):
    ns = reg.namespaces.create({"metadata": {"name": "ok", "labels": {LABEL: "-not-a-value-"}}})
    assert ns["metadata"]["labels"][LABEL] == "ok"
    ns["metadata"]["labels"][LABEL] = "-again-"
    assert reg.namespaces.update("", "ok", ns)["metadata"]["labels"][LABEL] == "ok"
    out = reg.namespaces.update("", "ok", transform=lambda cur: {**cur, "metadata": {
        **cur["metadata"], "resourceVersion": None, "labels": {LABEL: "x" * 70}}})
    assert out["metadata"]["labels"][LABEL] == "ok"


def test_admission_sees_the_defaulted_object(reg):
    seen = {}
    reg.namespaces.create({"metadata": {"name": "seen"}}, admit=lambda obj: seen.update(obj["metadata"]["labels"]))
    assert seen == {LABEL: "seen"}


def test_generate_name_is_labelled_after_validation(reg):
    ns = reg.namespaces.create({"metadata": {"generateName": "gen-"}})
    assert ns["metadata"]["labels"][LABEL] == ns["metadata"]["name"]

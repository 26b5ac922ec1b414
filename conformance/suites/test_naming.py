"""Group `naming`: namespace names are DNS-1123 labels; the `kubernetes.io/metadata.name` label is forced."""

from __future__ import annotations

import re
import secrets

import pytest

from conformance import assertions as A
from conformance.schemas import validate
from conformance.suites import create_namespace, namespace_body, read_namespace, update_fresh

NAME_LABEL = "kubernetes.io/metadata.name"
_RFC1123 = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
            "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
_DOTS = "must not contain dots"
_TOO_LONG = "must be no more than 63 characters"
_LABEL_VALUE_FMT = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"
_LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
                "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
                f"regex used for validation is '{_LABEL_VALUE_FMT}')")


def _label_value_errors(value: str) -> list[str]:
    """apimachinery `validation.IsValidLabelValue`: length first, then the pattern."""
    errs = [_TOO_LONG] if len(value) > 63 else []
    if not re.fullmatch(_LABEL_VALUE_FMT, value):
        errs.append(_LABEL_VALUE)
    return errs


def expected_invalid_name(name: str, name_error: str) -> tuple[str, list[dict[str, str]]]:
    """Upstream's 422 for a bad namespace name: (message, causes).

    `SetDefaults_Namespace` copies the name into the `kubernetes.io/metadata.name` label while the body is
    decoded, before validation; `ValidateObjectMeta` then checks the name (`metadata.name`) and the labels
    (`ValidateLabels`, field `metadata.labels` without the key). A name that is also a bad label value (a
    leading or trailing `-`, more than 63 characters) therefore gets a second cause, and the aggregate
    message lists both in `[..., ...]` form (`utilerrors.aggregate.Error`)."""
    errors = [("metadata.name", name_error)] + [("metadata.labels", e) for e in _label_value_errors(name)]
    texts = [f'{field}: Invalid value: "{name}": {msg}' for field, msg in errors]
    joined = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    causes = [{"reason": "FieldValueInvalid", "field": field, "message": f'Invalid value: "{name}": {msg}'}
              for field, msg in errors]
    return f'Namespace "{name}" is invalid: {joined}', causes


def _rand() -> str:
    return secrets.token_hex(3)


VALID = {
    "max-length": lambda r: (f"nsc-max-{r}-" + "a" * 63)[:63],
    "digit-first": lambda r: f"0nsc-{r}",
    "double-dashes": lambda r: f"nsc--dd--{r}",
}

INVALID = {
    # case id: (name factory, accepted message bodies after `Invalid value: "<n>": `)
    "upper-case": (lambda r: f"Nsc-Upper-{r}", (_RFC1123,)),
    # `a.b` is a valid subdomain: newer apimachinery says "must not contain dots", older the generic text.
    "dot": (lambda r: f"nsc.dot-{r}", (_DOTS, _RFC1123)),
    "underscore": (lambda r: f"nsc_under-{r}", (_RFC1123,)),
    "leading-dash": (lambda r: f"-nsc-{r}", (_RFC1123,)),
    "trailing-dash": (lambda r: f"nsc-{r}-", (_RFC1123,)),
    "too-long": (lambda r: (f"nsc-long-{r}-" + "a" * 64)[:64], (_TOO_LONG,)),
}


@pytest.mark.clause("NS-NAM-001")
@pytest.mark.parametrize("case", list(VALID))
def test_dns_label_names_accepted(api, paths, namespaces, case):
    """DNS-1123 label names, including 63 characters and a leading digit, are accepted."""
    name = VALID[case](_rand())
    namespaces.track(name)
    created = A.expect_ok(api.post(paths.namespaces(), namespace_body(name, namespaces.labels)), 201)
    validate(created, "Namespace")
    assert created["metadata"]["name"] == name, f"created {created['metadata']['name']!r}, asked for {name!r}"
    read_namespace(api, paths, name)


@pytest.mark.clause("NS-NAM-002")
@pytest.mark.parametrize("case", list(INVALID) + ["empty"])
def test_invalid_names_rejected(api, paths, profile, namespaces, case):
    """A name that is not a DNS-1123 label is refused with 422 and no namespace is created."""
    name = "" if case == "empty" else INVALID[case][0](_rand())
    if name:
        namespaces.track(name)
    resp = api.post(paths.namespaces(), namespace_body(name, namespaces.labels))
    if profile == "kubernetes":
        A.expect_status(resp, 422, reason="Invalid")
    else:
        A.expect_rejected(resp)
    if name:
        A.expect_code(api.get(paths.namespace(name)), 404)


@pytest.mark.clause("NS-NAM-003")
@pytest.mark.parametrize("case", list(INVALID))
def test_invalid_name_status(api, paths, namespaces, case):
    """The 422 for a bad name carries `Namespace "<n>" is invalid: metadata.name: Invalid value: ...`, plus a
    `metadata.labels` cause when the name is also a bad label value (see `expected_invalid_name`)."""
    factory, bodies = INVALID[case]
    name = factory(_rand())
    namespaces.track(name)
    resp = api.post(paths.namespaces(), namespace_body(name, namespaces.labels))
    expected = [expected_invalid_name(name, b) for b in bodies]
    messages = [m for m, _ in expected]
    body = A.expect_status(resp, 422, reason="Invalid",
                           message=A.where(lambda m: m in messages, " or ".join(repr(m) for m in messages)),
                           details={"name": name, "kind": "Namespace"},
                           causes=[{"reason": c["reason"], "field": c["field"]} for c in expected[0][1]])
    got = [c.get("field") for c in (body.get("details") or {}).get("causes") or []]
    want = [c["field"] for c in expected[0][1]]
    assert sorted(got) == sorted(want), f"POST {paths.namespaces()} {name!r}: causes on {got}, expected on {want}"
    validate(body, "Status")


@pytest.mark.clause("NS-NAM-003")
def test_missing_name_status(api, paths, namespaces):
    """A namespace without name or generateName is a 422 `metadata.name: Required value: ...`."""
    resp = api.post(paths.namespaces(), namespace_body("", namespaces.labels))
    A.expect_status(resp, 422, reason="Invalid",
                    message='Namespace "" is invalid: metadata.name: Required value: name or generateName is required',
                    details={"kind": "Namespace"},
                    causes=[{"reason": "FieldValueRequired", "field": "metadata.name"}])


@pytest.mark.clause("NS-NAM-004")
@pytest.mark.parametrize("given", [None, "someone-else", ""], ids=["absent", "other-value", "empty-value"])
def test_metadata_name_label_forced_on_create(api, paths, namespaces, given):
    """A created namespace carries kubernetes.io/metadata.name=<name>, whatever the creator sent."""
    labels = None if given is None else {NAME_LABEL: given}
    ns = create_namespace(namespaces, "lbl") if labels is None else namespaces.create("lbl", labels=labels)
    validate(ns, "Namespace")
    name = ns["metadata"]["name"]
    assert A.labels(ns).get(NAME_LABEL) == name, (
        f"POST {paths.namespaces()} with {NAME_LABEL}={given!r}: expected the label {name!r} in the response, "
        f"got {A.labels(ns).get(NAME_LABEL)!r}")
    assert A.labels(read_namespace(api, paths, name)).get(NAME_LABEL) == name


def _label_update(api, paths, name, op):
    path = paths.namespace(name)
    if op == "put-change":
        return update_fresh(api, path, lambda body: body["metadata"]["labels"].__setitem__(NAME_LABEL, "changed"))
    if op == "put-remove":
        return update_fresh(api, path, lambda body: body["metadata"]["labels"].pop(NAME_LABEL, None))
    if op == "merge-patch-change":
        return api.patch(path, {"metadata": {"labels": {NAME_LABEL: "changed"}}})
    if op == "merge-patch-remove":
        return api.patch(path, {"metadata": {"labels": {NAME_LABEL: None}}})
    if op == "json-patch-remove":
        return api.patch(path, [{"op": "remove", "path": "/metadata/labels/kubernetes.io~1metadata.name"}],
                         patch_type="json")
    raise AssertionError(op)


@pytest.mark.clause("NS-NAM-005")
@pytest.mark.parametrize("op", ["put-change", "put-remove", "merge-patch-change", "merge-patch-remove",
                                "json-patch-remove"])
def test_metadata_name_label_restored_on_update(api, paths, namespaces, op):
    """An update that changes or removes kubernetes.io/metadata.name answers 200 with the label restored."""
    name = create_namespace(namespaces, "lbl")["metadata"]["name"]
    body = A.expect_ok(_label_update(api, paths, name, op))
    validate(body, "Namespace")
    assert A.labels(body).get(NAME_LABEL) == name, (
        f"{op} on {paths.namespace(name)}: expected {NAME_LABEL}={name!r} in the response, got "
        f"{A.labels(body).get(NAME_LABEL)!r}")
    assert A.labels(read_namespace(api, paths, name)).get(NAME_LABEL) == name


@pytest.mark.clause("NS-NAM-006")
def test_metadata_name_label_selects_one(api, paths, namespaces):
    """The label selector kubernetes.io/metadata.name=<name> selects exactly that namespace."""
    one = create_namespace(namespaces, "sel")["metadata"]["name"]
    create_namespace(namespaces, "sel")
    resp = api.get(paths.namespaces(), params={"labelSelector": f"{NAME_LABEL}={one}"})
    lst = A.expect_ok(resp)
    validate(lst, "NamespaceList")
    got = [i["metadata"]["name"] for i in lst.get("items", [])]
    assert got == [one], f"GET {paths.namespaces()}?labelSelector={NAME_LABEL}={one}: got {got}"


@pytest.mark.clause("NS-NAM-007")
def test_duplicate_namespace_name_conflicts(api, paths, profile, namespaces):
    """Creating a namespace whose name exists is refused with 409 and the existing one is untouched."""
    ns = create_namespace(namespaces, "dup")
    name = ns["metadata"]["name"]
    body = namespace_body(name, {**namespaces.labels, "nsconform.io/second": "yes"})
    resp = api.post(paths.namespaces(), body)
    if profile == "kubernetes":
        A.expect_status(resp, 409)
    else:
        A.expect_rejected(resp)
    stored = read_namespace(api, paths, name)
    assert stored["metadata"]["uid"] == ns["metadata"]["uid"], "the existing namespace was replaced"
    assert "nsconform.io/second" not in A.labels(stored), "the refused create changed the existing namespace"

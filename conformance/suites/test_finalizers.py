"""Group `finalizers`: the default `kubernetes` finalizer and finalizer-name validation on create."""

from __future__ import annotations

import pytest

from conformance import assertions as A
from conformance.schemas import validate
from conformance.suites import HOLD, create_namespace, namespace_body, read_namespace, status_code_for


@pytest.mark.clause("NS-FIN-001")
def test_default_finalizer_is_kubernetes(api, paths, namespaces):
    """A namespace created without finalizers gets exactly ["kubernetes"], in the response and in storage."""
    ns = create_namespace(namespaces, "fin")
    name = ns["metadata"]["name"]
    assert A.finalizers(ns) == ["kubernetes"], (
        f"POST {paths.namespaces()}: expected spec.finalizers ['kubernetes'] in the 201 response, "
        f"got {A.finalizers(ns)}")
    stored = read_namespace(api, paths, name)
    assert A.finalizers(stored) == ["kubernetes"], (
        f"GET {paths.namespace(name)}: expected spec.finalizers ['kubernetes'], got {A.finalizers(stored)}")


USER_LISTS = [
    pytest.param([HOLD], id="one-foreign"),
    pytest.param([HOLD, "example.org/second"], id="two-foreign"),
    pytest.param(["kubernetes", HOLD], id="kubernetes-first"),
    pytest.param([HOLD, "kubernetes"], id="kubernetes-last"),
]


@pytest.mark.clause("NS-FIN-002")
@pytest.mark.parametrize("given", USER_LISTS)
def test_user_finalizers_kept_and_kubernetes_added(api, paths, namespaces, given):
    """The creator's spec.finalizers survive creation and `kubernetes` is present exactly once."""
    ns = create_namespace(namespaces, "fin", finalizers=given)
    name = ns["metadata"]["name"]
    for where, obj in (("201 response", ns), ("GET", read_namespace(api, paths, name))):
        got = A.finalizers(obj)
        missing = [f for f in given if f not in got]
        assert not missing, f"{where} of {name}: created with {given}, finalizers {missing} were dropped: {got}"
        assert got.count("kubernetes") == 1, (
            f"{where} of {name}: expected `kubernetes` exactly once in spec.finalizers, got {got}")
        assert len(got) == len(set(given) | {"kubernetes"}), f"{where} of {name}: unexpected entries in {got}"


@pytest.mark.clause("NS-FIN-003")
@pytest.mark.parametrize("given, expected", [
    pytest.param([HOLD], [HOLD, "kubernetes"], id="append-after-one"),
    pytest.param([HOLD, "example.org/second"], [HOLD, "example.org/second", "kubernetes"], id="append-after-two"),
    pytest.param(["kubernetes", HOLD], ["kubernetes", HOLD], id="already-first"),
    pytest.param([HOLD, "kubernetes", "example.org/second"], [HOLD, "kubernetes", "example.org/second"],
                 id="already-middle"),
])
def test_kubernetes_appended_in_order(api, paths, namespaces, given, expected):
    """`kubernetes` is appended after the creator's finalizers, and an existing order is left untouched."""
    ns = create_namespace(namespaces, "fin", finalizers=given)
    name = ns["metadata"]["name"]
    assert A.finalizers(ns) == expected, (
        f"POST {paths.namespaces()} with spec.finalizers {given}: expected {expected}, got {A.finalizers(ns)}")
    assert A.finalizers(read_namespace(api, paths, name)) == expected


@pytest.mark.clause("NS-FIN-004")
@pytest.mark.parametrize("finalizer", ["example.com/x", "sub.example.com/My_Name.v1", "kubernetes"])
def test_qualified_finalizer_names_accepted(api, paths, namespaces, finalizer):
    """Domain-prefixed qualified names and `kubernetes` are accepted in spec.finalizers."""
    ns = create_namespace(namespaces, "fin", finalizers=[finalizer])
    assert finalizer in A.finalizers(ns), f"created with [{finalizer!r}], got {A.finalizers(ns)}"


@pytest.mark.clause("NS-FIN-005")
@pytest.mark.parametrize("finalizer", ["orphan", "foregroundDeletion"])
def test_standard_unqualified_finalizer_names_accepted(api, paths, namespaces, finalizer):
    """The standard unqualified names `orphan` and `foregroundDeletion` are accepted in spec.finalizers."""
    ns = create_namespace(namespaces, "fin", finalizers=[finalizer])
    got = A.finalizers(ns)
    # Order is NS-FIN-003's business; this clause only needs the name kept and `kubernetes` once.
    assert finalizer in got and got.count("kubernetes") == 1, (
        f"created with [{finalizer!r}], expected {finalizer!r} kept and 'kubernetes' once, got {got}")


_QUALIFIED = ("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
              "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
              "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
              "and '/' (e.g. 'example.com/MyName')")
_NOT_STANDARD = "name is neither a standard finalizer name nor is it fully qualified"

INVALID = [
    pytest.param("foo", _NOT_STANDARD, id="unqualified"),
    pytest.param("my-finalizer", _NOT_STANDARD, id="unqualified-dashed"),
    pytest.param("Kubernetes", _NOT_STANDARD, id="standard-wrong-case"),
    pytest.param("a/b/c", _QUALIFIED, id="two-slashes"),
]


def _post_invalid(api, paths, namespaces, finalizer):
    name = namespaces.name("finbad")
    body = namespace_body(name, namespaces.labels, finalizers=[finalizer])
    return name, api.post(paths.namespaces(), body)


@pytest.mark.clause("NS-FIN-006")
@pytest.mark.parametrize("finalizer, reason", INVALID)
def test_invalid_finalizer_names_rejected(api, paths, profile, namespaces, finalizer, reason):
    """A namespace with an unqualified non-standard or malformed finalizer name is refused and not created."""
    name, resp = _post_invalid(api, paths, namespaces, finalizer)
    if profile == "kubernetes":
        A.expect_status(resp, 422, reason="Invalid")
    else:
        A.expect_rejected(resp, status_code_for(profile, 422))
    A.expect_code(api.get(paths.namespace(name)), 404)


@pytest.mark.clause("NS-FIN-007")
@pytest.mark.parametrize("finalizer, reason", INVALID)
def test_invalid_finalizer_name_status(api, paths, namespaces, finalizer, reason):
    """The 422 for a bad spec.finalizers name carries the upstream message and a spec.finalizers cause."""
    name, resp = _post_invalid(api, paths, namespaces, finalizer)
    body = A.expect_status(
        resp, 422, reason="Invalid",
        message=f'Namespace "{name}" is invalid: spec.finalizers: Invalid value: "{finalizer}": {reason}',
        details={"name": name, "kind": "Namespace"},
        causes=[{"reason": "FieldValueInvalid", "field": "spec.finalizers",
                 "message": f'Invalid value: "{finalizer}": {reason}'}])
    validate(body, "Status")

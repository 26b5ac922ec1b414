"""Unit tests of conformance.assertions with fake responses (no server)."""

from __future__ import annotations

import json
import re

import pytest
import requests

from conformance import assertions as A


def fake(status: int, body=None, *, method="POST", path="/api/v1/namespaces", text=None,
         content_type="application/json") -> requests.Response:
    resp = requests.Response()
    resp.status_code = status
    if text is None:
        text = "" if body is None else json.dumps(body)
    resp._content = text.encode()
    resp.encoding = "utf-8"
    resp.headers["Content-Type"] = content_type
    resp.request = requests.Request(method, "http://127.0.0.1:1" + path).prepare()
    return resp


def status(code, reason, message, details=None):
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}
    if details is not None:
        body["details"] = details
    return body


NOT_FOUND = status(404, "NotFound", 'namespaces "x" not found', {"name": "x", "kind": "namespaces"})


def test_expect_ok_returns_body():
    body = {"kind": "Namespace", "apiVersion": "v1", "metadata": {"name": "x"}}
    assert A.expect_ok(fake(201, body), 201) == body


def test_expect_ok_accepts_a_set_of_codes():
    assert A.expect_ok(fake(202, {"a": 1}), (200, 202)) == {"a": 1}


def test_expect_ok_failure_names_request_codes_reason_and_body():
    with pytest.raises(AssertionError) as err:
        A.expect_ok(fake(404, NOT_FOUND, method="GET", path="/api/v1/namespaces/x"), 200)
    text = str(err.value)
    assert text.startswith("GET /api/v1/namespaces/x: expected HTTP 200, got HTTP 404")
    assert "reason: 'NotFound'" in text
    assert 'namespaces \\"x\\" not found' in text  # the body excerpt


def test_expect_ok_rejects_non_json_body():
    with pytest.raises(AssertionError, match="does not parse as JSON"):
        A.expect_ok(fake(200, text="hello", content_type="text/plain"))


def test_expect_ok_rejects_json_array():
    with pytest.raises(AssertionError, match="JSON object"):
        A.expect_ok(fake(200, [1, 2]))


def test_expect_status_passes_on_exact_match():
    body = A.expect_status(fake(404, NOT_FOUND), 404, reason="NotFound", message='namespaces "x" not found',
                           details={"name": "x", "kind": "namespaces"})
    assert body["reason"] == "NotFound"


def test_expect_status_wrong_code_shows_expected_and_got():
    with pytest.raises(AssertionError) as err:
        A.expect_status(fake(201, {"kind": "ConfigMap", "apiVersion": "v1"},
                             path="/api/v1/namespaces/nope/configmaps"), 404, reason="NotFound")
    text = str(err.value)
    assert "POST /api/v1/namespaces/nope/configmaps: expected HTTP 404 reason 'NotFound', got HTTP 201" in text
    assert "reason: expected 'NotFound', got None" in text
    assert '"kind":"ConfigMap"' in text


def test_expect_status_plain_text_error_fails():
    with pytest.raises(AssertionError) as err:
        A.expect_status(fake(404, text="404 page not found", content_type="text/plain"), 404)
    assert "with a Status body, got HTTP 404 with no JSON" in str(err.value)
    assert "text/plain" in str(err.value)


def test_expect_status_envelope_fields_checked():
    bad = dict(NOT_FOUND, kind="Error", status="Success", code=500)
    with pytest.raises(AssertionError) as err:
        A.expect_status(fake(404, bad), 404)
    text = str(err.value)
    assert "kind: expected 'Status', got 'Error'" in text
    assert "status: expected 'Failure', got 'Success'" in text
    assert "code: expected 404, got 500" in text


def test_expect_status_missing_api_version():
    bad = {k: v for k, v in NOT_FOUND.items() if k != "apiVersion"}
    with pytest.raises(AssertionError, match="apiVersion: expected 'v1', got nothing"):
        A.expect_status(fake(404, bad), 404)


def test_expect_status_message_mismatch():
    with pytest.raises(AssertionError) as err:
        A.expect_status(fake(404, NOT_FOUND), 404, message='namespaces "y" not found')
    assert "message: expected 'namespaces \"y\" not found', got 'namespaces \"x\" not found'" in str(err.value)


def test_expect_status_message_regex():
    A.expect_status(fake(404, NOT_FOUND), 404, message=re.compile(r"not found$"))
    with pytest.raises(AssertionError, match="text matching"):
        A.expect_status(fake(404, NOT_FOUND), 404, message=re.compile(r"^forbidden"))


def test_expect_status_details_subset_and_absent():
    A.expect_status(fake(404, NOT_FOUND), 404, details={"kind": "namespaces"})
    with pytest.raises(AssertionError, match=r"details.kind: expected 'Namespace', got 'namespaces'"):
        A.expect_status(fake(404, NOT_FOUND), 404, details={"kind": "Namespace"})
    with pytest.raises(AssertionError, match=r"details.name: expected absent"):
        A.expect_status(fake(404, NOT_FOUND), 404, details={"name": None})


def test_expect_status_causes():
    body = status(403, "Forbidden", "m", {"name": "cm", "kind": "configmaps", "causes": [
        {"reason": "NamespaceTerminating", "message": "namespace foo is being terminated",
         "field": "metadata.namespace"}]})
    A.expect_status(fake(403, body), 403, causes=[{"reason": "NamespaceTerminating",
                                                   "field": "metadata.namespace"}])
    with pytest.raises(AssertionError, match="details.causes: expected a cause"):
        A.expect_status(fake(403, body), 403, causes=[{"reason": "FieldValueInvalid"}])
    # the same cause cannot satisfy two expectations
    with pytest.raises(AssertionError, match="details.causes"):
        A.expect_status(fake(403, body), 403, causes=[{"reason": "NamespaceTerminating"}] * 2)


def test_expect_status_checks_the_status_schema():
    bad = dict(NOT_FOUND, details={"causes": "not-a-list"})
    with pytest.raises(AssertionError, match=r"schema Status: \$\.details\.causes"):
        A.expect_status(fake(404, bad), 404)


def test_expect_status_code_range():
    A.expect_status(fake(405, status(405, "MethodNotAllowed", "x")), A.CLIENT_ERROR)
    with pytest.raises(AssertionError, match="expected HTTP 4xx"):
        A.expect_status(fake(200, {"kind": "Namespace"}), A.CLIENT_ERROR)


def test_expect_rejected():
    A.expect_rejected(fake(422, text="bad"))
    with pytest.raises(AssertionError, match="expected the request to be rejected with HTTP 4xx, got HTTP 201"):
        A.expect_rejected(fake(201, {}))


def test_expect_code():
    A.expect_code(fake(200, {}), 200)
    with pytest.raises(AssertionError, match="expected HTTP 200 or 202, got HTTP 500"):
        A.expect_code(fake(500, {}), (200, 202))


def test_body_excerpt_truncates():
    resp = fake(500, text="x" * (A.BODY_LIMIT + 10), content_type="text/plain")
    assert A.body_excerpt(resp).endswith("(10 more characters)")
    assert A.body_excerpt(fake(204, text="")) == "<empty>"


def test_describe_request_keeps_query():
    resp = fake(200, {}, method="GET", path="/api/v1/namespaces?labelSelector=a%3Db")
    assert A.describe_request(resp) == "GET /api/v1/namespaces?labelSelector=a%3Db"


def test_subset_mismatches_nested_and_predicates():
    got = {"metadata": {"name": "x", "labels": {"a": "1"}}, "spec": {"finalizers": ["kubernetes"]}}
    assert A.subset_mismatches({"metadata": {"labels": {"a": "1"}}}, got) == []
    diffs = A.subset_mismatches({"metadata": {"labels": {"a": "2"}}, "status": {"phase": "Active"}}, got)
    assert diffs == ["metadata.labels.a: expected '2', got '1'", "status: expected {'phase': 'Active'}, "
                     "got nothing (missing)"]
    is_list = A.where(lambda v: isinstance(v, list), "a list")
    assert A.subset_mismatches({"spec": {"finalizers": is_list}}, got) == []
    assert A.subset_mismatches({"spec": is_list}, got) == ["spec: expected a list, got {'finalizers': ['kubernetes']}"]


def test_expect_subset_message():
    with pytest.raises(AssertionError) as err:
        A.expect_subset({"a": 1}, {"a": 2}, "namespace x")
    assert "namespace x differs from the expectation" in str(err.value)
    assert "a: expected 2, got 1" in str(err.value)


def test_object_helpers():
    ns = {"metadata": {"labels": {"k": "v"}}, "spec": {"finalizers": ["kubernetes"]},
          "status": {"phase": "Terminating", "conditions": [{"type": "A", "status": "True"}]}}
    assert A.finalizers(ns) == ["kubernetes"]
    assert A.finalizers({}) == []
    assert A.phase(ns) == "Terminating"
    assert A.phase({}) is None
    assert A.labels(ns) == {"k": "v"}
    assert A.condition(ns, "A") == {"type": "A", "status": "True"}
    assert A.condition(ns, "B") is None


@pytest.fixture
def messages_warn():
    A.set_message_mode("warn")
    try:
        yield
    finally:
        A.set_message_mode("exact")


def test_a_different_message_fails_by_default():
    with pytest.raises(AssertionError, match="message: expected 'namespaces \"y\" not found'"):
        A.expect_status(fake(404, NOT_FOUND), 404, reason="NotFound", message='namespaces "y" not found')


def test_messages_warn_turns_only_the_message_into_a_warning(messages_warn):
    with pytest.warns(A.MessageMismatch, match="message: expected 'namespaces \"y\" not found', got"):
        A.expect_status(fake(404, NOT_FOUND), 404, reason="NotFound", message='namespaces "y" not found')
    with pytest.raises(AssertionError, match="reason: expected 'Gone'"):  # everything else is still checked
        A.expect_status(fake(404, NOT_FOUND), 404, reason="Gone", message='namespaces "x" not found')


def test_unknown_message_mode_is_refused():
    with pytest.raises(ValueError, match="exact, warn"):
        A.set_message_mode("loose")

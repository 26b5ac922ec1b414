"""Query options decoded as upstream's parameter codec decodes them (http/params.py over paramcodec.py): an
int64 that `strconv.ParseInt` refuses is a 400 with strconv's own text (endpoints/handlers wrap the codec's error
in `errors.NewBadRequest(err.Error())`), a bool is true for anything but `0`/`false`, `timeoutSeconds` is decoded
for a LIST too, `sendInitialEvents` is validated as `ValidateListOptions` does. Each answered otherwise before."""
from __future__ import annotations

import json

import pytest

from tests.reference_server.conftest import WatchReader


def _bad_request(r, message):
    body = r.json()
    assert r.status_code == 400, (r.status_code, body)
    assert (body["reason"], body["code"], body["message"]) == ("BadRequest", 400, message)


@pytest.mark.parametrize("value, message", [
    ("abc", 'strconv.ParseInt: parsing "abc": invalid syntax'),
    ("", 'strconv.ParseInt: parsing "": invalid syntax'),
    ("1_0", 'strconv.ParseInt: parsing "1_0": invalid syntax'),
    (" 5", 'strconv.ParseInt: parsing " 5": invalid syntax'),
    ("٣", 'strconv.ParseInt: parsing "٣": invalid syntax'),
    ('"x', 'strconv.ParseInt: parsing "\\"x": invalid syntax'),
    (str(1 << 63), f'strconv.ParseInt: parsing "{1 << 63}": value out of range'),
])
def test_a_limit_parseint_refuses_is_a_400_in_its_words(http, url, value, message):
    _bad_request(http.get(f"{url}/api/v1/namespaces", params={"limit": value}), message)


def test_timeout_seconds_is_decoded_for_a_list_and_before_limit(http, url):
    _bad_request(http.get(f"{url}/api/v1/namespaces", params={"timeoutSeconds": "soon"}),
                 'strconv.ParseInt: parsing "soon": invalid syntax')
    _bad_request(http.get(f"{url}/api/v1/namespaces", params={"limit": "x", "timeoutSeconds": "y"}),
                 'strconv.ParseInt: parsing "y": invalid syntax')
    assert http.get(f"{url}/api/v1/namespaces", params={"timeoutSeconds": "-1"}).json()["kind"] == "NamespaceList"


def test_a_watch_timeout_parseint_refuses_is_a_400(http, url):
    _bad_request(http.get(f"{url}/api/v1/namespaces", params={"watch": "1", "timeoutSeconds": "1s"}),
                 'strconv.ParseInt: parsing "1s": invalid syntax')


def test_grace_period_seconds_parseint_refuses_is_a_400(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    cm = f"{url}/api/v1/namespaces/{name}/configmaps"
    assert http.post(cm, json={"metadata": {"name": "c"}}).status_code == 201
    _bad_request(http.delete(f"{cm}/c", params={"gracePeriodSeconds": "abc"}),
                 'strconv.ParseInt: parsing "abc": invalid syntax')
    _bad_request(http.delete(cm, params={"gracePeriodSeconds": ""}), 'strconv.ParseInt: parsing "": invalid syntax')
    assert http.get(f"{cm}/c").status_code == 200


@pytest.mark.parametrize("value", ["yes", "", "on", "TRUE"])
def test_any_watch_value_but_0_or_false_is_a_watch(http, url, value):
    r = http.get(f"{url}/api/v1/namespaces", params={"watch": value, "timeoutSeconds": "1"})
    assert r.status_code == 200
    first = json.loads(r.text.splitlines()[0])
    assert first["type"] == "ADDED" and first["object"]["kind"] == "Namespace"


def test_allow_watch_bookmarks_yes_asks_for_bookmarks(http, url, namespaces):
    base = f"{url}/api/v1/namespaces/{namespaces.create()['metadata']['name']}/configmaps"
    rv = http.get(base).json()["metadata"]["resourceVersion"]
    with WatchReader(base, {"timeoutSeconds": "3", "allowWatchBookmarks": "yes", "resourceVersion": rv}) as w:
        events = w.rest(timeout=10)
    assert [e["type"] for e in events] == ["BOOKMARK"], events


def test_orphan_dependents_is_true_for_any_value_but_0_or_false(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    cm = f"{url}/api/v1/namespaces/{name}/configmaps"
    r = http.delete(f"{cm}/none", params={"orphanDependents": "yes", "propagationPolicy": "Foreground"})
    assert r.status_code == 422 and r.json()["message"] == (
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Foreground": '
        "orphanDependents and deletionPropagation cannot be both set")
    assert http.post(cm, json={"metadata": {"name": "c"}}).status_code == 201
    r = http.delete(f"{cm}/c", params={"orphanDependents": "yes"})
    assert r.status_code == 200
    gone = http.get(f"{cm}/c")
    assert gone.status_code == 404 or "orphan" in gone.json()["metadata"].get("finalizers", [])


def test_delete_options_errors_in_validate_delete_options_order(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    r = http.delete(f"{url}/api/v1/namespaces/{name}/configmaps/c",
                    params={"orphanDependents": "1", "propagationPolicy": "Later"})
    assert r.status_code == 422 and r.json()["message"] == (
        'DeleteOptions.meta.k8s.io "" is invalid: [propagationPolicy: Invalid value: "Later": orphanDependents and '
        'deletionPropagation cannot be both set, propagationPolicy: Unsupported value: "Later": supported values: '
        '"Foreground", "Background", "Orphan", "nil"]')


def test_send_initial_events_is_forbidden_for_a_list(http, url):
    r = http.get(f"{url}/api/v1/namespaces", params={"sendInitialEvents": "false"})
    assert r.status_code == 422 and r.json()["message"] == (
        'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list')


def test_send_initial_events_on_a_watch_without_not_older_than(http, url):
    r = http.get(f"{url}/api/v1/namespaces", params={"watch": "1", "sendInitialEvents": "true"})
    assert r.status_code == 422 and r.json()["message"] == (
        'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires '
        "setting resourceVersionMatch to NotOlderThan, sendInitialEvents: Forbidden: sendInitialEvents is forbidden "
        "for watch unless the WatchList feature gate is enabled]")
    r = http.get(f"{url}/api/v1/namespaces", params={"watch": "1", "sendInitialEvents": "true",
                                                     "resourceVersionMatch": "NotOlderThan"})
    assert r.status_code == 422 and r.json()["message"] == (
        'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for '
        "watch unless the WatchList feature gate is enabled")


def test_force_is_true_for_any_value_but_0_or_false(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    cm = f"{url}/api/v1/namespaces/{name}/configmaps/c"
    headers = {"Content-Type": "application/apply-patch+yaml"}
    body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"%s"}}'
    assert http.patch(cm, data=body % "a", headers=headers, params={"fieldManager": "one"}).status_code == 201
    assert http.patch(cm, data=body % "b", headers=headers, params={"fieldManager": "two"}).status_code == 409
    assert http.patch(cm, data=body % "b", headers=headers, params={"fieldManager": "two", "force": "0"}).status_code \
        == 409
    r = http.patch(cm, data=body % "b", headers=headers, params={"fieldManager": "two", "force": "yes"})
    assert r.status_code == 200 and r.json()["data"] == {"k": "b"}


def test_write_options_are_validated_together_before_the_body(http, url, namespaces):
    """`ValidateCreateOptions` / `ValidateUpdateOptions` / `ValidatePatchOptions`: fieldManager, dryRun (the whole
    `[]string`), fieldValidation (NotSupported, not a 400) in one 422, before the body is decoded."""
    name = namespaces.create()["metadata"]["name"]
    cm = f"{url}/api/v1/namespaces/{name}/configmaps"
    params = [("dryRun", "All"), ("dryRun", "Some"), ("fieldValidation", "Loud"), ("fieldManager", "a\tb")]
    fm = 'fieldManager: Invalid value: "a\\tb": invalid character U+0009 (at position 1)'
    rest = ('dryRun: Unsupported value: []string{"All", "Some"}: supported values: "All", fieldValidation: '
            'Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"]')
    r = http.post(cm, data=b"not json", params=params, headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["message"] == f'CreateOptions.meta.k8s.io "" is invalid: [{fm}, {rest}'
    r = http.put(f"{cm}/c", data=b"not json", params=params, headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["message"] == f'UpdateOptions.meta.k8s.io "" is invalid: [{fm}, {rest}'
    r = http.patch(f"{cm}/c", data=b"{}", params=params, headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 422 and r.json()["message"] == f'PatchOptions.meta.k8s.io "" is invalid: [{fm}, {rest}'
    r = http.post(cm, json={"metadata": {"name": "c"}}, params={"dryRun": ""})
    assert r.status_code == 422 and r.json()["message"] == (
        'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{""}: supported values: "All"')


def test_a_delete_dry_run_error_shows_the_whole_slice(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    r = http.delete(f"{url}/api/v1/namespaces/{name}/configmaps/c", params=[("dryRun", "All"), ("dryRun", "")])
    assert r.status_code == 422 and r.json()["message"] == (
        'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", ""}: supported '
        'values: "All"')

"""A custom resource's created or updated body naming another version, group or kind, as kube-apiserver 1.33
reads it (http/crbodygvk.py): create.go / update.go decode it into an `Unstructured` that keeps the version and kind
the data holds (json.go `Decode`: no default from the route; the versioning codec's `UnsafeObjectConvertor` copy),
strict decoding errors first (pruned with the named version's schema only where the group and kind are the CRD's,
and worded with the data's kind and version), then `AcceptsGroupVersion` (the route's group-version only: a 400),
then the strategy's `ValidateTypeMeta` for another kind of that group-version (the 422 under the object's own kind,
registry/customresource/validator.go), which `/status` never reaches (status_strategy.go keeps the old kind)."""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from .conftest import NamespaceFactory
from .crds import two_version_things


@pytest.fixture
def things(http: requests.Session, url: str, namespaces: NamespaceFactory) -> Iterator[tuple[str, str]]:
    """`crds.two_version_things` in a namespace of its own: (its group, the v1 collection URL)."""
    with two_version_things(http, url, namespaces.create("crbk")["metadata"]["name"], "crbk") as made:
        yield made


def _bad_request(message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": "BadRequest", "code": 400}


def _write(http: requests.Session, base: str, verb: str, body: dict[str, Any], **params: str) -> requests.Response:
    """`body` (named `t`) created at `base` (verb "create") or put over `t`, with the stored `t`'s resourceVersion
    unless it has one (a custom resource's update needs one: `AllowUnconditionalUpdate` is false)."""
    if verb == "create":
        return http.post(base, data=json.dumps(body), params=params, headers={"Content-Type": "application/json"})
    meta = body.get("metadata")
    stored = http.get(f"{base}/t")
    if isinstance(meta, dict) and "resourceVersion" not in meta and stored.status_code == 200:
        body = {**body, "metadata": {**meta, "resourceVersion": stored.json()["metadata"]["resourceVersion"]}}
    return http.put(f"{base}/t", data=json.dumps(body), params=params, headers={"Content-Type": "application/json"})


@pytest.mark.parametrize("verb", ["create", "update"])
def test_another_kind_is_the_strategy_s_422(http: requests.Session, things: tuple[str, str], verb: str) -> None:
    """Another kind of the route's group-version decodes, keeps its kind, and `ValidateTypeMeta` refuses it:
    `Other.<group> "t" is invalid`, the details' group and kind the object's own."""
    group, base = things
    if verb == "create":
        http.delete(f"{base}/t")
    before = http.get(base).json()["items"]
    body = {"apiVersion": f"{group}/v1", "kind": "Other", "metadata": {"name": "t"}, "spec": {"size": 3}}
    if verb == "update":
        body["metadata"]["resourceVersion"] = http.get(f"{base}/t").json()["metadata"]["resourceVersion"]
    r = _write(http, base, verb, body)
    cause = {"reason": "FieldValueInvalid", "message": 'Invalid value: "Other": must be Thing', "field": "kind"}
    assert (r.status_code, r.json()) == (422, {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": f'Other.{group} "t" is invalid: kind: Invalid value: "Other": must be Thing', "reason": "Invalid",
        "details": {"name": "t", "group": group, "kind": "Other", "causes": [cause]}, "code": 422}), r.text
    assert http.get(base).json()["items"] == before


@pytest.mark.parametrize("verb", ["create", "update"])
def test_another_group_version_is_refused_before(http: requests.Session, things: tuple[str, str], verb: str
                                                 ) -> None:
    """`AcceptsGroupVersion`: the data's own group-version, however it differs (another served version, one the
    CRD lacks, another group, the core group, a group without version), is a 400 naming it."""
    group, base = things
    for api_version, named in ((f"{group}/v2", f"{group}/v2"), (f"{group}/v9", f"{group}/v9"),
                               ("other.example.com/v1", "other.example.com/v1"), ("v1", "v1"),
                               (f"{group}/", f"{group}/")):
        body: dict[str, Any] = {"kind": "Thing", "metadata": {"name": "t"}, "spec": {"size": 4}}
        if api_version is not None:
            body["apiVersion"] = api_version
        r = _write(http, base, verb, body)
        assert (r.status_code, r.json()) == (400, _bad_request(
            f"the API version in the data ({named}) does not match the expected API version ({group}/v1)")), r.text
    assert http.get(f"{base}/t").json()["spec"] == {"size": 1, "color": 2}


@pytest.mark.parametrize("verb", ["create", "update"])
def test_strict_errors_come_first_in_the_data_s_words(http: requests.Session, things: tuple[str, str], verb: str
                                                      ) -> None:
    """Under Strict the decoder's unknown fields (the named version's schema where the group and kind are the
    CRD's: none for another kind, all but apiVersion, kind and metadata for a version the CRD lacks) are the 400
    before the version check, `transformDecodeError` naming the data's kind and version (`r.New()` holds the
    copy)."""
    group, base = things
    handled = "{0} in version {1} cannot be handled as a {0}: strict decoding error: unknown field {2}"
    for api_version, kind, extra, message in (
            (f"{group}/v2", "Thing", {}, handled.format("Thing", '"v2"', '"spec.color"')),
            (f"{group}/v9", "Thing", {}, handled.format("Thing", '"v9"', '"spec"')),
            (f"{group}/v1", "Other", {"x": 1}, handled.format("Other", '"v1"', '"metadata.x"')),
            (f"{group}/", "Thing", {"x": 1}, "Object 'apiVersion' is missing in 'object has no apiVersion field'")):
        body: dict[str, Any] = {"kind": kind, "metadata": {"name": "t", **extra}, "spec": {"size": 5, "color": 6}}
        if api_version is not None:
            body["apiVersion"] = api_version
        r = _write(http, base, verb, body, fieldValidation="Strict")
        assert (r.status_code, r.json()) == (400, _bad_request(message)), r.text


def test_another_kind_is_not_pruned(http: requests.Session, things: tuple[str, str]) -> None:
    """Another kind's unknown fields are no strict error (`unstructuredSchemaCoercer.apply` prunes the CRD's group
    and kind only): the strategy's 422."""
    group, base = things
    rv = http.get(f"{base}/t").json()["metadata"]["resourceVersion"]  # (AllowUnconditionalUpdate false, first)
    r = _write(http, base, "update", {"apiVersion": f"{group}/v1", "kind": "Other",
                                      "metadata": {"name": "t", "resourceVersion": rv},
                                      "spec": {"size": 5, "bogus": 6}}, fieldValidation="Strict")
    assert r.status_code == 422 and r.json()["details"]["kind"] == "Other", r.text


def test_warnings_come_with_the_version_s_400(http: requests.Session, things: tuple[str, str]) -> None:
    """Under Warn the unknown fields v2's schema prunes are warnings, sent with `AcceptsGroupVersion`'s 400."""
    group, base = things
    r = _write(http, base, "create", {"apiVersion": f"{group}/v2", "kind": "Thing", "metadata": {"name": "u"},
                                      "spec": {"size": 5, "color": 6}}, fieldValidation="Warn")
    assert r.status_code == 400 and r.json()["message"].startswith(f"the API version in the data ({group}/v2)"), r.text
    assert r.headers.get("Warning") == '299 - "unknown field \\"spec.color\\""', r.headers


def test_a_decoding_error_names_the_data_s_kind_and_the_route_s(http: requests.Session, things: tuple[str, str]
                                                                ) -> None:
    """`schemaCoercingDecoder`'s own error (a `metadata` that is no ObjectMeta) leaves `r.New()` as it was: the
    data's kind and version, then the route's kind."""
    group, base = things
    r = _write(http, base, "create", {"apiVersion": f"{group}/v9", "kind": "Other", "metadata": {"name": 5}})
    assert r.status_code == 400, r.text
    assert r.json()["message"].startswith('Other in version "v9" cannot be handled as a Thing: '), r.text


def test_through_status_the_old_kind_is_kept(http: requests.Session, things: tuple[str, str]) -> None:
    """status_strategy.go `PrepareForUpdate` starts from a copy of the old object: another kind is accepted. The
    field manager found no type for it (`ObjectToTyped`), so `UpdateNoErrors` removed its managedFields, and the
    strategy kept the new object's (none): the object has none after, and none are tracked again."""
    _, base = things
    current = http.get(f"{base}/t").json()
    assert current["metadata"]["managedFields"], current
    body = {**current, "kind": "Other", "status": {"ok": True}}
    r = http.put(f"{base}/t/status", json=body)
    assert r.status_code == 200, r.text
    assert (r.json()["kind"], r.json()["status"]) == ("Thing", {"ok": True}), r.text
    assert "managedFields" not in r.json()["metadata"], r.text
    r = http.put(f"{base}/t/status", json={**r.json(), "status": {"ok": False}})
    assert r.status_code == 200 and "managedFields" not in r.json()["metadata"], r.text

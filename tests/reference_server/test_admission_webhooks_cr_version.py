"""A mutating webhook and a custom resource patched to name another version or kind (admission/webhooks/
crversioned.py): the dispatcher's `ConvertToGVK` sends it in the request's version and kind, converts a patched
object back to the version it names (its kind the webhook's), and refuses a version that is none of the CRD's
with the converter's error, an internal error wrapped twice. Before, the webhook was sent the object as patched."""
from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from tests.reference_server.ownserver import own_server

from .crds import CRDS, create_crd
from .test_admission_webhooks import Hook
from .webhookconfig import MUTATING, configure, unconfigure

server = own_server("A server of its own: its webhook configurations must not reach other modules' requests.")
JSON_PATCH = {"Content-Type": "application/json-patch+json"}
MERGE_PATCH = {"Content-Type": "application/merge-patch+json"}
SCHEMALESS = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}


class VersionHook(Hook):
    """The admission tests' `Hook`, `/noop` (a patch that changes nothing), and `/set-<field>=<value>` (a JSONPatch replacing the root `<field>`: `apiVersion`
    or `kind`, the value `{group}` standing for the CRD's group)."""

    group = ""

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if path == "/noop":
            ops: list[dict[str, Any]] = [{"op": "test", "path": "/kind", "value": "Thing"}]
        elif not path.startswith("/set-"):
            return super().answer(path, body)
        else:
            field, _, value = path.removeprefix("/set-").partition("=")
            ops = [{"op": "replace", "path": f"/{field}", "value": value.replace("GROUP", self.group)}]
        return 200, {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                     "response": {"uid": body["request"]["uid"], "allowed": True, "patchType": "JSONPatch",
                                  "patch": base64.b64encode(json.dumps(ops).encode()).decode()}}


@pytest.fixture(scope="module")
def hook() -> Iterator[VersionHook]:
    h = VersionHook()
    yield h
    h.stop()


@pytest.fixture
def thing(server: RunningServer, hook: Hook) -> Iterator[tuple[str, str]]:
    """A two-version CRD (v1 stored, v2 served), an object `t` made in v1, and a mutating webhook labelling
    every UPDATE of it; yields (the group, the object's v1 URL)."""
    yield from _thing(server, hook, "/label")


@pytest.fixture
def noop_thing(server: RunningServer, hook: Hook) -> Iterator[tuple[str, str]]:
    """`thing` with a webhook whose patch changes nothing (one `test` operation)."""
    yield from _thing(server, hook, "/noop")


def _thing(server: RunningServer, hook: Hook, path: str) -> Iterator[tuple[str, str]]:
    ns = f"whv-{uuid.uuid4().hex[:8]}"
    assert requests.post(f"{server.url}/api/v1/namespaces",
                         json={"metadata": {"name": ns, "labels": {"hooks": ns}}}).status_code == 201
    group = f"whv{uuid.uuid4().hex[:8]}.example.com"
    body = {"metadata": {"name": f"things.{group}"},
            "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "things", "kind": "Thing"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": SCHEMALESS},
                                  {"name": "v2", "served": True, "storage": False, "schema": SCHEMALESS}]}}
    assert create_crd(requests, server.url, body).status_code == 201
    base = f"{server.url}/apis/{group}/v1/namespaces/{ns}/things"
    assert requests.post(base, json={"apiVersion": f"{group}/v1", "kind": "Thing", "metadata": {"name": "t"},
                                     "spec": {"a": 1}}).status_code == 201
    cfg = configure(server, MUTATING, ns, None, f"{hook.url}{path}", hook.ca_bundle, ["things"],
                    api_groups=[group], operations=["UPDATE"])
    try:
        yield group, f"{base}/t"
    finally:
        unconfigure(server, MUTATING, cfg)
        requests.delete(f"{server.url}{CRDS}/things.{group}")
        requests.delete(f"{server.url}/api/v1/namespaces/{ns}")


def _sent(hook: Hook) -> dict[str, Any]:
    return hook.reviews[-1][1]["request"]["object"]


def test_the_webhook_is_sent_the_request_s_version_and_kind(thing: tuple[str, str], hook: Hook) -> None:
    """Another served version: sent as v1 (nop_converter.go), converted back to v2 after the patch, refused by
    the strategy. Another kind: sent as `Thing`; the webhook's patch brings the kind back with it
    (`crConverter.Convert` sets the versioned object's content): the update is made."""
    group, url = thing
    r = requests.patch(url, data=json.dumps({"apiVersion": f"{group}/v2"}), headers=MERGE_PATCH)
    assert hook.reviews, r.text
    assert (_sent(hook)["apiVersion"], _sent(hook)["kind"]) == (f"{group}/v1", "Thing")
    assert r.status_code == 422, r.text
    assert r.json()["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "apiVersion",
                                              "message": f'Invalid value: "{group}/v2": must be {group}/v1'}]
    r = requests.patch(url, data='[{"op":"replace","path":"/kind","value":"Other"}]', headers=JSON_PATCH)
    assert (_sent(hook)["apiVersion"], _sent(hook)["kind"]) == (f"{group}/v1", "Thing")
    assert r.status_code == 200, r.text
    assert (r.json()["kind"], r.json()["metadata"]["labels"]) == ("Thing", {"hooked": "yes"})


@pytest.mark.parametrize("api_version, why", [
    ("{group}/v9", "request to convert CR from an invalid group/version: {group}/v9"),
    ("v9", '/v9, Kind=Thing is unstructured and is not suitable for converting to "{group}/v1"'),
    ("other.example.com/v1", ('other.example.com/v1, Kind=Thing is unstructured and is not suitable for '
                              'converting to "{group}/v1"')),
    (None, '/, Kind=Thing is unstructured and is not suitable for converting to "{group}/v1"')])
def test_a_version_the_converter_refuses_is_an_internal_error(thing: tuple[str, str], hook: Hook,
                                                              api_version: str | None, why: str) -> None:
    group, url = thing
    calls = len(hook.reviews)
    patch = {"apiVersion": api_version.format(group=group) if api_version else None}
    r = requests.patch(url, data=json.dumps(patch), headers=MERGE_PATCH)
    inner = f"Internal error occurred: {why.format(group=group)}"
    assert r.status_code == 500, r.text
    assert (r.json()["message"], r.json()["details"]) == (f"Internal error occurred: {inner}",
                                                          {"causes": [{"message": inner}]}), r.text
    assert len(hook.reviews) == calls  # (refused before the call)


@pytest.mark.parametrize("field, value, status, why", [
    ("apiVersion", "GROUP/v2", 200, ""),
    ("kind", "Other", 422, 'kind: Invalid value: "Other": must be Thing'),
    ("apiVersion", "GROUP/v9", 500, "request to convert CR from an invalid group/version: GROUP/v9"),
    ("apiVersion", "other.example.com/v1", 500, ('other.example.com/v1, Kind=Thing is unstructured and is not '
                                                 'suitable for converting to "GROUP/v1"'))])
def test_a_webhook_s_patch_of_the_version_is_converted_back(server: RunningServer, thing: tuple[str, str],
                                                           hook: VersionHook, field: str, value: str, status: int,
                                                           why: str) -> None:
    """`Convert(VersionedObject, attr.GetObject())` after the webhooks: another of the CRD's versions is converted
    back to the request's (the update made), another kind kept (the strategy refuses it), a version that is none
    of the CRD's refused by the converter, its error returned bare (a 500 without reason or details)."""
    group, url = thing
    hook.group = group
    ns = url.split("/namespaces/")[1].split("/")[0]
    cfg = configure(server, MUTATING, ns, None, f"{hook.url}/set-{field}={value}", hook.ca_bundle, ["things"],
                    api_groups=[group], operations=["UPDATE"])
    try:
        r = requests.patch(url, data=json.dumps({"spec": {"b": 2}}), headers=MERGE_PATCH)
    finally:
        unconfigure(server, MUTATING, cfg)
    assert r.status_code == status, r.text
    if status == 200:
        assert (r.json()["apiVersion"], r.json()["kind"], r.json()["spec"]) == (f"{group}/v1", "Thing",
                                                                                {"a": 1, "b": 2}), r.text
    elif status == 422:
        assert r.json()["message"] == f'Other.{group} "t" is invalid: {why}', r.text
    else:
        assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": why.replace("GROUP", group), "code": 500}, r.text


def test_a_patch_that_changes_nothing_still_converts_back(noop_thing: tuple[str, str], hook: VersionHook) -> None:
    """`attr.Dirty` is any applied patch of at least one operation: the versioned object (kind `Thing`) is
    converted back even when the patch left it as it was, so another kind the request's patch wrote is gone."""
    _, url = noop_thing
    r = requests.patch(url, data='[{"op":"replace","path":"/kind","value":"Other"}]', headers=JSON_PATCH)
    assert r.status_code == 200 and r.json()["kind"] == "Thing", r.text

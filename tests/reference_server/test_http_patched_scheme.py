"""A JSON or merge patch of a built-in object whose result names another version or kind: what handlers/patch.go
`applyPatchToCurrentObject`'s `runtime.DecodeInto(p.codec, patchedObjJS, objToUpdate)` makes of it (http/patch.py
`refuse_patched_gvk`, wire/patchedgvk.py `read`, wire/legacyscheme.py).

`DecodeInto` gives the serializer no default kind: the version and kind read are defaulted from the `into`
object's own, the kind's internal version (json.go `gvkWithDefaults`). An unregistered version or kind is
`Scheme.New`'s error, another kind the versioning codec's `unknown conversion`, a group without a version
`NewMissingVersionErr`: each the 422 on `patch`, the patched bytes shown. Another registered version of the kind
decodes and converts (the object is updated). A removed `apiVersion` is the internal version: the JSON is read
into the internal object itself, whose fields have no JSON names but its embedded ObjectMeta's: Strict names the
others unknown (the 422), Warn warns of them; without a top-level `name` `checkName` refuses the object (400),
with one it is updated with its ObjectMeta alone. Before: the object kept its own version and kind, and was
stored.
"""
from __future__ import annotations

import json

import pytest
import requests

from .conftest import NamespaceFactory

JSON_PATCH = {"Content-Type": "application/json-patch+json"}
MERGE_PATCH = {"Content-Type": "application/merge-patch+json"}
SCHEME = "pkg/api/legacyscheme/scheme.go:30"


def _invalid(shown: str, why: str) -> dict:
    """`NewInvalid(schema.GroupKind{}, "", field.Invalid(field.NewPath("patch"), shown, why))` as answered."""
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": f' "" is invalid: patch: Invalid value: {json.dumps(shown)}: {why}', "reason": "Invalid",
            "details": {"causes": [{"reason": "FieldValueInvalid", "message": f"Invalid value: {json.dumps(shown)}: "
                                    f"{why}", "field": "patch"}]}, "code": 422}


@pytest.fixture
def cm(http: requests.Session, url: str, namespaces: NamespaceFactory) -> tuple[str, dict]:
    ns = namespaces.create("pscheme")["metadata"]["name"]
    r = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "c"}, "data": {"k": "v"}})
    assert r.status_code == 201
    return f"{url}/api/v1/namespaces/{ns}/configmaps/c", r.json()


def _shown(current: dict, **top: str) -> str:
    """The patched JSON as evanphx writes it: the ConfigMap's top-level keys sorted."""
    doc = {**{k: v for k, v in current.items()}, **top}
    return json.dumps({k: doc[k] for k in sorted(doc) if doc[k] is not None}, separators=(",", ":"))


@pytest.mark.parametrize("patch,headers,top,why", [
    ('{"apiVersion":"v9"}', MERGE_PATCH, {"apiVersion": "v9"},
     f'no kind "ConfigMap" is registered for version "v9" in scheme "{SCHEME}"'),
    ('[{"op":"replace","path":"/kind","value":"Secret"}]', JSON_PATCH, {"kind": "Secret"},
     "converting (v1.Secret) to (core.ConfigMap): unknown conversion"),
    ('{"apiVersion":"apps/v1","kind":"Deployment"}', MERGE_PATCH, {"apiVersion": "apps/v1", "kind": "Deployment"},
     "converting (v1.Deployment) to (core.ConfigMap): unknown conversion"),
    ('{"kind":"Nope"}', MERGE_PATCH, {"kind": "Nope"},
     f'no kind "Nope" is registered for version "v1" in scheme "{SCHEME}"'),
])
def test_an_unregistered_version_or_another_kind_is_the_422(http, cm, patch, headers, top, why):
    base, current = cm
    r = http.patch(base, data=patch, headers=headers)
    assert (r.status_code, r.json()) == (422, _invalid(_shown(current, **top), why))
    assert http.get(base).json() == current


def test_a_group_without_a_version_is_missing_its_version(http, cm):
    base, current = cm
    r = http.patch(base, data='{"apiVersion":"apps/"}', headers=MERGE_PATCH)
    shown = _shown(current, apiVersion="apps/")
    assert (r.status_code, r.json()) == (422, _invalid(shown, f"Object 'apiVersion' is missing in '{shown}'"))


def test_a_removed_api_version_is_read_into_the_internal_object(http, cm):
    base, current = cm
    name = current["metadata"]["name"]
    for patch, headers in (('{"apiVersion":null}', MERGE_PATCH), ('[{"op":"remove","path":"/apiVersion"}]', JSON_PATCH),
                           ('{"apiVersion":"__internal"}', MERGE_PATCH)):
        r = http.patch(base, data=patch, headers=headers)
        assert r.status_code == 400, r.text
        assert r.json()["message"] == f"the name of the object ({name} based on URL) was undeterminable: name must " \
                                      "be provided"
    r = http.patch(f"{base}?fieldValidation=Strict", data='{"apiVersion":null}', headers=MERGE_PATCH)
    shown = _shown(current, apiVersion=None)
    assert (r.status_code, r.json()) == (422, _invalid(shown, 'strict decoding error: unknown field "data", unknown '
                                                      'field "metadata"'))
    assert http.get(base).json() == current


def test_a_removed_api_version_warns_of_the_internal_objects_unknown_fields(http, cm):
    """Under Warn (the default) the strict decoder's unknown fields are warnings (rest.go
    `addStrictDecodingWarnings`), recorded before `checkName` refuses the object: sent with its 400."""
    base, _ = cm
    warned = '299 - "unknown field \\"data\\"", 299 - "unknown field \\"metadata\\""'
    for query in ("", "?fieldValidation=Warn"):
        r = http.patch(f"{base}{query}", data='{"apiVersion":null}', headers=MERGE_PATCH)
        assert (r.status_code, r.headers.get("Warning")) == (400, warned)
    r = http.patch(f"{base}?fieldValidation=Ignore", data='{"apiVersion":null}', headers=MERGE_PATCH)
    assert (r.status_code, r.headers.get("Warning")) == (400, None)


def test_a_removed_api_version_reads_the_object_meta_fields_at_the_top_level(http, cm):
    """The internal type embeds `metav1.ObjectMeta` untagged, so its fields' JSON names at the top level are read
    (`name`, `labels`) and every other field is unknown: the object is updated with its ObjectMeta alone (its
    `data` lost, its uid and creation time the stored ones), or refused by `checkName` for another name."""
    base, current = cm
    patch = '{"apiVersion":null,"name":"c","labels":{"x":"y"}}'
    r = http.patch(f"{base}?fieldValidation=Strict", data=patch, headers=MERGE_PATCH)
    assert r.status_code == 422
    assert r.json()["details"]["causes"][0]["message"].endswith(
        ': strict decoding error: unknown field "data", unknown field "metadata"')
    r = http.patch(f"{base}?fieldValidation=Strict", data='{"apiVersion":null,"name":"d"}', headers=MERGE_PATCH)
    assert r.status_code == 422  # (Strict first: `DecodeInto`'s error)
    r = http.patch(base, data='{"apiVersion":null,"name":"d"}', headers=MERGE_PATCH)
    message = "the name of the object (d) does not match the name on the URL (c)"
    assert (r.status_code, r.json()["message"]) == (400, message)
    r = http.patch(base, data=patch, headers=MERGE_PATCH)
    assert r.status_code == 200, r.text
    assert r.headers["Warning"] == '299 - "unknown field \\"data\\"", 299 - "unknown field \\"metadata\\""'
    out = r.json()
    assert "data" not in out and out["metadata"]["labels"] == {"x": "y"}
    assert [out["metadata"][k] for k in ("name", "namespace", "uid", "creationTimestamp")] == \
        [current["metadata"][k] for k in ("name", "namespace", "uid", "creationTimestamp")]
    assert http.get(base).json() == out


def test_another_registered_version_of_the_kind_converts(http, url, namespaces):
    """apps/v1beta2 is registered (not served): the patched Deployment decodes as one and converts; the object
    is stored (and answered) as apps/v1."""
    ns = namespaces.create("pscheme")["metadata"]["name"]
    base = f"{url}/apis/apps/v1/namespaces/{ns}/deployments"
    body = {"metadata": {"name": "d"}, "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
        "metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    assert http.post(base, json=body).status_code == 201
    r = http.patch(f"{base}/d", data='{"apiVersion":"apps/v1beta2","spec":{"replicas":3}}', headers=MERGE_PATCH)
    assert r.status_code == 200, r.text
    assert (r.json()["apiVersion"], r.json()["spec"]["replicas"]) == ("apps/v1", 3)
    r = http.patch(f"{base}/d", data='{"apiVersion":"apps/v2"}', headers=MERGE_PATCH)
    assert r.status_code == 422 and r.json()["details"]["causes"][0]["message"].endswith(
        f': no kind "Deployment" is registered for version "apps/v2" in scheme "{SCHEME}"')

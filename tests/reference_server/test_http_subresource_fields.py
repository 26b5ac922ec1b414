"""`fieldValidation` of the bodies decoded outside the generic create/update handlers (http/subbody.py): upstream's
create.go / update.go decode pods/eviction, pods/binding, bindings, */scale, serviceaccounts/token and the reviews
with the strict serializer under Strict (400 through `transformDecodeError`) and Warn (warnings, the default)."""
from __future__ import annotations

import pytest

from .conftest import status_of
from .test_http_duplicate_fields import JSON_BODY, STRICT, warnings_of

POD = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
DEPLOYMENT = {"metadata": {"name": "d"}, "spec": {"replicas": 1, "selector": {"matchLabels": {"a": "b"}}, "template": {
    "metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
MERGE = {"Content-Type": "application/merge-patch+json"}


def _pod(http, url, namespaces) -> tuple[str, str]:
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/pods"
    assert http.post(base, json=POD).status_code == 201
    return ns, f"{base}/p"


def test_eviction_strict_warn_ignore(http, url, namespaces):
    """Upstream's 400 names the Eviction in the body's version; Warn (the default)
    evicts and warns; a repeated key is named as for any create."""
    _ns, pod = _pod(http, url, namespaces)
    body = '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"},"bogus":1}'
    st = status_of(http.post(f"{pod}/eviction", params=STRICT, data=body, headers=JSON_BODY))
    assert st["code"] == 400 and st["reason"] == "BadRequest"
    assert st["message"] == ('Eviction in version "v1" cannot be handled as a Eviction: strict decoding error: '
                             'unknown field "bogus"')
    repeated = ('{"apiVersion":"policy/v1beta1","kind":"Eviction","metadata":{"name":"p","name":"p"},'
                '"deleteOptions":{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0,"bogus":1}}')
    st = status_of(http.post(f"{pod}/eviction", params=STRICT, data=repeated, headers=JSON_BODY))
    assert st["message"] == ('Eviction in version "v1beta1" cannot be handled as a Eviction: strict decoding error: '
                             'duplicate field "metadata.name", unknown field "deleteOptions.bogus"')
    assert http.get(pod).status_code == 200  # nothing evicted
    r = http.post(f"{pod}/eviction", data=body, headers=JSON_BODY)
    assert r.status_code == 201, r.text
    assert warnings_of(r) == ['unknown field "bogus"']
    assert http.get(pod).status_code == 404


def test_eviction_ignore_has_no_warning(http, url, namespaces):
    _ns, pod = _pod(http, url, namespaces)
    r = http.post(f"{pod}/eviction", params={"fieldValidation": "Ignore"}, headers=JSON_BODY,
                  data='{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"},"bogus":1}')
    assert r.status_code == 201 and "Warning" not in r.headers


@pytest.mark.parametrize("legacy", [False, True])
def test_binding_strict_and_warn(http, url, namespaces, legacy):
    ns, pod = _pod(http, url, namespaces)
    path = f"{url}/api/v1/namespaces/{ns}/bindings" if legacy else f"{pod}/binding"
    body = '{"metadata":{"name":"p"},"target":{"kind":"Node","name":"n1","bogus":1},"extra":true}'
    st = status_of(http.post(path, params=STRICT, data=body, headers=JSON_BODY))
    assert st["code"] == 400
    assert st["message"] == ('Binding in version "v1" cannot be handled as a Binding: strict decoding error: '
                             'unknown field "target.bogus", unknown field "extra"')  # in the body's order
    r = http.post(path, data=body, headers=JSON_BODY)
    assert r.status_code == 201, r.text
    assert warnings_of(r) == ['unknown field "target.bogus"', 'unknown field "extra"']
    assert http.get(pod).json()["spec"]["nodeName"] == "n1"


def test_binding_repeated_keys(http, url, namespaces):
    """A Binding (outside the field model's kinds) read as its Go type: a repeated struct decoded into the first."""
    _ns, pod = _pod(http, url, namespaces)
    body = '{"metadata":{"name":"p"},"target":{"kind":"Node","name":"n1"},"target":{"name":"n2"}}'
    st = status_of(http.post(f"{pod}/binding", params=STRICT, data=body, headers=JSON_BODY))
    assert st["message"] == ('Binding in version "v1" cannot be handled as a Binding: strict decoding error: '
                             'duplicate field "target"')
    r = http.post(f"{pod}/binding", data=body, headers=JSON_BODY)
    assert r.status_code == 201 and warnings_of(r) == ['duplicate field "target"']
    assert http.get(pod).json()["spec"]["nodeName"] == "n2"


def test_scale_put_and_patch(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/apps/v1/namespaces/{ns}/deployments"
    assert http.post(base, json=DEPLOYMENT).status_code == 201
    scale = f"{base}/d/scale"
    body = '{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"d"},"spec":{"replicas":2,"bogus":1}}'
    st = status_of(http.put(scale, params=STRICT, data=body, headers=JSON_BODY))
    assert st["code"] == 400
    assert st["message"] == ('Scale in version "v1" cannot be handled as a Scale: strict decoding error: '
                             'unknown field "spec.bogus"')
    r = http.put(scale, data=body, headers=JSON_BODY)
    assert r.status_code == 200, r.text
    assert warnings_of(r) == ['unknown field "spec.bogus"'] and r.json()["spec"]["replicas"] == 2
    # a patch: the patched Scale decoded strictly (patch.go), a 422 on `patch`; Warn: warned, written
    st = status_of(http.patch(scale, params=STRICT, data='{"spec":{"replicas":3},"bogus":1}', headers=MERGE))
    assert st["code"] == 422 and st["reason"] == "Invalid"
    assert st["message"].endswith('strict decoding error: unknown field "bogus"'), st["message"]
    # shown as evanphx/json-patch's `MergePatch` wrote the patched Scale: its top-level keys sorted
    assert st["message"].startswith(' "" is invalid: patch: Invalid value: "{\\"apiVersion\\":\\"autoscaling/v1\\",'
                                    '\\"bogus\\":1,\\"kind\\":\\"Scale\\",\\"metadata\\":{'), st["message"]
    r = http.patch(scale, data='{"spec":{"replicas":3,"bogus":1}}', headers=MERGE)
    assert r.status_code == 200 and warnings_of(r) == ['unknown field "spec.bogus"']
    assert r.json()["spec"]["replicas"] == 3


def test_token_request_and_reviews(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    assert http.post(f"{url}/api/v1/namespaces/{ns}/serviceaccounts", json={"metadata": {"name": "bot"}}
                     ).status_code == 201
    token = f"{url}/api/v1/namespaces/{ns}/serviceaccounts/bot/token"
    body = '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"audiences":["a"],"bogus":1}}'
    st = status_of(http.post(token, params=STRICT, data=body, headers=JSON_BODY))
    assert st["message"] == ('TokenRequest in version "v1" cannot be handled as a TokenRequest: strict decoding '
                             'error: unknown field "spec.bogus"')
    r = http.post(token, data=body, headers=JSON_BODY)
    assert r.status_code == 201 and warnings_of(r) == ['unknown field "spec.bogus"']
    review = ('{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"x","token":"y"},'
              '"bogus":1}')
    st = status_of(http.post(f"{url}/apis/authentication.k8s.io/v1/tokenreviews", params=STRICT, data=review,
                             headers=JSON_BODY))
    assert st["message"] == ('TokenReview in version "v1" cannot be handled as a TokenReview: strict decoding '
                             'error: duplicate field "spec.token", unknown field "bogus"')
    sar = ('{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"u",'
           '"resourceAttributes":{"verb":"get","resource":"pods","bogus":1}}}')
    path = f"{url}/apis/authorization.k8s.io/v1/subjectaccessreviews"
    st = status_of(http.post(path, params=STRICT, data=sar, headers=JSON_BODY))
    assert st["message"] == ('SubjectAccessReview in version "v1" cannot be handled as a SubjectAccessReview: '
                             'strict decoding error: unknown field "spec.resourceAttributes.bogus"')
    r = http.post(path, data=sar, headers=JSON_BODY)
    assert r.status_code == 201 and warnings_of(r) == ['unknown field "spec.resourceAttributes.bogus"']


@pytest.mark.parametrize("mode", ["Ignore", "Strict", "Warn"])
@pytest.mark.parametrize("patch", ["null", '"x"', "3", "true"])
def test_merge_patch_null_or_scalar(http, url, namespaces, mode, patch):
    """evanphx/json-patch v4 `MergePatch`: `null` and a scalar are `ErrBadJSONPatch`, a 400 with its text; under
    Strict and Warn a scalar is refused first by the strict read into a map (patch.go `applyJSPatch`)."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    assert http.post(base, json={"metadata": {"name": "c"}}).status_code == 201
    st = status_of(http.patch(f"{base}/c", params={"fieldValidation": mode}, data=patch, headers=MERGE))
    assert st["code"] == 400 and st["reason"] == "BadRequest"
    if mode == "Ignore" or patch == "null":
        assert st["message"] == "Invalid JSON Patch"
    else:
        kind = {"3": "number", "true": "bool"}.get(patch, "string")
        assert st["message"] == (f"error decoding patch: json: cannot unmarshal {kind} into Go value of type "
                                 "map[string]interface {}")


def test_merge_patch_array_under_ignore(http, url, namespaces):
    """An array is the patched document (its objects' nulls pruned), which no kind decodes: the 422 on `patch`
    with the JSON serializer's words (`SimpleMetaFactory.Interpret`)."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    assert http.post(base, json={"metadata": {"name": "c"}}).status_code == 201
    st = status_of(http.patch(f"{base}/c", params={"fieldValidation": "Ignore"}, headers=MERGE,
                              data='[1, null, {"b": null, "z": [{"y": null}], "a": 2}]'))
    assert st["code"] == 422 and st["reason"] == "Invalid"
    assert st["message"] == (
        ' "" is invalid: patch: Invalid value: "[1,null,{\\"a\\":2,\\"z\\":[{}]}]": couldn\'t get version/kind; '
        'json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string '
        '"json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }')
    st = status_of(http.patch(f"{base}/c", params={"fieldValidation": "Strict"}, headers=MERGE, data="[1]"))
    assert st["code"] == 400 and st["message"] == ("error decoding patch: json: cannot unmarshal array into Go "
                                                   "value of type map[string]interface {}")


def test_merge_patch_array_is_shown_as_merge_patch_wrote_it(http, url, namespaces):
    """evanphx/json-patch v4.12.0 `doMergePatch` reads the array into lazy nodes and writes it with `json.Marshal`:
    a string's or number's node keeps its bytes as sent (`\\u00e9`, `\\/`, `1.50`), compacted by encoding/json
    (`<`, `>`, `&` escaped, `é` as sent); an object, read by `pruneNulls`, has its keys written as encoding/json
    writes a string (`"k>"` as `"k\\u003e"`). handlers/patch.go shows those bytes with `%q`."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    assert http.post(base, json={"metadata": {"name": "c"}}).status_code == 201
    st = status_of(http.patch(f"{base}/c", params={"fieldValidation": "Ignore"}, headers=MERGE,
                              data='["\\u00e9<", {"b":null,"k>":"x\\/y & \u00e9"}, 1.50]'.encode()))
    assert st["code"] == 422, st
    assert st["details"]["causes"][0]["message"].startswith(
        'Invalid value: "[\\"\\\\u00e9\\\\u003c\\",{\\"k\\\\u003e\\":\\"x\\\\/y \\\\u0026 \u00e9\\"},1.50]": ')


def test_merge_patch_prunes_nulls_inside_new_lists(http, url, namespaces):
    """evanphx/json-patch v4 `mergeDocs` prunes the nulls of a value's objects where the target held no object
    (a list's items included): a custom resource keeps `[{}]`, not `[{"a": null}]`; where it held an object, a
    value that is no object replaces it as sent."""
    from .crds import create_crd, delete_crd, schemaless_crd
    assert create_crd(http, url, schemaless_crd("nulls.example.com", "nullthings", "NullThing")).status_code in (201,
                                                                                                              409)
    try:
        _patch_nulls(http, url, namespaces)
    finally:
        delete_crd(http, url, "nullthings.nulls.example.com")


def _patch_nulls(http, url, namespaces) -> None:
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/nulls.example.com/v1/namespaces/{ns}/nullthings"
    assert http.post(base, json={"apiVersion": "nulls.example.com/v1", "kind": "NullThing", "metadata": {"name": "n"},
                                 "o": {"k": 1}, "s": "x"}).status_code == 201
    r = http.patch(f"{base}/n", headers=MERGE, data='{"l":[{"a":null,"b":[{"c":null}]},null],"s":[{"d":null}],'
                                                    '"o":[{"e":null}]}')
    assert r.status_code == 200, r.text
    obj = r.json()
    assert obj["l"] == [{"b": [{}]}, None] and obj["s"] == [{}] and obj["o"] == [{"e": None}]


def test_kubectl_sees_the_warnings_and_no_false_ones(http, url, namespaces, tmp_path):
    """kubectl 1.33 prints an Eviction's unknown field as the server's warning (`create --raw`), and its own
    bodies (`create token`, `auth can-i`, `auth whoami`) draw none."""
    from .kubectl_run import run_kubectl
    ns, pod = _pod(http, url, namespaces)
    manifest = tmp_path / "eviction.json"
    manifest.write_text('{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"},"bogus":1}')
    proc = run_kubectl(url, tmp_path, "create", "--raw", f"/api/v1/namespaces/{ns}/pods/p/eviction", "-f",
                       str(manifest))
    assert proc.returncode == 0, proc.stderr
    assert 'Warning: unknown field "bogus"' in proc.stderr, proc.stderr
    assert http.get(pod).status_code == 404
    assert http.post(f"{url}/api/v1/namespaces/{ns}/serviceaccounts", json={"metadata": {"name": "bot"}}
                     ).status_code == 201
    for args in (("create", "token", "bot", "-n", ns), ("auth", "can-i", "get", "pods", "-n", ns),
                 ("auth", "whoami")):
        proc = run_kubectl(url, tmp_path, *args)
        assert proc.returncode == 0, (args, proc.stderr)
        assert "Warning" not in proc.stderr, (args, proc.stderr)

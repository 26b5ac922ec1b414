"""A strategic-merge patch's result and a server-side apply's merged object are decoded by upstream's
unstructured converter (wire/goconvert.py: `runtime/converter.go` `fromUnstructured`), not by `encoding/json`:
kubectl and the official `kubernetes` client see its words (`unrecognized type: int32`, `cannot convert int64 to
string`) in the strategic patch's 422, its 500 `failed to convert new object ...` for an apply whose configuration
typed in structured-merge-diff (a Quantity given a boolean), and Go's conversions where it converts (an integer
out of its field's range wraps, `2.0` is 2)."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import status_of
from .kubectl_run import run_kubectl

QUANTITY_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
STRATEGIC = {"Content-Type": "application/strategic-merge-patch+json"}
APPLY = {"Content-Type": "application/apply-patch+yaml"}


def _deployment(name: str) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name}, "spec": {
        "selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {
            "containers": [{"name": "c", "image": "i"}]}}}}


@pytest.fixture
def ns(namespaces: Any) -> str:
    return namespaces.create()["metadata"]["name"]


@pytest.fixture
def api(url: str) -> Iterator[Any]:
    """The official client's module, its typed APIs bound to the test server (`api.AppsV1Api()`)."""
    from types import SimpleNamespace

    from kubernetes import client
    with client.ApiClient(client.Configuration(host=url)) as api_client:
        yield SimpleNamespace(ApiException=client.ApiException, AppsV1Api=lambda: client.AppsV1Api(api_client),
                              CoreV1Api=lambda: client.CoreV1Api(api_client))


def test_a_strategic_patch_of_the_wrong_kind_is_refused_in_the_converters_words(http: Any, url: str, ns: str,
                                                                                 api: Any) -> None:
    path = f"{url}/apis/apps/v1/namespaces/{ns}/deployments"
    assert http.post(path, json=_deployment("d")).status_code == 201
    cases = [({"spec": {"replicas": "3"}}, "map[spec:map[replicas:3]]", "unrecognized type: int32"),
             ({"metadata": {"labels": {"v": 1}}}, "map[metadata:map[labels:map[v:1]]]",
              "cannot convert int64 to string"),
             ({"spec": {"template": {"spec": {"restartPolicy": 1}}}},
              "map[spec:map[template:map[spec:map[restartPolicy:1]]]]", "cannot convert int64 to v1.RestartPolicy"),
             ({"spec": {"paused": "yes"}}, "map[spec:map[paused:yes]]", "unrecognized type: bool"),
             ({"spec": {"strategy": "x"}}, "map[spec:map[strategy:x]]", "cannot restore struct from: string")]
    apps = api.AppsV1Api()
    for patch, shown, error in cases:
        with pytest.raises(api.ApiException) as exc:
            apps.patch_namespaced_deployment("d", ns, patch)  # a dict: the client sends a strategic merge patch
        st = json.loads(exc.value.body)
        assert (exc.value.status, st["reason"]) == (422, "Invalid"), st
        assert st["message"] == f' "" is invalid: patch: Invalid value: "{shown}": {error}', st
        assert st["details"]["causes"] == [{"reason": "FieldValueInvalid", "message": f'Invalid value: "{shown}": '
                                            f"{error}", "field": "patch"}], st
    done = apps.patch_namespaced_deployment("d", ns, {"spec": {"replicas": 4294967298, "minReadySeconds": 5.0}})
    assert (done.spec.replicas, done.spec.min_ready_seconds) == (2, 5)  # Go's conversion: the low 32 bits; 5.0 is 5
    r = http.patch(f"{path}/d", data=json.dumps({"spec": {"replicas": 1.5}}), headers=STRATEGIC)
    assert status_of(r)["message"].endswith(': "map[spec:map[replicas:1.5]]": cannot convert float64 to int32'), r.text
    r = http.patch(f"{path}/d", data=json.dumps({"spec": {"replicas": "3"}}),
                   headers={"Content-Type": "application/merge-patch+json"})  # the Go decoder's words, unchanged
    assert status_of(r)["message"].endswith("json: cannot unmarshal string into Go struct field "
                                            "DeploymentSpec.spec.replicas of type int32"), r.text


def test_kubectl_patch_sees_the_converters_words(url: str, ns: str, tmp_path: Path, http: Any) -> None:
    assert http.post(f"{url}/api/v1/namespaces/{ns}/configmaps",
                     json={"metadata": {"name": "c"}, "data": {"k": "v"}}).status_code == 201
    proc = run_kubectl(url, tmp_path, "patch", "-n", ns, "configmap", "c", "--type", "strategic",
                       "-p", '{"data":{"k":5}}')
    assert proc.returncode != 0
    assert 'patch: Invalid value: "map[data:map[k:5]]": cannot convert int64 to string' in proc.stderr, proc.stderr
    secret = {"metadata": {"name": "s"}, "data": {"k": "djE="}}
    assert http.post(f"{url}/api/v1/namespaces/{ns}/secrets", json=secret).status_code == 201
    proc = run_kubectl(url, tmp_path, "patch", "-n", ns, "secret", "s", "-p", '{"data":{"k":"QUJD\\nRA="}}')
    assert proc.returncode != 0
    assert "error decoding from json: illegal base64 data at input byte 8" in proc.stderr, proc.stderr


def test_an_apply_that_types_but_does_not_convert_is_upstreams_500(http: Any, url: str, ns: str, api: Any) -> None:
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"}, "spec": {"hard": {"cpu": True}}}
    core = api.CoreV1Api()
    with pytest.raises(api.ApiException) as exc:  # the configuration as JSON, which YAML reads
        core.patch_namespaced_resource_quota("q", ns, quota, field_manager="m",
                                             _content_type="application/apply-patch+yaml")
    st = json.loads(exc.value.body)
    assert exc.value.status == 500 and "reason" not in st, st
    assert st["message"] == ("failed to convert new object (/q; /v1, Kind=ResourceQuota) to proper version: unable "
                             f"to convert unstructured object to /v1, Kind=ResourceQuota: {QUANTITY_ERROR}"), st
    assert http.get(f"{url}/api/v1/namespaces/{ns}/resourcequotas/q").status_code == 404
    bad_time = (f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c, namespace: {ns}, "
                "creationTimestamp: yesterday}\n")
    st = status_of(http.patch(f"{url}/api/v1/namespaces/{ns}/configmaps/c", data=bad_time, headers=APPLY,
                              params={"fieldManager": "m"}))
    assert st["code"] == 500 and st["message"] == (
        f"failed to convert new object ({ns}/c; /v1, Kind=ConfigMap) to proper version: unable to convert "
        'unstructured object to /v1, Kind=ConfigMap: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": '
        'cannot parse "yesterday" as "2006"'), st


def test_kubectl_apply_server_side_sees_the_500(url: str, ns: str, tmp_path: Path) -> None:
    manifest = tmp_path / "q.yaml"
    manifest.write_text(f"apiVersion: v1\nkind: ResourceQuota\nmetadata: {{name: q, namespace: {ns}}}\n"
                        "spec: {hard: {pods: true}}\n")
    proc = run_kubectl(url, tmp_path, "apply", "--server-side", "-f", str(manifest))
    assert proc.returncode != 0
    assert (f"failed to convert new object ({ns}/q; /v1, Kind=ResourceQuota) to proper version: unable to convert "
            f"unstructured object to /v1, Kind=ResourceQuota: {QUANTITY_ERROR}") in proc.stderr, proc.stderr


def test_an_apply_out_of_range_wraps_as_go_converts(url: str, ns: str, tmp_path: Path, http: Any) -> None:
    manifest = tmp_path / "d.yaml"
    d = _deployment("d")
    d["spec"]["replicas"] = 4294967299
    d["spec"]["template"]["spec"]["containers"][0]["ports"] = [{"containerPort": 4294967376}]
    manifest.write_text(json.dumps(d))
    proc = run_kubectl(url, tmp_path, "apply", "--server-side", "-n", ns, "-f", str(manifest))
    assert proc.returncode == 0, proc.stderr
    got = http.get(f"{url}/apis/apps/v1/namespaces/{ns}/deployments/d").json()
    assert got["spec"]["replicas"] == 3, got["spec"]  # 2**32 + 3: the low 32 bits
    assert got["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] == 80
    apply = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 2.0}\n"
    r = http.patch(f"{url}/apis/apps/v1/namespaces/{ns}/deployments/d", data=apply, headers=APPLY,
                   params={"fieldManager": "other", "force": "true"})
    assert r.status_code == 200 and r.json()["spec"]["replicas"] == 2, r.text
    quota = "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q}\nspec: {hard: {pods: 5.0, cpu: 1.5}}\n"
    r = http.patch(f"{url}/api/v1/namespaces/{ns}/resourcequotas/q", data=quota, headers=APPLY,
                   params={"fieldManager": "m"})
    assert r.status_code == 201 and r.json()["spec"]["hard"] == {"cpu": "1500m", "pods": "5"}, r.text


def test_an_apply_through_scale_converts_the_scale(http: Any, url: str, ns: str) -> None:
    """The Scale's own field manager merges the configuration, whose result converts into autoscaling/v1's Scale:
    the deployment never holds a replicas count Go could not."""
    path = f"{url}/apis/apps/v1/namespaces/{ns}/deployments"
    assert http.post(path, json=_deployment("d")).status_code == 201
    scale = "apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {{name: d}}\nspec: {{replicas: {}}}\n"
    r = http.patch(f"{path}/d/scale", data=scale.format(4294967299), headers=APPLY,
                   params={"fieldManager": "m", "force": "true"})
    assert r.status_code == 200 and r.json()["spec"]["replicas"] == 3, r.text
    st = status_of(http.patch(f"{path}/d/scale", data=scale.format(2.5), headers=APPLY,
                              params={"fieldManager": "m", "force": "true"}))
    assert st["code"] == 500 and st["message"] == (
        "failed to convert new object (/d; autoscaling/v1, Kind=Scale) to proper version: unable to convert "
        "unstructured object to autoscaling/v1, Kind=Scale: cannot convert float64 to int32"), st
    assert http.get(f"{path}/d").json()["spec"]["replicas"] == 3
    st = status_of(http.patch(f"{path}/d/scale", data=scale.format(".nan"), headers=APPLY,
                              params={"fieldManager": "m", "force": "true"}))  # applyPatcher's words
    assert (st["code"], st["message"]) == (
        400, "error decoding YAML: error converting YAML to JSON: json: unsupported value: NaN"), st


def test_non_finite_numbers_are_not_json(http: Any, url: str, ns: str) -> None:
    """`NaN` and `Infinity` are Python's JSON, not Go's (a syntax error), and YAML's `.nan` or `.inf` is what
    sigs.k8s.io/yaml cannot turn into JSON: none reaches a decoder or the converter."""
    path = f"{url}/api/v1/namespaces/{ns}/services"
    r = http.post(path, data='{"metadata":{"name":"s"},"spec":{"ports":[{"port":80,"targetPort":NaN}]}}',
                  headers={"Content-Type": "application/json"})
    st = status_of(r)
    assert st["code"] == 400 and "json parse error: invalid character 'N' looking for beginning of value" in \
        st["message"], st
    assert http.post(path, json={"metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}}).status_code == 201
    cases = (("-Infinity", "invalid character 'I' in numeric literal"),
             ("Infinity", "invalid character 'I' looking for beginning of value"))
    for literal, word in cases:
        body = '{"spec":{"ports":[{"port":80,"targetPort":LITERAL}]}}'.replace("LITERAL", literal)
        st = status_of(http.patch(f"{path}/s", data=body, headers=STRATEGIC))
        assert st["code"] == 400 and st["message"].endswith(word), st
    st = status_of(http.post(path, data="metadata: {name: t}\nspec: {ports: [{port: 80, targetPort: .inf}]}\n",
                             headers={"Content-Type": "application/yaml"}))
    assert st["code"] == 400 and st["message"].startswith(
        "the object provided is unrecognized (must be of type Service): json: unsupported value: +Inf ("), st
    for value, word in ((".nan", "NaN"), ("-.inf", "-Inf")):
        config = f"apiVersion: v1\nkind: Service\nmetadata: {{name: s}}\nspec: {{ports: [{{port: 80, targetPort: {value}}}]}}\n"
        st = status_of(http.patch(f"{path}/s", data=config, headers=APPLY, params={"fieldManager": "m"}))
        assert (st["code"], st["message"]) == (
            400, f"error decoding YAML: error converting YAML to JSON: json: unsupported value: {word}"), st


def test_yaml_reads_as_go_yaml(http: Any, url: str, ns: str) -> None:
    """A YAML body and an applied configuration read as sigs.k8s.io/yaml reads them (wire/goyaml.py): an unquoted
    date stays a string (it was a date Python could not write: a 500), `1e3` is a number, `y` a boolean."""
    path = f"{url}/api/v1/namespaces/{ns}/configmaps"
    r = http.post(path, data="metadata: {name: a}\ndata: {when: 2001-12-14}\n",
                  headers={"Content-Type": "application/yaml"})
    assert r.status_code == 201 and r.json()["data"] == {"when": "2001-12-14"}, r.text
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {when: 2001-12-14T21:59:43.10-05:00}\n"
    r = http.patch(f"{path}/b", data=config, headers=APPLY, params={"fieldManager": "m"})
    assert r.status_code == 201 and r.json()["data"] == {"when": "2001-12-14T21:59:43.10-05:00"}, r.text
    st = status_of(http.patch(f"{path}/c", data="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {x: y}\n",
                              headers=APPLY, params={"fieldManager": "m"}))
    typed = ("failed to create typed patch object (/c; /v1, Kind=ConfigMap): .data.x: expected string, got "
             "&value.valueUnstructured{Value:true}")
    assert (st["code"], st["message"]) == (500, typed), st
    deployment = json.dumps(_deployment("d")).replace('"spec": {"selector"', '"spec": {"replicas": 1e3, "selector"')
    r = http.post(f"{url}/apis/apps/v1/namespaces/{ns}/deployments", data=deployment,
                  headers={"Content-Type": "application/yaml"})
    assert r.status_code == 201 and r.json()["spec"]["replicas"] == 1000, r.text


def test_an_empty_time_is_refused_as_time_parse_refuses_it(http: Any, url: str, ns: str) -> None:
    """`metav1.Time.UnmarshalJSON` reads only `null` as the zero time; `""` reaches `time.Parse(time.RFC3339, "")`
    (only `UnmarshalQueryParameter` reads "" as zero)."""
    body = {"metadata": {"name": "e", "creationTimestamp": ""}, "data": {}}
    st = status_of(http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json=body))
    assert st["code"] == 400 and st["message"].endswith(
        'parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006"'), st
    body["metadata"]["creationTimestamp"] = None
    assert http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json=body).status_code == 201

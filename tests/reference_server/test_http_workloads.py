"""The storage-only named-group kinds (apps, batch, networking, policy, coordination, discovery): served,
defaulted, validated with upstream's texts, and removed with their namespace."""
from __future__ import annotations

import copy

import pytest

from .conftest import status_of, wait_gone

DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
    "selector": {"matchLabels": {"app": "web"}},
    "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
POD_TEMPLATE = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}
BODIES = {
    ("apps", "deployments"): DEPLOYMENT["spec"],
    ("apps", "replicasets"): DEPLOYMENT["spec"],
    ("apps", "statefulsets"): DEPLOYMENT["spec"],
    ("apps", "daemonsets"): DEPLOYMENT["spec"],
    ("batch", "jobs"): {"template": POD_TEMPLATE},
    ("batch", "cronjobs"): {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": POD_TEMPLATE}}},
    ("networking.k8s.io", "networkpolicies"): {"podSelector": {}},
    ("policy", "poddisruptionbudgets"): {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
    ("coordination.k8s.io", "leases"): {"holderIdentity": "me"},
}


def _body(group, plural, name="obj"):
    if plural == "controllerrevisions":
        return {"metadata": {"name": name}, "data": {"spec": {}}, "revision": 1}
    if plural == "endpointslices":
        return {"metadata": {"name": name}, "addressType": "IPv4",
                "endpoints": [{"addresses": ["10.0.0.1"]}], "ports": [{"port": 80}]}
    return {"metadata": {"name": name}, "spec": copy.deepcopy(BODIES[(group, plural)])}


KINDS = sorted(BODIES) + [("discovery.k8s.io", "endpointslices"), ("apps", "controllerrevisions")]


@pytest.mark.parametrize("group, plural", KINDS)
def test_crud_and_namespace_deletion(http, url, namespaces, group, plural):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/{group}/v1/namespaces/{ns}/{plural}"
    r = http.post(base, json=_body(group, plural))
    assert r.status_code == 201, r.text
    assert r.json()["apiVersion"] == f"{group}/v1"
    assert [i["metadata"]["name"] for i in http.get(base).json()["items"]] == ["obj"]
    assert http.get(f"{url}/apis/{group}/v1/{plural}").status_code == 200
    r = http.delete(f"{url}/api/v1/namespaces/{ns}")
    assert r.status_code == 200
    wait_gone(http, url, ns)
    assert http.get(f"{base}/obj").status_code == 404


def test_deployment_defaults_and_generation(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/apps/v1/namespaces/{ns}/deployments"
    d = http.post(base, json=DEPLOYMENT).json()
    assert d["metadata"]["generation"] == 1
    assert d["spec"]["replicas"] == 1 and d["spec"]["revisionHistoryLimit"] == 10
    assert d["spec"]["strategy"] == {"type": "RollingUpdate",
                                     "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}
    assert d["spec"]["template"]["spec"]["restartPolicy"] == "Always"
    d["spec"]["replicas"] = 3
    r = http.put(f"{base}/web", json=d)
    assert r.status_code == 200 and r.json()["metadata"]["generation"] == 2
    r = http.delete(f"{base}/web")
    assert r.json()["details"] == {"name": "web", "group": "apps", "kind": "deployments",
                                   "uid": d["metadata"]["uid"]}


@pytest.mark.parametrize("change, message", [
    # upstream: a nil selector (LabelSelectorAsSelector: selects nothing) also fails the template's labels
    (lambda s: s.pop("selector"), '[spec.selector: Required value, spec.template.metadata.labels: Invalid value: '
                                  'map[string]string{"app":"web"}: `selector` does not match template `labels`]'),
    (lambda s: s["template"]["metadata"].update(labels={"app": "x"}),
     'spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match '
     'template `labels`'),
    (lambda s: s["template"]["spec"].update(containers=[]), "spec.template.spec.containers: Required value"),
])
def test_deployment_validation(http, url, namespaces, change, message):
    ns = namespaces.create()["metadata"]["name"]
    body = copy.deepcopy(DEPLOYMENT)
    change(body["spec"])
    st = status_of(http.post(f"{url}/apis/apps/v1/namespaces/{ns}/deployments", json=body))
    assert st["code"] == 422 and st["message"] == f'Deployment.apps "web" is invalid: {message}'
    assert st["details"]["group"] == "apps"


def test_controllerrevision_validation_and_immutable_data(http, url, namespaces):
    """`ValidateControllerRevision` / `ValidateControllerRevisionUpdate`: data required, revision not negative,
    data immutable; the revision number may change (the controllers renumber a revision they roll back to)."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/apps/v1/namespaces/{ns}/controllerrevisions"
    st = status_of(http.post(base, json={"metadata": {"name": "r"}, "revision": -1}))
    assert st["code"] == 422 and st["message"] == (
        'ControllerRevision.apps "r" is invalid: [data: Required value: data is mandatory, revision: Invalid value: '
        '-1: must be greater than or equal to 0]')
    created = http.post(base, json=_body("apps", "controllerrevisions", "r"))
    assert created.status_code == 201 and "generation" not in created.json()["metadata"]
    body = {**created.json(), "revision": 2}
    r = http.put(f"{base}/r", json=body)
    assert r.status_code == 200 and r.json()["revision"] == 2
    st = status_of(http.put(f"{base}/r", json={**r.json(), "data": {"spec": {"x": 1}}}))
    assert st["code"] == 422 and st["message"].startswith(
        'ControllerRevision.apps "r" is invalid: data: Invalid value: ') and st["message"].endswith(
        ": field is immutable")
    header = http.get(base, headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}).json()
    assert [c["name"] for c in header["columnDefinitions"]] == ["Name", "Controller", "Revision", "Age"]
    assert header["rows"][0]["cells"][:3] == ["r", "<none>", 2]


def test_job_selector_generated_and_restart_policy_checked(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/batch/v1/namespaces/{ns}/jobs"
    job = http.post(base, json=_body("batch", "jobs", "j")).json()
    uid = job["metadata"]["uid"]
    assert job["spec"]["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    assert job["spec"]["template"]["metadata"]["labels"]["job-name"] == "j"
    body = _body("batch", "jobs", "k")
    del body["spec"]["template"]["spec"]["restartPolicy"]
    st = status_of(http.post(base, json=body))
    # 1.33's validateJobSpec: a defaulted (or explicit) Always is "Required", not "Unsupported"
    assert st["message"] == ('Job.batch "k" is invalid: spec.template.spec.restartPolicy: Required value: '
                             'valid values: "OnFailure", "Never"')


def test_cronjob_schedule_required(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    body = _body("batch", "cronjobs", "c")
    del body["spec"]["schedule"]
    st = status_of(http.post(f"{url}/apis/batch/v1/namespaces/{ns}/cronjobs", json=body))
    assert st["code"] == 422 and st["message"] == 'CronJob.batch "c" is invalid: spec.schedule: Required value'


def test_discovery_lists_the_all_category(http, url):
    res = {r["name"]: r for r in http.get(f"{url}/apis/apps/v1").json()["resources"]}
    assert res["deployments"]["categories"] == ["all"] and res["deployments"]["shortNames"] == ["deploy"]
    core = {r["name"]: r for r in http.get(f"{url}/api/v1").json()["resources"]}
    assert core["pods"]["categories"] == ["all"] and "categories" not in core["configmaps"]


@pytest.mark.parametrize("group, plural, body", [
    ("apps", "deployments", {"spec": {"template": 5, "selector": 5}}),
    ("apps", "deployments", {"spec": {"selector": {"matchExpressions": [5]}, "template": {}}}),
    ("networking.k8s.io", "networkpolicies", {"spec": {"ingress": 5}}),
    ("discovery.k8s.io", "endpointslices", {"addressType": "IPv4", "endpoints": 5}),
    ("batch", "cronjobs", {"spec": {"schedule": "x", "jobTemplate": {"spec": 5}}}),
    ("batch", "jobs", {"spec": {"template": {"metadata": 5}}}),
])
def test_wrong_shapes_are_400_not_500(http, url, namespaces, group, plural, body):
    """A typed decoder refuses a scalar where an object or array belongs (`json: cannot unmarshal ...`)."""
    ns = namespaces.create()["metadata"]["name"]
    st = status_of(http.post(f"{url}/apis/{group}/v1/namespaces/{ns}/{plural}", json={"metadata": {"name": "x"},
                                                                                     **body}))
    assert st["code"] == 400 and "json: cannot unmarshal" in st["message"], st


def test_patch_to_a_wrong_shape_is_the_patch_invalid(http, url, namespaces):
    """handlers/patch.go: a patched object that no longer decodes is `NewInvalid(GroupKind{}, "", patch: ...)`, a
    422 (as for the core kinds), not the 400 of a body that does not decode."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/apps/v1/namespaces/{ns}/deployments"
    assert http.post(base, json=DEPLOYMENT).status_code == 201
    st = status_of(http.patch(f"{base}/web", data='{"spec":{"template":5}}',
                              headers={"Content-Type": "application/merge-patch+json"}))
    assert st["code"] == 422 and "json: cannot unmarshal number" in st["message"]
    assert st["details"]["causes"][0]["field"] == "patch"

"""Cluster flavours: each behaviour a flavour imitates, observed over HTTP on an embedded server."""
from __future__ import annotations

import dataclasses
import time
from typing import Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded
from conformance.reference_server.flavors import FLAVORS, Flavor, get_flavor
from conformance.reference_server.flavors.catalogue import DEFAULT

from ..conftest import WatchReader, unique, wait_gone

POD = {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}


@pytest.fixture
def serve() -> Iterator:
    started: list[RunningServer] = []

    def start(flavor: str | Flavor, **kw) -> tuple[RunningServer, requests.Session]:
        srv = start_embedded(flavor=flavor, **kw)
        started.append(srv)
        s = requests.Session()
        if srv.token:
            s.headers["Authorization"] = f"Bearer {srv.token}"
        return srv, s

    yield start
    for srv in started:
        srv.stop()


def create_ns(http: requests.Session, url: str, **meta) -> tuple[str, dict]:
    name = unique("fl")
    r = http.post(f"{url}/api/v1/namespaces", json={"metadata": {"name": name, **meta}})
    assert r.status_code == 201, r.text
    return name, r


def wait_added(srv: RunningServer, path: str, name: str, timeout: float = 10) -> dict:
    """The object `name` under `path` once it exists (a watch from the beginning; no sleeping)."""
    headers = {"Authorization": f"Bearer {srv.token}"} if srv.token else {}
    with WatchReader(f"{srv.url}{path}", {"fieldSelector": f"metadata.name={name}"}, headers) as w:
        return w.until(lambda e: e["type"] in ("ADDED", "MODIFIED"), timeout, f"{name} in {path}")[-1]["object"]


# ---- the catalogue --------------------------------------------------------------------------------------
def test_the_catalogue_documents_every_behaviour():
    assert {"default", "kind", "openshift", "managed", "slow", "bare"} <= set(FLAVORS)
    for f in FLAVORS.values():
        assert f.summary and f.sources and all(s.behaviour and s.where for s in f.sources), f.name


def test_an_unknown_flavor_is_refused_before_anything_starts():
    with pytest.raises(ValueError, match="unknown flavor 'nope'; known: default, kind"):
        get_flavor("nope")
    with pytest.raises(ValueError, match="unknown flavor"):
        start_embedded(flavor="nope")


def test_slow_timings_stay_in_the_issue_bounds():
    slow, kind = FLAVORS["slow"], FLAVORS["kind"]
    assert 5.0 <= slow.deletion_delay[0] <= slow.deletion_delay[1] <= 10.0
    assert 0.01 <= slow.response_delay[0] <= slow.response_delay[1] <= 0.1
    assert kind.deletion_delay[1] <= 5.0 and DEFAULT.deletion_delay == (0.0, 0.0)


# ---- what every cluster has (the default flavour) -----------------------------------------------------
def test_default_sa_and_root_ca_configmap_appear_in_every_new_namespace(serve):
    srv, http = serve("default")
    name, _ = create_ns(http, srv.url)
    sa = wait_added(srv, f"/api/v1/namespaces/{name}/serviceaccounts", "default")
    cm = wait_added(srv, f"/api/v1/namespaces/{name}/configmaps", "kube-root-ca.crt")
    # the SA's body is only its name, which nobody owns (stripMetaManager): upstream's default SA has no entry
    assert "managedFields" not in sa["metadata"]
    assert [m["manager"] for m in cm["metadata"]["managedFields"]] == ["kube-controller-manager"]
    assert cm["data"]["ca.crt"].startswith("-----BEGIN CERTIFICATE-----")
    assert cm["metadata"]["annotations"]["kubernetes.io/description"].startswith("Contains a CA bundle")


def test_root_ca_uses_the_server_ca_under_tls(serve):
    from conformance.reference_server.controller.per_namespace import RootCAPublisher

    srv, _ = serve("default", tls=True)
    publisher = next(c for c in srv.server.flavor_controllers if isinstance(c, RootCAPublisher))
    with open(srv.ca_file) as fh:
        assert publisher.ca_pem == fh.read()


def test_deleted_sa_and_configmap_come_back(serve):
    srv, http = serve("default")
    name, _ = create_ns(http, srv.url)
    for res, obj in (("serviceaccounts", "default"), ("configmaps", "kube-root-ca.crt")):
        old = wait_added(srv, f"/api/v1/namespaces/{name}/{res}", obj)
        assert http.delete(f"{srv.url}/api/v1/namespaces/{name}/{res}/{obj}").status_code == 200
        new = wait_added(srv, f"/api/v1/namespaces/{name}/{res}", obj)
        assert new["metadata"]["uid"] != old["metadata"]["uid"]


def test_edited_root_ca_is_put_back(serve):
    srv, http = serve("default")
    name, _ = create_ns(http, srv.url)
    path = f"/api/v1/namespaces/{name}/configmaps"
    cm = wait_added(srv, path, "kube-root-ca.crt")
    r = http.patch(f"{srv.url}{path}/kube-root-ca.crt", json={"data": {"ca.crt": "x"}},
                   headers={"Content-Type": "application/merge-patch+json"})
    with WatchReader(f"{srv.url}{path}", {"fieldSelector": "metadata.name=kube-root-ca.crt",
                                          "resourceVersion": r.json()["metadata"]["resourceVersion"]}) as w:
        back = w.until(lambda e: e["object"]["data"]["ca.crt"] != "x", 10, "the CA put back")[-1]["object"]
    assert back["data"] == cm["data"]


def test_pods_are_refused_until_their_service_account_exists(serve):
    late = dataclasses.replace(DEFAULT, name="late-sa", service_account_delay=(30.0, 30.0))
    srv, http = serve(late)
    name, _ = create_ns(http, srv.url)
    r = http.post(f"{srv.url}/api/v1/namespaces/{name}/pods", json={"metadata": {"name": "p"}, **POD})
    assert r.status_code == 403, r.text
    body = r.json()
    assert body["reason"] == "Forbidden" and body["details"] == {"name": "p", "kind": "pods"}
    assert body["message"] == (f'pods "p" is forbidden: error looking up service account {name}/default: '
                               'serviceaccount "default" not found')
    assert http.post(f"{srv.url}/api/v1/namespaces/{name}/serviceaccounts",
                     json={"metadata": {"name": "default"}}).status_code == 201
    r = http.post(f"{srv.url}/api/v1/namespaces/{name}/pods", json={"metadata": {"name": "p"}, **POD})
    assert r.status_code == 201 and r.json()["spec"]["serviceAccountName"] == "default"


def test_default_flavor_deletes_fast_and_leaves_no_controller_writes_behind(serve):
    srv, http = serve("default")
    name, _ = create_ns(http, srv.url)
    wait_added(srv, f"/api/v1/namespaces/{name}/configmaps", "kube-root-ca.crt")
    t0 = time.monotonic()
    http.delete(f"{srv.url}/api/v1/namespaces/{name}")
    wait_gone(http, srv.url, name)
    # no deletion delay (kind's is 1.5-3 s): the flavour has none, and the deletion takes well under 5 s even
    # on a loaded machine (a bound of 2 s measured the machine as much as the flavour)
    assert FLAVORS["default"].deletion_delay == FLAVORS["bare"].deletion_delay
    assert time.monotonic() - t0 < 5.0
    assert http.get(f"{srv.url}/api/v1/serviceaccounts",
                    params={"fieldSelector": f"metadata.namespace={name}"}).json()["items"] == []


# ---- openshift --------------------------------------------------------------------------------------------
def test_openshift_patches_new_namespaces_and_adds_builder_and_deployer(serve):
    srv, http = serve("openshift")
    name, created = create_ns(http, srv.url)
    rv = created.json()["metadata"]["resourceVersion"]
    with WatchReader(f"{srv.url}/api/v1/namespaces", {"fieldSelector": f"metadata.name={name}",
                                                      "resourceVersion": rv}) as w:
        # two controllers upstream, two writes: the SCC allocation's annotations, the Pod Security labels
        ns = w.until(lambda e: e["type"] == "MODIFIED" and "openshift.io/sa.scc.mcs" in (
            e["object"]["metadata"].get("annotations") or {}) and "pod-security.kubernetes.io/warn" in (
            e["object"]["metadata"].get("labels") or {}), 10, "the SCC and Pod Security patches")[-1]["object"]
    ann, labels = ns["metadata"]["annotations"], ns["metadata"]["labels"]
    assert set(ann) >= {"openshift.io/sa.scc.mcs", "openshift.io/sa.scc.supplemental-groups",
                        "openshift.io/sa.scc.uid-range"}
    assert labels["pod-security.kubernetes.io/warn"] == "restricted"
    assert "cluster-policy-controller" in [m["manager"] for m in ns["metadata"]["managedFields"]]
    for sa in ("default", "builder", "deployer"):
        with WatchReader(f"{srv.url}/api/v1/namespaces/{name}/serviceaccounts",
                         {"fieldSelector": f"metadata.name={sa}"}) as w:
            obj = w.until(lambda e: bool(e["object"].get("imagePullSecrets")), 10, f"{sa} pull secret")[-1]["object"]
        secret = obj["imagePullSecrets"][0]["name"]
        assert secret.startswith(f"{sa}-dockercfg-")
        got = http.get(f"{srv.url}/api/v1/namespaces/{name}/secrets/{secret}").json()
        assert got["type"] == "kubernetes.io/dockercfg"


def test_openshift_keeps_what_the_user_set(serve):
    srv, http = serve("openshift")
    name, created = create_ns(http, srv.url, labels={"pod-security.kubernetes.io/warn": "privileged"})
    rv = created.json()["metadata"]["resourceVersion"]
    with WatchReader(f"{srv.url}/api/v1/namespaces", {"fieldSelector": f"metadata.name={name}",
                                                      "resourceVersion": rv}) as w:
        # two controllers upstream, two writes: the SCC allocation's annotations, the Pod Security labels
        ns = w.until(lambda e: e["type"] == "MODIFIED" and "openshift.io/sa.scc.mcs" in (
            e["object"]["metadata"].get("annotations") or {}) and "pod-security.kubernetes.io/warn" in (
            e["object"]["metadata"].get("labels") or {}), 10, "the SCC and Pod Security patches")[-1]["object"]
    assert ns["metadata"]["labels"]["pod-security.kubernetes.io/warn"] == "privileged"


# ---- managed -----------------------------------------------------------------------------------------------
def test_managed_403s_carry_the_webhook_reason(serve, tmp_path):
    users = tmp_path / "users.csv"
    users.write_text('nobody-token,nobody,uid-1,"g"\n')
    srv, http = serve("managed", authorization="rbac", users_file=str(users))
    r = requests.get(f"{srv.url}/api/v1/namespaces", headers={"Authorization": "Bearer nobody-token"})
    assert r.status_code == 403
    assert r.json()["message"] == ('namespaces is forbidden: User "nobody" cannot list resource "namespaces" in API '
                                   'group "" at the cluster scope: requires one of ["container.namespaces.list"] '
                                   'permission(s).')
    assert http.get(f"{srv.url}/api/v1/namespaces").status_code == 200  # RBAC still grants the admin


def test_managed_webhook_labels_namespaces_and_warns(serve):
    srv, http = serve("managed")
    name, r = create_ns(http, srv.url)
    assert r.json()["metadata"]["labels"]["policy.nsconform.io/audited"] == "true"
    assert r.headers["Warning"] == '299 - "[ns-must-have-owner] you must provide labels: {\\"owner\\"}"'
    wait_added(srv, f"/api/v1/namespaces/{name}/serviceaccounts", "default")
    p = http.post(f"{srv.url}/api/v1/namespaces/{name}/pods", json={"metadata": {"name": "p"}, **POD})
    assert p.status_code == 201 and "autopilot-default-resources-mutator" in p.headers["Warning"]
    assert "Warning" not in http.get(f"{srv.url}/api/v1/namespaces/{name}").headers


# ---- slow ---------------------------------------------------------------------------------------------------
def test_slow_delays_responses_and_deletion_and_keeps_watch_order(serve):
    quick = dataclasses.replace(FLAVORS["slow"], name="slow-short", deletion_delay=(0.5, 0.5),
                                service_account_delay=(0.0, 0.0), root_ca_delay=(0.0, 0.0))
    srv, http = serve(quick)
    t0 = time.monotonic()
    assert http.get(f"{srv.url}/version").status_code == 200
    assert time.monotonic() - t0 >= quick.response_delay[0]
    name, created = create_ns(http, srv.url)
    path = f"{srv.url}/api/v1/namespaces/{name}/configmaps"
    rv = created.json()["metadata"]["resourceVersion"]
    with WatchReader(path, {"resourceVersion": rv}) as w:
        names = [unique("cm") for _ in range(5)]
        for n in names:
            assert http.post(path, json={"metadata": {"name": n}}).status_code == 201
        seen = w.until(lambda e: e["object"]["metadata"]["name"] == names[-1], 10, "the last configmap")
    mine = [e["object"]["metadata"]["name"] for e in seen if e["object"]["metadata"]["name"] in names]
    assert mine == names
    t0 = time.monotonic()
    http.delete(f"{srv.url}/api/v1/namespaces/{name}")
    assert http.get(f"{srv.url}/api/v1/namespaces/{name}").json()["status"]["phase"] == "Terminating"
    wait_gone(http, srv.url, name)
    assert time.monotonic() - t0 >= 0.5

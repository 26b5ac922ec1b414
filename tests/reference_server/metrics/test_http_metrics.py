"""`/metrics` and `/metrics/slis` over HTTP (metrics/, hooks in http/app.py and http/priority_fairness.py): the
exposition parses (our strict reader and prometheus_client's), `apiserver_request_total` moves per verb, resource,
scope and code for what a route serves (404s, dry runs, apply patches, watches; APF's 429s) and not for what
upstream leaves uncounted (401/403 before routing, unknown paths), the APF families follow a held seat, a rejection
and a queued request, `system:monitoring` may read and nobody else without the rule, `DELETE` resets."""
from __future__ import annotations

import gzip
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded

from ..conftest import WatchReader
from ..test_http_priority_fairness import _Held  # a POST holding its APF seat until finish()
from .exposition import Family, parse

GV = "/apis/flowcontrol.apiserver.k8s.io/v1"
ALICE = {"Authorization": "Bearer alice-token"}  # cluster-admin through a binding: APF classifies her normally
BOB = {"Authorization": "Bearer bob-token"}      # no binding at all
MON = {"Authorization": "Bearer mon-token"}      # group system:monitoring
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8; escaping=underscores"


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    users = tmp_path_factory.mktemp("metrics") / "users.csv"
    users.write_text('alice-token,alice,1,"dev"\nbob-token,bob,2,"dev"\nmon-token,prometheus,3,"system:monitoring"\n')
    server = start_embedded(authorization="rbac", users_file=str(users), flavor="bare", max_requests_inflight=1,
                            max_mutating_requests_inflight=0)  # every limited level gets one seat
    admin = _admin(server)
    binding = {"metadata": {"name": "alice-admin"}, "subjects": [{"kind": "User", "name": "alice"}],
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"}}
    assert requests.post(server.url + "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", json=binding,
                         headers=admin).status_code == 201
    for name, response in (("m-reject", {"type": "Reject"}),
                           ("m-queue", {"type": "Queue", "queuing": {"queues": 1, "handSize": 1,
                                                                     "queueLengthLimit": 1}})):
        assert requests.post(server.url + "/api/v1/namespaces", json={"metadata": {"name": name}},
                             headers=admin).status_code == 201
        pl = {"metadata": {"name": name}, "spec": {"type": "Limited", "limited": {
            "nominalConcurrencyShares": 1, "borrowingLimitPercent": 0, "limitResponse": response}}}
        assert requests.post(server.url + GV + "/prioritylevelconfigurations", json=pl,
                             headers=admin).status_code == 201
        rule = {"subjects": [{"kind": "User", "user": {"name": "alice"}}],
                "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "namespaces": [name]}]}
        fs = {"metadata": {"name": name}, "spec": {"priorityLevelConfiguration": {"name": name},
                                                   "matchingPrecedence": 100, "rules": [rule]}}
        assert requests.post(server.url + GV + "/flowschemas", json=fs, headers=admin).status_code == 201
    yield server
    server.stop()


def _admin(srv: RunningServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {srv.token}"}


def scrape(srv: RunningServer, path: str = "/metrics") -> dict[str, Family]:
    r = requests.get(srv.url + path, headers=_admin(srv))
    assert r.status_code == 200 and r.headers["Content-Type"] == CONTENT_TYPE
    return parse(r.text)


def value(fams: dict[str, Family], name: str, **labels: str) -> float:
    """A sample's value; 0 when the family has no sample yet (a labelled family is written once it has one)."""
    return fams[name].value(**labels) if name in fams else 0.0


def total(fams: dict[str, Family], **labels: str) -> float:
    return value(fams, "apiserver_request_total", **labels)


def duration_sum(fams: dict[str, Family], **labels: str) -> float:
    """apiserver_request_duration_seconds_sum over the series with these labels."""
    return sum(v for n, ls, v in fams.get("apiserver_request_duration_seconds", Family("", "", "")).samples
               if n.endswith("_sum") and all(ls.get(k) == x for k, x in labels.items()))


def until(read: Callable[[], float], want: float, what: str, timeout: float = 10.0) -> None:
    """Poll (each scrape is the pace: there is nothing to watch) until read() == want."""
    deadline = time.monotonic() + timeout
    seen = read()
    while seen != want:
        assert time.monotonic() < deadline, f"{what} never became {want}; last seen {seen}"
        seen = read()


def test_exposition_parses_with_upstream_help_and_families(srv):
    prometheus_client = pytest.importorskip("prometheus_client.parser")
    r = requests.get(srv.url + "/metrics", headers=_admin(srv))
    assert r.status_code == 200 and r.headers["Content-Type"] == CONTENT_TYPE
    fams = parse(r.text)
    names = {f.name for f in prometheus_client.text_string_to_metric_families(r.text)}
    assert {"apiserver_request", "apiserver_flowcontrol_dispatched_requests", "apiserver_storage_objects",
            "process_start_time_seconds"} <= names  # prometheus_client drops a counter's _total
    assert fams["apiserver_request_total"].help == (
        "[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, "
        "scope, component, and HTTP response code.")
    assert fams["apiserver_request_duration_seconds"].type == "histogram"
    assert fams["apiserver_flowcontrol_nominal_limit_seats"].help.startswith("[BETA] Nominal number")
    assert fams["process_start_time_seconds"].help == "Start time of the process since unix epoch in seconds."
    assert fams["apiserver_flowcontrol_nominal_limit_seats"].value(priority_level="m-reject") == 1
    assert "apiserver_flowcontrol_request_concurrency_limit" not in fams  # deprecated in 1.30: hidden in 1.33
    buckets = [s[1]["le"] for s in fams["apiserver_request_duration_seconds"].samples if s[0].endswith("_bucket")]
    assert buckets[:4] == ["0.005", "0.025", "0.05", "0.1"] and buckets[22:24] == ["60", "+Inf"]
    cms = len(requests.get(srv.url + "/api/v1/configmaps", headers=_admin(srv)).json()["items"])
    assert scrape(srv)["apiserver_storage_objects"].value(resource="configmaps") == cms
    assert fams["apiserver_storage_objects"].value(resource="flowschemas.flowcontrol.apiserver.k8s.io") >= 15


def test_request_total_moves_per_verb_resource_and_code(srv):
    base = "/api/v1/namespaces/default/configmaps"
    admin = _admin(srv)
    before = scrape(srv)
    assert requests.get(srv.url + base + "/missing", headers=admin).status_code == 404
    assert requests.post(srv.url + base, json={"metadata": {"name": "m1"}}, headers=admin).status_code == 201
    assert requests.post(srv.url + base + "?dryRun=All", json={"metadata": {"name": "m2"}},
                         headers=admin).status_code == 201
    assert requests.get(srv.url + base, headers=admin).status_code == 200
    apply = requests.patch(srv.url + base + "/m3?fieldManager=t",
                           data='{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m3"}}',
                           headers={**admin, "Content-Type": "application/apply-patch+yaml"})
    assert apply.status_code == 201
    assert requests.get(srv.url + "/apis/apps/v1/namespaces/default/deployments/x", headers=admin).status_code == 404
    assert requests.get(srv.url + "/healthz", headers=admin).status_code == 200
    aggregated = {**admin, "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}
    assert requests.get(srv.url + "/apis", headers=aggregated).status_code == 200  # counted: subresource "apis"
    assert requests.get(srv.url + "/apis", headers=admin).status_code == 200  # the legacy APIGroupList: not
    uncounted = [requests.get(srv.url + "/nothing/here", headers=admin),      # no route: go-restful's 404
                 requests.get(srv.url + "/api/v1/nothings", headers=admin),   # no such resource
                 requests.get(srv.url + base, headers=BOB),                   # 403 before any route
                 requests.get(srv.url + base, headers={"Authorization": "Bearer wrong"}),  # 401
                 requests.get(srv.url + "/version", headers=admin)]
    assert [r.status_code for r in uncounted] == [404, 404, 403, 401, 200]
    after = scrape(srv)
    core = {"group": "", "version": "v1", "resource": "configmaps", "subresource": "", "component": "apiserver"}
    for labels, delta in (({"verb": "GET", "scope": "resource", "code": "404", "dry_run": ""}, 1),
                          ({"verb": "POST", "scope": "resource", "code": "201", "dry_run": ""}, 1),
                          ({"verb": "POST", "scope": "resource", "code": "201", "dry_run": "All"}, 1),
                          ({"verb": "LIST", "scope": "namespace", "code": "200", "dry_run": ""}, 1),
                          ({"verb": "APPLY", "scope": "resource", "code": "201", "dry_run": ""}, 1),
                          ({"verb": "LIST", "scope": "namespace", "code": "403", "dry_run": ""}, 0)):
        assert total(after, **core, **labels) - total(before, **core, **labels) == delta, labels
    deploy = {"verb": "GET", "group": "apps", "version": "v1", "resource": "deployments", "code": "404"}
    assert total(after, **deploy) - total(before, **deploy) == 1
    health = {"verb": "GET", "subresource": "/healthz", "component": "", "scope": "", "code": "200"}
    assert total(after, **health) - total(before, **health) == 1
    apis = {"verb": "GET", "subresource": "apis", "component": "apiserver", "scope": "", "code": "200"}
    assert total(after, **apis) - total(before, **apis) == 1
    counted = {s[1].get("subresource") for s in after["apiserver_request_total"].samples}
    assert not counted & {"/nothing/here", "/version", "/metrics"}
    assert after["apiserver_request_total"].value(verb="LIST", resource="nothings") == 0
    hist = after["apiserver_request_duration_seconds"]
    assert hist.samples and any(s[0] == "apiserver_request_duration_seconds_count" and s[1]["verb"] == "APPLY"
                                for s in hist.samples)


def test_watch_is_long_running_while_served(srv):
    path = srv.url + "/api/v1/namespaces/default/configmaps"
    labels = {"verb": "WATCH", "resource": "configmaps", "scope": "namespace", "version": "v1"}
    read = lambda: scrape(srv)["apiserver_longrunning_requests"].value(**labels)  # noqa: E731
    before = total(scrape(srv), code="200", **labels)
    with WatchReader(path, {"timeoutSeconds": "2"}, _admin(srv)) as w:  # the server ends it after 2 s
        assert w.status == 200
        until(read, 1, "apiserver_longrunning_requests of the open watch")
    until(read, 0, "apiserver_longrunning_requests once the watch has ended", timeout=20)
    until(lambda: total(scrape(srv), code="200", **labels), before + 1, "the ended watch's request_total")


def test_apf_rejection_counts_429_and_reason(srv):
    path = "/api/v1/namespaces/m-reject/configmaps"
    flow = {"priority_level": "m-reject", "flow_schema": "m-reject"}
    before = scrape(srv)
    held = _Held(srv, path)
    try:
        until(lambda: value(scrape(srv), "apiserver_flowcontrol_current_executing_requests", **flow), 1,
              "the held request executing in m-reject")
        assert value(scrape(srv), "apiserver_flowcontrol_current_executing_seats", **flow) == 1
        assert requests.get(srv.url + path, headers=ALICE).status_code == 429
    finally:
        assert held.finish() == 201
    after = scrape(srv)
    rejected = after["apiserver_flowcontrol_rejected_requests_total"]
    assert rejected.value(reason="concurrency-limit", **flow) - (
        before["apiserver_flowcontrol_rejected_requests_total"].value(reason="concurrency-limit", **flow)
        if "apiserver_flowcontrol_rejected_requests_total" in before else 0) == 1
    dropped = {"verb": "LIST", "resource": "configmaps", "scope": "namespace", "code": "429"}
    assert total(after, **dropped) - total(before, **dropped) == 1
    assert after["apiserver_request_terminations_total"].value(**dropped) >= 1
    dispatched = after["apiserver_flowcontrol_dispatched_requests_total"]
    assert dispatched.value(**flow) - before["apiserver_flowcontrol_dispatched_requests_total"].value(**flow) == 1
    assert after["apiserver_flowcontrol_current_executing_requests"].value(**flow) == 0  # the series stays, at 0


def test_apf_gauges_follow_a_queued_request(srv):
    path = "/api/v1/namespaces/m-queue/configmaps"
    flow = {"priority_level": "m-queue", "flow_schema": "m-queue"}
    list_cm = {"verb": "LIST", "resource": "configmaps", "scope": "namespace", "dry_run": ""}
    before = duration_sum(scrape(srv), **list_cm)
    held = _Held(srv, path)
    with ThreadPoolExecutor(1) as pool:
        try:
            until(lambda: value(scrape(srv), "apiserver_flowcontrol_current_executing_requests", **flow), 1,
                  "the held request executing in m-queue")
            queued = pool.submit(requests.get, srv.url + path, headers=ALICE)
            until(lambda: value(scrape(srv), "apiserver_flowcontrol_current_inqueue_requests", **flow), 1,
                  "the queued GET in apiserver_flowcontrol_current_inqueue_requests")
            fams = scrape(srv)
            assert fams["apiserver_flowcontrol_current_inqueue_seats"].value(**flow) == 1
            assert fams["apiserver_current_inqueue_requests"].value(request_kind="readOnly") == 1
            assert fams["apiserver_current_inflight_requests"].value(request_kind="mutating") >= 1  # the held POST
            assert requests.get(srv.url + path, headers=ALICE).status_code == 429  # its queue is full
        finally:
            assert held.finish() == 201
        assert queued.result(timeout=30).status_code == 200
    fams = scrape(srv)
    waited = [v for n, ls, v in fams["apiserver_flowcontrol_request_wait_duration_seconds"].samples
              if n.endswith("_sum") and ls == {**flow, "execute": "true"}][0]
    assert waited > 0 and duration_sum(fams, **list_cm) - before >= waited  # its duration includes its wait
    held = _Held(srv, path + "?x=1")
    try:
        until(lambda: value(scrape(srv), "apiserver_flowcontrol_current_executing_requests", **flow), 1,
              "the second held request executing in m-queue")
        r = requests.get(srv.url + path, params={"timeout": "1s"}, headers=ALICE)  # waits a quarter: 0.25 s
        assert r.status_code == 429
    finally:
        assert held.finish() == 201
    fams = scrape(srv)
    assert fams["apiserver_flowcontrol_current_inqueue_requests"].value(**flow) == 0
    rejected = fams["apiserver_flowcontrol_rejected_requests_total"]
    assert (rejected.value(reason="queue-full", **flow), rejected.value(reason="time-out", **flow)) == (1, 1)

    def waits(execute: str) -> list[float]:
        return [v for n, ls, v in fams["apiserver_flowcontrol_request_wait_duration_seconds"].samples
                if n.endswith("_count") and ls == {**flow, "execute": execute}]
    assert waits("true") == [1] and waits("false") == [1]  # the dispatched and the timed-out waits
    timed_out = [v for n, ls, v in fams["apiserver_flowcontrol_request_wait_duration_seconds"].samples
                 if n.endswith("_sum") and ls.get("execute") == "false" and ls["priority_level"] == "m-queue"]
    assert 0.2 <= timed_out[0] < 1  # a quarter of its one-second deadline


def test_only_monitoring_may_read_and_only_admins_reset(srv):
    r = requests.get(srv.url + "/metrics", headers=BOB)
    assert r.status_code == 403
    assert r.json()["message"] == 'forbidden: User "bob" cannot get path "/metrics"'
    assert requests.get(srv.url + "/metrics/slis", headers=BOB).status_code == 403
    mon = requests.get(srv.url + "/metrics", headers=MON)
    assert mon.status_code == 200 and parse(mon.text)
    assert requests.delete(srv.url + "/metrics", headers=MON).status_code == 403  # system:monitoring: get only
    gz = requests.get(srv.url + "/metrics", headers={**MON, "Accept-Encoding": "gzip"}, stream=True)
    assert gz.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(gz.raw.read()).decode().startswith("# HELP ")
    assert requests.get(srv.url + "/api/v1/namespaces/default", headers=_admin(srv)).status_code == 200
    reset = requests.delete(srv.url + "/metrics", headers=_admin(srv))
    assert reset.status_code == 200 and reset.text == "metrics reset\n"
    assert "apiserver_request_total" not in scrape(srv)  # counters forgotten; gauges are read again


def test_slis_count_health_checks(srv):
    def checks() -> float:
        return scrape(srv, "/metrics/slis")["kubernetes_healthchecks_total"].value(
            name="ping", type="readyz", status="success") if "kubernetes_healthchecks_total" in scrape(
            srv, "/metrics/slis") else 0.0
    before = checks()
    assert requests.get(srv.url + "/readyz", headers=_admin(srv)).status_code == 200
    assert checks() == before + 1
    fams = scrape(srv, "/metrics/slis")
    assert fams["kubernetes_healthcheck"].value(name="ping", type="readyz") == 1
    assert fams["kubernetes_healthcheck"].help == "[STABLE] This metric records the result of a single healthcheck."
    assert set(fams) == {"kubernetes_healthcheck", "kubernetes_healthchecks_total", "process_start_time_seconds"}

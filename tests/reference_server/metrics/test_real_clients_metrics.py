"""Real clients read `/metrics` as on a kind cluster: `kubectl get --raw /metrics` (every troubleshooting guide's
command) and the official `kubernetes` client's `ApiClient.call_api` (what client e2e suites scrape
`apiserver_request_total` with); both get text our strict reader and prometheus_client's parser accept, in which
their own requests are counted."""
from __future__ import annotations

from typing import Iterator

import pytest

from ..test_real_clients import Kube, kube, serve_kube  # noqa: F401 - kube: a fixture
from .exposition import parse


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "metrics", flavor="bare", authorization="rbac")


def test_kubectl_get_raw_metrics(kube: Kube) -> None:
    kube.ok("get", "ns", "default")
    text = kube.ok("get", "--raw", "/metrics")
    fams = parse(text)
    get_ns = [v for n, ls, v in fams["apiserver_request_total"].samples
              if ls["verb"] == "GET" and ls["resource"] == "namespaces" and ls["code"] == "200"]
    assert get_ns and get_ns[0] >= 1  # kubectl's own GET of the namespace
    assert fams["apiserver_flowcontrol_dispatched_requests_total"].value(priority_level="exempt",
                                                                        flow_schema="exempt") >= 1
    assert kube.ok("get", "--raw", "/readyz") == "ok"
    assert parse(kube.ok("get", "--raw", "/metrics/slis"))["kubernetes_healthchecks_total"].value(
        name="ping", type="readyz", status="success") == 1
    denied = kube.run("get", "--raw", "/metrics", "--as", "someone")
    assert denied.returncode != 0
    assert 'User "someone" cannot get path "/metrics"' in denied.stderr
    assert kube.ok("get", "--raw", "/metrics", "--as", "prom", "--as-group", "system:monitoring").startswith(
        "# HELP ")


def test_official_client_reads_metrics(served: Kube) -> None:
    from kubernetes import client, config
    text_string_to_metric_families = pytest.importorskip("prometheus_client.parser").text_string_to_metric_families

    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    try:
        client.CoreV1Api(api_client).read_namespace("default")
        resp = api_client.call_api(*api_client.param_serialize("GET", "/metrics", auth_settings=["BearerToken"]))
        text = resp.read().decode("utf-8")
    finally:
        api_client.close()
    assert resp.status == 200 and resp.getheader("Content-Type").startswith("text/plain; version=0.0.4")
    assert parse(text)["apiserver_request_total"].value(verb="GET", resource="namespaces", scope="resource",
                                                         code="200") >= 1
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert families["apiserver_request"].type == "counter"
    assert families["apiserver_request_duration_seconds"].type == "histogram"


def test_kubectl_reads_the_request_size_watch_and_meta_families(kube: Kube) -> None:
    """What a dashboard graphs besides the request counter, read through `kubectl get --raw /metrics`: the
    response sizes of kubectl's own GET, the SLI duration, a watch's events, the registered-metrics count."""
    text_string_to_metric_families = pytest.importorskip("prometheus_client.parser").text_string_to_metric_families
    kube.ok("get", "ns", "default")
    watched = kube.ok("get", "--raw", "/api/v1/namespaces?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3D"
                                      "default")
    assert '"type":"ADDED"' in watched
    text = kube.ok("get", "--raw", "/metrics")
    fams = parse(text)
    get_ns = {"verb": "GET", "group": "", "version": "v1", "resource": "namespaces", "subresource": "",
              "scope": "resource", "component": "apiserver"}
    sizes = [v for n, ls, v in fams["apiserver_response_sizes"].samples if n.endswith("_count") and ls == get_ns]
    assert sizes and sizes[0] >= 1
    sli = [v for n, ls, v in fams["apiserver_request_sli_duration_seconds"].samples
           if n.endswith("_count") and ls == get_ns]
    assert sli and sli[0] >= 1
    assert fams["apiserver_watch_events_total"].value(group="", version="v1", kind="Namespace") >= 1
    assert fams["registered_metrics_total"].value(stability_level="STABLE", deprecated_version="") >= 1
    families = {f.name: f.type for f in text_string_to_metric_families(text)}
    assert (families["apiserver_response_sizes"], families["apiserver_request_sli_duration_seconds"],
            families["apiserver_watch_events"], families["apiserver_watch_events_sizes"],
            families["registered_metrics"]) == ("histogram", "histogram", "counter", "histogram", "counter")


def test_kubectl_get_is_a_cache_list_and_the_storage_size_is_shown(kube: Kube) -> None:
    """`kubectl get configmaps -A` LISTs with `limit=500` at `resourceVersion=""`: 1.33 serves it from the watch
    cache as a consistent read, after waiting for the cache; `kubectl get --raw /metrics` shows it with the
    database's size, as a kind cluster's kube-apiserver does."""
    text_string_to_metric_families = pytest.importorskip("prometheus_client.parser").text_string_to_metric_families
    before = parse(kube.ok("get", "--raw", "/metrics"))
    kube.ok("get", "configmaps", "-A")
    text = kube.ok("get", "--raw", "/metrics")
    fams = parse(text)

    def moved(name: str, **labels: str) -> float:
        return fams[name].value(**labels) - (before[name].value(**labels) if name in before else 0.0)

    assert moved("apiserver_cache_list_total", resource_prefix="/configmaps", index="") == 1
    assert moved("apiserver_watch_cache_consistent_read_total", resource="configmaps", success="true",
                 fallback="false") == 1
    assert fams["apiserver_storage_size_bytes"].value(storage_cluster_id="etcd-0") > 0
    families = {f.name: f.type for f in text_string_to_metric_families(text)}
    assert (families["apiserver_cache_list"], families["apiserver_watch_cache_read_wait_seconds"],
            families["apiserver_storage_size_bytes"]) == ("counter", "histogram", "gauge")

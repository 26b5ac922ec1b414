"""The /metrics families a dashboard looks for beyond the request counters (metrics/apiserver.py, latency.py,
watch.py, admission.py, registry.py's meta metrics), after the requests that produce them: upstream's names, HELP
texts with stability prefixes, label sets and buckets, read by our strict reader and prometheus_client's parser."""
from __future__ import annotations

import json
import uuid
from typing import Any, Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer

from .. import test_admission_webhooks as webhooks
from ..admission.test_validating_policy import Policies
from ..test_admission_webhooks import Hook, cm, configure, unconfigure
from .exposition import Family, parse

hook, server = webhooks.hook, webhooks.server  # fixtures: the local webhook, a server of this module's own
SIZE_BOUNDS = ["1000", "10000", "100000", "1e+06", "1e+07", "1e+08", "1e+09", "+Inf"]
SLI_BOUNDS = ["0.05", "0.1", "0.2", "0.4", "0.6", "0.8", "1", "1.25", "1.5", "2", "3", "4", "5", "6", "8", "10", "15",
              "20", "30", "45", "60", "+Inf"]
EVENT_BOUNDS = ["1024", "2048", "4096", "8192", "16384", "32768", "65536", "131072", "+Inf"]
WEBHOOK_BOUNDS = ["0.005", "0.025", "0.1", "0.5", "1", "2.5", "10", "25", "+Inf"]
REQUEST_LABELS = {"verb", "group", "version", "resource", "subresource", "scope", "component"}


@pytest.fixture
def ns(server: RunningServer) -> Iterator[str]:
    name = f"mf-{uuid.uuid4().hex[:8]}"
    r = requests.post(f"{server.url}/api/v1/namespaces", json={"metadata": {"name": name, "labels": {"hooks": name, "vap": name}}})
    assert r.status_code == 201, r.text
    yield name
    requests.delete(f"{server.url}/api/v1/namespaces/{name}")


def scrape(server: RunningServer) -> tuple[dict[str, Family], dict[str, Any]]:
    """(our reader's families, prometheus_client's families by name)."""
    text_string_to_metric_families = pytest.importorskip("prometheus_client.parser").text_string_to_metric_families
    r = requests.get(server.url + "/metrics")
    assert r.status_code == 200
    return parse(r.text), {f.name: f for f in text_string_to_metric_families(r.text)}


def series(fam: Family, suffix: str, **labels: str) -> list[tuple[dict[str, str], float]]:
    return [(ls, v) for n, ls, v in fam.samples
            if n == fam.name + suffix and all(ls.get(k) == x for k, x in labels.items())]


def one(fam: Family, suffix: str, **labels: str) -> float:
    found = series(fam, suffix, **labels)
    assert len(found) <= 1, found
    return found[0][1] if found else 0.0


def buckets(fam: Family, **labels: str) -> list[str]:
    return [ls["le"] for ls, _ in series(fam, "_bucket", **labels)]


def test_response_sizes_of_reads(server: RunningServer, ns: str) -> None:
    """`apiserver_response_sizes` (STABLE): the body's bytes of GET and LIST (a `?watch` too, as WATCH), 1 KB to
    1 GB buckets, no `dry_run` label; writes are not observed."""
    before, _ = scrape(server)
    got = requests.get(f"{server.url}/api/v1/namespaces/{ns}")
    listed = requests.get(f"{server.url}/api/v1/namespaces/{ns}/configmaps")
    created = cm(server, ns, "sized")
    watched = requests.get(f"{server.url}/api/v1/namespaces/{ns}/configmaps?watch=1&timeoutSeconds=1"
                           "&resourceVersion=0")
    assert got.status_code == listed.status_code == watched.status_code == 200 and created.status_code == 201
    fams, prom = scrape(server)
    fam = fams["apiserver_response_sizes"]
    assert fam.help == ("[STABLE] Response size distribution in bytes for each group, version, verb, resource, "
                        "subresource, scope and component.") and fam.type == "histogram"
    assert prom["apiserver_response_sizes"].type == "histogram"
    old = before.get("apiserver_response_sizes", Family("", "", ""))
    get = {"verb": "GET", "resource": "namespaces", "scope": "resource", "version": "v1", "component": "apiserver"}
    assert set(series(fam, "_count", **get)[0][0]) == REQUEST_LABELS
    assert buckets(fam, **get) == SIZE_BOUNDS
    assert one(fam, "_count", **get) - one(old, "_count", **get) == 1
    assert one(fam, "_sum", **get) - one(old, "_sum", **get) == len(got.content)
    lst = {"verb": "LIST", "resource": "configmaps", "scope": "namespace"}
    assert one(fam, "_sum", **lst) - one(old, "_sum", **lst) == len(listed.content)
    watch = {"verb": "WATCH", "resource": "configmaps", "scope": "namespace"}
    assert one(fam, "_count", **watch) - one(old, "_count", **watch) == 1
    assert one(fam, "_sum", **watch) - one(old, "_sum", **watch) == len(watched.content)  # the events, unframed
    assert not series(fam, "_count", verb="POST")


def test_sli_duration_follows_the_duration(server: RunningServer, ns: str) -> None:
    """`apiserver_request_sli_duration_seconds` (ALPHA): the duration's labels without `dry_run` (dry runs summed
    in), upstream's buckets from 0.05 s; without webhooks or an APF wait it equals the duration. The deprecated
    SLO family is hidden, as component-base hides it in 1.33."""
    assert cm(server, ns, "dry", params={"dryRun": "All"}).status_code == 201
    assert cm(server, ns, "wet").status_code == 201
    fams, prom = scrape(server)
    fam = fams["apiserver_request_sli_duration_seconds"]
    assert fam.help == ("[ALPHA] Response latency distribution (not counting webhook duration and priority & "
                        "fairness queue wait times) in seconds for each verb, group, version, resource, "
                        "subresource, scope and component.") and fam.type == "histogram"
    assert prom["apiserver_request_sli_duration_seconds"].type == "histogram"
    post = {"verb": "POST", "resource": "configmaps", "scope": "resource"}
    assert set(series(fam, "_count", **post)[0][0]) == REQUEST_LABELS
    assert buckets(fam, **post) == SLI_BOUNDS
    duration = fams["apiserver_request_duration_seconds"]
    counts = [v for _, v in series(duration, "_count", **post)]
    assert len(counts) == 2  # dry_run "" and "All"
    assert one(fam, "_count", **post) == sum(counts)
    assert one(fam, "_sum", **post) == pytest.approx(sum(v for _, v in series(duration, "_sum", **post)))
    assert "apiserver_request_slo_duration_seconds" not in fams


def test_watch_events_counted_and_sized(server: RunningServer, ns: str) -> None:
    """`apiserver_watch_events_total` counts each event sent; `apiserver_watch_events_sizes` the size of each
    event's object (its JSON and the serializer's newline), by the watched kind's group, version and kind."""
    assert cm(server, ns, "watched").status_code == 201
    before, _ = scrape(server)
    r = requests.get(f"{server.url}/api/v1/namespaces/{ns}/configmaps?watch=1&timeoutSeconds=1&resourceVersion=0"
                     "&fieldSelector=metadata.name%3Dwatched")
    lines = r.content.splitlines()
    assert r.status_code == 200 and len(lines) == 1
    obj = json.loads(lines[0])["object"]
    fams, prom = scrape(server)
    labels = {"group": "", "version": "v1", "kind": "ConfigMap"}
    events = fams["apiserver_watch_events_total"]
    assert (events.help, events.type) == ("[ALPHA] Number of events sent in watch clients", "counter")
    assert prom["apiserver_watch_events"].type == "counter"  # prometheus_client strips `_total`
    old_events = before.get("apiserver_watch_events_total", Family("", "", ""))
    assert events.value(**labels) - old_events.value(**labels) == 1
    sizes = fams["apiserver_watch_events_sizes"]
    assert (sizes.help, sizes.type) == ("[ALPHA] Watch event size distribution in bytes", "histogram")
    assert buckets(sizes, **labels) == EVENT_BOUNDS
    old_sizes = before.get("apiserver_watch_events_sizes", Family("", "", ""))
    assert one(sizes, "_sum", **labels) - one(old_sizes, "_sum", **labels) == len(
        json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()) + 1
    # a named group's kind; a BOOKMARK counts (a watch this short gets one as it ends)
    r = requests.get(f"{server.url}/apis/apps/v1/namespaces/{ns}/deployments?watch=1&timeoutSeconds=1"
                     "&allowWatchBookmarks=true")
    assert [json.loads(line)["type"] for line in r.content.splitlines()] == ["BOOKMARK"]
    after, _ = scrape(server)
    apps = {"group": "apps", "version": "v1", "kind": "Deployment"}
    assert after["apiserver_watch_events_total"].value(**apps) - events.value(**apps) == 1


def test_admission_webhook_families(server: RunningServer, hook: Hook, ns: str) -> None:
    """A validating denial, a mutating call that allows, a failed call under Ignore and under Fail: the webhook
    families as the dispatchers record them; the calls' time is left out of the SLI duration."""
    deny = configure(server, "validatingwebhookconfigurations", ns,
                     clientConfig={"url": f"{hook.url}/deny", "caBundle": hook.ca_bundle})
    label = configure(server, "mutatingwebhookconfigurations", ns,
                      clientConfig={"url": f"{hook.url}/label", "caBundle": hook.ca_bundle})
    try:
        assert cm(server, ns, "deny-me").status_code == 403
    finally:
        unconfigure(server, "validatingwebhookconfigurations", deny)
        unconfigure(server, "mutatingwebhookconfigurations", label)
    ignored = _unreachable(server, hook, ns, "Ignore", 201)
    failing = _unreachable(server, hook, ns, "Fail", 500)
    fams, prom = scrape(server)
    total = fams["apiserver_admission_webhook_request_total"]
    assert total.help.startswith("[ALPHA] Admission webhook request total, identified by name and broken out for "
                                 "each admission type (validating or admit) and operation.")
    assert prom["apiserver_admission_webhook_request"].type == "counter"
    assert total.value(name=f"{deny}.example.com", type="validating", operation="CREATE", code="403",
                       rejected="true") == 1
    assert total.value(name=f"{label}.example.com", type="admit", operation="CREATE", code="200",
                       rejected="false") == 1
    assert total.value(name=f"{ignored}.example.com", type="validating", code="400", rejected="false") == 1
    assert total.value(name=f"{failing}.example.com", type="validating", code="400", rejected="true") == 1
    rejections = fams["apiserver_admission_webhook_rejection_count"]
    assert rejections.type == "counter" and rejections.help.startswith("[ALPHA] Admission webhook rejection count")
    assert rejections.value(name=f"{deny}.example.com", type="validating", operation="CREATE",
                            error_type="no_error", rejection_code="403") == 1
    assert rejections.value(name=f"{failing}.example.com", error_type="calling_webhook_error",
                            rejection_code="400") == 1
    assert not series(rejections, "", name=f"{ignored}.example.com")
    assert fams["apiserver_admission_webhook_fail_open_count"].value(name=f"{ignored}.example.com",
                                                                    type="validating") == 1
    duration = fams["apiserver_admission_webhook_admission_duration_seconds"]
    assert duration.help == ("[STABLE] Admission webhook latency histogram in seconds, identified by name and "
                             "broken out for each operation and API resource and type (validate or admit).")
    assert buckets(duration, name=f"{label}.example.com") == WEBHOOK_BOUNDS
    assert one(duration, "_count", name=f"{label}.example.com", type="admit", operation="CREATE",
               rejected="false") == 1
    assert set(series(duration, "_count", name=f"{deny}.example.com")[0][0]) == {"name", "type", "operation",
                                                                                "rejected"}
    # the webhook time is not the SLI's: its POSTs' sum is below their duration's by at least the calls' time
    called = sum(v for _, v in series(duration, "_sum"))
    post = {"verb": "POST", "resource": "configmaps", "scope": "resource"}
    durations = sum(v for _, v in series(fams["apiserver_request_duration_seconds"], "_sum", **post))
    sli = one(fams["apiserver_request_sli_duration_seconds"], "_sum", **post)
    assert sli <= durations - called + 1e-6 and called > 0


def _unreachable(server: RunningServer, hook: Hook, ns: str, policy: str, status: int) -> str:
    """One create under a validating webhook nobody answers (`failurePolicy: <policy>`); its configuration's name."""
    name = configure(server, "validatingwebhookconfigurations", ns, failurePolicy=policy,
                     clientConfig={"url": "https://127.0.0.1:1/nothing", "caBundle": hook.ca_bundle})
    try:
        assert cm(server, ns, f"{policy.lower()}-create").status_code == status
    finally:
        unconfigure(server, "validatingwebhookconfigurations", name)
    return name


def test_registered_metrics_total(server: RunningServer) -> None:
    """component-base's meta metrics: `registered_metrics_total` (BETA) counts each registered family by
    stability level (those of /metrics/slis too), `hidden_metrics_total` the hidden ones."""
    fams, prom = scrape(server)
    reg = fams["registered_metrics_total"]
    assert reg.type == "counter"
    assert reg.help == "[BETA] The count of registered metrics broken by stability level and deprecation version."
    assert prom["registered_metrics"].type == "counter"
    slis = parse(requests.get(server.url + "/metrics/slis").text)
    # every family with a stability prefix, those without a sample yet included: at least those written
    for level in ("ALPHA", "BETA", "STABLE"):
        written = sum(f.help.startswith(f"[{level}]") for f in (*fams.values(), *slis.values()))
        assert reg.value(stability_level=level, deprecated_version="") >= written > 0
    assert set(series(reg, "")[0][0]) == {"stability_level", "deprecated_version"}
    assert fams["hidden_metrics_total"].value() == 3 and fams["disabled_metrics_total"].value() == 0


def test_validating_admission_policy_checks(server: RunningServer, ns: str) -> None:
    """`apiserver_validating_admission_policy_check_total` and `_check_duration_seconds` (BETA), as the policy
    dispatcher records: a failed validation once per binding action (a plain denial is `invalid_error`, as
    upstream's `ErrorType` judges by the message), an error under `failurePolicy: Ignore` as `allow`, a passing
    validation not at all."""
    vap = Policies(server, ns)
    try:
        strict = vap.policy(validations=[{"expression": "object.data.a == 'b'"}])
        both = vap.bind(strict, ("Deny", "Audit"))
        lenient = vap.policy(failurePolicy="Ignore", validations=[{"expression": "object.data.missing == 'x'"}])
        ignored = vap.bind(lenient, ("Deny",))
        assert vap.cm("fine", {"a": "b"}).status_code == 201
        assert vap.cm("refused", {"a": "c"}).status_code == 422
    finally:
        vap.cleanup()
    fams, prom = scrape(server)
    checks = fams["apiserver_validating_admission_policy_check_total"]
    assert checks.type == "counter"
    assert checks.help == ("[BETA] Validation admission policy check total, labeled by policy and further identified "
                           "by binding and enforcement action taken.")
    assert prom["apiserver_validating_admission_policy_check"].type == "counter"
    assert checks.value(policy=strict, policy_binding=both, error_type="invalid_error",
                        enforcement_action="deny") == 1
    assert checks.value(policy=strict, policy_binding=both, error_type="invalid_error",
                        enforcement_action="audit") == 1
    assert len(series(checks, "", policy=strict)) == 2  # the passing create recorded nothing
    assert checks.value(policy=lenient, policy_binding=ignored, error_type="invalid_error",
                        enforcement_action="allow") == 2  # both creates: the expression errs, Ignore admits
    duration = fams["apiserver_validating_admission_policy_check_duration_seconds"]
    assert duration.help == ("[BETA] Validation admission latency for individual validation expressions in "
                             "seconds, labeled by policy and further including binding and enforcement action "
                             "taken.") and duration.type == "histogram"
    assert buckets(duration, policy=strict, enforcement_action="deny") == ["5e-07", "0.001", "0.01", "0.1", "1",
                                                                          "+Inf"]
    assert one(duration, "_count", policy=lenient, enforcement_action="allow") == 2


def test_work_estimated_seats(server: RunningServer, ns: str) -> None:
    """`apiserver_flowcontrol_work_estimated_seats` (ALPHA): one observation per request APF classified (rejected
    ones too, exempt levels' included: 1.33's `startRequest` estimates before its exempt check), buckets 1, 2, 4,
    10."""
    assert requests.get(f"{server.url}/api/v1/namespaces/{ns}/configmaps").status_code == 200
    fams, prom = scrape(server)
    fam = fams["apiserver_flowcontrol_work_estimated_seats"]
    assert fam.type == "histogram"
    assert fam.help == ("[ALPHA] Number of estimated seats (maximum of initial and final seats) associated with "
                        "requests in API Priority and Fairness")
    assert prom["apiserver_flowcontrol_work_estimated_seats"].type == "histogram"
    dispatched = fams["apiserver_flowcontrol_dispatched_requests_total"]
    rejected = fams.get("apiserver_flowcontrol_rejected_requests_total", Family("", "", ""))
    counted = series(fam, "_count")
    assert counted
    for labels, n in counted:
        assert set(labels) == {"priority_level", "flow_schema"}
        assert buckets(fam, **labels) == ["1", "2", "4", "10", "+Inf"]
        assert n == dispatched.value(**labels) + sum(v for _, v in series(rejected, "", **labels))
    if dispatched.value(priority_level="exempt", flow_schema="exempt"):  # a system:masters request: estimated too
        assert one(fam, "_count", priority_level="exempt", flow_schema="exempt") >= 1


def test_work_estimated_seats_of_wide_requests() -> None:
    """The requests of more than one seat are noted one by one, the others derived from the counters."""
    from types import SimpleNamespace

    from conformance.reference_server.metrics.flowcontrol import FlowControlMetrics
    from conformance.reference_server.metrics.registry import Registry

    limited = SimpleNamespace(limits=SimpleNamespace(exempt=False, queues=0))
    fc = FlowControlMetrics(SimpleNamespace(levels={"workload-low": limited}, queuesets={}))
    decision = SimpleNamespace(pl_name="workload-low", fs_name="service-accounts",
                               flow=("workload-low", "service-accounts"))
    for seats in (1, 1, 3, 10, 1):
        req = SimpleNamespace(seats=seats, started=1, arrived=1, details=None)
        fc.dispatched(decision, req)
    fc.rejected(decision, None, limited)  # at once: counted as one seat
    reg = Registry()
    reg.add(fc.seats)
    fam = parse(reg.render())["apiserver_flowcontrol_work_estimated_seats"]
    assert [(ls["le"], v) for n, ls, v in fam.samples if n.endswith("_bucket")] == [
        ("1", 4), ("2", 4), ("4", 5), ("10", 6), ("+Inf", 6)]
    assert one(fam, "_sum") == 17

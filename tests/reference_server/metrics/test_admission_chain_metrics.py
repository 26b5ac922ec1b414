"""The admission chain's step and controller families (metrics/admission_chain.py over admission/chain.py):
upstream's names, HELP texts, types, labels and buckets; every default-on plugin that handles the operation
recorded once per phase in kube-apiserver 1.33's order and type; a refusal recorded `rejected="true"` on the
refusing plugin and the step, ending the chain (no later plugin of its phase, no validating phase after a
mutating refusal); CREATE, UPDATE, DELETE and a delete collection's per-item validation."""
from __future__ import annotations

import uuid

import pytest
import requests

from conformance.reference_server.admission.chain import ADMIT, PLUGINS, VALIDATE, phase
from conformance.reference_server.embedded import RunningServer

from ..admission.test_validating_policy import Policies, ns, server  # noqa: F401 - fixtures: a server of its own
from ..test_admission_webhooks import Hook, cm, configure, hook, unconfigure  # noqa: F401 - hook: a fixture
from .exposition import Family, parse

STEP = "apiserver_admission_step_admission_duration_seconds"
SUMMARY = STEP + "_summary"
CONTROLLER = "apiserver_admission_controller_admission_duration_seconds"
BOUNDS = ["0.005", "0.025", "0.1", "0.5", "1", "2.5", "+Inf"]
SCHEDULING = "/apis/scheduling.k8s.io/v1/priorityclasses"


class Counts:
    """The step's and every plugin's `_count`, read before and after the requests under test."""

    def __init__(self, server: RunningServer):
        self.server = server
        self.before = self._scrape()

    def _scrape(self) -> dict[str, Family]:
        r = requests.get(self.server.url + "/metrics")
        assert r.status_code == 200
        return parse(r.text)

    @staticmethod
    def _count(fams: dict[str, Family], family: str, **labels: str) -> float:
        fam = fams.get(family)
        if fam is None:
            return 0.0
        found = [v for n, ls, v in fam.samples
                 if n == family + "_count" and all(ls.get(k) == x for k, x in labels.items())]
        return sum(found)

    def delta(self, after: dict[str, Family], family: str, **labels: str) -> float:
        return self._count(after, family, **labels) - self._count(self.before, family, **labels)

    def now(self) -> dict[str, Family]:
        return self._scrape()


def plugins_moved(counts: Counts, after: dict[str, Family], operation: str, step_type: str,
                  rejected: str) -> dict[str, float]:
    return {name: d for name, _ in phase(operation, step_type)
            if (d := counts.delta(after, CONTROLLER, name=name, type=step_type, operation=operation,
                                  rejected=rejected))}


def test_families_as_upstream_writes_them(server: RunningServer, ns: str) -> None:
    """HELP (with stability), TYPE, labels and buckets as `admission/metrics/metrics.go`; a summary without
    objectives writes only `_sum` and `_count`; prometheus_client reads the exposition."""
    parser = pytest.importorskip("prometheus_client.parser")
    counts = Counts(server)
    assert requests.post(f"{server.url}/api/v1/namespaces/{ns}/configmaps",
                         json={"metadata": {"name": "one"}}).status_code == 201
    text = requests.get(server.url + "/metrics").text
    fams = parse(text)
    prom = {f.name: f for f in parser.text_string_to_metric_families(text)}
    step, summary, controller = fams[STEP], fams[SUMMARY], fams[CONTROLLER]
    assert (step.type, step.help) == ("histogram", "[STABLE] Admission sub-step latency histogram in seconds, broken "
                                      "out for each operation and API resource and step type (validate or admit).")
    assert (summary.type, summary.help) == ("summary", "[ALPHA] Admission sub-step latency summary in seconds, broken "
                                            "out for each operation and API resource and step type (validate or "
                                            "admit).")
    assert (controller.type, controller.help) == (
        "histogram", "[STABLE] Admission controller latency histogram in seconds, identified by name and broken out "
                     "for each operation and API resource and type (validate or admit).")
    assert prom[STEP].type == "histogram" and prom[SUMMARY].type == "summary" and prom[CONTROLLER].type == "histogram"
    labels = {"type": "admit", "operation": "CREATE", "rejected": "false"}
    assert [ls["le"] for n, ls, _ in step.samples if n == STEP + "_bucket" and ls.items() >= labels.items()] \
        == BOUNDS
    assert {n for n, _, _ in summary.samples} == {SUMMARY + "_sum", SUMMARY + "_count"}
    assert {k for _, ls, _ in step.samples for k in ls} == {"type", "operation", "rejected", "le"}
    assert {k for _, ls, _ in controller.samples for k in ls} == {"name", "type", "operation", "rejected", "le"}
    for step_type in (ADMIT, VALIDATE):
        assert counts.delta(fams, STEP, type=step_type, operation="CREATE", rejected="false") == 1
        assert counts.delta(fams, SUMMARY, type=step_type, operation="CREATE", rejected="false") == 1
        assert plugins_moved(counts, fams, "CREATE", step_type, "false") == \
            {name: 1 for name, _ in phase("CREATE", step_type)}


def test_the_default_chain_of_1_33() -> None:
    """The plugins and their order: `AllOrderedPlugins` less `DefaultOffAdmissionPlugins`; a CREATE's mutating
    phase starts with NamespaceLifecycle and ends with the mutating webhooks, its validating phase ends with the
    validating webhooks and ResourceQuota; an UPDATE of a CSR's approval reaches CertificateApproval."""
    names = [p[0] for p in PLUGINS]
    assert names[:3] == ["NamespaceLifecycle", "LimitRanger", "ServiceAccount"]
    assert names[-5:] == ["MutatingAdmissionPolicy", "MutatingAdmissionWebhook", "ValidatingAdmissionPolicy",
                          "ValidatingAdmissionWebhook", "ResourceQuota"]
    admit = [n for n, _ in phase("CREATE", ADMIT)]
    assert admit[0] == "NamespaceLifecycle" and admit[-1] == "MutatingAdmissionWebhook"
    assert "PodSecurity" not in admit and "ResourceQuota" not in admit
    assert [n for n, _ in phase("CREATE", VALIDATE)][-3:] == ["ValidatingAdmissionPolicy",
                                                             "ValidatingAdmissionWebhook", "ResourceQuota"]
    assert [n for n, _ in phase("DELETE", ADMIT)] == ["NamespaceLifecycle", "Priority", "MutatingAdmissionPolicy",
                                                      "MutatingAdmissionWebhook"]
    assert "CertificateApproval" in [n for n, _ in phase("UPDATE", VALIDATE)]
    assert "ServiceAccount" not in [n for n, _ in phase("UPDATE", ADMIT)]


def test_a_mutating_refusal_ends_the_chain(server: RunningServer) -> None:
    """A create in a missing namespace: NamespaceLifecycle (the first mutating plugin) refuses; nothing after it is
    recorded, nor any validating step."""
    counts = Counts(server)
    r = requests.post(f"{server.url}/api/v1/namespaces/nowhere-{uuid.uuid4().hex[:6]}/configmaps",
                      json={"metadata": {"name": "x"}})
    assert r.status_code == 404
    after = counts.now()
    assert plugins_moved(counts, after, "CREATE", ADMIT, "true") == {"NamespaceLifecycle": 1}
    assert plugins_moved(counts, after, "CREATE", ADMIT, "false") == {}
    assert counts.delta(after, STEP, type="admit", operation="CREATE", rejected="true") == 1
    assert counts.delta(after, STEP, type="validate", operation="CREATE") == 0


def test_a_validating_refusal_after_every_mutating_plugin(server: RunningServer, ns: str) -> None:
    """A ValidatingAdmissionPolicy's denial: the whole mutating phase passed; the validating plugins before the
    policy passed, the policy refused, the webhooks and ResourceQuota after it are not recorded."""
    vap = Policies(server, ns)
    try:
        vap.bind(vap.policy(validations=[{"expression": "object.data.a == 'b'"}]))
        counts = Counts(server)
        assert vap.cm("refused", {"a": "c"}).status_code == 422
        after = counts.now()
    finally:
        vap.cleanup()
    assert plugins_moved(counts, after, "CREATE", ADMIT, "false") == {n: 1 for n, _ in phase("CREATE", ADMIT)}
    validate = [n for n, _ in phase("CREATE", VALIDATE)]
    before_policy = validate[:validate.index("ValidatingAdmissionPolicy")]
    assert plugins_moved(counts, after, "CREATE", VALIDATE, "false") == {n: 1 for n in before_policy}
    assert plugins_moved(counts, after, "CREATE", VALIDATE, "true") == {"ValidatingAdmissionPolicy": 1}
    assert counts.delta(after, STEP, type="validate", operation="CREATE", rejected="true") == 1
    assert counts.delta(after, STEP, type="admit", operation="CREATE", rejected="false") == 1


def test_an_update_refused_by_priority(server: RunningServer) -> None:
    """An UPDATE making a second PriorityClass the global default: Priority's validating half refuses it
    (403), after the UPDATE's mutating phase and the validating plugins before Priority."""
    first, second = f"pc-{uuid.uuid4().hex[:6]}", f"pc-{uuid.uuid4().hex[:6]}"
    try:
        assert requests.post(server.url + SCHEDULING, json={"metadata": {"name": first}, "value": 10,
                                                            "globalDefault": True}).status_code == 201
        created = requests.post(server.url + SCHEDULING, json={"metadata": {"name": second}, "value": 5})
        assert created.status_code == 201
        counts = Counts(server)
        body = created.json() | {"globalDefault": True}
        r = requests.put(f"{server.url}{SCHEDULING}/{second}", json=body)
        assert r.status_code == 403, r.text
        after = counts.now()
    finally:
        for name in (first, second):
            requests.delete(f"{server.url}{SCHEDULING}/{name}")
    assert plugins_moved(counts, after, "UPDATE", ADMIT, "false") == {n: 1 for n, _ in phase("UPDATE", ADMIT)}
    validate = [n for n, _ in phase("UPDATE", VALIDATE)]
    assert plugins_moved(counts, after, "UPDATE", VALIDATE, "false") == \
        {n: 1 for n in validate[:validate.index("Priority")]}
    assert plugins_moved(counts, after, "UPDATE", VALIDATE, "true") == {"Priority": 1}


def test_deletes(server: RunningServer, ns: str) -> None:
    """DELETE of an immortal namespace: NamespaceLifecycle refuses in the mutating phase; a delete collection runs
    the mutating phase once and validates each deleted item."""
    counts = Counts(server)
    assert requests.delete(f"{server.url}/api/v1/namespaces/kube-public").status_code == 403
    after = counts.now()
    assert plugins_moved(counts, after, "DELETE", ADMIT, "true") == {"NamespaceLifecycle": 1}
    assert counts.delta(after, STEP, type="validate", operation="DELETE") == 0
    for name in ("a", "b", "c"):
        assert requests.post(f"{server.url}/api/v1/namespaces/{ns}/secrets",
                             json={"metadata": {"name": name}}).status_code == 201
    counts = Counts(server)
    r = requests.delete(f"{server.url}/api/v1/namespaces/{ns}/secrets")
    assert r.status_code == 200 and len(r.json()["items"]) == 3
    after = counts.now()
    assert counts.delta(after, STEP, type="admit", operation="DELETE", rejected="false") == 1
    assert counts.delta(after, STEP, type="validate", operation="DELETE", rejected="false") == 3
    assert plugins_moved(counts, after, "DELETE", VALIDATE, "false") == {n: 3 for n, _ in phase("DELETE", VALIDATE)}


def test_a_strategy_error_records_the_mutating_phase_only(server: RunningServer, ns: str) -> None:
    """A 422 of the kind's own validation comes between the phases (`BeforeCreate`): the mutating step only."""
    counts = Counts(server)
    r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "Not_Valid"}})
    assert r.status_code == 422
    after = counts.now()
    assert counts.delta(after, STEP, type="admit", operation="CREATE", rejected="false") == 1
    assert counts.delta(after, STEP, type="validate", operation="CREATE") == 0


def test_the_webhook_plugins_time_and_refusal(server: RunningServer, hook: Hook) -> None:  # noqa: F811
    """A mutating webhook that allows and a validating one that denies: MutatingAdmissionWebhook's time is its
    call's (above 0), ValidatingAdmissionWebhook refuses after ValidatingAdmissionPolicy passed; ResourceQuota,
    after it, is not recorded."""
    name = f"acw-{uuid.uuid4().hex[:6]}"
    assert requests.post(f"{server.url}/api/v1/namespaces",
                         json={"metadata": {"name": name, "labels": {"hooks": name}}}).status_code == 201
    label = configure(server, "mutatingwebhookconfigurations", name,
                      clientConfig={"url": f"{hook.url}/label", "caBundle": hook.ca_bundle})
    deny = configure(server, "validatingwebhookconfigurations", name,
                     clientConfig={"url": f"{hook.url}/deny", "caBundle": hook.ca_bundle})
    try:
        counts = Counts(server)
        assert cm(server, name, "deny-me").status_code == 403
        after = counts.now()
    finally:
        unconfigure(server, "validatingwebhookconfigurations", deny)
        unconfigure(server, "mutatingwebhookconfigurations", label)
        requests.delete(f"{server.url}/api/v1/namespaces/{name}")
    assert plugins_moved(counts, after, "CREATE", VALIDATE, "true") == {"ValidatingAdmissionWebhook": 1}
    validate = [n for n, _ in phase("CREATE", VALIDATE)]
    assert plugins_moved(counts, after, "CREATE", VALIDATE, "false") == \
        {n: 1 for n in validate[:validate.index("ValidatingAdmissionWebhook")]}
    fam = after[CONTROLLER]
    mutating = {"name": "MutatingAdmissionWebhook", "type": "admit", "operation": "CREATE", "rejected": "false"}
    sums = [v for n, ls, v in fam.samples if n == CONTROLLER + "_sum" and ls.items() >= mutating.items()]
    before = [v for n, ls, v in counts.before[CONTROLLER].samples
              if n == CONTROLLER + "_sum" and ls.items() >= mutating.items()]
    assert sums[0] - (before[0] if before else 0.0) > 0  # the webhook call's time

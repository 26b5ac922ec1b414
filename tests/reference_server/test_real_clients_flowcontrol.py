"""kubectl 1.33 and the official client meet flowcontrol.apiserver.k8s.io/v1 (registry/flowcontrol.py) as on a kind
cluster: `get flowschemas,prioritylevelconfigurations` with printers.go's columns over the bootstrap objects,
`apply -f` of a schema and its level, `FlowcontrolApiserverV1Api`, and the X-Kubernetes-PF-* response headers."""
from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Iterator

import pytest

from .test_real_clients import Kube, kube, serve_kube  # noqa: F401 - kube: a fixture
from .test_real_clients_groupkinds import blocks

MANIFEST = """\
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {{name: {u}}}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 3
    limitResponse: {{type: Queue, queuing: {{queues: 16}}}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {{name: {u}}}
spec:
  priorityLevelConfiguration: {{name: {u}}}
  matchingPrecedence: 700
  distinguisherMethod: {{type: ByNamespace}}
  rules:
  - subjects: [{{kind: User, user: {{name: nobody}}}}]
    resourceRules: [{{verbs: [get], apiGroups: [""], resources: [configmaps], namespaces: ["*"]}}]
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "flowcontrol", flavor="bare")


def test_kubectl_get_and_apply(kube: Kube, tmp_path: Path) -> None:
    u = f"fc-{uuid.uuid4().hex[:6]}"
    fs, pl = blocks(kube.ok("get", "flowschemas,prioritylevelconfigurations"))
    assert fs[0] == ["NAME", "PRIORITYLEVEL", "MATCHINGPRECEDENCE", "DISTINGUISHERMETHOD", "AGE", "MISSINGPL"]
    rows = {r[0]: r[1:4] + r[5:] for r in fs[1:]}
    assert rows["flowschema.flowcontrol.apiserver.k8s.io/exempt"] == ["exempt", "1", "<none>", "False"]
    assert rows["flowschema.flowcontrol.apiserver.k8s.io/catch-all"] == ["catch-all", "10000", "ByUser", "False"]
    assert len(rows) == 13
    assert pl[0] == ["NAME", "TYPE", "NOMINALCONCURRENCYSHARES", "QUEUES", "HANDSIZE", "QUEUELENGTHLIMIT", "AGE"]
    rows = {r[0]: r[1:6] for r in pl[1:]}
    assert rows["prioritylevelconfiguration.flowcontrol.apiserver.k8s.io/exempt"] == ["Exempt"] + ["<none>"] * 4
    assert rows["prioritylevelconfiguration.flowcontrol.apiserver.k8s.io/catch-all"] == [
        "Limited", "5", "<none>", "<none>", "<none>"]
    assert rows["prioritylevelconfiguration.flowcontrol.apiserver.k8s.io/workload-low"] == [
        "Limited", "100", "128", "6", "50"]
    manifest = tmp_path / "m.yaml"
    manifest.write_text(MANIFEST.format(u=u))
    try:
        assert kube.ok("apply", "-f", str(manifest)) == (
            f"prioritylevelconfiguration.flowcontrol.apiserver.k8s.io/{u} created\n"
            f"flowschema.flowcontrol.apiserver.k8s.io/{u} created\n")
        out = kube.ok("get", "prioritylevelconfiguration", u)
        assert re.split(r" {2,}", out.split("\n")[1])[:6] == [u, "Limited", "3", "16", "8", "50"]
        out = kube.ok("get", "flowschema", u, "-o", "jsonpath={.spec.matchingPrecedence} {.status.conditions[0].type}")
        assert out.startswith("700")
        # the response headers kubectl logs at -v=8: an admin (system:masters) request is exempt
        proc = kube.run("get", "ns", "default", "-v=8")
        uid = kube.http.get(f"{kube.server.url}/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/exempt").json()[
            "metadata"]["uid"]
        assert f"X-Kubernetes-Pf-Flowschema-Uid: {uid}" in proc.stderr
    finally:
        kube.run("delete", "flowschema,prioritylevelconfiguration", u, "--ignore-not-found")


def test_kubectl_reads_the_apf_dumps(kube: Kube) -> None:
    """`kubectl get --raw` of the queue and request dumps (apf_controller_debug.go): a row per queue of each
    queuing level (the bootstrap workload-low has 128), and kubectl's own request, exempt, with its details."""
    queues = kube.ok("get", "--raw", "/debug/api_priority_and_fairness/dump_queues").splitlines()
    assert queues[0].split() == ["PriorityLevelName,", "Index,", "PendingRequests,", "ExecutingRequests,",
                                 "SeatsInUse,", "NextDispatchR,", "InitialSeatsSum,", "MaxSeatsSum,", "TotalWorkSum"]
    rows = [[c.strip() for c in line.split(",")] for line in queues[1:]]
    low = [r for r in rows if r[0] == "workload-low"]
    assert [r[1] for r in low] == [str(i) for i in range(128)] and low[0][2:5] == ["0", "0", "0"]
    assert not [r for r in rows if r[0] in ("exempt", "catch-all")]  # no queues: exempt, Reject
    out = kube.ok("get", "--raw", "/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1")
    rows = [[c.strip() for c in line.split(",")] for line in out.splitlines()[1:]]
    own = next(r for r in rows if r[12] == "/debug/api_priority_and_fairness/dump_requests")
    assert (own[0], own[1], own[2], own[3], own[6], own[7], own[8], own[11]) == (
        "exempt", "exempt", "-1", "-1", "1", "0", "0s", "get")


def test_official_client(served: Kube) -> None:
    from kubernetes import client, config

    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    try:
        api = client.FlowcontrolApiserverV1Api(api_client)
        names = {fs.metadata.name: fs for fs in api.list_flow_schema().items}
        assert names["probes"].spec.rules[0].non_resource_rules[0].non_resource_urls == ["/healthz", "/readyz",
                                                                                          "/livez"]
        level = api.read_priority_level_configuration("global-default")
        assert level.spec.limited.nominal_concurrency_shares == 20 and level.spec.limited.lendable_percent == 50
        u = f"fc-{uuid.uuid4().hex[:6]}"
        made = api.create_flow_schema(client.V1FlowSchema(
            metadata=client.V1ObjectMeta(name=u), spec=client.V1FlowSchemaSpec(
            priority_level_configuration=client.V1PriorityLevelConfigurationReference(name="workload-low"),
            rules=[client.V1PolicyRulesWithSubjects(
                subjects=[client.FlowcontrolV1Subject(kind="Group", group=client.V1GroupSubject(name="g"))],
                non_resource_rules=[client.V1NonResourcePolicyRule(verbs=["get"], non_resource_urls=["/metrics"])])])))
        assert made.spec.matching_precedence == 1000 and made.metadata.generation == 1
        status = api.read_flow_schema_status(u)
        assert status.metadata.name == u
        api.delete_flow_schema(u)
    finally:
        api_client.close()

"""kube-apiserver's start-up writes through admission (controller/bootstrap.py): on an etcd store that already holds
a webhook configuration (a restart), the bootstrap namespaces, the `kubernetes` Service and the system
PriorityClasses are reviewed as the loopback client's (`system:apiserver`) CREATEs, as upstream's post-start hooks
write them; a webhook that refuses them keeps them out, and the server serves on."""
from __future__ import annotations

import time
import uuid
from typing import Any, Iterator

import pytest
import requests

from conformance.reference_server.admission.scope import install_strategies
from conformance.reference_server.deviations import Deviations
from conformance.reference_server.embedded import start_embedded
from conformance.reference_server.registry import Registry
from conformance.reference_server.storage.backends import StorageConfig, etcd_client

from ..backends import etcd_process, unique_prefix  # noqa: F401 - etcd_process: a fixture
from ..test_admission_webhooks import Hook, hook  # noqa: F401 - hook: a fixture

BOOTSTRAP = {("namespaces", "default"), ("namespaces", "kube-system"), ("namespaces", "kube-public"),
             ("namespaces", "kube-node-lease"), ("services", "kubernetes"),
             ("priorityclasses", "system-cluster-critical"), ("priorityclasses", "system-node-critical")}


def _preloaded(url: str, hook: Hook, path: str) -> str:
    """A fresh etcd prefix holding only a ValidatingWebhookConfiguration for CREATEs of the start-up kinds."""
    from conformance.reference_server.storage.etcd import EtcdStore

    prefix = unique_prefix()
    store = EtcdStore(etcd_client([url]), prefix)
    try:
        registry = Registry(store, Deviations(()))
        install_strategies(registry)
        registry.group("admissionregistration.k8s.io", "validatingwebhookconfigurations").create({
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": f"boot-{uuid.uuid4().hex[:6]}"},
            "webhooks": [{"name": "boot.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
                          "clientConfig": {"url": f"{hook.url}{path}", "caBundle": hook.ca_bundle},
                          "rules": [{"operations": ["CREATE"], "apiGroups": ["", "scheduling.k8s.io"],
                                     "apiVersions": ["v1"],
                                     "resources": ["namespaces", "services", "priorityclasses"]}]}]})
    finally:
        store.close()
    return prefix


def _reviewed(hook: Hook) -> dict[tuple[str, str], dict[str, Any]]:
    return {(b["request"]["resource"]["resource"], b["request"]["name"]): b["request"] for _, b in hook.reviews}


def _wait(predicate: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.fixture
def served(etcd_process: Any, hook: Hook, request: pytest.FixtureRequest) -> Iterator[Any]:  # noqa: F811
    prefix = _preloaded(etcd_process.url, hook, request.param)
    srv = start_embedded(flavor="bare", storage=StorageConfig("etcd", (etcd_process.url,), prefix),
                         leader_elect=False)
    yield srv
    srv.stop()


@pytest.mark.parametrize("served", ["/allow"], indirect=True)
def test_start_up_writes_are_reviewed_as_the_loopback_client(served: Any, hook: Hook) -> None:  # noqa: F811
    _wait(lambda: BOOTSTRAP <= set(_reviewed(hook)))
    reviews = _reviewed(hook)
    for key in BOOTSTRAP:
        review = reviews[key]
        assert review["operation"] == "CREATE"
        assert review["userInfo"]["username"] == "system:apiserver", review["userInfo"]
        assert "system:masters" in review["userInfo"]["groups"]
    assert reviews[("services", "kubernetes")]["namespace"] == "default"

    def stored() -> bool:
        return (requests.get(f"{served.url}/api/v1/namespaces/kube-node-lease").status_code == 200
                and requests.get(f"{served.url}/api/v1/namespaces/default/services/kubernetes").status_code == 200)
    _wait(stored)
    pcs = requests.get(f"{served.url}/apis/scheduling.k8s.io/v1/priorityclasses").json()["items"]
    assert {"system-cluster-critical", "system-node-critical"} <= {pc["metadata"]["name"] for pc in pcs}


@pytest.mark.parametrize("served", ["/deny"], indirect=True)
def test_refused_start_up_writes_stay_out(served: Any, hook: Hook) -> None:  # noqa: F811
    """The namespaces and the Service stay missing (their controllers try again later); the PriorityClasses'
    post-start hook fails at the first refusal that is not a 503, as `AddSystemPriorityClasses` returns it from
    its poll, which kills kube-apiserver (`nsconform serve` exits 255; the embedded server records it)."""
    _wait(lambda: {("priorityclasses", "system-node-critical")} <= set(_reviewed(hook)))
    assert requests.get(f"{served.url}/api/v1/namespaces/kube-public").status_code == 404
    assert requests.get(f"{served.url}/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical"
                        ).status_code == 404
    _wait(served.server.failed.is_set)
    assert served.server.failure.startswith('unable to add default system priority classes: admission webhook '
                                            '"boot.example.com" denied the request'), served.server.failure


def test_serve_exits_when_the_priority_classes_hook_fails(etcd_process: Any, hook: Hook) -> None:  # noqa: F811
    """`nsconform serve` on such a store: the hook's refusal is kube-apiserver's `klog.Fatalf` (exit status 255,
    `PostStartHook "scheduling/bootstrap-system-priority-classes" failed: ...`)."""
    import subprocess
    import sys

    prefix = _preloaded(etcd_process.url, hook, "/deny")
    done = subprocess.run([sys.executable, "-m", "conformance.cli", "serve", "--port", "0", "--flavor", "bare",
                           "--storage", "etcd", "--etcd-servers", etcd_process.url, "--etcd-prefix", prefix,
                           "--leader-elect", "false"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 255, (done.stdout, done.stderr)
    assert 'nsconform serve: PostStartHook "scheduling/bootstrap-system-priority-classes" failed: unable to add ' \
           'default system priority classes: admission webhook "boot.example.com" denied the request' in done.stderr

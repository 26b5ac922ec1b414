"""Runs the vendored suite against one embedded server per process and skips, by name, the tests that need
what a kind cluster without nodes does not have (a kubelet running pods, exec, port-forward, metrics-server)."""
from __future__ import annotations

import hashlib
import os
import tempfile
from typing import Iterator

import pytest

from conformance.reference_server.embedded import start_embedded

from . import base

PODS_RUN = "needs a node: the pod must reach Running (kubelet)"
NEEDS_NODES = {
    "test_pod_apis": PODS_RUN + ", then exec into it",
    "test_exit_code": PODS_RUN + ", then exec (exit codes over the error channel)",
    "test_pod_exec_close_channel": PODS_RUN + ", then exec",
    "test_portforward_raw": PODS_RUN + ", then port-forward",
    "test_portforward_http": PODS_RUN + ", then port-forward",
    "test_metrics_utilities_integration": PODS_RUN + " and metrics-server (metrics.k8s.io)",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.path).startswith(here) and item.name in NEEDS_NODES:
            item.add_marker(pytest.mark.skip(reason=NEEDS_NODES[item.name]))


@pytest.fixture(scope="session", autouse=True)
def kind_server() -> Iterator[None]:
    server = start_embedded(tls=True, token="e2e-token", authorization="rbac", flavor="kind")
    with tempfile.TemporaryDirectory(prefix="nsconform-k8s-e2e-") as tmp:
        base.KUBECONFIG = os.path.join(tmp, "kubeconfig")
        server.write_kubeconfig(base.KUBECONFIG)
        try:
            yield
        finally:
            base.KUBECONFIG = None
            server.stop()
            _remove_discovery_cache(server.url)


def _remove_discovery_cache(url: str) -> None:
    """`utils.create_from_yaml(apply=True)` builds a DynamicClient, whose discovery cache is a file in the temp
    directory named by the server's URL (`dynamic/discovery.py`): a leftover, and stale for the next server on
    that port."""
    name = "osrcp-{0}.json".format(hashlib.md5(url.encode("utf-8"), usedforsecurity=False).hexdigest())
    try:
        os.remove(os.path.join(tempfile.gettempdir(), name))
    except FileNotFoundError:
        pass

"""fixtures/dump.py: a failed test's namespaces in a few lines, asked without recording."""
from __future__ import annotations

from conformance.client.exchange import Recorder
from conformance.endpoints import Paths
from conformance.fixtures.dump import describe_namespaces


def test_dump_names_the_namespace_its_objects_and_their_finalizers(client, recorder: Recorder) -> None:
    paths = Paths("kubernetes")
    assert client.post(paths.namespaces(), {"metadata": {"name": "nsc-dump-1"}}).status_code == 201
    cm = {"metadata": {"name": "held", "finalizers": ["example.com/keep"]}, "data": {}}
    assert client.post(paths.content("nsc-dump-1", "configmaps"), cm).status_code == 201
    assert client.post(paths.content("nsc-dump-1", "configmaps"), {"metadata": {"name": "free"}}).status_code == 201
    recorded = recorder.total

    text = describe_namespaces(client, paths, ["nsc-dump-1", "nsc-missing"], ["configmaps", "secrets"])

    first, *rest = text.splitlines()
    assert first.startswith("namespace nsc-dump-1: Namespace nsc-dump-1, phase=Active")
    assert "  configmaps (2): free, held (finalizers ['example.com/keep'])" in rest
    assert not any(line.startswith("  secrets") for line in rest)  # nothing to say: not listed
    assert "namespace nsc-missing: absent (404)" in rest
    assert recorder.total == recorded  # neither coverage nor the test's own requests

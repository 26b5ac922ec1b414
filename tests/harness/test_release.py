"""Releasing test finalizers on whatever the target serves (issue 20), and the reaper that waits for
deletions together at the end of a run (issue 11)."""
from __future__ import annotations

from typing import Iterator

import pytest

from conformance.client.api import KubeClient
from conformance.client.config import from_server
from conformance.endpoints import Paths
from conformance.fixtures.namespaces import NamespaceFactory, _LiveRegistry, release_namespace
from conformance.fixtures.reaper import Reaper, merge_summaries
from conformance.fixtures.release import FinalizeForms, finalize_verbs, profile_mismatch, release_command
from conformance.reference_server.embedded import start_embedded
from conformance.wait import Waiter

K8S = {"resources": [{"name": "namespaces/finalize", "verbs": ["update"]}]}
DESIGN = {"resources": [{"name": "namespaces/finalize", "verbs": ["create"]}]}


def test_finalize_verbs_from_discovery():
    assert finalize_verbs(K8S) == ("update",)
    assert finalize_verbs({"resources": [{"name": "namespaces"}]}) is None
    assert finalize_verbs(None) is None


@pytest.mark.parametrize("profile, discovery, fits", [("kubernetes", K8S, True), ("design", DESIGN, True),
                                                      ("design", K8S, False), ("kubernetes", DESIGN, False),
                                                      ("design", None, True), ("design", {"resources": []}, True)])
def test_profile_mismatch_only_when_discovery_says_otherwise(profile, discovery, fits):
    problem = profile_mismatch(profile, discovery)
    assert (problem is None) == fits
    if problem:
        assert "\n" not in problem and "--force-profile" in problem
        assert f"--profile {'kubernetes' if profile == 'design' else 'design'}" in problem


def test_forms_try_discovery_first_then_the_profiles_then_the_other():
    assert FinalizeForms("design", K8S).order() == ["PUT", "POST"]
    assert FinalizeForms("kubernetes", DESIGN).order() == ["POST", "PUT"]
    assert FinalizeForms("design", None).order() == ["POST", "PUT"]


def test_release_command_names_the_verb_and_never_a_token():
    kubectl = release_command("nsc-a-1", "PUT", kind="kubeconfig", url="https://x", context="kind-kind",
                              kubeconfig="/tmp/kc.yaml")
    assert ("kubectl --kubeconfig /tmp/kc.yaml --context kind-kind replace --raw "
            "/api/v1/namespaces/nsc-a-1/finalize -f -") in kubectl
    assert "create --raw" in release_command("n", "POST", kind="kubeconfig", url="https://x")
    curl = release_command("n", "POST", kind="server", url="https://x:6443/", metadata=True)
    assert "-X POST" in curl and "https://x:6443/api/v1/namespaces/n/finalize" in curl
    assert "$NSCONFORM_TOKEN" in curl and "merge-patch" in curl


@pytest.fixture(params=[("kubernetes", "design"), ("design", "kubernetes")], ids=["design-on-k8s", "k8s-on-design"])
def mismatched(request) -> Iterator[tuple[KubeClient, Paths, str]]:
    """A server of one profile and a client whose Paths speak the other."""
    server_profile, run_profile = request.param
    srv = start_embedded(profile=server_profile)
    conn = from_server(srv.url, kind="server")
    try:
        yield KubeClient.from_connection(conn, profile=run_profile), Paths(run_profile), server_profile
    finally:
        conn.close()
        srv.stop()


def _held(client: KubeClient, name: str) -> None:
    r = client.post("/api/v1/namespaces", {"metadata": {"name": name}, "spec": {"finalizers": ["example.com/x"]}})
    assert r.status_code == 201, r.text


@pytest.mark.parametrize("with_discovery", [True, False], ids=["discovery", "no-discovery"])
def test_release_uses_the_verb_the_target_offers(mismatched, with_discovery):
    client, paths, server_profile = mismatched
    discovery = client.get("/api/v1").json() if with_discovery else None
    forms = FinalizeForms(paths.profile, discovery)
    _held(client, "nsc-held-1")
    assert release_namespace(client, paths, "nsc-held-1", forms=forms) == "deleting"
    Waiter(client, paths).namespace_gone("nsc-held-1", timeout=10)
    method = "PUT" if server_profile == "kubernetes" else "POST"
    assert forms.summary()["worked"] == {f"{method} …/finalize": 1}
    if with_discovery:
        assert forms.summary()["refused"] == {}  # discovery said which: the profile's own was never tried
    else:
        assert set(forms.summary()["refused"]) == {f"{'POST' if method == 'PUT' else 'PUT'} …/finalize"}


def test_teardown_hands_over_and_the_reaper_waits_for_all():
    srv = start_embedded(controller_delay=0.5)
    conn = from_server(srv.url, kind="server")
    try:
        client, paths = KubeClient.from_connection(conn), Paths()
        waiter = Waiter(client, paths)
        registry, reaper = _LiveRegistry(), Reaper()
        reaper.registry = registry
        forms = FinalizeForms("kubernetes", client.get("/api/v1").json())
        factories = []
        for i in range(3):
            f = NamespaceFactory(client, paths, waiter, run_id="r", nodeid=f"t{i}", registry=registry,
                                 forms=forms, reaper=reaper)
            f.create("a", finalizers=["example.com/x"])
            f.create("b")
            factories.append(f)
        for f in factories:
            assert set(f.teardown().values()) == {"deleting"}  # released and deleted, not waited for
        assert len(registry.names()) == 6  # still swept on an interrupt until seen gone
        summary = reaper.drain(timeout=30)
        assert summary["reaped"] == 6 and summary["held"] == [] and summary["still_deleting"] == []
        assert registry.names() == []
        assert client.get("/api/v1/namespaces", params={"labelSelector": "nsconform.io/run=r"}).json()["items"] == []
    finally:
        conn.close()
        srv.stop()


def test_reaper_names_what_it_could_not_release():
    srv = start_embedded()
    conn = from_server(srv.url, kind="server")
    try:
        client, paths = KubeClient.from_connection(conn), Paths()
        reaper = Reaper(_LiveRegistry())
        forms = FinalizeForms("kubernetes", None)
        _held(client, "nsc-stuck-1")
        assert client.delete("/api/v1/namespaces/nsc-stuck-1").status_code == 200
        reaper.hand_over("nsc-stuck-1", client, paths, Waiter(client, paths), forms, "t::x")
        # Handed over without a release (as when every finalize form was refused): it stays held, and the
        # summary says how to free it.
        summary = reaper.drain(timeout=0.5, command_for=lambda n, m, meta: f"free {n} with {m}")
        assert summary["reaped"] == 0
        assert summary["held"] == [{"name": "nsc-stuck-1", "test": "t::x", "last_seen": summary["held"][0]["last_seen"],
                                    "command": "free nsc-stuck-1 with PUT"}]
        assert "example.com/x" in summary["held"][0]["last_seen"]
    finally:
        conn.close()
        srv.stop()


def test_summaries_merge_over_workers():
    a = {"reaped": 2, "still_deleting": [{"name": "x"}], "held": [], "kept": ["k1"], "swept": [],
         "finalize": {"worked": {"PUT …/finalize": 1}, "refused": {"POST …/finalize": 405}}, "waited_s": 1.0}
    b = {"reaped": 3, "still_deleting": [], "held": [], "kept": ["k2"], "swept": ["s"],
         "finalize": {"worked": {"PUT …/finalize": 2}, "refused": {}}, "waited_s": 2.5}
    m = merge_summaries([a, b])
    assert m["reaped"] == 5 and m["kept"] == ["k1", "k2"] and m["swept"] == ["s"] and m["waited_s"] == 2.5
    assert m["finalize"]["worked"] == {"PUT …/finalize": 3} and m["finalize"]["refused"] == {"POST …/finalize": 405}


class _FakeTarget:
    def __init__(self, discovery):
        self.discovery = discovery

    def stop(self):
        pass


@pytest.mark.parametrize("argv, jobs", [([], ["4"]), (["-n", "1"], []), (["-n", "2"], ["2"]),
                                        (["--", "-n", "3"], ["3"]), (["--", "-p", "no:xdist"], [])])
def test_cluster_runs_default_to_four_workers(monkeypatch, argv, jobs):
    import conformance.cli as cli

    seen = {}
    monkeypatch.setattr(cli, "_validate_target", lambda ns, profile, preflight=False: _FakeTarget(K8S))
    monkeypatch.setattr(pytest, "main", lambda args: seen.setdefault("args", args) and 0)
    assert cli.main(["run", "--server", "http://127.0.0.1:1", *argv]) == 0
    args = seen["args"]
    given = [args[i + 1] for i, a in enumerate(args) if a == "-n"]
    assert given == jobs


@pytest.mark.parametrize("extra, code", [([], 2), (["--force-profile"], 0)])
def test_cli_refuses_a_profile_the_target_contradicts(monkeypatch, capsys, extra, code):
    import conformance.cli as cli

    monkeypatch.setattr(cli, "_validate_target", lambda ns, profile, preflight=False: _FakeTarget(K8S))
    monkeypatch.setattr(pytest, "main", lambda args: 0)
    assert cli.main(["run", "--server", "http://127.0.0.1:1", "--profile", "design", *extra]) == code
    err = capsys.readouterr().err
    assert (err.count("\n") == 1 and "update (PUT)" in err) if code else err == ""

"""Done when: an interrupted run (Ctrl-C) leaves no namespace behind and exits non-zero without a traceback;
namespaces a run kept or a killed run left (even ones held by foreign finalizers) are swept by
`nsconform cleanup`, which `--dry-run` only lists."""
from __future__ import annotations

import os
import signal

import pytest

from . import _procs


@pytest.mark.parametrize("sig, group, jobs", [(signal.SIGINT, False, 1), (signal.SIGTERM, False, 1),
                                              (signal.SIGINT, True, 2)],
                         ids=["SIGINT", "SIGTERM", "Ctrl-C-to-the-group-with-xdist"])
def test_interrupt_mid_run_leaves_nothing(served, tmp_path, sig, group, jobs):
    """Ctrl-C (and a CI cancel's SIGTERM) while a test holds a namespace with its own finalizer; with
    `-n 2` a terminal's Ctrl-C reaches the xdist workers too (the whole process group)."""
    proc = _procs.start(["run", "--kubeconfig", str(served.kubeconfig), "--reports", str(tmp_path / "r"),
                         "--run-id", f"int-{sig.name.lower()}-{jobs}", "-n", str(jobs),
                         "--", "-k", "finalize or lifecycle"], cwd=tmp_path)

    def interrupt_when_one_is_held():
        if proc.poll() is not None:
            return "the run ended before it was interrupted"
        held = [n["metadata"]["name"] for n in served.managed() if _held(n)]
        if held:
            if group:
                os.killpg(proc.pid, sig)  # the run was started in its own session: its pid is the group id
            else:
                proc.send_signal(sig)
        return held

    try:
        held = _procs.poll(interrupt_when_one_is_held, timeout=60, interval=0.01,
                           what="the run to create a namespace held by a finalizer")
        assert isinstance(held, list), held
        out, err = proc.communicate(timeout=60)
    finally:
        _procs.stop(proc)
    assert proc.returncode != 0, out[-2000:] + err[-2000:]
    assert "KeyboardInterrupt" in out, out[-2000:] + err[-2000:]  # it was stopped mid-run, not at its end
    _procs.no_traceback(out + err)
    # The interrupt sweep deletes without waiting: allow the ones still terminating a bounded moment.
    _procs.poll(lambda: served.managed() == [], timeout=15,
                what=f"no managed-by=nsconform namespace left after {sig.name}")


def _held(ns: dict) -> bool:
    """Held by a finalizer the test added: only the harness removes it."""
    return any(f != "kubernetes" for f in (ns.get("spec") or {}).get("finalizers") or [])


def _create_held_namespace(served, name: str, run_id: str) -> None:
    """A namespace carrying the harness labels, held by a foreign spec finalizer and by a configmap's
    metadata.finalizers, as a killed run against a real cluster could leave it."""
    labels = {"app.kubernetes.io/managed-by": "nsconform", "nsconform.io/run": run_id, "nsconform.io/test": "byhand"}
    r = served.http.post(served.url + "/api/v1/namespaces", timeout=10, json={
        "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels},
        "spec": {"finalizers": ["example.com/x"]}})
    assert r.status_code == 201, r.text
    assert "example.com/x" in r.json()["spec"]["finalizers"]
    r = served.http.post(f"{served.url}/api/v1/namespaces/{name}/configmaps", timeout=10, json={
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "held", "finalizers": ["example.com/keep"]}, "data": {"k": "v"}})
    assert r.status_code == 201, r.text


def test_cleanup_sweeps_kept_and_held_namespaces(served, tmp_path):
    kc = str(served.kubeconfig)
    # A run that keeps its namespaces (as a run killed with -9 would leave them).
    res = _procs.run(["run", "--kubeconfig", kc, "--keep-namespaces", "always", "--reports", str(tmp_path / "r"),
                      "--run-id", "kept", "--", "-k", "finalizers"], cwd=tmp_path)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    kept = set(served.managed_names())
    assert kept, "--keep-namespaces always kept nothing"
    _create_held_namespace(served, "nsc-held-e2e", "kept")
    # The server refuses to drop a namespace its foreign finalizer holds: a plain DELETE is not enough.
    assert served.http.delete(served.url + "/api/v1/namespaces/nsc-held-e2e", timeout=10).status_code == 200
    everything = kept | {"nsc-held-e2e"}

    dry = _procs.run(["cleanup", "--kubeconfig", kc, "--dry-run"], cwd=tmp_path, timeout=60)
    assert dry.returncode == 0, dry.stdout + dry.stderr
    _procs.no_traceback(dry.stderr)
    for name in everything:
        assert f"would delete namespace {name}" in dry.stdout
    assert set(served.managed_names()) == everything  # listed, nothing deleted

    res = _procs.run(["cleanup", "--kubeconfig", kc], cwd=tmp_path, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    _procs.no_traceback(res.stderr)
    for name in everything:
        assert f"removed namespace {name}" in res.stdout, res.stdout
    assert served.managed() == []
    assert served.get("/api/v1/namespaces/nsc-held-e2e").status_code == 404

    again = _procs.run(["cleanup", "--kubeconfig", kc], cwd=tmp_path, timeout=60)
    assert again.returncode == 0 and "nothing to clean up" in again.stdout, again.stdout + again.stderr


def test_cleanup_after_sigkill(served, tmp_path):
    proc = _procs.start(["run", "--kubeconfig", str(served.kubeconfig), "--reports", str(tmp_path / "r"),
                         "--run-id", "killed", "--", "-k", "finalize"], cwd=tmp_path)

    def kill_when_one_is_held():
        if proc.poll() is not None:
            return "the run ended before it was killed"
        held = [n["metadata"]["name"] for n in served.managed() if _held(n)]
        if held:
            proc.send_signal(signal.SIGKILL)  # at once: no teardown, no interrupt sweep
        return held

    try:
        held = _procs.poll(kill_when_one_is_held, timeout=60, interval=0.01,
                           what="the run to create a namespace held by a finalizer")
        assert isinstance(held, list), held
        proc.wait(timeout=10)
    finally:
        _procs.stop(proc)
    assert proc.returncode == -signal.SIGKILL
    left = served.managed_names()
    assert set(held) <= set(left), "a held namespace went away with nobody to release it"

    res = _procs.run(["cleanup", "--kubeconfig", str(served.kubeconfig), "--run-id", "killed"], cwd=tmp_path,
                     timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    _procs.no_traceback(res.stderr)
    for name in held:
        assert f"removed namespace {name}" in res.stdout, res.stdout
    assert served.managed() == []

"""Done when: an interrupted run (Ctrl-C) leaves no namespace behind and exits non-zero without a traceback;
namespaces a run kept or a killed run left (even ones held by foreign finalizers) are swept by
`nsconform cleanup`, which `--dry-run` only lists."""
from __future__ import annotations

import os
import signal

import pytest

from . import _procs


def _signal_when_held(served, args: list[str], cwd, send, *, attempts: int = 3):
    """Start `nsconform ARGS`, and the moment a namespace held by a test's finalizer shows up, `send(proc)`.

    A run is a second or two and a held namespace lives for a few requests, so on a loaded machine the poll
    can miss every window and the run ends first: then start it again (up to `attempts` times)."""
    for attempt in range(1, attempts + 1):
        proc = _procs.start(args, cwd=cwd)

        def signal_when_held():
            if proc.poll() is not None:
                return "ended"
            held = [n["metadata"]["name"] for n in served.managed() if _held(n)]
            if held:
                send(proc)
            return held

        try:
            held = _procs.poll(signal_when_held, timeout=120, interval=0.005,
                               what="the run to create a namespace held by a finalizer")
        except BaseException:
            _procs.stop(proc)
            raise
        if isinstance(held, list):
            return proc, held
        proc.communicate(timeout=60)  # ended before the signal: reap it, let its teardown finish, go again
        _procs.poll(lambda: served.managed() == [], timeout=15, what="the finished run's namespaces to go")
    raise AssertionError(f"in {attempts} runs the signal never landed while a namespace was held")


@pytest.mark.parametrize("sig, group, jobs", [(signal.SIGINT, False, 1), (signal.SIGTERM, False, 1),
                                              (signal.SIGINT, True, 2)],
                         ids=["SIGINT", "SIGTERM", "Ctrl-C-to-the-group-with-xdist"])
def test_interrupt_mid_run_leaves_nothing(served, tmp_path, sig, group, jobs):
    """Ctrl-C (and a CI cancel's SIGTERM) while a test holds a namespace with its own finalizer; with
    `-n 2` a terminal's Ctrl-C reaches the xdist workers too (the whole process group)."""
    def interrupt(proc):
        if group:
            os.killpg(proc.pid, sig)  # the run was started in its own session: its pid is the group id
        else:
            proc.send_signal(sig)

    args = ["run", "--kubeconfig", str(served.kubeconfig), "--reports", str(tmp_path / "r"),
            "--run-id", f"int-{sig.name.lower()}-{jobs}", "-n", str(jobs), "--", "-k", "finalize or lifecycle"]
    proc, _ = _signal_when_held(served, args, tmp_path, interrupt)
    try:  # the interrupted run's teardown and sweep (24-76 s seen on a loaded 2-core machine, with xdist)
        out, err = proc.communicate(timeout=180)
    finally:
        _procs.stop(proc)
    assert proc.returncode != 0, out[-2000:] + err[-2000:]
    assert "KeyboardInterrupt" in out, out[-2000:] + err[-2000:]  # it was stopped mid-run, not at its end
    _procs.no_traceback(out + err)
    if jobs == 1:  # the run says what its interrupt sweep deleted (with xdist each worker sweeps its own)
        assert "swept after the interrupt (deleted, not waited for): nsc-" in out, out[-3000:]
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
    # The end of the run names what it kept and how to remove it.
    said = next(ln for ln in res.stdout.splitlines() if ln.startswith("kept (--keep-namespaces): "))
    assert set(said.split(": ", 1)[1].split(", ")) == kept
    assert f"remove them with: nsconform cleanup --kubeconfig {kc} --run-id kept" in res.stdout
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
    # -n 1: one process, so SIGKILL leaves nothing alive to tidy up (xdist workers that outlive a killed
    # controller sweep their own namespaces at exit).
    args = ["run", "--kubeconfig", str(served.kubeconfig), "--reports", str(tmp_path / "r"),
            "--run-id", "killed", "-n", "1", "--", "-k", "finalize"]
    held: list[str] = []
    for _attempt in range(3):
        # at once: no teardown, no interrupt sweep
        proc, _ = _signal_when_held(served, args, tmp_path, lambda p: p.send_signal(signal.SIGKILL))
        try:
            proc.wait(timeout=10)
        finally:
            _procs.stop(proc)
        assert proc.returncode == -signal.SIGKILL
        # The poll saw a held namespace, but the test may have released it just before the signal landed.
        held = [n["metadata"]["name"] for n in served.managed() if _held(n)]
        if held:
            break
        _procs.run(["cleanup", "--kubeconfig", str(served.kubeconfig), "--run-id", "killed"], cwd=tmp_path)
    assert held, "in 3 runs SIGKILL never landed while a namespace was held"

    res = _procs.run(["cleanup", "--kubeconfig", str(served.kubeconfig), "--run-id", "killed"], cwd=tmp_path,
                     timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    _procs.no_traceback(res.stderr)
    for name in held:
        assert f"removed namespace {name}" in res.stdout, res.stdout
    assert served.managed() == []

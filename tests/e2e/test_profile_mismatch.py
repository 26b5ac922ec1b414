"""Done when (issue 20): a run whose profile finalizes otherwise than the target stops at once with the
mismatch named and exit code 2, leaving nothing; with `--force-profile` it runs, and teardown still
releases every finalizer it added with the verb the target offers, so nothing is left either way."""
from __future__ import annotations

import json
import time

import pytest

from . import _procs


@pytest.fixture(scope="module")
def served_design(tmp_path_factory: pytest.TempPathFactory):
    srv = _procs.Served(tmp_path_factory.mktemp("served-design"), "--profile", "design")
    try:
        yield srv
    finally:
        srv.close()


CASES = [("served", "design", "update (PUT)", "--profile kubernetes"),
         ("served_design", "kubernetes", "create (POST)", "--profile design")]


@pytest.mark.parametrize("server, profile, offered, hint", CASES, ids=["design-on-kubernetes", "kubernetes-on-design"])
def test_mismatched_profile_is_named_before_anything_runs(request, tmp_path, server, profile, offered, hint):
    srv = request.getfixturevalue(server)
    t0 = time.monotonic()
    res = _procs.run(["run", "--kubeconfig", str(srv.kubeconfig), "--profile", profile, "--reports",
                      str(tmp_path / "r")], cwd=tmp_path, timeout=60)
    assert time.monotonic() - t0 < 60
    assert res.returncode == 2, res.stdout[-2000:] + res.stderr[-2000:]
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, res.stderr
    assert f"profile {profile}" in lines[0] and offered in lines[0] and hint in lines[0] \
        and "--force-profile" in lines[0], lines[0]
    _procs.no_traceback(res.stdout + res.stderr)
    assert srv.managed() == []


@pytest.mark.parametrize("server, profile, offered, hint", CASES, ids=["design-on-kubernetes", "kubernetes-on-design"])
def test_forced_profile_still_leaves_nothing(request, tmp_path, server, profile, offered, hint):
    """The suites fail where the profiles differ, but every test finalizer is released with the target's verb."""
    srv = request.getfixturevalue(server)
    method = offered.split("(")[1].rstrip(")")
    res = _procs.run(["run", "--kubeconfig", str(srv.kubeconfig), "--profile", profile, "--force-profile",
                      "--timeout-scale", "0.25", "--reports", str(tmp_path / "r"), "--run-id", f"force-{profile}",
                      "--", "-k", "finalize or phase"], cwd=tmp_path, timeout=240)
    out = res.stdout + res.stderr
    assert res.returncode == 1, out[-3000:]  # the mismatched clauses fail; the run is not a usage error
    _procs.no_traceback(res.stderr)
    assert f"finalizers released with {method} …/finalize" in res.stdout, res.stdout[-3000:]
    assert "NOT released" not in res.stdout, res.stdout[-3000:]
    # Released and deleted; the reaper saw them go before the run ended.
    assert srv.managed() == [], [n["metadata"]["name"] for n in srv.managed()]
    teardown = json.loads((tmp_path / "r" / f"force-{profile}" / "conformance.json").read_text())["teardown"]
    assert set(teardown["finalize"]["worked"]) == {f"{method} …/finalize"}
    assert teardown["held"] == [] and teardown["still_deleting"] == [] and teardown["reaped"] > 0

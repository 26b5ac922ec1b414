"""nsconform as a Sonobuoy plugin, without a cluster: the pod's environment (service-account token and CA,
KUBERNETES_SERVICE_HOST/PORT, SONOBUOY_RESULTS_DIR) is simulated against `nsconform serve --tls --token T`,
and the plugin definition's own command is run."""
from __future__ import annotations

import io
import os
import subprocess
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from conformance.preflight import needs
from conformance.reference_server.auth.rbac import Attributes, rule_allows

from . import _procs

DOCS = Path(__file__).resolve().parents[2] / "docs" / "sonobuoy"
SUBSET = "-k test_other_verbs_on_finalize_rejected"


def _plugin() -> dict:
    return yaml.safe_load((DOCS / "nsconform.yaml").read_text())


def _pod_env(served: _procs.Served, sa_dir: Path, results: Path, extra_args: str) -> dict[str, str]:
    url = urlsplit(served.url)
    (sa_dir / "token").write_text(served.token)
    (sa_dir / "ca.crt").write_bytes(served.ca_file.read_bytes())
    env = _procs.env()
    env.update({"KUBERNETES_SERVICE_HOST": url.hostname or "", "KUBERNETES_SERVICE_PORT": str(url.port),
                "NSCONFORM_SERVICEACCOUNT_DIR": str(sa_dir), "SONOBUOY_RESULTS_DIR": str(results),
                "NSCONFORM_ARGS": extra_args, "HOME": str(sa_dir.parent),
                "PATH": f"{Path(_procs.NSCONFORM[0]).parent}{os.pathsep}{env.get('PATH', '')}"})
    return env


def _run_plugin(tmp_path: Path, served: _procs.Served, extra_args: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    spec = _plugin()["spec"]
    sa_dir, results, scratch = tmp_path / "sa", tmp_path / "results", tmp_path / "scratch"
    for d in (sa_dir, results, scratch):
        d.mkdir()
    command = [c.replace("/scratch", str(scratch)) for c in spec["command"]]
    proc = subprocess.run(command, cwd=scratch, env=_pod_env(served, sa_dir, results, extra_args),
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    return proc, results


def _done_junit(results: Path) -> tuple[ET.Element, list[str]]:
    done = results / "done"
    assert done.is_file(), "no done file for Sonobuoy's worker"
    named = Path(done.read_text().strip())
    assert named.is_file() and named.parent == results.resolve(), named
    with tarfile.open(named) as tar:
        names = tar.getnames()
        junit = tar.extractfile("junit.xml")
        assert junit is not None
        return ET.parse(io.BytesIO(junit.read())).getroot(), names


def test_plugin_command_in_a_simulated_pod_writes_done_and_junit(tmp_path: Path) -> None:
    served = _procs.Served(tmp_path)
    try:
        proc, results = _run_plugin(tmp_path, served, f"--jobs 1 -- {SUBSET}")
    finally:
        served.close()
    _procs.no_traceback(proc.stderr)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    root, names = _done_junit(results)
    assert {"junit.xml", "conformance.json", "conformance.html", "conformance.md"} <= set(names), names
    cases = root.findall(".//testcase")
    assert cases and all("test_other_verbs_on_finalize_rejected" in c.get("name", "") for c in cases), \
        [c.get("name") for c in cases]
    assert not root.findall(".//failure") and not root.findall(".//error"), ET.tostring(root)[:2000]


def test_failed_clauses_and_unreachable_target_still_exit_0_with_done(tmp_path: Path) -> None:
    """Sonobuoy collects only from a plugin that finishes: a wrong token (every request 401) still gives
    `done` and a JUnit that says why, and exit 0."""
    served = _procs.Served(tmp_path)
    try:
        served.token = "not-" + served.token  # what the simulated pod mounts
        proc, results = _run_plugin(tmp_path, served, f"--jobs 1 -- {SUBSET}")
    finally:
        served.close()
    _procs.no_traceback(proc.stderr)
    assert proc.returncode == 0, proc.stderr
    root, _ = _done_junit(results)
    failures = root.findall(".//failure") + root.findall(".//error")
    assert failures, ET.tostring(root)[:2000]
    assert "401" in (failures[0].get("message") or "") or "Unauthorized" in (failures[0].get("message") or ""), \
        failures[0].get("message")


def test_plugin_definition_is_sonobuoys_job_format() -> None:
    plugin = _plugin()
    assert plugin["sonobuoy-config"] == {**plugin["sonobuoy-config"], "driver": "Job", "plugin-name": "nsconform",
                                         "result-format": "junit"}
    spec = plugin["spec"]
    assert spec["image"] and "--in-cluster" in " ".join(spec["command"])
    assert {"name": "results", "mountPath": "/tmp/sonobuoy/results"} in spec["volumeMounts"]
    assert spec["securityContext"]["readOnlyRootFilesystem"] is True
    assert plugin["podSpec"]["serviceAccountName"] == "nsconform"


@pytest.mark.parametrize("profile", ["kubernetes", "design"])
def test_cluster_role_covers_what_preflight_asks(profile: str) -> None:
    docs = list(yaml.safe_load_all((DOCS / "rbac.yaml").read_text()))
    kinds = {d["kind"]: d for d in docs}
    role, binding, account = kinds["ClusterRole"], kinds["ClusterRoleBinding"], kinds["ServiceAccount"]
    assert binding["roleRef"]["name"] == role["metadata"]["name"]
    assert {"kind": "ServiceAccount", "name": account["metadata"]["name"],
            "namespace": account["metadata"]["namespace"]} in binding["subjects"]
    assert _plugin()["podSpec"]["serviceAccountName"] == account["metadata"]["name"]
    missing = [str(n) for n in needs(profile)
               if not any(rule_allows(Attributes(None, n.verb, n.group, n.resource, n.subresource), r)
                          for r in role["rules"])]
    assert not missing, missing


def test_publish_without_a_run_dir(tmp_path: Path) -> None:
    """Nothing ran (a --rerun-failed of a clean run): an empty JUnit, not a failure; an error: one failed case."""
    from conformance.report.sonobuoy import publish

    publish(tmp_path / "ok", None)
    root, _ = _done_junit(tmp_path / "ok")
    assert not root.findall(".//testcase")
    publish(tmp_path / "bad", tmp_path / "missing", error="cannot reach https://10.0.0.1:443")
    root, _ = _done_junit(tmp_path / "bad")
    assert root.find(".//failure").get("message") == "cannot reach https://10.0.0.1:443"
    assert sorted(p.name for p in (tmp_path / "bad").iterdir()) == ["done", "nsconform-results.tar.gz"]

"""Preflight: credentials that may not do what the suites do get one line saying what is missing,
before any test runs (asked with SelfSubjectAccessReview, as `kubectl auth can-i`)."""
from __future__ import annotations

import pytest
import yaml

from . import _procs


@pytest.fixture(scope="module")
def served_with_users(tmp_path_factory):
    work = tmp_path_factory.mktemp("preflight")
    (work / "users.csv").write_text("limited-token,limited,u-1\n")
    srv = _procs.Served(work, "--users", str(work / "users.csv"))
    try:
        yield srv
    finally:
        srv.close()


def _kubeconfig_for(srv, token: str, path):
    cfg = yaml.safe_load(srv.kubeconfig.read_text())
    cfg["users"][0]["user"] = {"token": token}
    path.write_text(yaml.safe_dump(cfg))
    return path


def _one_line_refusal(res) -> str:
    assert res.returncode == 2, res.stdout[-2000:] + res.stderr[-2000:]
    assert res.stdout == "" and res.stderr.count("\n") == 1, res.stderr
    assert res.stderr.startswith("nsconform: the credentials may not "), res.stderr
    return res.stderr


def test_a_user_without_rights_is_refused_before_any_test(served_with_users, tmp_path):
    srv = served_with_users
    kc = _kubeconfig_for(srv, "limited-token", tmp_path / "limited.yaml")
    line = _one_line_refusal(_procs.run(["run", "--kubeconfig", str(kc), "--reports", str(tmp_path / "r")],
                                        cwd=tmp_path, timeout=60))
    assert "create namespaces, get namespaces" in line and "update namespaces/finalize" in line
    assert "'Permissions on a real cluster'" in line and "--no-preflight" in line
    assert not (tmp_path / "r").exists()  # refused before pytest started: no half report


def test_the_refusal_names_only_what_is_missing(served_with_users, tmp_path):
    srv = served_with_users
    rbac = srv.url + "/apis/rbac.authorization.k8s.io/v1"
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "nsc-preflight-namespaces"},
            "rules": [{"apiGroups": [""], "resources": ["namespaces", "namespaces/finalize", "namespaces/status"],
                       "verbs": ["*"]}]}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": "nsc-preflight-namespaces"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                           "name": "nsc-preflight-namespaces"},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "limited"}]}
    assert srv.http.post(rbac + "/clusterroles", json=role, timeout=10).status_code == 201
    assert srv.http.post(rbac + "/clusterrolebindings", json=binding, timeout=10).status_code == 201
    try:
        kc = _kubeconfig_for(srv, "limited-token", tmp_path / "limited.yaml")
        line = _one_line_refusal(_procs.run(["run", "--kubeconfig", str(kc)], cwd=tmp_path, timeout=60))
        assert "namespaces" not in line.split(" (SelfSubjectAccessReview")[0]
        assert "create configmaps" in line and "delete events" in line
    finally:
        srv.http.delete(rbac + "/clusterrolebindings/nsc-preflight-namespaces", timeout=10)
        srv.http.delete(rbac + "/clusterroles/nsc-preflight-namespaces", timeout=10)

"""Synthetic but realistic run data for the report tests (and the HTML screenshot)."""

from __future__ import annotations

from typing import Any

TOKEN = "sekr3t-t0ken-4f9a2c71d0e8b6"
URL = "https://10.0.0.7:6443"

CATALOGUE: list[dict[str, Any]] = [
    {"id": "NS-FIN-001", "group": "finalizers", "severity": "critical", "profiles": ["kubernetes", "design"],
     "requirement": "A server MUST append the `kubernetes` finalizer to spec.finalizers of every created namespace.",
     "source": "seeds/000_82d5ee77416b9f80.txt: Finalizers; spec NS-12"},
    {"id": "NS-FIN-002", "group": "finalizers", "severity": "major", "profiles": ["kubernetes", "design"],
     "requirement": "A server MUST keep a namespace until spec.finalizers is empty.", "source": "spec NS-50"},
    {"id": "NS-FZ-001", "group": "finalize", "severity": "critical", "profiles": ["kubernetes"],
     "requirement": "A server MUST accept PUT /api/v1/namespaces/{name}/finalize and reject POST with 405.",
     "source": "spec B10, B12"},
    {"id": "NS-PH-001", "group": "phase", "severity": "major", "profiles": ["kubernetes", "design"],
     "requirement": "A new namespace MUST report status.phase Active.", "source": "spec NS-14"},
    {"id": "NS-LC-001", "group": "lifecycle", "severity": "critical", "profiles": ["kubernetes", "design"],
     "requirement": "After DELETE, a namespace MUST move to Terminating and be removed once its content is gone.",
     "source": "spec NS-50, NS-70"},
    {"id": "NS-LC-002", "group": "lifecycle", "severity": "minor", "profiles": ["kubernetes", "design"],
     "requirement": "A Terminating namespace SHOULD carry NamespaceDeletion* conditions.", "source": "spec NS-71"},
    {"id": "NS-CT-001", "group": "content", "severity": "major", "profiles": ["kubernetes", "design"],
     "requirement": "A server MUST reject creating content in a Terminating namespace with 403 Forbidden.",
     "source": "spec NS-80"},
    {"id": "NS-NM-001", "group": "naming", "severity": "major", "profiles": ["kubernetes", "design"],
     "requirement": "A server MUST reject a namespace name that is not a DNS-1123 label with 422 Invalid.",
     "source": "spec NS-20"},
    {"id": "NS-LW-001", "group": "list-watch", "severity": "major", "profiles": ["kubernetes", "design"],
     "requirement": "A watch MUST deliver ADDED, MODIFIED and DELETED events for namespaces.", "source": "spec NS-91"},
    {"id": "NS-DS-001", "group": "discovery", "severity": "minor", "profiles": ["kubernetes", "design"],
     "requirement": "GET /api/v1 MUST list namespaces with verbs create, delete, get, list, patch, update, watch.",
     "source": "spec NS-111"},
    {"id": "NS-ER-001", "group": "errors", "severity": "major", "profiles": ["kubernetes", "design"],
     "requirement": "Errors MUST be Status objects with kind, apiVersion, status, reason, message and code.",
     "source": "spec NS-01"},
    {"id": "NS-DSG-001", "group": "finalize", "severity": "major", "profiles": ["design"],
     "requirement": "The design profile MUST accept POST /api/v1/namespaces/{name}/finalize.", "source": "seed 000"},
    {"id": "NS-COV-001", "group": "coverage", "severity": "minor", "profiles": ["kubernetes", "design"],
     "requirement": "Every endpoint of the profile's table MUST be exercised by at least one test.",
     "source": "harness"},
]

ENDPOINTS: list[dict[str, Any]] = [
    {"id": "ns-create", "method": "POST", "path": "/api/v1/namespaces", "profiles": ["kubernetes", "design"]},
    {"id": "ns-list", "method": "GET", "path": "/api/v1/namespaces", "profiles": ["kubernetes", "design"]},
    {"id": "ns-get", "method": "GET", "path": "/api/v1/namespaces/{name}", "profiles": ["kubernetes", "design"]},
    {"id": "ns-delete", "method": "DELETE", "path": "/api/v1/namespaces/{name}", "profiles": ["kubernetes", "design"]},
    {"id": "ns-finalize", "method": "PUT", "path": "/api/v1/namespaces/{name}/finalize", "profiles": ["kubernetes"]},
    {"id": "ns-status-patch", "method": "PATCH", "path": "/api/v1/namespaces/{name}/status",
     "profiles": ["kubernetes", "design"]},
    {"id": "cm-create", "method": "POST", "path": "/api/v1/namespaces/{ns}/configmaps",
     "profiles": ["kubernetes", "design"]},
]


def exchange(method: str, path: str, endpoint: str | None, status: int | None, *, req: Any = None, resp: Any = None,
             error: str | None = None, query: str = "") -> dict[str, Any]:
    """An exchange dict as Contract 2 produces it, but deliberately *unmasked* (the report must mask again)."""
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json", "User-Agent": "nsconform/0.1.0"}
    if req is not None:
        headers["Content-Type"] = "application/json"
    return {"method": method, "url": f"{URL}{path}{query}", "path": path + query, "endpoint": endpoint,
            "status": status, "duration_s": 0.012, "request_headers": headers, "request_body": req,
            "response_headers": {"Content-Type": "application/json", "Audit-Id": "5f1c2e"} if status else {},
            "response_body": resp, "error": error}


def ns_body(name: str, finalizers: list[str] | None = None, phase: str = "Active") -> dict[str, Any]:
    return {"kind": "Namespace", "apiVersion": "v1",
            "metadata": {"name": name, "uid": "8c0e5a1e-6d0c-4c55-9b61-0e1d3f7d1a2b", "resourceVersion": "4121",
                         "creationTimestamp": "2026-11-21T23:50:01Z",
                         "labels": {"kubernetes.io/metadata.name": name, "app.kubernetes.io/managed-by": "nsconform"}},
            "spec": {"finalizers": finalizers if finalizers is not None else ["kubernetes"]},
            "status": {"phase": phase}}


def status_body(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "details": details or {}, "code": code}


def tests() -> list[dict[str, Any]]:
    """Per-test results as ReportPlugin collects them: two violations, a timeout, a harness error, passes, skips."""
    ns = "nsc-fin-7k2x9"
    return [
        {"nodeid": "conformance/suites/test_finalizers.py::test_create_appends_kubernetes_finalizer",
         "outcome": "failed", "phase": "call", "duration_s": 0.21, "category": "violation", "clauses": ["NS-FIN-001"],
         "message": "spec.finalizers of a created namespace must contain 'kubernetes'\nassert 'kubernetes' in []",
         "exchanges": [
             exchange("POST", "/api/v1/namespaces", "ns-create", 201,
                      req={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
                      resp=ns_body(ns, finalizers=[])),
             exchange("GET", f"/api/v1/namespaces/{ns}", "ns-get", 200, resp=ns_body(ns, finalizers=[])),
         ]},
        {"nodeid": "conformance/suites/test_finalize.py::test_post_finalize_is_405", "outcome": "failed",
         "phase": "call", "duration_s": 0.08, "category": "violation", "clauses": ["NS-FZ-001", "NS-ER-001"],
         "message": "POST .../finalize: expected HTTP 405, got 404 <script>alert(1)</script>\n"
                    "assert 404 == 405",
         "exchanges": [
             exchange("POST", "/api/v1/namespaces", "ns-create", 201,
                      req={"metadata": {"name": "nsc-fz-1"}}, resp=ns_body("nsc-fz-1")),
             exchange("POST", "/api/v1/namespaces/nsc-fz-1/finalize", None, 404,
                      req={"kind": "Namespace", "apiVersion": "v1", "metadata": {"name": "nsc-fz-1"},
                           "spec": {"finalizers": []}, "note": f"token={TOKEN}"},
                      resp=status_body(404, "NotFound", "the server could not find the requested resource"),
                      query=f"?access_token={TOKEN}"),
         ]},
        {"nodeid": "conformance/suites/test_lifecycle.py::test_delete_removes_namespace", "outcome": "failed",
         "phase": "call", "duration_s": 60.4, "category": "timeout", "clauses": ["NS-LC-001"],
         "message": "WaitTimeout: namespace nsc-lc-3 still present after 60.0 s; last seen phase=Terminating, "
                    "finalizers=['kubernetes']",
         "exchanges": [exchange("DELETE", "/api/v1/namespaces/nsc-lc-3", "ns-delete", 200,
                                resp=ns_body("nsc-lc-3", phase="Terminating"))]},
        {"nodeid": "conformance/suites/test_content.py::test_create_in_terminating_is_forbidden", "outcome": "failed",
         "phase": "setup", "duration_s": 0.01, "category": "harness", "clauses": ["NS-CT-001"],
         "message": f"conformance.client.TargetUnreachable: {URL}: connection refused (Authorization: Bearer {TOKEN})",
         "exchanges": [exchange("POST", "/api/v1/namespaces", "ns-create", None, req={"metadata": {"name": "x"}},
                                error="ConnectionRefusedError(111)")]},
        {"nodeid": "conformance/suites/test_phase.py::test_new_namespace_is_active", "outcome": "passed",
         "phase": "call", "duration_s": 0.05, "clauses": ["NS-PH-001"],
         "exchanges": [exchange("POST", "/api/v1/namespaces", "ns-create", 201, req={"metadata": {"name": "a"}},
                                resp=ns_body("a"))]},
        {"nodeid": "conformance/suites/test_finalizers.py::test_namespace_kept_until_finalizers_empty",
         "outcome": "passed", "phase": "call", "duration_s": 3.1, "clauses": ["NS-FIN-002"],
         "exchanges": [exchange("PUT", "/api/v1/namespaces/b/finalize", "ns-finalize", 200, req=ns_body("b"),
                                resp=ns_body("b"))]},
        {"nodeid": "conformance/suites/test_naming.py::test_rejects_bad_name[UPPER]", "outcome": "passed",
         "phase": "call", "duration_s": 0.02, "clauses": ["NS-NM-001", "NS-ER-001"], "exchanges": []},
        {"nodeid": "conformance/suites/test_watch.py::test_watch_events", "outcome": "passed", "phase": "call",
         "duration_s": 1.2, "clauses": ["NS-LW-001"],
         "exchanges": [exchange("GET", "/api/v1/namespaces", "ns-list", 200, query="?watch=true")]},
        {"nodeid": "conformance/suites/test_lifecycle.py::test_terminating_conditions", "outcome": "skipped",
         "phase": "setup", "duration_s": 0.0, "clauses": ["NS-LC-002"],
         "message": "disruptive: needs --include-disruptive", "exchanges": []},
        {"nodeid": "conformance/suites/test_discovery.py::test_api_v1_lists_namespaces", "outcome": "passed",
         "phase": "call", "duration_s": 0.01, "clauses": ["NS-DS-001"], "exchanges": []},
        {"nodeid": "conformance/suites/test_misc.py::test_without_clause", "outcome": "passed", "phase": "call",
         "duration_s": 0.01, "clauses": [], "exchanges": []},
    ]


TARGET = {"url": URL, "kind": "kubeconfig", "context": "kind-conformance", "profile": "kubernetes",
          "version": {"major": "1", "minor": "33", "gitVersion": "v1.33.2"}}


def sample_run(exit_status: int = 1) -> dict[str, Any]:
    """A complete run document built through the public builders."""
    from conformance.report.coverage import build_coverage, hits_from_exchanges
    from conformance.report.model import build_run

    rows = [r for r in ENDPOINTS if "kubernetes" in r["profiles"]]
    hits = [h for t in tests() for h in hits_from_exchanges(t["exchanges"], t["clauses"])]
    coverage, unmatched = build_coverage(rows, hits, "kubernetes")
    return build_run(catalogue=CATALOGUE, tests=tests(), target=TARGET, run_id="20261121T235000Z-a1b2c3",
                     started="2026-11-21T23:50:00+00:00", duration_s=71.3, exit_status=exit_status,
                     profile="kubernetes", coverage=coverage, unmatched=unmatched, secrets=[TOKEN])

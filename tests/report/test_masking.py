"""No artefact may contain a token: headers, bodies, URLs, messages, kubeconfig-learnt secrets."""

from __future__ import annotations

import json
from pathlib import Path

import report_samples as s

from conformance.report.masking import mask_exchange, scrub, scrub_text
from conformance.report.model import build_run
from conformance.report.pytest_hooks import kubeconfig_secrets
from conformance.report.writer import write_run


def test_every_artefact_is_token_free(tmp_path: Path) -> None:
    written = write_run(s.sample_run(), tmp_path / "run")
    assert {p.name for p in written} == {"conformance.json", "conformance.html", "conformance.md"}
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert s.TOKEN not in text, path.name
    data = json.loads((tmp_path / "run" / "conformance.json").read_text())
    ex = next(c for c in data["clauses"] if c["id"] == "NS-FZ-001")["tests"][0]["exchanges"][-1]
    assert ex["request_headers"]["Authorization"] == "***"
    assert ex["url"].endswith("finalize?access_token=***")
    assert ex["request_body"]["note"] == "token=***"


def test_masking_without_being_told_the_secret() -> None:
    """Bearer strings, URL credentials and token query parameters are masked even for unknown secrets."""
    assert scrub_text("Authorization: Bearer abc.def-ghi") == "Authorization: Bearer ***"
    assert scrub_text("https://admin:hunter22@h:6443/api?x=1&token=zzz") == "https://***@h:6443/api?x=1&token=***"
    ex = mask_exchange({"method": "GET", "url": "u", "request_headers": {"Cookie": "a=b"},
                        "request_body": {"kind": "Secret", "data": {"k": "c2VjcmV0"}}})
    assert ex["request_headers"]["Cookie"] == "***" and ex["request_body"]["data"] == {"k": "***"}
    assert scrub({"password": "p4ss", "nested": ["x Bearer tok123"]}) == {"password": "***", "nested": ["x Bearer ***"]}


def test_kubeconfig_secrets(tmp_path: Path) -> None:
    token_file = tmp_path / "tok"
    token_file.write_text("file-token-0987\n")
    kc = tmp_path / "kubeconfig"
    kc.write_text(f"""
apiVersion: v1
kind: Config
clusters: [{{name: c, cluster: {{server: "https://10.0.0.7:6443"}}}}]
users:
- name: u
  user: {{token: {s.TOKEN}}}
- name: v
  user: {{tokenFile: {token_file}, password: pw-123456}}
contexts: [{{name: x, context: {{cluster: c, user: u}}}}]
current-context: x
""")
    secrets = kubeconfig_secrets(kc)
    assert secrets == {s.TOKEN, "file-token-0987", "pw-123456"}
    # a token that leaked into free text (no Bearer prefix) is still masked once the report knows it
    run = build_run(catalogue=s.CATALOGUE, tests=[{"nodeid": "t::x", "outcome": "failed", "clauses": ["NS-PH-001"],
                                                 "message": f"server said {s.TOKEN} and file-token-0987",
                                                 "category": "violation", "exchanges": []}],
                    target=s.TARGET, run_id="r", started="x", duration_s=0, exit_status=1, profile="kubernetes",
                    secrets=secrets)
    text = json.dumps(run)
    assert s.TOKEN not in text and "file-token-0987" not in text

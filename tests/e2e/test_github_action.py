"""action.yml, the composite GitHub Action: its shell steps are run here as the runner would run them
(inputs substituted, GITHUB_OUTPUT/GITHUB_STEP_SUMMARY/RUNNER_TEMP files), against the embedded server
with a small `-k` subset. The `uses:` steps (setup-python, upload-artifact) are GitHub's; of those the test
checks only what they are given. The install step is not run (the package is installed here already)."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from . import _procs

ACTION = Path(__file__).resolve().parents[2] / "action.yml"
SUBSET = "-- -k test_other_verbs_on_finalize_rejected"
_EXPR = re.compile(r"\$\{\{\s*([\w.-]+)\s*\}\}")


def _action() -> dict:
    return yaml.safe_load(ACTION.read_text())


def _substitute(text: str, inputs: dict[str, str], outputs: dict[str, str]) -> str:
    def value(m: re.Match[str]) -> str:
        scope, _, name = m.group(1).partition(".")
        if scope == "inputs":
            return inputs[name]
        if scope == "steps":  # steps.<id>.outputs.<name>
            step, _, rest = name.partition(".")
            return outputs.get(f"{step}.{rest.split('.', 1)[1]}", "")
        raise AssertionError(f"unexpected expression {m.group(0)}")
    return _EXPR.sub(value, text)


def _run_action(tmp_path: Path, **given: str) -> tuple[list[int], dict[str, str], Path, list[dict]]:
    action = _action()
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    inputs.update(given)
    summary, runner_temp = tmp_path / "summary.md", tmp_path / "runner-temp"
    runner_temp.mkdir()
    outputs: dict[str, str] = {}
    codes: list[int] = []
    uses: list[dict] = []
    for step in action["runs"]["steps"]:
        if "uses" in step:
            uses.append({k: _substitute(str(v), inputs, outputs) for k, v in step.get("with", {}).items()}
                        | {"uses": step["uses"]})
            continue
        if "pip install" in step["run"]:
            continue
        assert step["shell"] == "bash"
        output_file = tmp_path / f"output-{len(codes)}"
        output_file.write_text("")
        env = _procs.env()
        env.update({k: _substitute(str(v), inputs, outputs) for k, v in step.get("env", {}).items()})
        env.update({"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output_file),
                    "RUNNER_TEMP": str(runner_temp),
                    "PATH": f"{Path(_procs.NSCONFORM[0]).parent}{os.pathsep}{env.get('PATH', '')}"})
        script = _substitute(step["run"], inputs, outputs)
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        _procs.no_traceback(proc.stderr)
        codes.append(proc.returncode)
        for line in output_file.read_text().splitlines():
            key, _, val = line.partition("=")
            outputs[f"{step.get('id', '')}.{key}"] = val
    return codes, outputs, summary, uses


def test_a_conformant_run_passes_and_writes_the_summary(tmp_path: Path) -> None:
    codes, outputs, summary, uses = _run_action(tmp_path, args=f"--jobs 1 {SUBSET}")
    assert codes == [0, 0], codes
    assert outputs["run.exit-code"] == "0"
    text = summary.read_text()
    assert text == (tmp_path / "reports" / "latest" / "conformance.md").read_text()
    assert text.startswith("# nsconform: ✅ conformant"), text[:200]
    upload = next(u for u in uses if u["uses"].startswith("actions/upload-artifact@"))
    assert upload["path"] == "reports/" and (tmp_path / upload["path"] / "latest" / "junit.xml").is_file()


def test_a_violated_clause_fails_the_step_after_the_summary(tmp_path: Path) -> None:
    codes, outputs, summary, _ = _run_action(tmp_path, args=f"--jobs 1 --deviate finalize-any-verb {SUBSET}")
    assert codes == [0, 1], codes  # the run step records, the verdict step fails (after the upload)
    assert outputs["run.exit-code"] == "1"
    assert summary.read_text().startswith("# nsconform:") and "✅ conformant" not in summary.read_text()


def test_kubeconfig_content_is_written_to_a_private_file(tmp_path: Path) -> None:
    """A kubeconfig given as content (a secret) reaches `nsconform run` as a file under RUNNER_TEMP."""
    served = _procs.Served(tmp_path)
    try:
        codes, outputs, summary, _ = _run_action(tmp_path, kubeconfig=served.kubeconfig.read_text(),
                                                 args=f"--jobs 1 {SUBSET}")
    finally:
        served.close()
    assert codes == [0, 0] and outputs["run.exit-code"] == "0", codes
    written = tmp_path / "runner-temp" / "nsconform-kubeconfig.yaml"
    assert written.is_file() and (written.stat().st_mode & 0o077) == 0
    assert f"Target `{served.url}`" in summary.read_text(), summary.read_text()[:300]


def test_action_shape() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    assert any(s.get("uses", "").startswith("actions/upload-artifact@") and s.get("if") == "always()" for s in steps)
    assert steps[-1]["name"] == "Verdict"  # fails only after the reports are uploaded
    for step in steps:  # inputs reach shell scripts through env, never pasted into the script
        assert "${{" not in step.get("run", ""), step["name"]


@pytest.mark.parametrize("name", ["kubeconfig", "profile", "args"])
def test_documented_inputs(name: str) -> None:
    assert _action()["inputs"][name]["description"]

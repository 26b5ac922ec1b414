"""Done when: every expected problem costs one clear line on stderr (no traceback) and exit 2, as a real
`nsconform` process, not only through `cli.main` in-process."""
from __future__ import annotations

import socket
from pathlib import Path

import pytest
import yaml

from . import _procs


def _one_line(res, prefix: str = "nsconform") -> str:
    _procs.no_traceback(res.stdout + res.stderr)
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith(prefix), lines[0]
    return lines[0]


def _kubeconfig(path: Path, server: str, token: str = "t") -> Path:
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "a",
        "clusters": [{"name": "c", "cluster": {"server": server}}],
        "users": [{"name": "u", "user": {"token": token}}],
        "contexts": [{"name": "a", "context": {"cluster": "c", "user": "u"}}]}))
    return path


def _expect(args, tmp_path, needle: str, prefix: str = "nsconform: ") -> None:
    res = _procs.run(args, cwd=tmp_path, timeout=60)
    assert res.returncode == 2, (res.returncode, res.stdout[-2000:], res.stderr[-2000:])
    assert needle in _one_line(res, prefix)
    assert not (tmp_path / "reports").exists()  # it stopped before a session started


def test_missing_kubeconfig(tmp_path):
    _expect(["run", "--kubeconfig", str(tmp_path / "nope.yaml")], tmp_path, "file not found")


def test_malformed_kubeconfig(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("clusters: [oops\n")
    _expect(["run", "--kubeconfig", str(bad)], tmp_path, "not valid YAML")


def test_unknown_context(tmp_path):
    kc = _kubeconfig(tmp_path / "kc.yaml", f"http://127.0.0.1:{_procs.closed_port()}")
    _expect(["run", "--kubeconfig", str(kc), "--context", "zzz"], tmp_path, "context 'zzz' not found")


def test_unreachable_server(tmp_path):
    port = _procs.closed_port()
    _expect(["run", "--server", f"http://127.0.0.1:{port}"], tmp_path, f"cannot reach http://127.0.0.1:{port}")


def test_cleanup_unreachable_server(tmp_path):
    port = _procs.closed_port()
    _expect(["cleanup", "--server", f"http://127.0.0.1:{port}"], tmp_path, f"cannot reach http://127.0.0.1:{port}")


@pytest.mark.parametrize("command", ["run", "cleanup"])
def test_wrong_token_is_401(served, tmp_path, command):
    cfg = yaml.safe_load(served.kubeconfig.read_text())
    cfg["users"][0]["user"]["token"] = "not-" + served.token
    kc = tmp_path / "wrong.yaml"
    kc.write_text(yaml.safe_dump(cfg))
    _expect([command, "--kubeconfig", str(kc)], tmp_path, "rejected the credentials (401 Unauthorized)")
    # and the same through --server/--token
    _expect([command, "--server", served.url, "--token", "wrong", "--insecure-skip-tls-verify"], tmp_path,
            "rejected the credentials (401 Unauthorized)")


@pytest.mark.parametrize("command", ["run", "cleanup", "report", "sensitivity", "serve"])
def test_unknown_flag(tmp_path, command):
    # One line naming the flag and where help is; no usage block, nothing on stdout.
    res = _procs.run([command, "--no-such-flag"], cwd=tmp_path, timeout=60)
    assert res.returncode == 2, res.stderr
    assert res.stdout == ""
    assert res.stderr == (f"nsconform {command}: error: unrecognized arguments: --no-such-flag "
                          f"(see `nsconform {command} --help`)\n")


def test_unknown_deviation(tmp_path):
    _expect(["run", "--deviate", "no-such-deviation"], tmp_path, "unknown deviation(s): no-such-deviation")


def test_serve_on_a_port_in_use(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        res = _procs.run(["serve", "--port", str(port)], cwd=tmp_path, timeout=30)
    assert res.returncode != 0
    line = _one_line(res, "nsconform serve: error:")
    assert f"cannot listen on 127.0.0.1:{port}" in line and "in use" in line
    assert "listening" not in res.stdout


def test_report_on_a_missing_dir(tmp_path):
    _expect(["report", str(tmp_path / "nope")], tmp_path, "no conformance.json", prefix="nsconform report: ")
    _expect(["report", "--compare", str(tmp_path / "a"), str(tmp_path / "b")], tmp_path, "no conformance.json",
            prefix="nsconform report: ")


@pytest.mark.parametrize("content, kind", [("hello\n", "a string"), ("- a\n- b\n", "a list")])
def test_yaml_that_is_not_a_kubeconfig(tmp_path, content, kind):
    # Parses as YAML, is not a kubeconfig: the file and what is wrong, not "'str' object does not support ...".
    bad = tmp_path / "notkc.yaml"
    bad.write_text(content)
    _expect(["run", "--kubeconfig", str(bad)], tmp_path, f"kubeconfig {bad}: not a kubeconfig: the document is {kind}")


def test_untrusted_certificate_suggests_the_ca_or_skipping_verification(served, tmp_path):
    res = _procs.run(["run", "--server", served.url, "--token", served.token], cwd=tmp_path, timeout=60)
    assert res.returncode == 2, res.stderr
    line = _one_line(res)
    assert "certificate" in line.lower() and "--insecure-skip-tls-verify" in line and "--certificate-authority" in line


def test_the_ca_option_makes_the_certificate_trusted(served, tmp_path):
    # The suggested option works: the target is reached (the wrong token proves the TLS handshake succeeded).
    _expect(["run", "--server", served.url, "--token", "wrong", "--certificate-authority", str(served.ca_file)],
            tmp_path, "rejected the credentials (401 Unauthorized)")


def test_http_url_against_a_tls_port_says_so(served, tmp_path):
    plain = served.url.replace("https://", "http://")
    _expect(["run", "--server", plain, "--token", served.token], tmp_path, "use https:// instead of http://")


def test_every_run_option_has_help():
    from conformance.cli import build_parser

    build_parser()
    from conformance.cli import _SUBPARSERS

    missing = [a.option_strings[0] for a in _SUBPARSERS["run"]._actions
               if a.option_strings and not a.help and a.option_strings[0] != "-h"]
    assert not missing, f"`nsconform run` options without help text: {missing}"


def test_skip_reasons_name_the_real_cli_flag():
    import inspect

    from conformance.suites import _scope

    assert "nsconform run --authorization rbac" in _scope.NOT_ENFORCED
    assert "nsconform run --authorization rbac" in inspect.getsource(_scope.require_authorization).replace(
        '"\n                    "', "")

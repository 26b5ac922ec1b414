"""Choosing a flavour: `nsconform serve --flavor`, `nsconform run --flavor`, the embedded target."""
from __future__ import annotations

from conformance import cli
from conformance.reference_server import serve
from conformance.target import resolve_target


def test_serve_accepts_every_flavor_and_refuses_others(capsys):
    assert serve.build_parser().parse_args(["--flavor", "openshift"]).flavor == "openshift"
    assert serve.build_parser().parse_args([]).flavor == "default"
    assert serve.main(["--flavor", "nope"]) == 2
    assert "--flavor" in capsys.readouterr().err


def test_run_refuses_an_unknown_flavor_in_one_line(capsys):
    assert cli.main(["run", "--flavor", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown flavor 'nope'" in err[0]


def test_run_refuses_a_flavor_for_a_cluster(capsys):
    assert cli.main(["run", "--server", "http://127.0.0.1:1", "--flavor", "kind"]) == 2
    assert "--flavor only applies to the embedded reference server" in capsys.readouterr().err


def test_the_embedded_target_starts_the_flavor():
    t = resolve_target(flavor="managed", preflight=False)
    try:
        assert t.server.flavor == "managed"
    finally:
        t.stop()

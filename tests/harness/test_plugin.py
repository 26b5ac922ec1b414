"""The pytest plugin, exercised with pytester on small fake suites against the fake server."""

from __future__ import annotations

import sys
import textwrap
import types

import pytest

pytest_plugins = ["pytester"]

CLAUSES = """
[[clause]]
id = "C-1"
group = "finalizers"
requirement = "one"
source = "s"
profiles = ["kubernetes", "design"]
severity = "critical"

[[clause]]
id = "C-2"
group = "phase"
requirement = "two"
source = "s"
profiles = ["design"]
severity = "minor"
"""

GOOD = """
import pytest

@pytest.mark.clause("C-1")
def test_one(api, paths, namespaces, content, target, profile, waiter):
    ns = namespaces.create("one")
    name = ns["metadata"]["name"]
    assert name.startswith("nsc-one-") and len(name) <= 63
    assert ns["metadata"]["labels"]["nsconform.io/run"] == "run-xyz"
    assert ns["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "nsconform"
    content.create(name, "configmaps", finalizers=["example.com/hold"])
    assert api.get(paths.namespace(name)).status_code == 200
    assert waiter.namespace_phase(name, "Active")["metadata"]["name"] == name
    assert target.kind in ("server", "embedded") and profile == "kubernetes"

@pytest.mark.clause("C-2")
def test_two(api):
    assert False, "design only: must be skipped under kubernetes"
"""


@pytest.fixture
def suite(pytester):
    pytester.makeini("""
        [pytest]
        nsconform_suites = suites
        nsconform_clauses = clauses.toml
    """)
    (pytester.path / "clauses.toml").write_text(CLAUSES)
    (pytester.path / "suites").mkdir()

    def write(name: str, src: str) -> None:
        (pytester.path / "suites" / name).write_text(textwrap.dedent(src))

    return write


def test_missing_marker_fails_collection(pytester, suite):
    suite("test_a.py", GOOD + "\ndef test_unmarked(api):\n    pass\n")
    result = pytester.runpytest("suites", "--nsconform-collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*test_a.py::test_unmarked: no @pytest.mark.clause(...) marker*"])


def test_unknown_clause_fails_collection(pytester, suite):
    suite("test_a.py", GOOD + "\n@pytest.mark.clause('C-404')\ndef test_x(api):\n    pass\n")
    result = pytester.runpytest("suites", "--nsconform-collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*test_x: unknown clause id(s) C-404*"])


def test_clause_without_test_fails_collection(pytester, suite):
    suite("test_a.py", "import pytest\n\n@pytest.mark.clause('C-1')\ndef test_one():\n    pass\n")
    result = pytester.runpytest("suites", "--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*clauses without any test: C-2*"])


def test_partial_collection_does_not_require_every_clause(pytester, suite):
    suite("test_a.py", "import pytest\n\n@pytest.mark.clause('C-1')\ndef test_one():\n    pass\n")
    suite("test_b.py", "import pytest\n\n@pytest.mark.clause('C-2')\ndef test_two():\n    pass\n")
    result = pytester.runpytest("suites/test_a.py", "--collect-only")
    assert result.ret == pytest.ExitCode.OK


def test_project_tests_are_not_enforced(pytester, suite):
    pytester.makepyfile(test_other="def test_plain():\n    pass\n")
    suite("test_a.py", GOOD)
    result = pytester.runpytest("test_other.py")
    assert result.ret == pytest.ExitCode.OK


def test_full_run_against_server(pytester, suite, fake):
    suite("test_a.py", GOOD)
    rec = pytester.inline_run("suites", "--server", fake.url, "--run-id", "run-xyz", "-p", "no:cacheprovider")
    passed, skipped, failed = rec.listoutcomes()
    assert [r.nodeid for r in passed] == ["suites/test_a.py::test_one"], failed
    assert [r.nodeid for r in skipped] == ["suites/test_a.py::test_two"]
    assert "do not apply to profile kubernetes" in str(skipped[0].longrepr)
    call = [r for r in rec.getreports("pytest_runtest_logreport") if r.when == "call"][0]
    assert call.nsconform["clauses"] == ["C-1"]
    endpoints = [e["endpoint"] for e in call.nsconform["exchanges"]]
    assert endpoints[0] == "ns-create" and "content-create" in endpoints
    assert ("clause", "C-1") in call.user_properties
    # teardown released the configmap's finalizer and removed the namespace
    assert not [k for k in fake.objects if k[0] == "namespaces"]


def test_header_names_target(pytester, suite, fake):
    suite("test_a.py", GOOD)
    result = pytester.runpytest("suites", "--server", fake.url, "--run-id", "run-xyz")
    result.stdout.fnmatch_lines([f"nsconform: target {fake.url} [[]server], version v1.33.0-fake, profile kubernetes"])
    assert result.ret == pytest.ExitCode.OK


def test_keep_namespaces_on_failure(pytester, suite, fake):
    suite("test_a.py", GOOD.replace('assert target.kind', 'assert False, "boom"\n    assert target.kind'))
    result = pytester.runpytest("suites", "--server", fake.url, "--run-id", "run-xyz",
                                "--keep-namespaces", "on-failure")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    kept = [k for k in fake.objects if k[0] == "namespaces"]
    assert len(kept) == 1 and kept[0][2].startswith("nsc-one-")


SHARED_FACTORIES = """
import pytest

@pytest.mark.clause("C-1")
def test_module_shared(module_namespaces):
    module_namespaces.create("mod")

@pytest.mark.clause("C-1")
def test_session_shared(session_namespaces):
    session_namespaces.create("ses")

@pytest.mark.clause("C-2")
def test_design_only():
    pass
"""


def test_keep_namespaces_always_keeps_module_and_session_namespaces(pytester, suite, fake):
    """A module's or the session's namespaces are kept as a test's are (their teardown has no test report to
    write to: the end-of-run summary names them)."""
    suite("test_a.py", SHARED_FACTORIES)
    result = pytester.runpytest("suites", "--server", fake.url, "--run-id", "run-xyz", "--keep-namespaces", "always")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    kept = sorted(k[2].split("-")[1] for k in fake.objects if k[0] == "namespaces")
    assert kept == ["mod", "ses"]
    result.stdout.fnmatch_lines(["*kept (--keep-namespaces): nsc-*"])


def test_disruptive_skipped_on_server_target(pytester, suite, fake):
    suite("test_a.py", GOOD + "\n@pytest.mark.disruptive\n@pytest.mark.clause('C-1')\ndef test_d():\n    pass\n")
    rec = pytester.inline_run("suites", "--server", fake.url, "--run-id", "run-xyz")
    skipped = {r.nodeid.split("::")[1]: r for r in rec.listoutcomes()[1]}
    assert "test_d" in skipped and "disruptive" in str(skipped["test_d"].longrepr)
    rec = pytester.inline_run("suites", "--server", fake.url, "--run-id", "run-xyz", "--include-disruptive")
    assert "suites/test_a.py::test_d" in [r.nodeid for r in rec.listoutcomes()[0]]


def test_design_profile(pytester, suite, fake):
    suite("test_a.py", GOOD.replace('profile == "kubernetes"', 'profile == "design"')
          .replace('assert False, "design only: must be skipped under kubernetes"', "assert api.profile == 'design'"))
    fake.finalize_method = "POST"
    rec = pytester.inline_run("suites", "--server", fake.url, "--run-id", "run-xyz", "--profile", "design")
    passed, skipped, failed = rec.listoutcomes()
    assert len(passed) == 2 and not failed


def test_unreachable_server_exits_2(pytester, suite):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    suite("test_a.py", GOOD)
    result = pytester.runpytest_subprocess("suites", "--server", f"http://127.0.0.1:{port}")
    assert result.ret == 2
    result.stderr.fnmatch_lines([f"*nsconform: cannot reach http://127.0.0.1:{port}: Connection refused*"])


@pytest.fixture
def fake_embedded(monkeypatch, fake):
    """Contract 1 stand-in: `start_embedded` backed by the fake server."""
    calls = {"start": [], "stop": 0}

    class Running:
        url, token, ca_file = fake.url, None, None

        def stop(self) -> None:
            calls["stop"] += 1

    def start_embedded(*, profile="kubernetes", deviations=(), **kw):
        if "bogus" in deviations:
            raise ValueError("unknown deviation 'bogus'")
        calls["start"].append((profile, tuple(deviations)))
        return Running()

    mod = types.ModuleType("conformance.reference_server.embedded")
    mod.start_embedded = start_embedded
    monkeypatch.setitem(sys.modules, "conformance.reference_server.embedded", mod)
    monkeypatch.setenv("NSCONFORM_EMBEDDED_PROCESS", "0")  # the stand-in replaces the in-thread server
    calls["start_embedded"] = start_embedded
    return calls


def test_embedded_started_and_stopped(pytester, suite, fake_embedded):
    suite("test_a.py", GOOD)
    result = pytester.runpytest("suites", "--run-id", "run-xyz", "--nsconform-deviate", "d1")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert fake_embedded["start"] == [("kubernetes", ("d1",))] and fake_embedded["stop"] == 1
    result.stdout.fnmatch_lines(["nsconform: target * [[]embedded], version v1.33.0-fake, profile kubernetes, "
                                 "deviations: d1"])


def test_embedded_server_in_a_child_process_when_asked(pytester, suite, fake_embedded, monkeypatch):
    """NSCONFORM_EMBEDDED_PROCESS=1 starts the server with reference_server/child.py (same options)."""
    import conformance.reference_server.child as child

    in_child = []

    def start_child(**kw):
        in_child.append(kw)
        return fake_embedded["start_embedded"](**kw)

    monkeypatch.setattr(child, "start_child", start_child)
    monkeypatch.setenv("NSCONFORM_EMBEDDED_PROCESS", "1")
    suite("test_a.py", GOOD)
    result = pytester.runpytest("suites", "--run-id", "run-xyz", "--nsconform-deviate", "d1")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert [k["deviations"] for k in in_child] == [("d1",)] and fake_embedded["stop"] == 1


@pytest.mark.parametrize("asked, cores, xdist, child", [
    (None, 2, False, True), (None, 1, False, False), (None, 8, True, False),
    ("0", 8, False, False), ("1", 1, True, True)])
def test_embedded_server_in_a_child_process_by_default_where_a_core_is_free(monkeypatch, asked, cores, xdist,
                                                                            child):
    """A second core runs the server beside the tests; NSCONFORM_EMBEDDED_PROCESS=0/1 decides either way."""
    from conformance import plugin

    if asked is None:
        monkeypatch.delenv("NSCONFORM_EMBEDDED_PROCESS", raising=False)
    else:
        monkeypatch.setenv("NSCONFORM_EMBEDDED_PROCESS", asked)
    monkeypatch.setattr(plugin.os, "sched_getaffinity", lambda pid: set(range(cores)))
    monkeypatch.setattr(plugin, "_uses_xdist", lambda config: xdist)
    assert plugin._embedded_in_child(None) is child


def test_unknown_deviation_exits_2(pytester, suite, fake_embedded, capfd):
    suite("test_a.py", GOOD)
    result = pytester.runpytest("suites", "--nsconform-deviate", "bogus", "--collect-only")
    assert result.ret == pytest.ExitCode.OK  # collect-only never starts a server
    rec = pytester.inline_run("suites", "--nsconform-deviate", "bogus", no_reraise_ctrlc=True)
    assert rec.ret == 2
    assert "nsconform: embedded server: unknown deviation 'bogus'" in capfd.readouterr().err


def test_no_target_started_for_other_tests(pytester, suite, fake_embedded):
    pytester.makepyfile(test_other="def test_plain():\n    pass\n")
    suite("test_a.py", GOOD)
    assert pytester.runpytest("test_other.py").ret == pytest.ExitCode.OK
    assert fake_embedded["start"] == []


def test_xdist_workers_share_target_and_run_id(pytester, suite, fake):
    suite("test_a.py", GOOD)
    suite("test_b.py", """
        import pytest

        @pytest.mark.clause("C-1")
        def test_worker(namespaces, run_id, target):
            assert run_id == "run-xyz" and target.version["gitVersion"] == "v1.33.0-fake"
            namespaces.create("w")
    """)
    rec = pytester.inline_run("suites", "--server", fake.url, "--run-id", "run-xyz", "-n", "2")
    passed, skipped, failed = rec.listoutcomes()
    assert len(passed) == 2 and not failed, failed
    calls = [r for r in rec.getreports("pytest_runtest_logreport") if r.when == "call" and r.passed]
    assert all(r.nsconform["exchanges"] for r in calls)


def test_interrupt_sweep_registry(client, fake):
    from conformance.endpoints import Paths
    from conformance.fixtures.namespaces import _LiveRegistry

    reg = _LiveRegistry()
    client.post("/api/v1/namespaces", {"metadata": {"name": "left"}, "spec": {"finalizers": ["example.com/x"]}})
    reg.add("left", client, Paths("kubernetes"))
    assert reg.sweep() == ["left"]
    assert reg.names() == []
    ns = client.get("/api/v1/namespaces/left")
    assert ns.status_code == 404 or ns.json()["metadata"].get("deletionTimestamp")


def test_catalogue_problems_under_xdist_are_one_clean_error(pytester, suite, fake, capfd):
    suite("test_a.py", GOOD + "\n@pytest.mark.clause('C-404')\ndef test_x(api):\n    pass\n")
    rec = pytester.inline_run("suites", "--server", fake.url, "-n", "2")
    assert rec.ret == pytest.ExitCode.USAGE_ERROR
    err = capfd.readouterr().err
    assert "test_x: unknown clause id(s) C-404" in err and "INTERNALERROR" not in err


SHARED = """
import pytest

SEEN = []

@pytest.fixture(scope="module")
def shared(module_namespaces):
    return module_namespaces.create("shared")["metadata"]["name"]

@pytest.mark.clause("C-1")
@pytest.mark.parametrize("i", [1, 2, 3])
def test_uses_shared(api, paths, shared, i):
    SEEN.append(shared)
    assert len(set(SEEN)) == 1, "one namespace for the whole module"
    assert api.get(paths.namespace(shared)).status_code == 200
    assert i != FAIL_AT

@pytest.mark.clause("C-2")
def test_two():
    pass
"""


def test_module_namespaces_shared_by_a_module_and_removed_after_it(pytester, suite, fake):
    suite("test_a.py", SHARED.replace("FAIL_AT", "0"))
    rec = pytester.inline_run("suites", "--server", fake.url, "--run-id", "run-xyz", "-p", "no:cacheprovider")
    passed, _, failed = rec.listoutcomes()
    assert len(passed) == 3 and not failed
    assert not [k for k in fake.objects if k[0] == "namespaces"]


def test_module_namespaces_kept_on_failure(pytester, suite, fake):
    suite("test_a.py", SHARED.replace("FAIL_AT", "2"))
    result = pytester.runpytest("suites", "--server", fake.url, "--run-id", "run-xyz", "-p", "no:cacheprovider",
                                "--keep-namespaces", "on-failure")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    kept = [k for k in fake.objects if k[0] == "namespaces"]
    assert len(kept) == 1 and kept[0][2].startswith("nsc-shared-")


def test_gc_threshold_raised_for_start_up_only():
    """The plugin raises the young-generation threshold while pytest starts; collection hands it back."""
    import gc

    from conformance import plugin

    assert plugin._GC_STARTUP_THRESHOLD[0] >= plugin._GC_THRESHOLD[0]
    assert gc.get_threshold() == plugin._GC_THRESHOLD  # (this test runs after this session's collection)
    gc.set_threshold(*plugin._GC_STARTUP_THRESHOLD)
    try:
        plugin._end_gc_startup()
        assert gc.get_threshold() == plugin._GC_THRESHOLD
        gc.set_threshold(1234, 5, 6)  # changed by someone else since: left alone
        plugin._end_gc_startup()
        assert gc.get_threshold() == (1234, 5, 6)
    finally:
        gc.set_threshold(*plugin._GC_THRESHOLD)

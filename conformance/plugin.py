"""The nsconform pytest plugin (entry point pytest11 `nsconform`).

It resolves the target once on the controller (starting the embedded reference server when no
target option is given) and hands it to xdist workers; ties every suite test to the clause catalogue
at collection time; records each test's HTTP exchanges onto its report (Contract 2); and exposes
the fixtures of Contract 6.

The plugin is installed for every pytest run in the environment, so it does nothing costly unless
the run actually involves the suites (or a target option is given): the project's own tests never
start a server.
"""

from __future__ import annotations

import gc
import os
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest

from . import clauses as _clauses
from .argtypes import positive_float
from .assertions import MESSAGE_MODES, set_message_mode
from .client import TargetError
from .client.exchange import RECORDER
from .fixtures.pytest_fixtures import (api, cluster_objects, content, finalize_forms, namespaces,  # noqa: F401
                                       paths, profile, run_id, target, waiter)
from .fixtures.pytest_fixtures import background_recordings, module_namespaces, session_namespaces  # noqa: F401
from .target import TARGET_KEY, Target, from_worker_payload, new_run_id, resolve_target
from .interrupts import InterruptWatch, drop_lineless_frames
from .wait import set_progress, set_timeout_scale

__all__ = ["TARGET_KEY", "RUN_ID_KEY", "CLAUSES_KEY", "PHASE_REPORTS_KEY", "NAMESPACE_STATE_KEY", "ensure_target", "test_failed",
           "SUITES_DIR", "target_options"]

SUITES_DIR = Path(__file__).parent / "suites"

pytest_plugins = ["conformance.scale.options"]  # the opt-in scale suite's options (--scale N)
pytest_plugins.append("conformance.storage.options")  # the opt-in storage suite's (--etcd-endpoints)

RUN_ID_KEY: pytest.StashKey[str] = pytest.StashKey()
"""`config.stash[RUN_ID_KEY]`: the run id (same on controller and workers); also `config.option.run_id`."""
CLAUSES_KEY: pytest.StashKey[tuple[str, ...]] = pytest.StashKey()
"""`item.stash[CLAUSES_KEY]`: the clause ids of a test's `clause` markers."""
PHASE_REPORTS_KEY: pytest.StashKey[dict[str, pytest.TestReport]] = pytest.StashKey()
"""`item.stash[PHASE_REPORTS_KEY]`: {"setup"|"call"|"teardown": TestReport} as far as the test got."""
NAMESPACE_STATE_KEY: pytest.StashKey[str] = pytest.StashKey()
"""`item.stash[NAMESPACE_STATE_KEY]`: what a failed test's namespaces held at teardown (fixtures.dump)."""
_STATE_KEY: pytest.StashKey["_State"] = pytest.StashKey()

_TARGET_OPTS = ("kubeconfig", "context", "server", "token", "in_cluster")

# Start-up (the other plugins, the suites' and the embedded server's imports, collection) allocates ~150,000
# objects that live until the end: with the default threshold every 700 allocations start a young collection
# that promotes them, and the older generations are scanned again and again. Until the collection finishes
# (`pytest_collection_finish`, which hands the threshold back and freezes what start-up built) young
# collections are rarer; garbage is still collected, in larger batches.
_GC_THRESHOLD = gc.get_threshold()
_GC_STARTUP_THRESHOLD = (max(_GC_THRESHOLD[0], 20_000), *_GC_THRESHOLD[1:]) if _GC_THRESHOLD[0] else _GC_THRESHOLD
gc.set_threshold(*_GC_STARTUP_THRESHOLD)


def _end_gc_startup() -> None:
    """Hand the garbage collector's threshold back (once; not if someone else has changed it since)."""
    if gc.get_threshold() == _GC_STARTUP_THRESHOLD:
        gc.set_threshold(*_GC_THRESHOLD)


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.target: Target | None = None
        self.exitstatus: int | None = None
        self.is_worker = False
        self.interrupts = InterruptWatch()
        self.wait_recorder: Any = None  # xdist worker: long waits, handed to the controller on reports


# --------------------------------------------------------------------------------------------- options
def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("nsconform", "nsconform conformance harness")
    g.addoption("--kubeconfig", dest="kubeconfig", default=None, metavar="PATH",
                help="target the cluster of this kubeconfig (default target: the embedded reference server)")
    g.addoption("--context", dest="context", default=None, metavar="NAME", help="kubeconfig context to use")
    g.addoption("--server", dest="server", default=None, metavar="URL", help="target an API server URL directly")
    g.addoption("--token", dest="token", default=os.environ.get("NSCONFORM_TOKEN") or None, metavar="TOKEN",
                help="bearer token for --server (default: $NSCONFORM_TOKEN)")
    g.addoption("--insecure-skip-tls-verify", dest="insecure_skip_tls_verify", action="store_true", default=False,
                help="do not verify the server's TLS certificate")
    g.addoption("--certificate-authority", dest="certificate_authority", default=None, metavar="FILE",
                help="PEM file of the CA that signed the server's certificate (for --server; overrides the "
                     "kubeconfig's)")
    g.addoption("--in-cluster", dest="in_cluster", action="store_true", default=False,
                help="use the pod's service-account credentials")
    g.addoption("--profile", dest="profile", default="kubernetes", choices=("kubernetes", "design"),
                help="what to assert: real kube-apiserver behaviour (default) or the design document")
    g.addoption("--force-profile", dest="force_profile", action="store_true", default=False,
                help="run the chosen --profile even when the target's discovery says it finalizes otherwise")
    g.addoption("--keep-namespaces", dest="keep_namespaces", default="never", choices=("never", "on-failure", "always"),
                help="keep test namespaces after the test (default: never)")
    g.addoption("--timeout-scale", dest="timeout_scale", default=1.0, type=positive_float, metavar="X",
                help="multiply every wait timeout by X (slow clusters)")
    g.addoption("--include-disruptive", dest="include_disruptive", action="store_true", default=False,
                help="run `disruptive` tests against a kubeconfig/server target")
    g.addoption("--messages", dest="nsconform_messages", default="exact", choices=MESSAGE_MODES,
                help="exact (default): a Status message worded otherwise than kube-apiserver's fails the test; "
                     "warn: it is only a warning (codes, reasons and fields are still checked)")
    g.addoption("--no-preflight", dest="no_preflight", action="store_true", default=False,
                help="do not ask the cluster (SelfSubjectAccessReview) whether the credentials may do what the "
                     "suites do before running them")
    g.addoption("--run-id", dest="run_id", default=None, metavar="ID",
                help="run id used in namespace labels and report paths (default: generated)")
    g.addoption("--nsconform-deviate", dest="nsconform_deviate", action="append", default=[], metavar="NAME",
                help="start the embedded server with this deliberate deviation (sensitivity runs; repeatable)")
    g.addoption("--nsconform-flavor", dest="nsconform_flavor", default=None, metavar="NAME",
                help="cluster flavour of the embedded server (reference_server/flavors: default, kind, openshift, "
                     "managed, slow)")
    g.addoption("--nsconform-authorization", dest="nsconform_authorization", default="rbac",
                choices=("always-allow", "rbac"),
                help="authorization mode of the embedded server the plugin starts (default rbac, so the scope "
                     "suites' authorization clauses run too; always-allow: they skip)")
    g.addoption("--extension", dest="nsconform_extensions", action="append", default=[], metavar="NAME",
                help="run the clauses of an opt-in extension (known: kep-33) instead of the core suites; "
                     "reported apart from core conformance (repeatable)")
    g.addoption("--nsconform-feature-gates", dest="nsconform_feature_gates", action="append", default=[],
                metavar="NAME=true", help="feature gates of the embedded server the plugin starts "
                                          "(e.g. NamespaceInitializers=true for --extension kep-33)")
    g.addoption("--nsconform-reports", dest="nsconform_reports", default=None, metavar="DIR",
                help="write <DIR>/<run-id>/conformance.{json,html,md} (default when running the suites: reports)")
    g.addoption("--nsconform-collect-only", dest="nsconform_collect_only", action="store_true", default=False,
                help="collect without resolving or starting a target (used by `nsconform clauses`)")
    g.addoption("--nsconform-precheck", dest="nsconform_precheck", action="store_true", default=False,
                help=argparse_suppress())
    parser.addini("nsconform_clauses", "path of the clause catalogue (default: the packaged clauses.toml)",
                  type="string", default="")
    parser.addini("nsconform_suites", "directories whose tests must carry clause markers (default: conformance/suites)",
                  type="paths", default=[])


def argparse_suppress() -> str:
    import argparse

    return argparse.SUPPRESS



def target_options(config: pytest.Config) -> dict[str, Any]:
    return {"kubeconfig": config.getoption("kubeconfig"), "context": config.getoption("context"),
            "server": config.getoption("server"), "token": config.getoption("token"),
            "insecure": config.getoption("insecure_skip_tls_verify"), "in_cluster": config.getoption("in_cluster"),
            "ca_file": config.getoption("certificate_authority")}


def _has_target_option(config: pytest.Config) -> bool:
    o = target_options(config)
    return bool(o["kubeconfig"] or o["context"] or o["server"] or o["in_cluster"])


def _collect_only(config: pytest.Config) -> bool:
    return bool(config.getoption("nsconform_collect_only") or config.getoption("nsconform_precheck")
                or config.option.collectonly)


def _suite_roots(config: pytest.Config) -> list[Path]:
    roots = [Path(p).resolve() for p in (config.getini("nsconform_suites") or [])]
    return roots or [SUITES_DIR.resolve()]


def _catalogue_path(config: pytest.Config) -> Path | None:
    value = config.getini("nsconform_clauses")
    if not value:
        return None
    p = Path(value)
    return p if p.is_absolute() else Path(config.rootpath, p)


def _in_roots(path: Path, roots: list[Path]) -> bool:
    path = path.resolve()
    return any(path == r or r in path.parents for r in roots)


def _runs_suites(config: pytest.Config) -> bool:
    """Will this run execute suite tests? Only then is a target started eagerly."""
    if _collect_only(config):
        return False
    if _has_target_option(config):
        return True
    roots = _suite_roots(config)
    base = Path(config.invocation_params.dir)
    for arg in config.args:
        a = str(arg).split("::", 1)[0]
        if a == "conformance.suites" or a.startswith("conformance.suites."):
            return True
        p = (base / a).resolve()
        if any(p == r or r in p.parents or p in r.parents for r in roots):
            return True
    return False


def _arg_paths(config: pytest.Config) -> list[tuple[Path, bool]]:
    """(path, whole) per command-line argument; `whole` is False for `file::test` selections."""
    base = Path(config.invocation_params.dir)
    out = []
    for arg in config.args:
        spec, sep, _ = str(arg).partition("::")
        if spec == "conformance.suites" or spec.startswith("conformance.suites."):
            rel = spec[len("conformance.suites"):].lstrip(".").replace(".", "/")
            p = SUITES_DIR / rel if rel else SUITES_DIR
            if rel and not p.exists():
                p = p.with_suffix(".py")
            out.append((p.resolve(), not sep))
        else:
            out.append(((base / spec).resolve(), not sep))
    return out


def _whole_suite_requested(config: pytest.Config, roots: list[Path]) -> bool:
    """Did the command line ask for an entire suite root (so every clause must have a test)?"""
    return any(whole and (p == r or p in r.parents) for p, whole in _arg_paths(config) for r in roots)


def _uses_xdist(config: pytest.Config) -> bool:
    n = config.getoption("numprocesses", default=None)
    return bool(n) or config.getoption("dist", default="no") not in ("no", None)


# --------------------------------------------------------------------------------------------- target
def ensure_target(config: pytest.Config) -> Target:
    """The run's target, resolving it on first use; connection problems end the run with exit code 2."""
    # imported here, not at the top: pytest registers the module as a plugin (pytest_plugins below) and warns
    # "cannot be rewritten" in every run when it was imported first
    from .storage.options import EMBEDDED_STORAGE_KEY

    state = config.stash[_STATE_KEY]
    with state.lock:
        if state.target is not None:
            return state.target
        try:
            t = resolve_target(**target_options(config), profile=config.getoption("profile"),
                               preflight=not config.getoption("no_preflight"),
                               deviations=config.getoption("nsconform_deviate") or (),
                               authorization=config.getoption("nsconform_authorization") or "always-allow",
                               flavor=config.getoption("nsconform_flavor"),
                               feature_gates=_feature_gates(config),
                               storage=config.stash.get(EMBEDDED_STORAGE_KEY, None),
                               process=_embedded_in_child(config))
        except TargetError as exc:
            pytest.exit(f"nsconform: {exc}", returncode=2)
        _check_profile_fits(config, t)
        state.target = t
        config.stash[TARGET_KEY] = t
        _learn_secret(config, t)
        return t


def _embedded_in_child(config: pytest.Config) -> bool:
    """Run the embedded server in a child process (reference_server/child.py) when a second core can run it
    beside the tests: client and server then stop sharing one GIL (benchmarks/README, "sixth pass"). Not
    under xdist, whose controller holding the server is otherwise idle. NSCONFORM_EMBEDDED_PROCESS=1/0 decides."""
    asked = os.environ.get("NSCONFORM_EMBEDDED_PROCESS")
    if asked in ("0", "1"):
        return asked == "1"
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return cores >= 2 and not _uses_xdist(config)


def _feature_gates(config: pytest.Config) -> frozenset[str]:
    from .reference_server.extensions import parse_feature_gates

    try:
        return parse_feature_gates(config.getoption("nsconform_feature_gates") or [])
    except ValueError as exc:
        raise pytest.UsageError(f"nsconform: --nsconform-feature-gates: {exc}") from None


def _check_profile_fits(config: pytest.Config, t: Target) -> None:
    """A profile the target cannot finalize in would fail test by test: say so once, before anything runs."""
    from .fixtures.release import profile_mismatch

    problem = None if t.kind == "embedded" else profile_mismatch(t.profile, t.discovery)
    if problem and not config.getoption("force_profile"):
        t.stop()
        pytest.exit(f"nsconform: {problem}", returncode=2)


def _learn_secret(config: pytest.Config, t: Target) -> None:
    rp = config.pluginmanager.get_plugin("nsconform-report")
    if rp is not None and hasattr(rp, "add_secret") and t.connection is not None:
        rp.add_secret(*t.connection.secrets)


def test_failed(item: pytest.Item) -> bool:
    """Did setup or call of `item` fail (for --keep-namespaces on-failure)?"""
    reports = item.stash.get(PHASE_REPORTS_KEY, {})
    return any(r.failed for w, r in reports.items() if w in ("setup", "call"))


test_failed.__test__ = False  # type: ignore[attr-defined]  # not a test, despite the name


# --------------------------------------------------------------------------------------------- lifecycle
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "clause(*ids): the conformance clause(s) a suite test checks")
    config.addinivalue_line("markers", "background(name): reads the recording `name` made in the background "
                                       "(conformance/background.py); runs last")
    config.addinivalue_line("markers", "disruptive: touches cluster-wide state; runs only with --include-disruptive "
                                       "on kubeconfig/server targets (always on the embedded server)")
    state = _State()
    config.stash[_STATE_KEY] = state
    set_timeout_scale(float(config.getoption("timeout_scale") or 1.0))
    set_message_mode(config.getoption("nsconform_messages") or "exact")
    workerinput = getattr(config, "workerinput", None)
    state.is_worker = workerinput is not None
    if workerinput is not None:
        rid = workerinput.get("nsconform_run_id") or config.getoption("run_id") or new_run_id()
    else:
        rid = config.getoption("run_id") or new_run_id()
    config.option.run_id = rid
    config.stash[RUN_ID_KEY] = rid
    _register_report_plugins(config, controller=workerinput is None)
    _install_wait_progress(config, state)
    if not config.pluginmanager.has_plugin("nsconform-teardown") and not _collect_only(config) \
            and (_runs_suites(config) or (workerinput or {}).get("nsconform_target")):
        from .teardown import TeardownPlugin

        config.pluginmanager.register(TeardownPlugin(config, rid), "nsconform-teardown")
    if workerinput is not None:
        payload = workerinput.get("nsconform_target")
        if payload:
            try:
                t = from_worker_payload(payload, **target_options(config))
            except TargetError as exc:
                pytest.exit(f"nsconform: {exc}", returncode=2)
            state.target = t
            config.stash[TARGET_KEY] = t
        return
    state.interrupts.install()
    if _runs_suites(config):
        if _uses_xdist(config):
            _precheck_catalogue(config)
        ensure_target(config)


def _install_wait_progress(config: pytest.Config, state: _State) -> None:
    """Long waits are shown (conformance/console.py): live when this process owns the terminal, else
    recorded onto reports for the controller to print."""
    from .console import WaitConsole, WaitRecorder

    if state.is_worker:
        state.wait_recorder = WaitRecorder()
        set_progress(state.wait_recorder)
    else:
        console = WaitConsole(config)
        set_progress(console)
        if not config.pluginmanager.has_plugin("nsconform-waits"):
            config.pluginmanager.register(console, "nsconform-waits")


def _precheck_catalogue(config: pytest.Config) -> None:
    """Under xdist the catalogue rules would fire inside each worker and crash it with an unreadable
    INTERNALERROR; check them once on the controller (a quiet in-process collect-only) instead."""
    import contextlib
    import io

    args = [str(a) for a in config.args]
    if config.option.pyargs:
        args.append("--pyargs")
    args += ["--collect-only", "-q", "--nsconform-precheck", "-p", "no:xdist", "-p", "no:cacheprovider",
             "--rootdir", str(config.rootpath)]
    if config.inipath is not None:
        args += ["-c", str(config.inipath)]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = pytest.main(args)
    if int(code) == int(pytest.ExitCode.USAGE_ERROR):
        text = err.getvalue().strip() or out.getvalue().strip()
        text = text[len("ERROR: "):] if text.startswith("ERROR: ") else text
        pytest.exit(text, returncode=int(pytest.ExitCode.USAGE_ERROR))


def _register_report_plugins(config: pytest.Config, controller: bool) -> None:
    """Wire the report room's plugins when present (Contract 2/5); absent module ⇒ no reports."""
    try:
        from .report import pytest_hooks as hooks  # noqa: F401
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("conformance.report"):
            return
        raise
    wanted = config.getoption("nsconform_reports") is not None or _runs_suites(config)
    if controller and wanted and hasattr(hooks, "ReportPlugin") \
            and not config.pluginmanager.has_plugin("nsconform-report"):
        config.pluginmanager.register(hooks.ReportPlugin(config, run_id=config.stash[RUN_ID_KEY]), "nsconform-report")
    try:
        from .report.allure import AllureEnricher
    except ImportError:
        return
    if not config.pluginmanager.has_plugin("nsconform-allure"):
        config.pluginmanager.register(AllureEnricher(config, secrets=[config.getoption("token") or ""]),
                                      "nsconform-allure")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller → worker: the same run id and the already-resolved target."""
    config = node.config
    node.workerinput["nsconform_run_id"] = config.stash[RUN_ID_KEY]
    state = config.stash[_STATE_KEY]
    if state.target is None and _runs_suites(config):
        ensure_target(config)
    t = state.target
    if t is not None:
        server = t.server
        node.workerinput["nsconform_target"] = t.worker_payload(
            token=getattr(server, "token", None) if server is not None else None,
            ca_file=getattr(server, "ca_file", None) if server is not None else None)


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    state = config.stash.get(_STATE_KEY, None)
    if state is None or state.target is None:
        return None
    t = state.target
    d = t.describe()
    where = d["url"] + (f" (context {d['context']})" if d.get("context") else "")
    extra = f", deviations: {', '.join(t.deviations)}" if t.deviations else ""
    if config.getoption("nsconform_messages") == "warn":
        extra += ", Status messages: warn only"
    return [f"nsconform: target {where} [{t.kind}], version {t.git_version}, profile {t.profile}{extra}",
            f"nsconform: run id {config.stash[RUN_ID_KEY]}"]


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """In a process that runs suite tests: what the imports and the collection built lives until the end, so
    take it out of the garbage collector's full passes (`gc.freeze`); they then scan what the tests create,
    not ~150,000 import-time objects (measured: about half a second of CPU in an embedded run). An
    in-process run (pytester, `pytest.main(plugins=...)`) hands them back at unconfigure: its process goes on.
    The start-up's raised collection threshold ends here in every process."""
    _end_gc_startup()
    if session.config.pluginmanager.has_plugin("nsconform-teardown"):
        gc.freeze()
        if session.config.invocation_params.plugins:
            session.config.add_cleanup(gc.unfreeze)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = session.config.stash.get(_STATE_KEY, None)
    if state is not None:
        state.exitstatus = int(exitstatus)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_keyboard_interrupt(excinfo: pytest.ExceptionInfo[BaseException]) -> Iterator[None]:
    """Before pytest's terminal reporter formats the interrupt: make its traceback formattable."""
    drop_lineless_frames(excinfo.value)
    return (yield)


def pytest_unconfigure(config: pytest.Config) -> None:
    _end_gc_startup()  # (a run that never finished collecting)
    state = config.stash.get(_STATE_KEY, None)
    if state is None:
        return
    set_progress(None)
    t = state.target
    interrupted = state.exitstatus == int(pytest.ExitCode.INTERRUPTED) or state.interrupts.seen.is_set()
    try:
        if t is not None and not state.is_worker and t.kind != "embedded" and interrupted \
                and config.getoption("keep_namespaces") != "always":
            _interrupt_sweep(config, t)
    finally:
        state.interrupts.uninstall()
        if t is not None:
            t.stop()
            state.target = None


def _interrupt_sweep(config: pytest.Config, t: Target) -> None:
    """An interrupted run leaves nothing behind: delete this run's labelled namespaces (no waiting)."""
    from .endpoints import Paths
    from .fixtures.namespaces import LIVE, sweep_run
    from .wait import Waiter

    LIVE.sweep()
    try:
        client = t.client(timeout=10.0)
        paths = Paths(t.profile)
        from .fixtures.extensions import sweep_cluster_objects
        sweep_cluster_objects(client, run_id=config.stash[RUN_ID_KEY], wait=False)  # first: they stall deletions
        sweep_run(client, paths, Waiter(client, paths), run_id=config.stash[RUN_ID_KEY], wait=False)
    except Exception:  # noqa: BLE001 - best effort while exiting
        pass


# --------------------------------------------------------------------------------------------- collection
def _marker_ids(item: pytest.Item) -> tuple[str, ...]:
    ids: list[str] = []
    for mark in item.iter_markers("clause"):
        ids.extend(str(a) for a in mark.args)
    return tuple(dict.fromkeys(ids))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    roots = _suite_roots(config)
    suite_items = [i for i in items if _in_roots(Path(str(i.path)), roots)]
    for item in items:
        ids = _marker_ids(item)
        item.stash[CLAUSES_KEY] = ids
        for cid in ids:
            if ("clause", cid) not in item.user_properties:
                item.user_properties.append(("clause", cid))
    if not suite_items:
        return
    try:
        catalogue = _clauses.by_id(_catalogue_path(config))
    except _clauses.CatalogueError as exc:
        raise pytest.UsageError(f"nsconform: {exc}") from None
    tests = {i.nodeid: i.stash[CLAUSES_KEY] for i in suite_items}
    problems = _clauses.check_markers(tests, catalogue)
    state = config.stash[_STATE_KEY]
    # "Every clause has a test" only when a whole suite root was asked for; `nsconform clauses`
    # (--nsconform-collect-only) lists untested clauses instead of failing on them.
    if _whole_suite_requested(config, roots) and not config.getoption("nsconform_collect_only"):
        untested = _clauses.check_coverage(tests, catalogue)
        if untested:
            problems.append(f"clauses without any test: {', '.join(untested)}")
    if problems:
        raise pytest.UsageError("nsconform: the suites do not match the clause catalogue:\n  - "
                                + "\n  - ".join(problems))
    _select_extensions(config, items, catalogue)
    kept = {id(i) for i in items}
    _apply_skips(config, [i for i in suite_items if id(i) in kept], catalogue)
    from .scheduling import group_and_order

    group_and_order(config, items)  # before xdist's worker hook turns the groups into nodeid suffixes
    if not _collect_only(config) and not state.is_worker and state.target is None:
        ensure_target(config)  # fail fast (exit 2) before running anything


def _select_extensions(config: pytest.Config, items: list[pytest.Item],
                       catalogue: dict[str, _clauses.Clause]) -> None:
    """Extension clauses run only when asked for (`--extension NAME`), and then alone: an extension may
    change what every new namespace looks like (KEP-33's configurations apply cluster-wide), so it never
    shares a run with the core suites. The clause/test coverage check has already seen every item."""
    wanted = set(config.getoption("nsconform_extensions") or [])
    known = {str(c.extra.get("extension")) for c in catalogue.values() if c.extra.get("extension")}
    unknown = wanted - known
    if unknown:
        raise pytest.UsageError(f"nsconform: unknown extension(s) {', '.join(sorted(unknown))}; "
                                f"known: {', '.join(sorted(known)) or 'none'}")
    if config.getoption("nsconform_collect_only"):
        return  # `nsconform clauses` lists everything

    def extension(item: pytest.Item) -> str | None:
        ids = item.stash.get(CLAUSES_KEY, ())
        exts = {catalogue[c].extra.get("extension") for c in ids if c in catalogue}
        return next((str(e) for e in exts if e), None)

    def runs(item: pytest.Item) -> bool:
        ext = extension(item)
        if ext:
            return ext in wanted
        return not wanted or not item.get_closest_marker("clause")  # a core suite test: only without --extension

    keep = [i for i in items if runs(i)]
    drop = [i for i in items if not runs(i)]
    if drop and wanted:  # the core suites are left out: a partial run (coverage is not judged)
        config.hook.pytest_deselected(items=drop)
    items[:] = keep  # without --extension, extension tests are not part of the run at all


def _apply_skips(config: pytest.Config, items: list[pytest.Item], catalogue: dict[str, _clauses.Clause]) -> None:
    profile = config.getoption("profile")
    state = config.stash[_STATE_KEY]
    if state.target is not None:
        embedded = state.target.kind == "embedded"
    else:
        embedded = not _has_target_option(config)
    include_disruptive = bool(config.getoption("include_disruptive"))
    for item in items:
        ids = item.stash[CLAUSES_KEY]
        if ids and not any(catalogue[c].applies_to(profile) for c in ids):
            item.add_marker(pytest.mark.skip(reason=f"clause(s) {', '.join(ids)} do not apply to profile {profile}"))
            continue
        if item.get_closest_marker("disruptive") and not (embedded or include_disruptive):
            item.add_marker(pytest.mark.skip(reason="disruptive: needs --include-disruptive on this target"))


# --------------------------------------------------------------------------------------------- per test
@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    RECORDER.start_test(item.nodeid)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Attach Contract 2 data: the call report gets the exchanges of setup + call; a failed setup or
    teardown report gets its own (so a broken fixture is explained too)."""
    rep: pytest.TestReport = yield
    reports = item.stash.setdefault(PHASE_REPORTS_KEY, {})
    reports[rep.when] = rep
    attach = rep.when == "call" or (rep.when in ("setup", "teardown") and rep.failed)
    if rep.when == "setup" and rep.passed:
        return rep  # keep setup's exchanges for the call report
    exchanges = RECORDER.take(item.nodeid)
    if attach:
        rep.nsconform = {"clauses": list(item.stash.get(CLAUSES_KEY, ())),  # type: ignore[attr-defined]
                         "exchanges": [e.to_dict() for e in exchanges]}
    _hand_over_waits(item, rep)
    if rep.when == "teardown":
        RECORDER.start_test(None)
        namespace_state = item.stash.get(NAMESPACE_STATE_KEY, "")
        if namespace_state:
            data = getattr(rep, "nsconform", None) or {"clauses": list(item.stash.get(CLAUSES_KEY, ())),
                                                        "exchanges": []}
            data["namespace_state"] = namespace_state
            rep.nsconform = data  # type: ignore[attr-defined]
    return rep


def _hand_over_waits(item: pytest.Item, rep: pytest.TestReport) -> None:
    """xdist worker: put this phase's long waits on its report (`nsconform["waits"]`)."""
    state = item.config.stash.get(_STATE_KEY, None)
    if state is None or state.wait_recorder is None:
        return
    waits = state.wait_recorder.take()
    if waits:
        data = getattr(rep, "nsconform", None) or {"clauses": list(item.stash.get(CLAUSES_KEY, ())),
                                                    "exchanges": []}
        data["waits"] = waits
        rep.nsconform = data  # type: ignore[attr-defined]


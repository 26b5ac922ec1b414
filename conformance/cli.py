"""`nsconform`: run | cleanup | clauses | serve | report | sensitivity | specificity | diagnose.

Thin on purpose: it parses, validates the target up front (so a bad kubeconfig costs one line and exit
code 2, not a pytest session full of errors), and hands over to pytest or to another room's `main`.
Exit codes: 0 all passed, 1 a test failed, 2 usage or connection problem.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence
from .argtypes import OneLineParser, positive_float, positive_int
from .assertions import MESSAGE_MODES

__all__ = ["main", "build_parser"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
CLUSTER_JOBS = 4  # a cluster deletes a namespace in seconds: tests that watch one terminate wait side by side
_SUBPARSERS: dict[str, argparse.ArgumentParser] = {}
# The CLI has imported `conformance` before pytest starts, so pytest cannot rewrite the plugin package's
# asserts and would warn on every run; the suites' own modules are still rewritten, and the helpers in
# conformance.assertions write their own messages.
SUITE_ARGS = ["--pyargs", "conformance.suites", "-W", "ignore::pytest.PytestAssertRewriteWarning"]


# Test ids (`conformance/suites/test_x.py::t`) must not depend on the directory `run` starts in: reports,
# JUnit and Allure history compare them across runs, and --rerun-failed reads them back.
PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def _suite_args(selection: Sequence[str] | None = None) -> list[str]:
    """SUITE_ARGS, with `selection` (`--pyargs` module[::test] names) in place of the whole package."""
    if selection is None:
        return list(SUITE_ARGS)
    return [a for a in SUITE_ARGS if a != "conformance.suites"] + list(selection)


_LAST_ERROR: list[str] = []  # the last one-line error, for a Sonobuoy plugin's error JUnit


def _err(msg: str) -> None:
    line = ' '.join(str(msg).split())
    _LAST_ERROR[:] = [line]
    print(f"nsconform: {line}", file=sys.stderr)


def _add_target_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("target (default for run: the embedded reference server)")
    g.add_argument("--kubeconfig", metavar="PATH", help="kubeconfig file")
    g.add_argument("--context", metavar="NAME", help="kubeconfig context")
    g.add_argument("--server", metavar="URL", help="API server URL")
    g.add_argument("--token", metavar="TOKEN", default=os.environ.get("NSCONFORM_TOKEN") or None,
                   help="bearer token for --server (default: $NSCONFORM_TOKEN)")
    g.add_argument("--insecure-skip-tls-verify", action="store_true", help="do not verify the server certificate")
    g.add_argument("--certificate-authority", metavar="FILE", default=None,
                   help="PEM file of the CA that signed the server's certificate (for --server; overrides the "
                        "kubeconfig's)")
    g.add_argument("--in-cluster", action="store_true", help="use the pod's service-account credentials")




def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="nsconform", description="Conformance harness for the Kubernetes Namespace API.")
    parser.add_argument("--version", action="version", version="nsconform 0.1.0")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    _SUBPARSERS.clear()

    run = sub.add_parser("run", help="run the conformance suites against a target",
                         description="Run the suites. Arguments after `--` go to pytest unchanged.")
    _add_target_options(run)
    run.add_argument("--profile", choices=("kubernetes", "design"), default=None,
                     help="default kubernetes; with --rerun-failed, the earlier run's")
    run.add_argument("--force-profile", action="store_true",
                     help="run --profile even when the target's discovery finalizes otherwise (teardown still "
                          "releases with the verb the target offers)")
    run.add_argument("--timeout-scale", type=positive_float, default=1.0, metavar="X",
                     help="multiply every wait timeout by X (a slow cluster; default 1)")
    run.add_argument("--keep-namespaces", choices=("never", "on-failure", "always"), default="never",
                     help="keep test namespaces after each test for inspection (default never; remove them "
                          "later with `nsconform cleanup`)")
    run.add_argument("--include-disruptive", action="store_true",
                     help="also run tests that touch cluster-wide state on a kubeconfig/server target (always "
                          "run on the embedded server)")
    run.add_argument("--messages", choices=MESSAGE_MODES, default="exact",
                     help="exact (default): a Status message worded otherwise than kube-apiserver's fails; "
                          "warn: only a warning, for implementations that word errors their own way")
    run.add_argument("--no-preflight", action="store_true",
                     help="skip asking the cluster (SelfSubjectAccessReview) whether the credentials may do what "
                          "the suites do")
    run.add_argument("-n", "--jobs", type=positive_int, default=None, metavar="N",
                     help=f"parallel workers (pytest-xdist; default {CLUSTER_JOBS} against --kubeconfig/--server, "
                          "whose deletions take seconds; 1 on the embedded server)")
    run.add_argument("--reports", default="reports", metavar="DIR", help="reports directory (default: reports)")
    run.add_argument("--run-id", default=None, metavar="ID",
                     help="run id for namespace labels and the report directory (default: generated)")
    run.add_argument("--rerun-failed", nargs="?", const="", default=None, metavar="RUN",
                     help="run only the tests that failed in RUN (a run directory or its conformance.json; "
                          "default: the latest run under --reports); give the same target options")
    run.add_argument("--flavor", default=None, metavar="NAME",
                     help="embedded server only: behave like this kind of cluster (default, kind, openshift, managed, "
                          "slow; see README 'Cluster flavours')")
    run.add_argument("--deviate", action="append", default=[], metavar="NAME",
                     help="embedded server only: enable a deliberate deviation (repeatable)")
    run.add_argument("--extension", action="append", default=[], metavar="NAME",
                     help="run an opt-in extension's clauses (known: kep-33), alone and reported apart from "
                          "core conformance (repeatable)")
    run.add_argument("--feature-gates", action="append", default=[], metavar="NAME=true",
                     help="embedded server only: switch on a feature gate (NamespaceInitializers=true for kep-33)")
    run.add_argument("--authorization", choices=("always-allow", "rbac"), default=None,
                     help="embedded server only (default rbac: authentication + RBAC, which the scope suites' "
                          "authorization tests need; always-allow: they skip)")
    run.add_argument("--scale", type=positive_int, default=None, metavar="N",
                     help="run the opt-in scale suite alone: namespaces in steps up to N (growth judged from "
                          "N = 1000; README 'Scale')")
    run.add_argument("--scale-objects", type=positive_int, default=None, metavar="M",
                     help="with --scale: ConfigMaps in each namespace (default 2)")
    run.add_argument("--etcd-endpoints", default=None, metavar="URL[,URL...]",
                     help="also run the opt-in storage suite: read the target's etcd key layout (read-only; "
                          "README 'Storage layout (etcd)'); `embedded`: the embedded server on a private etcd")
    run.add_argument("--etcd-cacert", default=None, metavar="FILE", help="with --etcd-endpoints: etcd's CA")
    run.add_argument("--etcd-cert", default=None, metavar="FILE", help="with --etcd-endpoints: client certificate")
    run.add_argument("--etcd-key", default=None, metavar="FILE", help="with --etcd-endpoints: client key")
    run.add_argument("--etcd-prefix", default=None, metavar="PREFIX",
                     help="with --etcd-endpoints: kube-apiserver's --etcd-prefix (default /registry)")
    run.add_argument("--results-dir", default=None, metavar="DIR",
                     help="run as a Sonobuoy plugin (default $SONOBUOY_RESULTS_DIR): pack the reports into DIR, "
                          "write DIR/done naming them, exit 0 even when clauses failed (docs/sonobuoy.md)")

    cleanup = sub.add_parser("cleanup", help="delete namespaces left behind by nsconform runs")
    _add_target_options(cleanup)
    cleanup.add_argument("--run-id", default=None, metavar="ID", help="only this run's namespaces")
    cleanup.add_argument("--dry-run", action="store_true", help="list, do not delete")
    cleanup.add_argument("--profile", choices=("kubernetes", "design"), default="kubernetes",
                         help="finalize verb to use (design: POST)")
    cleanup.add_argument("--timeout-scale", type=positive_float, default=1.0, metavar="X")

    _SUBPARSERS.update(run=run, cleanup=cleanup)
    cl = sub.add_parser("clauses", help="list the clause catalogue with the tests that check each clause")
    cl.add_argument("--profile", choices=("kubernetes", "design"), default=None)
    cl.add_argument("--format", choices=("text", "json"), default="text")
    _SUBPARSERS["clauses"] = cl

    for name, helptext in (("serve", "run the reference server"), ("report", "render or compare reports"),
                           ("sensitivity", "run the suites against deliberate deviations"),
                           ("specificity", "run the suites against every cluster flavour (no false alarms)"),
                           ("diagnose", "explain why namespaces are stuck in Terminating (read-only)")):
        sp = sub.add_parser(name, help=helptext, add_help=False)
        sp.add_argument("args", nargs=argparse.REMAINDER)
    return parser


_DISPATCH = {"serve": ("conformance.reference_server.serve", "the reference server"),
             "report": ("conformance.report.cli", "the report tool"),
             "sensitivity": ("conformance.sensitivity", "the sensitivity run"),
             "specificity": ("conformance.specificity", "the specificity run"),
             "diagnose": ("conformance.diagnose.cli", "the stuck-namespace diagnosis")}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in _DISPATCH:
        return _dispatch(argv[0], argv[1:])
    passthrough: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, passthrough = argv[:i], argv[i + 1:]
    parser = build_parser()
    try:
        ns, extras = parser.parse_known_args(argv)
        if extras:  # report against the subcommand's usage line, not the top-level one
            _SUBPARSERS[ns.command].error(f"unrecognized arguments: {' '.join(extras)}")
    except SystemExit as exc:  # argparse printed its usage line
        return int(exc.code or 0) if exc.code in (0, None) else EXIT_USAGE
    if passthrough and ns.command != "run":
        _err("arguments after `--` are only accepted by `run`")
        return EXIT_USAGE
    try:
        if ns.command == "run":
            return cmd_run(ns, passthrough)
        if ns.command == "cleanup":
            return cmd_cleanup(ns)
        if ns.command == "clauses":
            return cmd_clauses(ns)
    except KeyboardInterrupt:
        _err("interrupted")
        return EXIT_USAGE
    _err(f"unknown command {ns.command}")  # pragma: no cover
    return EXIT_USAGE  # pragma: no cover


def _dispatch(command: str, rest: list[str]) -> int:
    import importlib

    module, what = _DISPATCH[command]
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and (module == exc.name or module.startswith(exc.name + ".")):
            _err(f"{what} is not available in this installation (module {module} is missing)")
            return EXIT_USAGE
        raise
    fn = getattr(mod, "main", None)
    if fn is None:
        _err(f"{what} has no main() ({module})")
        return EXIT_USAGE
    try:
        rc = fn(rest)
    except KeyboardInterrupt:
        _err("interrupted")
        return EXIT_USAGE
    return int(rc or 0)


# --------------------------------------------------------------------------------------------- run
def _target_args(ns: argparse.Namespace) -> list[str]:
    out: list[str] = []
    for opt, value in (("--kubeconfig", ns.kubeconfig), ("--context", ns.context), ("--server", ns.server),
                       ("--token", ns.token), ("--certificate-authority", ns.certificate_authority)):
        if value:
            out += [opt, value]
    if ns.insecure_skip_tls_verify:
        out.append("--insecure-skip-tls-verify")
    if ns.in_cluster:
        out.append("--in-cluster")
    return out


def _has_target(ns: argparse.Namespace) -> bool:
    return bool(ns.kubeconfig or ns.context or ns.server or ns.in_cluster)


def _validate_target(ns: argparse.Namespace, profile: str, preflight: bool = False) -> Any:
    """Resolve and probe once; returns the probed Target (caller closes it). Raises TargetError."""
    from .target import resolve_target

    return resolve_target(kubeconfig=ns.kubeconfig, context=ns.context, server=ns.server, token=ns.token,
                          insecure=ns.insecure_skip_tls_verify, in_cluster=ns.in_cluster, profile=profile,
                          ca_file=ns.certificate_authority,
                          embedded=False, preflight=preflight)


def cmd_run(ns: argparse.Namespace, passthrough: list[str]) -> int:
    from .report.sonobuoy import publish, results_dir_from

    results = results_dir_from(ns.results_dir)
    if results is None:
        return _run(ns, passthrough)
    _LAST_ERROR.clear()
    code = _run(ns, passthrough)
    run_dir = getattr(ns, "run_dir", None)
    error = None
    if code != EXIT_OK:
        error = (_LAST_ERROR[0] if _LAST_ERROR else None) or \
            f"nsconform run ended with exit code {code} before writing a JUnit report (see the plugin's log)"
    done = publish(results, run_dir, error=error)
    print(f"nsconform: results for Sonobuoy in {done.read_text()} (exit code {code} reported as 0)")
    return EXIT_OK


def _run(ns: argparse.Namespace, passthrough: list[str]) -> int:
    from .client import TargetError
    from .target import new_run_id

    if ns.token and not ns.server:
        _err("--token needs --server")
        return EXIT_USAGE
    selection = None
    if ns.rerun_failed is not None:
        try:
            selection, earlier_profile = _failed_selection(ns.rerun_failed or ns.reports)
        except (FileNotFoundError, ValueError, OSError) as exc:
            _err(f"--rerun-failed: {exc}")
            return EXIT_USAGE
        if not selection:
            return EXIT_OK
        ns.profile = ns.profile or earlier_profile
    ns.profile = ns.profile or "kubernetes"
    if _has_target(ns):
        if ns.deviate:
            _err("--deviate only applies to the embedded reference server")
            return EXIT_USAGE
        if getattr(ns, "authorization", None):
            _err("--authorization only applies to the embedded reference server")
            return EXIT_USAGE
        if getattr(ns, "flavor", None):
            _err("--flavor only applies to the embedded reference server")
            return EXIT_USAGE
        try:
            t = _validate_target(ns, ns.profile, preflight=not ns.no_preflight)
        except TargetError as exc:
            _err(str(exc))
            return EXIT_USAGE
        t.stop()
        from .fixtures.release import profile_mismatch

        problem = profile_mismatch(ns.profile, t.discovery)
        if problem and not ns.force_profile:
            _err(problem)
            return EXIT_USAGE
        if ns.jobs is None and not _xdist_in(passthrough):
            ns.jobs = CLUSTER_JOBS
    elif ns.deviate:  # check the names before pytest starts (else: "Exit: ..." from inside the session)
        from .reference_server.deviations import Deviations

        try:
            Deviations(ns.deviate)
        except ValueError as exc:
            _err(f"--deviate: {exc}")
            return EXIT_USAGE
    if getattr(ns, "flavor", None) and not _has_target(ns):
        from .reference_server.flavors import get_flavor

        try:
            get_flavor(ns.flavor)
        except ValueError as exc:
            _err(f"--flavor: {exc}")
            return EXIT_USAGE
    run_id = ns.run_id or new_run_id()
    reports = Path(ns.reports)
    run_dir = reports / run_id
    ns.run_dir = run_dir
    args = [*_suite_args(selection), "-p", "no:cacheprovider", "--rootdir", str(PACKAGE_ROOT),
            f"--junitxml={run_dir / 'junit.xml'}", f"--alluredir={run_dir / 'allure-results'}",
            "--nsconform-reports", str(reports), "--run-id", run_id, "--profile", ns.profile,
            "--keep-namespaces", ns.keep_namespaces, "--timeout-scale", repr(ns.timeout_scale),
            "--messages", ns.messages,
            "--no-preflight"]  # the target was checked above, or is the embedded server
    args += _target_args(ns)
    if ns.include_disruptive:
        args.append("--include-disruptive")
    if ns.force_profile:
        args.append("--force-profile")
    for name in ns.deviate:
        args += ["--nsconform-deviate", name]
    if getattr(ns, "flavor", None):
        args += ["--nsconform-flavor", ns.flavor]
    if getattr(ns, "authorization", None):
        args += ["--nsconform-authorization", ns.authorization]
    for name in getattr(ns, "extension", None) or []:
        args += ["--extension", name]
    for gate in getattr(ns, "feature_gates", None) or []:
        args += ["--nsconform-feature-gates", gate]
    if getattr(ns, "scale", None):
        args += ["--scale", str(ns.scale)]
    if getattr(ns, "scale_objects", None):
        if not getattr(ns, "scale", None):
            _err("--scale-objects needs --scale N")
            return EXIT_USAGE
        args += ["--scale-objects", str(ns.scale_objects)]
    etcd = [(f"--{o.replace('_', '-')}", getattr(ns, o, None)) for o in
            ("etcd_endpoints", "etcd_cacert", "etcd_cert", "etcd_key", "etcd_prefix")]
    if any(v for _, v in etcd[1:]) and not ns.etcd_endpoints:
        _err("--etcd-cacert/--etcd-cert/--etcd-key/--etcd-prefix need --etcd-endpoints URL")
        return EXIT_USAGE
    args += [a for flag, v in etcd if v for a in (flag, v)]
    if ns.jobs and ns.jobs > 1:
        args += ["-n", str(ns.jobs)]
        if not any(a == "-d" or a.startswith("--dist") for a in passthrough):
            args += ["--dist", "loadgroup"]  # a module's shared namespaces on one worker (conformance/scheduling.py)
    args += passthrough
    import pytest

    code = int(pytest.main(args))
    if code == int(pytest.ExitCode.OK):
        return EXIT_OK
    if code == int(pytest.ExitCode.TESTS_FAILED):
        return EXIT_FAILED
    return EXIT_USAGE


def _xdist_in(passthrough: Sequence[str]) -> bool:
    """Did the pytest arguments after `--` choose the parallelism (or turn xdist off) themselves?"""
    return any(a in ("-n", "--numprocesses", "no:xdist")
               or a.startswith(("-n", "--numprocesses=", "--dist", "-pno:xdist")) for a in passthrough)


def _failed_selection(source: str) -> tuple[list[str], str | None]:
    """(`--pyargs` selectors of the tests that failed in the run at `source`, that run's profile)."""
    from .report.rerun import failed_nodeids, suite_selector
    from .report.writer import load_run, resolve_run_dir

    run = load_run(source)
    where = resolve_run_dir(source)
    failed = failed_nodeids(run)
    target = (run.get("target") or {}).get("url") or "?"
    if not failed:
        print(f"nsconform: run {run.get('run_id')} ({where}) had no failed test: nothing to rerun")
    else:
        print(f"nsconform: rerunning the {len(failed)} failed test(s) of run {run.get('run_id')} "
              f"(was against {target}, profile {run.get('profile')})")
    return [suite_selector(n) for n in failed], run.get("profile")


# --------------------------------------------------------------------------------------------- cleanup
def cmd_cleanup(ns: argparse.Namespace) -> int:
    from .client import TargetError
    from .endpoints import Paths
    from .fixtures.namespaces import DEFAULT_RESOURCES, sweep_run
    from .fixtures.release import FinalizeForms, release_command
    from .wait import Waiter, set_timeout_scale

    if not _has_target(ns):
        if os.environ.get("KUBECONFIG"):
            ns.kubeconfig = os.environ["KUBECONFIG"]
        else:
            _err("cleanup needs a target (the embedded server keeps nothing): pass --kubeconfig/--context or --server")
            return EXIT_USAGE
    set_timeout_scale(ns.timeout_scale)
    try:
        t = _validate_target(ns, ns.profile)
    except TargetError as exc:
        _err(str(exc))
        return EXIT_USAGE
    forms = FinalizeForms(ns.profile, t.discovery)
    try:
        client = t.client()
        paths = Paths(ns.profile)
        waiter = Waiter(client, paths)
        try:
            from .fixtures.extensions import sweep_cluster_objects  # APIServices first: they stall deletions
            cluster = sweep_cluster_objects(client, run_id=ns.run_id, dry_run=ns.dry_run, timeout=120.0)
            result = sweep_run(client, paths, waiter, run_id=ns.run_id, dry_run=ns.dry_run, timeout=120.0,
                               resources=t.namespaced_resources() or DEFAULT_RESOURCES, forms=forms)
        except TargetError as exc:
            _err(str(exc))
            return EXIT_USAGE
        except RuntimeError as exc:
            _err(str(exc))
            return EXIT_USAGE
    finally:
        t.stop()
    scope = f"run {ns.run_id}" if ns.run_id else "all runs"
    for key, outcome in cluster.items():
        print(f"{'would delete' if ns.dry_run else 'removed' if outcome == 'deleted' else 'could not remove'} "
              f"{key}" + ("" if ns.dry_run or outcome == "deleted" else f": {outcome}"))
    if not result and not cluster:
        print(f"nothing to clean up ({scope}) on {t.describe()['url']}")
        return EXIT_OK
    stuck = 0
    for name, outcome in result.items():
        if ns.dry_run:
            print(f"would delete namespace {name}")
        elif outcome in ("gone", "absent"):
            print(f"removed namespace {name}")
        else:
            stuck += 1
            print(f"could not remove namespace {name}: {outcome}")
            print("  release it with: " + release_command(name, forms.preferred, kind=t.kind, url=t.url,
                                                           context=t.context, kubeconfig=ns.kubeconfig,
                                                           metadata=True))
    if not ns.dry_run:
        used = forms.summary()
        if used["refused"] or set(used["worked"]) - {f"{paths.finalize_method} …/finalize"}:
            refused = "".join(f"; {f} answered {c}" for f, c in used["refused"].items())
            print(f"finalizers released with {', '.join(used['worked'])}{refused}")
    stuck += sum(1 for o in cluster.values() if o not in ("deleted", "would delete"))
    return EXIT_FAILED if stuck else EXIT_OK


# --------------------------------------------------------------------------------------------- clauses
class _Collector:
    def __init__(self) -> None:
        self.items: list[tuple[str, tuple[str, ...]]] = []

    def pytest_collection_finish(self, session: Any) -> None:
        from .plugin import CLAUSES_KEY

        for item in session.items:
            self.items.append((item.nodeid, item.stash.get(CLAUSES_KEY, ())))


def cmd_clauses(ns: argparse.Namespace) -> int:
    import pytest

    from . import clauses as C

    try:
        catalogue = C.load()
    except C.CatalogueError as exc:
        _err(str(exc))
        return EXIT_USAGE
    collector = _Collector()
    out, err = io.StringIO(), io.StringIO()
    args = [*SUITE_ARGS, "--collect-only", "-q", "--nsconform-collect-only", "-p", "no:cacheprovider"]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = int(pytest.main(args, plugins=[collector]))
    if code not in (0, int(pytest.ExitCode.NO_TESTS_COLLECTED)):
        text = (err.getvalue().strip() or out.getvalue().strip()).splitlines()
        lines = [ln for ln in text if ln.strip()]
        _err("collecting the suites failed:")
        for ln in lines[-25:]:
            print("  " + ln, file=sys.stderr)
        return EXIT_USAGE
    tests: dict[str, list[str]] = {}
    for nodeid, ids in collector.items:
        for cid in ids:
            tests.setdefault(cid, []).append(nodeid)
    shown = [c for c in catalogue if ns.profile is None or c.applies_to(ns.profile)]
    if ns.format == "json":
        print(json.dumps([{**c.to_dict(), "tests": tests.get(c.id, [])} for c in shown], indent=2))
        return EXIT_OK
    core = [c for c in shown if not c.extra.get("extension")]
    for c in core:
        _print_clause(c, tests)
    print(f"{len(core)} clause(s), {sum(len(tests.get(c.id, [])) for c in core)} test(s)")
    for ext in dict.fromkeys(str(c.extra["extension"]) for c in shown if c.extra.get("extension")):
        extra = [c for c in shown if c.extra.get("extension") == ext]
        print(f"\nExtension {ext} (opt-in, not part of core conformance; run with --extension {ext}):")
        for c in extra:
            _print_clause(c, tests)
        print(f"{len(extra)} extension clause(s), {sum(len(tests.get(c.id, [])) for c in extra)} test(s)")
    return EXIT_OK


def _print_clause(c: Any, tests: dict[str, list[str]]) -> None:
    print(f"{c.id}  [{c.group}, {c.severity}]  profiles: {', '.join(c.profiles)}")
    print(f"    {c.requirement}")
    for nodeid in tests.get(c.id, []) or ["(no test)"]:
        print(f"    - {nodeid}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

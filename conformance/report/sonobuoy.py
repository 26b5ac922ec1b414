"""The Sonobuoy plugin contract, so `nsconform run` can be a Sonobuoy Job plugin.

Sonobuoy mounts a results directory into the plugin's pod (its path in `SONOBUOY_RESULTS_DIR`) and its
worker sidecar waits for a file named `done` there whose content is the path of the results: one file, or
a tarball it unpacks. The plugin is declared with `result-format: junit`, so the tarball carries our
junit.xml at its top level (what Sonobuoy's results processing reads), next to conformance.json/.html/.md
and allure-results. Sonobuoy collects results only from a plugin that finishes, so the caller exits 0
whatever the clauses said; the verdict is in the JUnit.
"""
from __future__ import annotations

import os
import tarfile
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

ENV = "SONOBUOY_RESULTS_DIR"
DONE_NAME = "done"
TARBALL_NAME = "nsconform-results.tar.gz"
JUNIT_NAME = "junit.xml"

__all__ = ["ENV", "results_dir_from", "publish"]


def results_dir_from(option: str | None) -> Path | None:
    """`--results-dir`, else `$SONOBUOY_RESULTS_DIR`, else None (not running as a plugin)."""
    value = option or os.environ.get(ENV) or None
    return Path(value) if value else None


_EMPTY_JUNIT = ('<?xml version="1.0" encoding="utf-8"?>\n<testsuites><testsuite name="nsconform" tests="0" '
                'failures="0" errors="0" skipped="0"></testsuite></testsuites>\n')


def _error_junit(message: str) -> str:
    """A JUnit document with one failed case, for a run that ended before pytest wrote one (unreachable
    target, missing permissions): Sonobuoy then reports a failure with our one-line reason, not a timeout."""
    return ('<?xml version="1.0" encoding="utf-8"?>\n'
            '<testsuites><testsuite name="nsconform" tests="1" failures="1" errors="0" skipped="0">'
            f'<testcase classname="nsconform" name="run"><failure message={quoteattr(message)}>'
            f'{escape(message)}</failure></testcase></testsuite></testsuites>\n')


def publish(results_dir: Path, run_dir: Path | None, *, error: str | None = None) -> Path:
    """Pack `run_dir` (or, when it holds no JUnit, one with a failed case saying `error`) into a tarball in `results_dir`, then write
    `done` naming it. `done` comes last: the sidecar starts uploading as soon as it appears."""
    results_dir.mkdir(parents=True, exist_ok=True)
    tarball = results_dir / TARBALL_NAME
    partial = tarball.with_name(tarball.name + ".partial")
    with tarfile.open(partial, "w:gz") as tar:
        has_junit = False
        if run_dir is not None and run_dir.is_dir():
            for child in sorted(run_dir.iterdir()):
                tar.add(child, arcname=child.name)
                has_junit = has_junit or child.name == JUNIT_NAME
        if not has_junit:  # `error` None: nothing was to run (--rerun-failed of a clean run)
            junit = results_dir / JUNIT_NAME
            junit.write_text(_error_junit(error) if error else _EMPTY_JUNIT, encoding="utf-8")
            tar.add(junit, arcname=JUNIT_NAME)
            junit.unlink()
    os.replace(partial, tarball)
    done = results_dir / DONE_NAME
    done.write_text(str(tarball.resolve()), encoding="utf-8")
    return done

"""The end of a run's teardown: wait for the reaper, sweep after an interrupt, and say what is left.

Registered by the plugin on every process of a suite run. In each process (xdist workers included)
`pytest_sessionfinish` waits for the namespaces that tests' teardowns handed to the reaper, all at once
under one deadline; a worker sends its summary to the controller, which merges them for the report
(`conformance.json` key `teardown`) and the terminal: namespaces still being deleted, namespaces
held (with the exact command that frees them), namespaces kept (with the cleanup command), and the
finalize form the target took when it was not the profile's own.
"""

from __future__ import annotations

import shlex
from typing import Any, Iterator

import pytest

from .fixtures.reaper import REAPER, TEARDOWN_KEY, merge_summaries
from .fixtures.release import PROFILE_METHOD, release_command
from .target import TARGET_KEY

__all__ = ["TeardownPlugin", "cleanup_command"]

EMBEDDED_DRAIN_S = 15.0   # the embedded server is discarded after the run
CLUSTER_DRAIN_S = 60.0    # × --timeout-scale, once per process, not per test


def cleanup_command(config: pytest.Config, run_id: str) -> str:
    """`nsconform cleanup` with this run's target options (never the token itself)."""
    parts = ["nsconform", "cleanup"]
    for opt, name in (("--kubeconfig", "kubeconfig"), ("--context", "context"), ("--server", "server")):
        value = config.getoption(name, default=None)
        if value:
            parts += [opt, str(value)]
    if config.getoption("insecure_skip_tls_verify", default=False):
        parts.append("--insecure-skip-tls-verify")
    profile = config.getoption("profile", default="kubernetes")
    if profile != "kubernetes":
        parts += ["--profile", str(profile)]
    parts += ["--run-id", run_id]
    return " ".join(shlex.quote(p) for p in parts)


class TeardownPlugin:
    def __init__(self, config: pytest.Config, run_id: str) -> None:
        self.config = config
        self.run_id = run_id
        self.workers: list[dict[str, Any]] = []
        self.summary: dict[str, Any] | None = None
        REAPER.reset()

    def _command_for(self, name: str, method: str, metadata: bool) -> str:
        t = self.config.stash.get(TARGET_KEY, None)
        if t is None:
            return ""
        return release_command(name, method, kind=t.kind, url=t.url, context=t.context, metadata=metadata,
                               kubeconfig=self.config.getoption("kubeconfig", default=None))

    def _embedded(self) -> bool:
        t = self.config.stash.get(TARGET_KEY, None)
        return t is None or t.kind == "embedded"

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        part = (getattr(node, "workeroutput", None) or {}).get("nsconform_teardown")
        if part:
            self.workers.append(part)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> Iterator[None]:
        """Before the report is built (it carries the summary) and before a worker reports back."""
        try:
            self._finish(int(exitstatus))
        except KeyboardInterrupt:  # Ctrl-C while waiting for the reaper: sweep, and end as interrupted
            session.exitstatus = pytest.ExitCode.INTERRUPTED
            self._finish(int(pytest.ExitCode.INTERRUPTED))
        except Exception as exc:  # noqa: BLE001 - the teardown summary must not change the run's outcome
            self.summary = {"error": f"{type(exc).__name__}: {exc}"}
        return (yield)

    def _finish(self, exitstatus: int) -> None:
        from .fixtures.namespaces import LIVE

        interrupted = exitstatus == int(pytest.ExitCode.INTERRUPTED)
        if interrupted:
            own = REAPER.summary()
            REAPER.drop_pending()
            own["swept"] = LIVE.sweep()  # released and DELETEd, not waited for: the run is stopping
        else:
            timeout = EMBEDDED_DRAIN_S if self._embedded() else CLUSTER_DRAIN_S
            own = REAPER.drain(timeout, command_for=self._command_for)
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput["nsconform_teardown"] = own
        self.summary = merge_summaries([own, *self.workers])
        self.config.stash[TEARDOWN_KEY] = self.summary

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        s = self.summary
        if hasattr(self.config, "workerinput") or not s:
            return
        lines: list[tuple[str, bool]] = []
        if s.get("error"):
            lines.append((f"teardown summary failed: {s['error']}", True))
        profile = self.config.getoption("profile", default="kubernetes")
        own = f"{PROFILE_METHOD.get(profile, 'PUT')} …/finalize"
        worked = {f: n for f, n in (s.get("finalize") or {}).get("worked", {}).items() if f != own}
        refused = (s.get("finalize") or {}).get("refused") or {}
        if worked or refused:
            said = ", ".join(f"{f} answered {c}" for f, c in refused.items())
            took = ", ".join(f"{f} ({n}×)" for f, n in worked.items())
            offered = (s.get("finalize") or {}).get("offered")
            why = f"the target's discovery offers {'/'.join(offered)}; " if offered else ""
            lines.append((f"finalizers released with {took or own} ({why}profile {profile}'s own is {own})"
                          + (f"; {said}" if said else ""), bool(refused)))
        for e in s.get("still_deleting") or []:
            lines.append((f"still being deleted at the end (released, the cluster finishes it): {e['name']} "
                          f"[{e['last_seen']}]", False))
        held = s.get("held") or []
        for e in held:
            lines.append((f"NOT released: namespace {e['name']} of {e['test']} [{e['last_seen']}]; release it with:",
                          True))
            lines.append((f"  {e.get('command') or cleanup_command(self.config, self.run_id)}", True))
        if s.get("swept"):
            lines.append((f"swept after the interrupt (deleted, not waited for): {', '.join(s['swept'])}", False))
        kept = s.get("kept") or []
        if kept:
            lines.append((f"kept (--keep-namespaces): {', '.join(kept)}", False))
        if (kept or held or s.get("still_deleting")) and not self._embedded():
            lines.append((f"remove them with: {cleanup_command(self.config, self.run_id)}", bool(held)))
        if not lines:
            return
        terminalreporter.write_sep("-", "nsconform teardown")
        for text, red in lines:
            terminalreporter.write_line(text, red=red)

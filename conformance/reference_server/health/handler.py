"""The answers of `/healthz`, `/livez`, `/readyz` and each check under them, as k8s.io/apiserver v0.33.1
`pkg/server/healthz/healthz.go` writes them.

- the root (`handleRootHealth`): each check in order, `[+]<name> ok`, `[+]<name> excluded: ok` for one named by
  `?exclude=` (repeatable), `[-]<name> failed: reason withheld` (the error goes to the log only); an exclude
  naming no check adds `warn: some health checks cannot be excluded: no matches for "a","b"` (sorted, `%q`).
  A failure answers 500 through `http.Error` (always verbose: the lines, then `<endpoint> check failed` and
  Fprintln's newline); success answers `ok`, or with `?verbose` (any value) the lines and
  `<endpoint> check passed\\n`; both with `Content-Type: text/plain; charset=utf-8` and
  `X-Content-Type-Options: nosniff`;
- one check (`adaptCheckToHandler`): `ok` (no header set: Go's sniffing gives `text/plain; charset=utf-8`, and
  no `nosniff`), or `http.Error`'s 500 `internal server error: <err>\\n`.
"""
from __future__ import annotations

import logging
from typing import Mapping, NamedTuple, Sequence

from ..goport.gofmt import sharp_v
from .checks import ENDPOINTS, Check, HealthChecks

log = logging.getLogger("nsconform.reference_server")
PLAIN = "text/plain; charset=utf-8"
_NOSNIFF = (("Content-Type", PLAIN), ("X-Content-Type-Options", "nosniff"))  # http.Error's, and the root's


class HealthAnswer(NamedTuple):
    status: int
    body: str
    headers: tuple[tuple[str, str], ...]
    endpoint: str = ""                           # the root's endpoint ("" for a single check)
    results: tuple[tuple[str, bool], ...] = ()   # each run check and whether it passed (the SLI metrics)


def _error(text: str) -> HealthAnswer:
    """`http.Error(w, text, 500)`."""
    return HealthAnswer(500, text + "\n", _NOSNIFF)


async def root(endpoint: str, checks: Sequence[Check], query: Mapping[str, Sequence[str]]) -> HealthAnswer:
    """`handleRootHealth(endpoint, ...)` for a request whose query parameters are `query` (name → values)."""
    excluded = set(query.get("exclude", ()))
    lines: list[str] = []
    failed: list[str] = []
    details: list[str] = []
    results: list[tuple[str, bool]] = []
    for check in checks:
        if check.name in excluded:
            excluded.discard(check.name)
            lines.append(f"[+]{check.name} excluded: ok\n")
            continue
        err = await check.run()
        results.append((check.name, err is None))
        if err is not None:
            lines.append(f"[-]{check.name} failed: reason withheld\n")
            details.append(f"[-]{check.name} failed: {err}\n")
            failed.append(check.name)
        else:
            lines.append(f"[+]{check.name} ok\n")
    if excluded:
        lines.append("warn: some health checks cannot be excluded: no matches for "
                     + ",".join(sharp_v(n) for n in sorted(excluded)) + "\n")
    if failed:
        log.debug("%s check failed: %s\n%s", ",".join(failed), endpoint, "".join(details))
        return _error("".join(lines) + f"{endpoint} check failed")._replace(endpoint=endpoint, results=tuple(results))
    body = "".join(lines) + f"{endpoint} check passed\n" if "verbose" in query else "ok"
    return HealthAnswer(200, body, _NOSNIFF, endpoint, tuple(results))


async def single(check: Check) -> HealthAnswer:
    """`adaptCheckToHandler(check.Check)`."""
    err = await check.run()
    if err is not None:
        return _error(f"internal server error: {err}")
    return HealthAnswer(200, "ok", (("Content-Type", PLAIN),))


async def answer(checks: HealthChecks, path: str, query: Mapping[str, Sequence[str]]) -> HealthAnswer | None:
    """The answer at `path` (`/readyz`, `/readyz/etcd`, ...); None where no handler is installed (a 404)."""
    endpoint, _, name = path[1:].partition("/")
    if endpoint not in ENDPOINTS:
        return None
    if not name:
        if path.endswith("/"):  # `/readyz/`: the mux has no such path
            return None
        return await root(endpoint, checks.checks(endpoint), query)
    check = checks.check(endpoint, name)
    return None if check is None else await single(check)


__all__ = ["HealthAnswer", "PLAIN", "answer", "root", "single"]

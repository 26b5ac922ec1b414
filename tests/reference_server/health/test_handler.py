"""health/handler.py against k8s.io/apiserver v0.33.1 `healthz_test.go` `testMultipleChecks`: the same checks
(`ping`, and a `bad` one failing with `this will fail`), the same queries, the same bodies and codes."""
from __future__ import annotations

import asyncio

import pytest

from conformance.reference_server.health import HealthChecks, HealthState, answer
from conformance.reference_server.health.checks import Check
from conformance.reference_server.health.handler import root, single

PLAIN = ("Content-Type", "text/plain; charset=utf-8")
NOSNIFF = ("X-Content-Type-Options", "nosniff")


async def _ping() -> str | None:
    return None


async def _bad() -> str | None:
    return "this will fail"


PING, BAD = Check("ping", _ping), Check("bad", _bad)


def _query(q: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for part in filter(None, q.lstrip("?").split("&")):
        k, _, v = part.partition("=")
        out.setdefault(k, []).append(v)
    return out


@pytest.mark.parametrize("name", ["healthz", "livez", "readyz"])
@pytest.mark.parametrize("query,body,status,bad", [
    ("?verbose", "[+]ping ok\n{n} check passed\n", 200, False),
    ("?exclude=dontexist", "ok", 200, False),
    ("?exclude=bad", "ok", 200, True),
    ("?verbose=true&exclude=bad", "[+]ping ok\n[+]bad excluded: ok\n{n} check passed\n", 200, True),
    ("?verbose=true&exclude=dontexist",
     '[+]ping ok\nwarn: some health checks cannot be excluded: no matches for "dontexist"\n{n} check passed\n', 200,
     False),
    ("", "ok", 200, False),
    ("?verbose", "[+]ping ok\n[-]bad failed: reason withheld\n{n} check failed\n", 500, True),
    ("", "[+]ping ok\n[-]bad failed: reason withheld\n{n} check failed\n", 500, True),
])
def test_root_answers_as_upstream(name: str, query: str, body: str, status: int, bad: bool) -> None:
    got = asyncio.run(root(name, [PING, BAD] if bad else [PING], _query(query)))
    assert (got.status, got.body) == (status, body.format(n=name))
    assert got.headers == (PLAIN, NOSNIFF)  # the root sets both, http.Error too


def test_root_reports_each_run_check_for_the_sli_metrics() -> None:
    got = asyncio.run(root("readyz", [PING, BAD], {"exclude": ["ping"]}))
    assert got.endpoint == "readyz" and got.results == (("bad", False),)  # an excluded check is not observed


def test_unknown_excludes_are_listed_sorted_and_quoted_once() -> None:
    got = asyncio.run(root("livez", [PING], {"exclude": ["zz", "a b", "zz"], "verbose": [""]}))
    assert got.body == '[+]ping ok\nwarn: some health checks cannot be excluded: no matches for "a b","zz"\n' \
                       'livez check passed\n'


def test_single_check_answers() -> None:
    ok = asyncio.run(single(PING))
    assert (ok.status, ok.body, ok.headers) == (200, "ok", (PLAIN,))  # Go sniffs the type; no nosniff
    bad = asyncio.run(single(BAD))
    assert (bad.status, bad.body, bad.headers) == (500, "internal server error: this will fail\n", (PLAIN, NOSNIFF))


def test_answer_routes_the_installed_paths_only() -> None:
    checks = HealthChecks(HealthState())
    assert asyncio.run(answer(checks, "/readyz/nope", {})) is None
    assert asyncio.run(answer(checks, "/readyz/", {})) is None
    assert asyncio.run(answer(checks, "/livez/shutdown", {})) is None  # readyz only
    assert asyncio.run(answer(checks, "/healthz/etcd-readiness", {})) is None
    assert asyncio.run(answer(checks, "/livez/ping", {})).body == "ok"
    hook = asyncio.run(answer(checks, "/readyz/poststarthook/rbac/bootstrap-roles", {}))
    assert (hook.status, hook.body) == (500, "internal server error: not finished\n")  # nothing marked it done

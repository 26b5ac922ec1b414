"""A bounded fuzz stage (issue 13): Schemathesis, driven by the reference server's own OpenAPI v3 document,
with a fixed seed and a small example budget (about a minute on 2 cores). Every answer must be one
kube-apiserver could send: never a 5xx, never a Python name in the body, never a lost reply; the server
keeps answering /readyz throughout and its event loop never works 100 ms without a break (`LoopWatch`).

Budget: NSCONFORM_FUZZ_EXAMPLES (default 6 per operation). Needs the `test` extra (`pip install -e .[test]`);
skipped without it, except in CI, where a missing Schemathesis is an error.
"""
from __future__ import annotations

import os
import re

import pytest
import requests

from conformance.reference_server.embedded import RunningServer

from .loopwatch import LOOP_BUDGET_S, LoopWatch

if os.environ.get("CI"):
    import schemathesis  # CI installs the `test` extra: a missing one must fail, not skip
else:
    schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402 - schemathesis brings hypothesis
from hypothesis import strategies as st  # noqa: E402
from tests.reference_server.ownserver import own_server

EXAMPLES = int(os.environ.get("NSCONFORM_FUZZ_EXAMPLES", "6"))
PY_NAMES = re.compile(r"Traceback|RecursionError|MemoryError|OSError|OverflowError|TypeError|AttributeError|"
                      r"KeyError|ValueError|IndexError|UnicodeEncodeError|UnicodeDecodeError|NoneType|"
                      r"'dict' object|'list' object|'str' object|'int' object")
LONG_RUNNING = re.compile(r"/watch/")
# the 500s kube-apiserver sends a fuzzer too: a list or GET at a resourceVersion `strconv.ParseUint` refuses, which
# the watch cache returns unconverted (registry/store.py `check_list_rv`, `check_get_rv`)
UPSTREAM_500 = re.compile(r'resourceVersion: Invalid value: ".*": strconv\.ParseUint: parsing ".*": '
                          r"(invalid syntax|value out of range)"
                          r"|Component not found: .*", re.S)  # GET of an unknown componentstatus: a plain error
# a DELETE's DeleteOptions body that does not decode: delete.go hands the decoder's error to `scope.err` unwrapped
# (http/deleteoptions.py), which `ErrorToAPIStatus` answers as a 500 without a reason
DELETE_BODY_500 = re.compile(r"couldn't get version/kind; json parse error: .*|unexpected GroupVersion string: .*"
                             r"|Object 'apiVersion' is missing in '.*'|no kind \".*\" is registered for .* in scheme "
                             r'"pkg/apis/meta/internalversion/scheme/register\.go:27"'
                             r"|converting \(.*\) to \(v1\.DeleteOptions\): unknown conversion"
                             r"|json: cannot unmarshal .* into Go struct field .* of type .*", re.S)


fuzz_target = own_server(request_timeout=10)


def _schema(url: str):
    doc = requests.get(f"{url}/openapi/v3/api/v1", timeout=30).json()
    doc["paths"] = {p: v for p, v in doc["paths"].items() if not LONG_RUNNING.search(p)}
    return schemathesis.openapi.from_dict(doc)


def _check(srv: RunningServer, case) -> None:
    query = dict(case.query or {})
    query.pop("watch", None)  # a watch is long-running by design; watches are fuzzed by the hostile corpus
    query["timeoutSeconds"] = "1"
    case.query = query
    try:
        response = case.call(base_url=srv.url, timeout=30)
    except requests.ConnectionError as exc:  # a lost reply: the worst outcome
        raise AssertionError(f"no reply: {exc}") from None
    assert response.status_code < 500 or _upstreams_500(response), (response.status_code, response.text[:300])
    assert not PY_NAMES.search(response.text), response.text[:300]


def _upstreams_500(response: requests.Response) -> bool:
    try:
        body = response.json()
    except ValueError:
        return False
    message = str(body.get("message", "")) if isinstance(body, dict) else ""
    return (response.status_code == 500 and isinstance(body, dict) and body.get("kind") == "Status"
            and "reason" not in body and (UPSTREAM_500.fullmatch(message) is not None or (
                response.request.method == "DELETE" and DELETE_BODY_500.fullmatch(message) is not None)))


def _strategy(operation):
    """Valid cases and cases that break the schema (wrong types, missing fields), as a fuzzer sends."""
    modes = []
    for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):
        try:
            modes.append(operation.as_strategy(generation_mode=mode))
        except Exception:  # noqa: BLE001 - an operation with nothing to break has no negative cases
            pass
    return st.one_of(*modes)


@pytest.mark.slow
def test_fuzz_answers_like_kube_apiserver(fuzz_target):
    """Every operation of the OpenAPI document, EXAMPLES generated cases each (fixed seed)."""
    srv = fuzz_target
    failures: list[str] = []
    operations = 0
    schema = _schema(srv.url)
    with LoopWatch(srv) as watch:
        for result in schema.get_all_operations():
            operations += 1
            failures += _fuzz_operation(srv, result.ok(), watch)
    assert operations > 50
    assert not failures, "\n".join(failures)
    watch.check()


def _fuzz_operation(srv: RunningServer, operation, watch: LoopWatch) -> list[str]:
    """EXAMPLES cases of one operation; the first failure, if any, as one line."""
    @settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @given(case=_strategy(operation))
    def run(case) -> None:
        before = watch.worst
        try:
            _check(srv, case)
            if watch.worst > LOOP_BUDGET_S > before:  # name the request that blocked the loop
                raise AssertionError(f"the event loop worked {watch.worst * 1000:.0f} ms without a break")
        except AssertionError as exc:
            raise AssertionError(f"{case.method} {case.formatted_path} {case.query} "
                                 f"{str(case.body)[:200]!r}: {exc}") from None

    try:
        run()
    except AssertionError as exc:
        return [str(exc).splitlines()[0][:600]]
    return []

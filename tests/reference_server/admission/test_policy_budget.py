"""ValidatingAdmissionPolicies under kube-apiserver's runtime cost limits (`plugin/policy/validating/validator.go`,
`plugin/cel/condition.go` `ForInput`): a validation past the per-call limit is an evaluation error; the validations
share `RuntimeCELCostBudget` (10,000,000), past which the policy's one decision is `validation failed due to
running out of cost budget, no further validation rules will be run`; the messageExpressions take what is left,
and past it every decision that was not an error is `failed messageExpression: ...`."""
from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded

from test_policy_authorizer import _namespace, _policy  # the same directory (no package)

DENIED = "denied request: "
OUT = "validation failed due to running out of cost budget, no further validation rules will be run"


def _regex(i: int = 0) -> str:
    """4,000 characters of regex: `matches` over 9,980 characters costs 999 x 1,000 (`costCall`)."""
    return "z" * 3_999 + "abcdefghijklm"[i]


def _heavy(i: int) -> dict[str, str]:
    """999,004: `object.data.a` 3, `matches` 999,000, `!` 1."""
    return {"expression": f"!object.data.a.matches('{_regex(i)}')"}


@pytest.fixture(scope="module")
def srv() -> Iterator[tuple[RunningServer, requests.Session]]:
    server = start_embedded()
    s = requests.Session()
    yield server, s
    s.close()
    server.stop()


def _cm(s: requests.Session, url: str, ns: str, a: str) -> requests.Response:
    return s.post(f"{url}/api/v1/namespaces/{ns}/configmaps",
                  json={"metadata": {"name": f"c-{uuid.uuid4().hex[:6]}"}, "data": {"a": a}})


def _denial(r: requests.Response) -> str:
    assert r.status_code in (403, 422), r.text
    return r.json()["message"].split(DENIED, 1)[1]


def test_a_validation_past_the_per_call_limit_is_an_error(srv: tuple[RunningServer, requests.Session]) -> None:
    """Over 10,000 characters `matches` costs 1,001 x 1,000: cancelled, the expression's error under Fail; three
    authorization checks (350,000 each, `library/cost.go`) are too."""
    server, s = srv
    ns = _namespace(s, server.url)
    expression = f"!object.data.a.matches('{_regex()}')"
    _policy(s, server.url, [{"expression": expression}], ns)
    assert _denial(_cm(s, server.url, ns, "x" * 10_000)) == \
        f"expression '{expression}' resulted in error: operation cancelled: actual cost limit exceeded"
    assert _cm(s, server.url, ns, "x" * 9_980).status_code == 201
    ns = _namespace(s, server.url)
    checks = " && ".join(["authorizer.path('/healthz').check('get').allowed()"] * 3)
    _policy(s, server.url, [{"expression": checks}], ns)
    assert _denial(_cm(s, server.url, ns, "x")) == \
        f"expression '{checks}' resulted in error: operation cancelled: actual cost limit exceeded"


def test_validations_that_exhaust_the_budget(srv: tuple[RunningServer, requests.Session]) -> None:
    """Ten validations of 999,004 fit (9,990,040), an eleventh does not."""
    server, s = srv
    ns = _namespace(s, server.url)
    _policy(s, server.url, [_heavy(i) for i in range(11)], ns)
    assert _denial(_cm(s, server.url, ns, "x" * 9_980)) == OUT
    ns = _namespace(s, server.url)
    _policy(s, server.url, [_heavy(i) for i in range(10)], ns)
    assert _cm(s, server.url, ns, "x" * 9_980).status_code == 201


def test_message_expressions_take_what_the_validations_left(srv: tuple[RunningServer, requests.Session]) -> None:
    """The messageExpression of the failing validation finds 9,956 left: every decision is then
    `failed messageExpression: <the budget's error>` (the first one, which passed, is the one reported)."""
    server, s = srv
    ns = _namespace(s, server.url)
    failing = {"expression": "object.data.a == 'never'",
               "messageExpression": f"object.data.a.matches('{_regex()}') ? 'x' : 'y'"}
    _policy(s, server.url, [_heavy(i) for i in range(10)] + [failing], ns)
    assert _denial(_cm(s, server.url, ns, "x" * 9_980)) == f"failed messageExpression: {OUT}"
    # with room for it, the message is the messageExpression's
    ns = _namespace(s, server.url)
    _policy(s, server.url, [_heavy(0), failing], ns)
    assert _denial(_cm(s, server.url, ns, "x" * 9_980)) == "y"


def test_match_conditions_share_their_own_budget() -> None:
    """`RuntimeCELCostBudgetMatchConditions` (2,500,000): two conditions of 999,004 fit, a third does not: under
    Fail the error, under Ignore no match (webhook/matchconditions/matcher.go)."""
    from conformance.reference_server.admission import matchconditions as mc
    activation = {"object": {"data": {"a": "x" * 9_980}}}
    conditions = [{"name": f"c{i}", "expression": _heavy(i)["expression"]} for i in range(3)]
    assert mc.match(conditions[:2], activation, "Fail") == mc.MatchResult(True)
    assert mc.match(conditions, activation, "Fail") == mc.MatchResult(False, OUT)
    assert mc.match(conditions, activation, "Ignore") == mc.MatchResult(False)

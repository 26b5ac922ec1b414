"""A custom resource's rules under kube-apiserver's runtime cost limits (apiextensions-apiserver
`pkg/apiserver/schema/cel/validation.go`): a rule whose tracked cost passes the per-call limit (1,000,000) is
cancelled with upstream's words and stops the rules after it; the rules of one object share 10,000,000, past which
`validation failed due to running out of cost budget`; a messageExpression's cost comes out of the same budget."""
from __future__ import annotations

from typing import Any

import requests

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.registry.crdrules import validator as crd_validator
from tests.reference_server.ownserver import own_server

from .test_crd_rules import gadget, refused, served

TEXT = {"type": "string", "maxLength": 10_000}


def _regex(i: int = 0) -> str:
    """A rule of 4,000 characters of regex: `matches` costs ceil((1 + len(s)) / 10) x 1,000 (`costCall`), which
    the CRD's write estimates at four bytes a character (10,000 x 4: 4,001,000, under 10,000,000 an expression)."""
    return "z" * 3_999 + "abcdefghijklm"[i]


srv = own_server()


def _spec(rules: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"a": TEXT}, "x-kubernetes-validations": rules}}}


def test_a_rule_past_the_per_call_limit_is_cancelled(srv: RunningServer) -> None:
    """`!self.a.matches(<4,000>)` over 10,000 characters: 2 for the selection, 1,001 x 1,000 for `matches`:
    1,001,002 > 1,000,000, cancelled; the rule after it is not run. Over 9,980 characters: 999 x 1,000 + 3 fits,
    and the next rule runs."""
    rule = f"!self.a.matches('{_regex()}')"
    url = served(srv, _spec([{"rule": rule}, {"rule": "self.a == 'never'", "message": "second rule"}]))
    message, causes = refused(requests.post(url, json=gadget(url, "big", {"a": "x" * 10_000})))
    assert message == ("spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no "
                       f"further validation rules will be run due to call cost exceeds limit for rule: {rule}")
    assert [c["field"] for c in causes] == ["spec"]
    message, _ = refused(requests.post(url, json=gadget(url, "fits", {"a": "x" * 9_980})))
    assert message == 'spec: Invalid value: "object": second rule'


def test_rules_that_exhaust_the_budget_of_the_object(srv: RunningServer) -> None:
    """Eleven rules of 999,003 each over 9,980 characters: ten fit in 10,000,000 (9,990,030), the eleventh finds
    9,970 left: `validation failed due to running out of cost budget`, once, at the rules' node."""
    rules = [{"rule": f"!self.a.matches('{_regex(i)}')"} for i in range(11)]
    url = served(srv, _spec(rules))
    message, causes = refused(requests.post(url, json=gadget(url, "many", {"a": "x" * 9_980})))
    assert message == ('spec: Invalid value: "object": validation failed due to running out of cost budget, no '
                       "further validation rules will be run")
    assert len(causes) == 1
    url = served(srv, _spec(rules[:10]))  # ten alone fit
    assert requests.post(url, json=gadget(url, "ten", {"a": "x" * 9_980})).status_code == 201


def test_a_message_expression_past_the_budget_stops_the_rules() -> None:
    """`evalMessageExpression`: its cost past what the rules left is `messageExpression evaluation failed due to
    running out of cost budget, no further validation rules will be run` at the rule's field."""
    heavy = [{"rule": f"!self.a.matches('{_regex(i)}')"} for i in range(10)]  # 9,990,030 of 10,000,000
    failing = {"rule": "self.a == 'never'", "messageExpression": f"self.a.matches('{_regex()}') ? 'x' : 'y'",
               "fieldPath": ".a"}
    schema = _spec(heavy + [failing])
    node = crd_validator.build(schema)
    errs = crd_validator.validate(node, schema, {"spec": {"a": "x" * 9_980}}, None, [])
    assert [(e.field, e.body) for e in errs] == [
        ("spec.a", 'Invalid value: "object": messageExpression evaluation failed due to running out of cost budget, '
                   "no further validation rules will be run")]


def test_the_runtime_estimate_costs_starts_with_by_its_receiver() -> None:
    """cel-go's estimator costs `startsWith` by its argument (3 here: what the CRD write judges), its tracker by
    the receiver (100 characters: 2 + 10): the estimate the budget starts from sizes the receiver (maxLength 100,
    four bytes a character: 2 + 40)."""
    from conformance.reference_server.cel.runtimecost import tracked_cost
    rule = "self.name.startsWith('a')"
    schema = {"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"name": {"type": "string", "maxLength": 100}},
        "x-kubernetes-validations": [{"rule": rule}]}}}
    node = crd_validator.build(schema)
    assert node is not None
    compiled = node.properties["spec"].rules[0]
    assert compiled.max_cost == 3 and compiled.cost == (2, 42)
    assert tracked_cost(rule, {"self": {"name": "x" * 100}}) == 12

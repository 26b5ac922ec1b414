"""Accept-header negotiation: JSON, Table, metadata-only, or 406."""

from __future__ import annotations

import pytest

from conformance.reference_server.wire.negotiation import Negotiated, negotiate, not_acceptable_message, parse_accept

KUBECTL_GET = ("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
               "g=meta.k8s.io,application/json")
KUBECTL_TYPED = "application/vnd.kubernetes.protobuf,application/json"
CLIENT_GO_DISCOVERY = ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
                       "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json")


@pytest.mark.parametrize("accept, expected", [
    (None, Negotiated("application/json")),
    ("", Negotiated("application/json")),
    ("application/json", Negotiated("application/json")),
    ("application/json, */*", Negotiated("application/json")),
    ("*/*", Negotiated("application/json")),
    ("application/*", Negotiated("application/json")),
    ("application/json;charset=utf-8", Negotiated("application/json")),
    (KUBECTL_GET, Negotiated("application/json", "Table", "v1")),
    ("application/json;as=Table;v=v1beta1;g=meta.k8s.io", Negotiated("application/json", "Table", "v1beta1")),
    (KUBECTL_TYPED, Negotiated("application/json")),
    (CLIENT_GO_DISCOVERY, Negotiated("application/json")),
    ("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
     Negotiated("application/json", "PartialObjectMetadataList", "v1")),
    ("application/json;q=0.5,application/json;as=Table;v=v1;g=meta.k8s.io",
     Negotiated("application/json", "Table", "v1")),
])
def test_acceptable(accept: str | None, expected: Negotiated) -> None:
    assert negotiate(accept) == expected


@pytest.mark.parametrize("accept", [
    "application/vnd.kubernetes.protobuf",
    "application/yaml",
    "text/html",
    "application/json;q=0",
    "application/json;as=Table;v=v2;g=meta.k8s.io",
    "application/json;as=Table;v=v1;g=example.com",
    "application/json;as=Widget;v=v1;g=meta.k8s.io",
    "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io",
])
def test_not_acceptable(accept: str) -> None:
    assert negotiate(accept) is None


def test_table_only_where_the_endpoint_allows_it() -> None:
    assert negotiate(KUBECTL_GET, transforms=()) == Negotiated("application/json")
    assert negotiate("application/json;as=Table;v=v1;g=meta.k8s.io", transforms=()) is None


def test_yaml_when_enabled() -> None:
    assert negotiate("application/yaml", yaml_ok=True) == Negotiated("application/yaml")
    assert "application/yaml" in not_acceptable_message(yaml_ok=True)


def test_table_result_properties() -> None:
    chosen = negotiate(KUBECTL_GET)
    assert chosen is not None and chosen.is_table and chosen.content_type == "application/json"


def test_parse_accept_orders_by_q_then_specificity() -> None:
    clauses = parse_accept("*/*;q=0.8, application/json;as=Table;g=meta.k8s.io;v=v1, application/json")
    assert [(c.type, c.subtype, c.params.get("as")) for c in clauses] == [
        ("application", "json", "Table"), ("application", "json", None), ("*", "*", None)]


def test_message() -> None:
    assert not_acceptable_message() == "only the following media types are accepted: application/json"

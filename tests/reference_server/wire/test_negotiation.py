"""Accept-header negotiation: JSON, Table, metadata-only, or 406, as k8s.io/apiserver 1.33's
`negotiation.NegotiateMediaTypeOptions` over goautoneg's `ParseAccept` decides."""

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
    # upstream never looks at q but to order the clauses: a q=0 clause is served as any other
    ("application/json;q=0", Negotiated("application/json")),
    # goautoneg trims spaces around the type and subtype, and reads `*` as `*/*`
    ("application / json", Negotiated("application/json")),
    ("*", Negotiated("application/json")),
    ("application/json/", Negotiated("application/json")),  # (a second `/` with nothing after it is dropped)
    # parameter names are case-sensitive: `As` is an unrecognised option, not a conversion
    ("application/json;As=Table;G=meta.k8s.io;V=v1", Negotiated("application/json")),
    ("application/json;as=", Negotiated("application/json")),  # (goautoneg drops a parameter without a value)
    ("application/json;stream=watch", Negotiated("application/json")),
    ("application/json;sv=v1", Negotiated("application/json")),  # a resource endpoint's meta version
    ("*/*;as=Table;g=meta.k8s.io;v=v1", Negotiated("application/json", "Table", "v1")),  # JSON: the first offered
    ("application/*;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
     Negotiated("application/json", "PartialObjectMetadata", "v1")),
])
def test_acceptable(accept: str | None, expected: Negotiated) -> None:
    assert negotiate(accept) == expected


@pytest.mark.parametrize("accept", [
    "application/vnd.kubernetes.protobuf",
    "application/yaml",
    "text/html",
    # goautoneg lower-cases nothing: no serializer is `Application/JSON`
    "Application/JSON", "application/JSON", "APPLICATION/*",
    "application/json/x", "json", ",",
    # a conversion is any of as/g/v: without all three of a meta.k8s.io kind it is refused
    "application/json;g=meta.k8s.io", "application/json;v=v1",
    'application/json;as="Table";v=v1;g=meta.k8s.io',  # (the quotes are kept)
    "application/json;stream=foo", "application/json;sv=v2",
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


def test_options_of_the_endpoint_and_serializer() -> None:
    """`sv` names the meta version a resource endpoint allows (none elsewhere: `emptyEndpointRestrictions`);
    `stream=watch` needs a serializer with a stream form, which YAML has not."""
    assert negotiate("application/json;sv=v1", transforms=()) is None
    assert negotiate("application/yaml;stream=watch", yaml_ok=True) is None
    assert negotiate("application/yaml;stream=watch, application/json", yaml_ok=True) == Negotiated(
        "application/json")
    assert negotiate("application/*;stream=watch", yaml_ok=True) == Negotiated("application/json")


def test_yaml_when_enabled() -> None:
    assert negotiate("application/yaml", yaml_ok=True) == Negotiated("application/yaml")
    # `AllowsMediaTypeTransform`: a Table in JSON or YAML, metadata in any serializer
    assert negotiate("application/yaml;as=Table;g=meta.k8s.io;v=v1", yaml_ok=True) == Negotiated(
        "application/yaml", "Table", "v1")
    assert negotiate("application/yaml;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", yaml_ok=True) == Negotiated(
        "application/yaml", "PartialObjectMetadataList", "v1")
    assert negotiate("application/yaml;as=Table;g=meta.k8s.io;v=v1") is None
    assert "application/yaml" in not_acceptable_message(yaml_ok=True)


def test_table_result_properties() -> None:
    chosen = negotiate(KUBECTL_GET)
    assert chosen is not None and chosen.is_table and chosen.content_type == "application/json"


def test_parse_accept_orders_by_q_then_specificity() -> None:
    clauses = parse_accept("*/*;q=0.8, application/json;as=Table;g=meta.k8s.io;v=v1, application/json")
    assert [(c.type, c.subtype, c.params.get("as")) for c in clauses] == [
        ("application", "json", "Table"), ("application", "json", None), ("*", "*", None)]


def test_parse_accept_keeps_case_and_quotes() -> None:
    (clause,) = parse_accept('Application/JSON ;Pretty="1"; as = Table')
    assert (clause.type, clause.subtype, clause.params) == ("Application", "JSON", {"Pretty": '"1"', "as": "Table"})


def test_message() -> None:
    assert not_acceptable_message() == "only the following media types are accepted: application/json"

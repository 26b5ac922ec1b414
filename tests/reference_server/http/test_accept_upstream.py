"""The Accept header read as kube-apiserver 1.33 reads it (k8s.io/apiserver `negotiation.NegotiateMediaTypeOptions`
over munnerz/goautoneg's `ParseAccept`; kube-openapi's handlers over the same parser): case-sensitive media types,
parameters with their quotes, q only ordering the clauses (in Go's `sort.Sort` order), answered with upstream's
exact status and body. (`server`: the shared one of tests/reference_server/conftest.py.)"""
from __future__ import annotations

import json

import pytest
import requests

from conformance.reference_server.embedded import RunningServer

NOT_ACCEPTABLE = """{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "only the following media types are accepted: application/json, application/yaml, \
application/vnd.kubernetes.protobuf",
  "reason": "NotAcceptable",
  "code": 406
}"""
V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


def get(server: RunningServer, path: str, accept: str) -> requests.Response:
    return requests.get(server.url + path, headers={"Accept": accept, "Accept-Encoding": "identity"}, timeout=30)


@pytest.mark.parametrize("accept", ["Application/JSON", "application/JSON", "APPLICATION/*", "application/json/x"])
def test_a_media_type_in_other_case_is_406(server, accept):
    """goautoneg lower-cases nothing: `Application/JSON` names no serializer, and a header naming nothing else gets
    `NewNotAcceptableError`, written by `WriteRawJSON` (indented, no newline)."""
    r = get(server, "/api/v1/namespaces/default", accept)
    assert (r.status_code, r.headers["Content-Type"], r.text) == (406, "application/json", NOT_ACCEPTABLE)


def test_kubectl_and_client_accept_headers_still_served(server):
    for accept in ("application/json", "application/vnd.kubernetes.protobuf, */*",
                   "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
                   "application/json"):
        assert get(server, "/api/v1/namespaces/default", accept).status_code == 200, accept


def test_q_zero_is_served(server):
    r = get(server, "/api/v1/namespaces/default", "application/json;q=0")
    assert r.status_code == 200 and r.json()["kind"] == "Namespace"


def test_pretty_with_quotes_is_not_pretty(server):
    """`acceptMediaTypeOptions`: `pretty` is pretty when its value is exactly `1`; goautoneg keeps the quotes."""
    quoted = get(server, "/api/v1/namespaces/default", 'application/json;pretty="1"')
    assert quoted.status_code == 200 and quoted.text.startswith('{"kind":"Namespace",')
    plain = get(server, "/api/v1/namespaces/default", "application/json;pretty=1")
    assert plain.text.startswith('{\n  "kind": "Namespace",\n') and json.loads(plain.text) == json.loads(quoted.text)


def test_go_order_puts_a_concrete_type_first(server):
    """goautoneg's `Less` puts `application/yaml;q=0.5` before `*/*;q=0.9` when Go's insertion sort compares
    them in that order: YAML is answered."""
    r = get(server, "/api/v1/namespaces/default", "*/*;q=0.9, application/yaml;q=0.5")
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/yaml"
    assert get(server, "/api/v1/namespaces/default", "application/yaml;q=0.5, */*;q=0.9").headers[
        "Content-Type"] == "application/json"


def test_openapi_handlers(server):
    """kube-openapi: v2 answers 406 without a body for `Application/JSON`; handler3 writes nothing (an empty 200)
    when the header has no clause at all."""
    r = get(server, "/openapi/v2", "Application/JSON")
    assert (r.status_code, r.content) == (406, b"")
    r = get(server, "/openapi/v3/api/v1", "text")
    assert (r.status_code, r.content, r.headers["Vary"]) == (200, b"", "Accept") and "Content-Type" not in r.headers
    assert get(server, "/openapi/v3/api/v1", "Application/JSON").status_code == 406


def test_aggregated_discovery_after_a_plain_clause(server):
    """`DiscoveryEndpointRestrictions` refuses a clause without the aggregated conversion, so an aggregated clause
    after `application/json` is the one accepted."""
    r = get(server, "/apis", f"application/json,{V2}")
    assert r.status_code == 200 and r.headers["Content-Type"] == V2


def test_a_watch_negotiates_before_it_starts(server):
    """`ListResource` negotiates as any GET (406 for `Application/JSON`); `serveWatchHandler`'s
    `NegotiateOutputMediaTypeStream` then refuses a serializer without a stream form (YAML, even with JSON listed
    after it), naming the stream types; the Status is written in the accepted YAML."""
    r = get(server, "/api/v1/namespaces?watch=1&timeoutSeconds=1", "Application/JSON")
    assert (r.status_code, r.text) == (406, NOT_ACCEPTABLE)
    r = get(server, "/api/v1/namespaces?watch=1&timeoutSeconds=1", "application/yaml, application/json")
    assert (r.status_code, r.headers["Content-Type"]) == (406, "application/yaml")
    assert r.text == ("apiVersion: v1\ncode: 406\nkind: Status\nmessage: 'only the following media types are accepted: "
                      "application/json;stream=watch,\n  application/vnd.kubernetes.protobuf;stream=watch'\n"
                      "metadata: {}\nreason: NotAcceptable\nstatus: Failure\n")


def test_a_table_in_yaml(server):
    """`RequestScope.AllowsMediaTypeTransform`: a Table is served in JSON or YAML."""
    r = get(server, "/api/v1/namespaces", "application/yaml;as=Table;g=meta.k8s.io;v=v1")
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/yaml"
    assert "\nkind: Table\n" in r.text and r.text.startswith("apiVersion: meta.k8s.io/v1\ncolumnDefinitions:\n")

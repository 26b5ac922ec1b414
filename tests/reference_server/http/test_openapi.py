"""`http/openapi.py`: `/openapi/v2` answered as kube-openapi's handler (`pkg/handler/handler.go` behind
gziphandler, `http.ServeContent`): Accept negotiation, one ETag for both forms, 304, gzip, 406; documents kept."""
from __future__ import annotations

import gzip
import re

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.http import openapi
from tests.reference_server.ownserver import own_server
from tests.reference_server.wire.test_openapi_pb import fields, named

PB = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
PB_OLD = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"


server = own_server(flavor="bare")


def get(server: RunningServer, **headers: str) -> requests.Response:
    headers.setdefault("Accept-Encoding", "identity")
    return requests.get(f"{server.url}/openapi/v2", headers=headers, timeout=30)


@pytest.mark.parametrize("accept, media", [
    (None, openapi.JSON), ("*/*", openapi.JSON), ("application/*", openapi.JSON),
    (PB_OLD, PB_OLD), (PB, PB), (f"{PB_OLD}, application/json", PB_OLD),
    (f"application/json;q=0.5, {PB}", PB), ("*/*;q=0.1, application/yaml, " + PB, PB),
    ("application/yaml", None), ("text/plain, application/vnd.kubernetes.protobuf", None),
])
def test_negotiation(accept, media):
    assert openapi.negotiate_v2(accept) == media


def test_protobuf_and_json_share_the_etag(server):
    pb = get(server, Accept=PB_OLD)
    assert pb.status_code == 200 and pb.headers["Content-Type"] == PB
    js = get(server)
    assert js.status_code == 200 and js.headers["Content-Type"] == "application/json"
    assert pb.headers["Etag"] == js.headers["Etag"]
    assert re.fullmatch(r'"[0-9A-F]{128}"', pb.headers["Etag"])  # quoted upper-case hex SHA-512 of the JSON
    assert pb.raw.headers.getlist("Vary") == ["Accept-Encoding", "Accept"]
    assert pb.content[:5] == b"\x0a\x032.0" and js.json()["swagger"] == "2.0"
    assert "Last-Modified" in pb.headers


def test_not_modified(server):
    first = get(server, Accept=PB)
    tag = first.headers["Etag"]
    r = get(server, Accept=PB, **{"If-None-Match": tag})
    assert r.status_code == 304 and r.content == b"" and r.headers["Etag"] == tag
    assert "Content-Type" not in r.headers and "Last-Modified" not in r.headers
    assert get(server, **{"If-None-Match": f'"other", W/{tag}'}).status_code == 304
    assert get(server, **{"If-None-Match": '"other"'}).status_code == 200
    assert get(server, **{"If-Modified-Since": first.headers["Last-Modified"]}).status_code == 304
    assert get(server, **{"If-Modified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"}).status_code == 200


def test_gzip_and_406(server):
    plain = get(server, Accept=PB)
    r = requests.get(f"{server.url}/openapi/v2", headers={"Accept": PB, "Accept-Encoding": "gzip"}, stream=True,
                     timeout=30)
    assert r.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(r.raw.read(decode_content=False)) == plain.content
    r = get(server, Accept="application/yaml")
    assert r.status_code == 406 and r.content == b"" and r.raw.headers.getlist("Vary") == ["Accept-Encoding",
                                                                                           "Accept"]


def test_documents_are_kept(server):
    """A second request serves the kept bytes (the same object) instead of building the documents again."""
    get(server)
    entries = list(openapi.CACHE._entries.values())
    assert any("v2served" in e for e in entries)
    before = [e["v2served"] for e in entries if "v2served" in e]
    get(server)
    assert [e["v2served"] for e in openapi.CACHE._entries.values() if "v2served" in e] == before


def test_served_v2_has_no_default(server):
    """kube-apiserver 1.33's `/openapi/v2` carries no `default` (`InstallV2`: `handler.PruneDefaults`): not the
    ports' `+default="TCP"`, in JSON nor in gnostic's protobuf (Schema field 5, `default`)."""
    definitions = get(server).json()["definitions"]
    for name in ("io.k8s.api.core.v1.ContainerPort", "io.k8s.api.core.v1.ServicePort"):
        assert "default" not in definitions[name]["properties"]["protocol"]
    pb = fields(get(server, Accept=PB).content)
    schemas = named(fields(pb[9][0])[1])
    for name in ("io.k8s.api.core.v1.ContainerPort", "io.k8s.api.core.v1.ServicePort"):
        protocol = fields(named(fields(fields(schemas[name])[25][0])[1])["protocol"])
        assert 5 not in protocol and b"TCP" in protocol[4][0] and protocol[22]  # description, TypeItem kept


V3_PB = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"
V3_PB_OLD = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"


def test_v3_protobuf_form(server):
    """handler3: a group-version in gnostic's protobuf for either name (answered under the new one), with the
    JSON's Etag, `?hash=` and 304 as for JSON; JSON first for `*/*`; the discovery index stays JSON."""
    index = requests.get(f"{server.url}/openapi/v3", headers={"Accept": V3_PB}, timeout=30)
    assert index.status_code == 200 and index.headers["Content-Type"] == "application/json"
    relative = index.json()["paths"]["apis/apps/v1"]["serverRelativeURL"]
    js = requests.get(server.url + relative, timeout=30)
    for accept in (V3_PB, V3_PB_OLD, f"application/yaml, {V3_PB_OLD};q=0.5", f"{V3_PB}, application/json"):
        pb = requests.get(server.url + relative, headers={"Accept": accept}, timeout=30)
        assert pb.status_code == 200 and pb.headers["Content-Type"] == V3_PB, accept
        assert pb.headers["Etag"] == js.headers["Etag"] and pb.headers["Cache-Control"] == "public, immutable"
        assert pb.content.startswith(b"\x0a\x053.0.0\x12") and len(pb.content) > 1000  # openapi, then info
    assert requests.get(server.url + relative, headers={"Accept": f"application/json, {V3_PB}"},
                        timeout=30).headers["Content-Type"] == "application/json"
    again = requests.get(server.url + relative, headers={"Accept": V3_PB, "If-None-Match": js.headers["Etag"]},
                         timeout=30)
    assert again.status_code == 304 and again.content == b""
    stale = requests.get(f"{server.url}/openapi/v3/apis/apps/v1?hash=0", headers={"Accept": V3_PB},
                         allow_redirects=False, timeout=30)
    assert stale.status_code == 301 and stale.headers["Location"] == relative
    refused = requests.get(server.url + relative, headers={"Accept": "application/yaml"}, timeout=30)
    assert refused.status_code == 406 and refused.content == b""


@pytest.mark.parametrize("value, gzipped", [
    ("gzip", True), ("GZIP;q=0.5", True), ("gzip;q=0", False), ("deflate, gzip", True), (None, False),
    ("*", False),  # gziphandler looks for `gzip` alone
    ("gzip;q=0, gzip", True), ("gzip, gzip;q=0", False),  # the last one wins
    ("gzip;q=0;level=1", True),  # every `;` part resets the q-value: the last part's stands
    ("gzip;q=x", False), ("gzip;q=1e400", False), ("gzip;q=NaN", False), ("gzip;q=7", True),
])
def test_accept_encoding_as_gziphandler_reads_it(value, gzipped):
    assert openapi._accepts_gzip(value) is gzipped

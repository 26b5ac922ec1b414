"""health/index.py: `routes/index.go`'s paths (sorted, unique) and `WriteRawJSON`'s bytes."""
from __future__ import annotations

from conformance.reference_server.health.index import index_answer, root_paths


def test_paths_are_the_union_sorted() -> None:
    paths = root_paths([("apps", ["v1"]), ("autoscaling", ["v2", "v1"])], ["/readyz", "/healthz/ping", "/readyz"],
                       openid=False)
    assert paths == ["/api", "/api/v1", "/apis", "/apis/", "/apis/apps", "/apis/apps/v1", "/apis/autoscaling",
                     "/apis/autoscaling/v1", "/apis/autoscaling/v2", "/healthz/ping", "/metrics", "/metrics/slis",
                     "/openapi/v2", "/openapi/v3", "/openapi/v3/", "/readyz", "/version"]
    assert root_paths([], [], openid=True)[:2] == ["/.well-known/openid-configuration", "/api"]
    assert "/openid/v1/jwks" in root_paths([], [], openid=True)


def test_body_is_marshal_indent() -> None:
    status, headers, body = index_answer(["/api", "/a&b"])
    assert (status, headers) == (200, {"Content-Type": "application/json"})
    assert body == b'{\n  "paths": [\n    "/api",\n    "/a\\u0026b"\n  ]\n}'

"""conformance/preflight.py: what is asked, and that a target without access reviews is never refused."""
from __future__ import annotations

from conformance.client.config import from_server
from conformance.preflight import Need, check, missing_permissions, needs


def test_needs_follow_the_profiles_finalize_verb() -> None:
    assert Need("update", "namespaces", "finalize") in needs("kubernetes")
    assert Need("create", "namespaces", "finalize") in needs("design")
    assert str(Need("update", "namespaces", "finalize")) == "update namespaces/finalize"


def test_a_target_without_access_reviews_cannot_tell(fake) -> None:
    conn = from_server(fake.url)
    assert missing_permissions(conn, needs("kubernetes")) is None  # 404: no authorization.k8s.io
    assert check(conn, "kubernetes") is None

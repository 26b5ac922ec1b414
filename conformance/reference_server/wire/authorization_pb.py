"""Decode `authorization.k8s.io/v1` review bodies sent as ``application/vnd.kubernetes.protobuf``.

`kubectl auth can-i` posts its SelfSubjectAccessReview (`--list`: SelfSubjectRulesReview) in protobuf (typed
client-go client). The messages are `_proto_table`'s (upstream's `staging/src/k8s.io/api/authorization/v1/
generated.proto`), read by `protobuf`'s one decoder, so requests and answers share one description per kind.
Returns the JSON-shaped dict without `status` (the server's to fill); ValueError on anything malformed (a 400
for the http layer).
"""
from __future__ import annotations

from typing import Any

from .protobuf import decode_group

GROUP_VERSION = "authorization.k8s.io/v1"
KINDS = frozenset({"SelfSubjectAccessReview", "SubjectAccessReview", "LocalSubjectAccessReview",
                   "SelfSubjectRulesReview"})


def decode(body: bytes) -> dict[str, Any]:
    """An authorization.k8s.io review → review dict."""
    return decode_group(body, GROUP_VERSION, KINDS)

"""Decode `authentication.k8s.io/v1` bodies sent as ``application/vnd.kubernetes.protobuf``: SelfSubjectReview
(`kubectl auth whoami`), TokenReview and TokenRequest (`kubectl create token`). The messages are
`_proto_table`'s (upstream's `staging/src/k8s.io/api/authentication/v1/generated.proto`), read by `protobuf`'s
one decoder, as `authorization_pb` does.
"""
from __future__ import annotations

from typing import Any

from .protobuf import decode_group

GROUP_VERSION = "authentication.k8s.io/v1"
KINDS = frozenset({"SelfSubjectReview", "TokenReview", "TokenRequest"})


def decode(body: bytes) -> dict[str, Any]:
    """`k8s\\0` + runtime.Unknown → the JSON-shaped object; ValueError for anything else."""
    return decode_group(body, GROUP_VERSION, KINDS)

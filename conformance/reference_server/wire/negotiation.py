"""Output content negotiation: which representation an ``Accept`` header asks for.

Mirrors kube-apiserver's ``NegotiateOutputMediaType``: clauses are ordered by q-value and
specificity; ``application/json;as=Table;g=meta.k8s.io;v=v1`` selects a Table (kubectl get),
``as=PartialObjectMetadata[List]`` selects metadata-only objects. Protobuf is chosen where the
endpoint's kind has a protobuf message (``protobuf_ok``); elsewhere -- custom resources, whose
``StandardSerializers`` leave protobuf out (``RequestScope.AllowsMediaTypeTransform``), and the kinds
this server has no message for -- a protobuf clause is skipped and the next acceptable one (typed
clients always list ``application/json`` too) wins. A Table is JSON only here (upstream: JSON or
YAML, never protobuf); metadata-only objects may be protobuf. Nothing acceptable means 406.
"""

from __future__ import annotations

from dataclasses import dataclass

JSON = "application/json"
YAML = "application/yaml"
PROTOBUF = "application/vnd.kubernetes.protobuf"
TRANSFORMS = ("Table", "PartialObjectMetadata", "PartialObjectMetadataList")
_META_GROUP = "meta.k8s.io"
_META_VERSIONS = ("v1", "v1beta1")


@dataclass(frozen=True)
class Negotiated:
    """The chosen representation.

    ``transform`` is None (the object itself), "Table", "PartialObjectMetadata" or
    "PartialObjectMetadataList"; ``version`` is the meta.k8s.io version of a transform;
    ``content_type`` is the response Content-Type header.
    """

    media_type: str
    transform: str | None = None
    version: str = "v1"

    @property
    def content_type(self) -> str:
        return self.media_type

    @property
    def is_table(self) -> bool:
        return self.transform == "Table"


@dataclass(frozen=True)
class _Clause:
    type: str
    subtype: str
    params: dict[str, str]
    q: float


def parse_accept(header: str) -> list[_Clause]:
    """Split an Accept header into clauses, best first, as goautoneg.ParseAccept orders them: q descending,
    then concrete types before wildcards, otherwise header order (Go's sort of such short slices is an
    insertion sort, hence stable)."""
    clauses = []
    for raw in header.split(","):
        parts = [p.strip() for p in raw.split(";")]
        if not parts[0]:
            continue
        typ, _, sub = parts[0].lower().partition("/")
        params: dict[str, str] = {}
        q = 1.0
        for p in parts[1:]:
            key, _, value = p.partition("=")
            key, value = key.strip().lower(), value.strip().strip('"')
            if key == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
            elif key:
                params[key] = value
        clauses.append(_Clause(typ, sub or "*", params, q))
    return sorted(clauses, key=lambda c: (-c.q, c.type == "*", c.subtype == "*"))


def _match(clause: _Clause, transforms: frozenset[str], yaml_ok: bool, protobuf_ok: bool) -> Negotiated | None:
    if clause.q <= 0:
        return None
    full = f"{clause.type}/{clause.subtype}"
    as_kind = clause.params.get("as")
    if as_kind is not None:
        metadata_pb = full == PROTOBUF and as_kind != "Table"  # PartialObjectMetadata[List] has a message
        if as_kind not in transforms or (full != JSON and not metadata_pb):
            return None
        if clause.params.get("g") != _META_GROUP or clause.params.get("v") not in _META_VERSIONS:
            return None
        return Negotiated(full, as_kind, clause.params["v"])
    if full in (JSON, "application/*", "*/*"):
        return Negotiated(JSON)
    if full == YAML and yaml_ok:
        return Negotiated(YAML)
    if full == PROTOBUF and protobuf_ok:
        return Negotiated(PROTOBUF)
    return None  # cbor, text/html, ...: not produced by this server


def negotiate(accept: str | None, *, transforms: tuple[str, ...] | frozenset[str] = TRANSFORMS,
              yaml_ok: bool = False, protobuf_ok: bool = False) -> Negotiated | None:
    """Choose the response representation, or None for 406 Not Acceptable.

    ``transforms`` lists the ``as=`` kinds the endpoint allows (object endpoints: all of
    TRANSFORMS; discovery, /version, Status-only answers: none); ``protobuf_ok``: the answer's kind
    can be written in protobuf.
    """
    if accept is None or not accept.strip():
        return Negotiated(JSON)
    allowed = frozenset(transforms)
    for clause in parse_accept(accept):
        chosen = _match(clause, allowed, yaml_ok, protobuf_ok)
        if chosen is not None:
            return chosen
    return None


def not_acceptable_message(yaml_ok: bool = False, protobuf_ok: bool = False) -> str:
    """Upstream's 406 message (``errNotAcceptable``), listing what the endpoint can produce (in the codec
    factory's order: JSON, YAML, protobuf)."""
    types = [JSON, YAML] if yaml_ok else [JSON]
    if protobuf_ok:
        types.append(PROTOBUF)
    return "only the following media types are accepted: " + ", ".join(types)

"""Output content negotiation: which representation an ``Accept`` header asks for.

Mirrors kube-apiserver's ``NegotiateOutputMediaType`` (k8s.io/apiserver 1.33
`pkg/endpoints/handlers/negotiation/negotiate.go`: `NegotiateMediaTypeOptions`, `acceptMediaTypeOptions`, the
`RequestScope`'s and `emptyEndpointRestrictions`' `EndpointRestrictions`): the clauses as goautoneg parses and
orders them (wire/goautoneg.py: case kept, so `Application/JSON` names nothing served; a parameter's quotes
kept), each tried against the serializers in the codec factory's order (JSON, YAML, protobuf), the q-value
only ordering them; ``application/json;as=Table;g=meta.k8s.io;v=v1`` selects a Table (kubectl get),
``as=PartialObjectMetadata[List]`` selects metadata-only objects. Protobuf is chosen where the
endpoint's kind has a protobuf message (``protobuf_ok``); elsewhere -- custom resources, whose
``StandardSerializers`` leave protobuf out (``RequestScope.AllowsMediaTypeTransform``), and the kinds
this server has no message for -- a protobuf clause is skipped and the next acceptable one (typed
clients always list ``application/json`` too) wins. A Table is JSON or YAML, never protobuf; metadata-only
objects may be any of the three. Nothing acceptable means 406.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import goautoneg
from .goautoneg import Accept

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


_STREAMING = frozenset((JSON, PROTOBUF))  # the serializers with a StreamSerializer (YAML has none)
_OFFERED = (JSON, YAML, PROTOBUF)  # the codec factory's `SupportedMediaTypes`, in its order (CBOR gated off)


def parse_accept(header: str) -> list[Accept]:
    """The clauses of an Accept header, best first, exactly as goautoneg.ParseAccept reads and orders them
    (wire/goautoneg.py: nothing lower-cased, quotes kept, only spaces trimmed)."""
    return goautoneg.parse_accept(header)


def options_refused(params: dict[str, str], media: str, resource: bool) -> bool:
    """`acceptMediaTypeOptions`' refusals that do not depend on a conversion: `stream` (any value but `watch`, or a
    serializer without a stream form) and `sv` (a resource endpoint's `RequestScope` allows its meta version, `v1`;
    discovery and the other endpoints none)."""
    stream = params.get("stream")
    if stream and (media not in _STREAMING or stream != "watch"):
        return True
    sv = params.get("sv")
    return bool(sv) and not (resource and sv == "v1")


def _accepts(media: str, params: dict[str, str], transforms: frozenset[str], yaml_ok: bool,
             protobuf_ok: bool) -> Negotiated | None:
    """`acceptMediaTypeOptions(params, serializer, endpoint)` for one serializer: the options it yields, or None."""
    resource = bool(transforms)  # a resource endpoint (`RequestScope`); else `DefaultEndpointRestrictions`
    if options_refused(params, media, resource):
        return None
    if not ("as" in params or "g" in params or "v" in params):  # no conversion: what the endpoint serves
        if media == JSON or (media == YAML and yaml_ok) or (media == PROTOBUF and protobuf_ok):
            return Negotiated(media)
        return None
    kind, group, version = params.get("as", ""), params.get("g", ""), params.get("v", "")
    if kind not in transforms or group != _META_GROUP or version not in _META_VERSIONS:
        return None  # (`emptyEndpointRestrictions` refuses every conversion: their transforms are empty)
    if media == JSON or (media == YAML and yaml_ok) or (media == PROTOBUF and kind != "Table"):
        return Negotiated(media, kind, version)  # a Table in JSON or YAML, metadata in any (`AllowsMediaTypeTransform`)
    return None


def names(clause: Accept, media: str) -> bool:
    """Whether a clause names a serializer's media type in `NegotiateMediaTypeOptions`' terms: exactly (case and
    all), as `type/*`, or as `*/*`."""
    typ, _, sub = media.partition("/")
    return clause.type == typ and clause.subtype in (sub, "*") or clause.type == clause.subtype == "*"


def _match(clause: Accept, transforms: frozenset[str], yaml_ok: bool, protobuf_ok: bool) -> Negotiated | None:
    """`NegotiateMediaTypeOptions`' inner loop: the first serializer the clause names whose options are
    acceptable. The q-value is not looked at (a `q=0` clause is served as any other)."""
    for media in _OFFERED:
        if names(clause, media):
            chosen = _accepts(media, clause.params, transforms, yaml_ok, protobuf_ok)
            if chosen is not None:
                return chosen
    return None


def negotiate(accept: str | None, *, transforms: tuple[str, ...] | frozenset[str] = TRANSFORMS,
              yaml_ok: bool = False, protobuf_ok: bool = False) -> Negotiated | None:
    """Choose the response representation, or None for 406 Not Acceptable.

    ``transforms`` lists the ``as=`` kinds the endpoint allows (object endpoints: all of
    TRANSFORMS; discovery, /version, Status-only answers: none); ``protobuf_ok``: the answer's kind
    can be written in protobuf. An empty or missing header is the first serializer's (JSON); a header whose
    clauses are all unusable (`Application/JSON`, `text/html`) is None.
    """
    if not accept:
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


def stream_not_acceptable_message() -> str:
    """`NegotiateOutputMediaTypeStream`'s 406 message: the stream forms (`MediaTypesForSerializer`: each serializer
    with a stream serializer, `;stream=watch` added; YAML has none, CBOR is gated off)."""
    return "only the following media types are accepted: " + ", ".join(f"{m};stream=watch" for m in _OFFERED
                                                                        if m in _STREAMING)

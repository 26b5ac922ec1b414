"""CEL types as cel-go's checker names them (`github.com/google/cel-go/common/types/types.go`): `String()` for the
`must evaluate to` message, `formatted()` for the `found no matching overload ... applied to` one (cel-go's
`FormatCELType`, which prints the null type as `null`). `UNKNOWN` is this server's own: a type its checker cannot
tell, about which it never complains."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Type:
    name: str
    params: tuple[Type, ...] = ()

    def __str__(self) -> str:
        return f"{self.name}({', '.join(map(str, self.params))})" if self.params else self.name

    def formatted(self) -> str:
        if self.name == "null_type":
            return "null"
        if self.params:
            return f"{self.name}({', '.join(p.formatted() for p in self.params)})"
        return self.name

    @property
    def vague(self) -> bool:
        """dyn or unknown: anything may be assigned to it."""
        return self.name in ("dyn", "?")


def list_of(elem: Type) -> Type:
    return Type("list", (elem,))


def map_of(key: Type, value: Type) -> Type:
    return Type("map", (key, value))


def optional_of(t: Type) -> Type:
    return Type("optional_type", (t,))


def type_of(t: Type) -> Type:
    """The type of a type (`type(int)`: what the identifier `int` and `type(1)` are)."""
    return Type("type", (t,))


INT, UINT, DOUBLE, BOOL, STRING, BYTES = (Type("int"), Type("uint"), Type("double"), Type("bool"), Type("string"),
                                          Type("bytes"))
NULL, DYN, UNKNOWN, TYPE = Type("null_type"), Type("dyn"), Type("?"), Type("type")
TIMESTAMP, DURATION = Type("google.protobuf.Timestamp"), Type("google.protobuf.Duration")
QUANTITY, IP, CIDR, URL, FORMAT, SEMVER = (Type("kubernetes.Quantity"), Type("net.IP"), Type("net.CIDR"),
                                           Type("kubernetes.URL"), Type("kubernetes.NamedFormat"),
                                           Type("kubernetes.Semver"))
# library/authz.go's object types (`cel.ObjectType`: messages without fields)
AUTHORIZER, PATH_CHECK, GROUP_CHECK, RESOURCE_CHECK, DECISION = (
    Type(f"kubernetes.authorization.{n}") for n in ("Authorizer", "PathCheck", "GroupCheck", "ResourceCheck",
                                                     "Decision"))
# the opaque types (cel-go's OpaqueKind): assignable only to their own name, nullable, no fields
OPAQUE = frozenset({"optional_type", QUANTITY.name, IP.name, CIDR.name, URL.name, FORMAT.name, SEMVER.name})
# the type names an expression may use as values (`type(x) == net.IP`): cel-go's own, and the library types each
# library registers (`cel.Types(...)` in its CompileOptions)
TYPE_IDENTS: dict[str, Type] = {
    "int": INT, "uint": UINT, "double": DOUBLE, "bool": BOOL, "string": STRING, "bytes": BYTES,
    "list": list_of(DYN), "map": map_of(DYN, DYN), "null_type": NULL, "dyn": DYN, "type": Type("type", (DYN,)),
    "optional_type": Type("optional_type", (DYN,)),
    **{t.name: t for t in (TIMESTAMP, DURATION, QUANTITY, IP, CIDR, URL, FORMAT, SEMVER, AUTHORIZER, PATH_CHECK,
                           GROUP_CHECK, RESOURCE_CHECK, DECISION)}}
PRIMITIVES = frozenset({INT, UINT, DOUBLE, BOOL, STRING, BYTES, NULL, TIMESTAMP, DURATION})
NUMBERS = (INT, UINT, DOUBLE)

# Object types with declared fields (`plugin/cel/compile.go` BuildRequestType, BuildNamespaceType); the
# composition's `variables` object is added per policy.
_GVK = {"group": STRING, "version": STRING, "kind": STRING}
_GVR = {"group": STRING, "version": STRING, "resource": STRING}
OBJECTS: dict[str, Mapping[str, Type]] = {
    "kubernetes.GroupVersionKind": _GVK,
    "kubernetes.GroupVersionResource": _GVR,
    "kubernetes.UserInfo": {"username": STRING, "uid": STRING, "groups": list_of(STRING),
                            "extra": map_of(STRING, list_of(STRING))},
    "kubernetes.AdmissionRequest": {
        "kind": Type("kubernetes.GroupVersionKind"), "resource": Type("kubernetes.GroupVersionResource"),
        "subResource": STRING, "requestKind": Type("kubernetes.GroupVersionKind"),
        "requestResource": Type("kubernetes.GroupVersionResource"), "requestSubResource": STRING,
        "name": STRING, "namespace": STRING, "operation": STRING, "userInfo": Type("kubernetes.UserInfo"),
        "dryRun": BOOL, "options": DYN},
    "kubernetes.NamespaceSpec": {"finalizers": list_of(STRING)},
    "kubernetes.NamespaceCondition": {"status": STRING, "type": STRING, "lastTransitionTime": TIMESTAMP,
                                      "message": STRING, "reason": STRING},
    "kubernetes.NamespaceStatus": {"conditions": list_of(Type("kubernetes.NamespaceCondition")), "phase": STRING},
    "kubernetes.NamespaceMetadata": {
        "name": STRING, "generateName": STRING, "namespace": STRING, "labels": map_of(STRING, STRING),
        "annotations": map_of(STRING, STRING), "UID": STRING, "creationTimestamp": TIMESTAMP,
        "deletionGracePeriodSeconds": INT, "deletionTimestamp": TIMESTAMP, "generation": INT,
        "resourceVersion": STRING, "finalizers": list_of(STRING)},
    "kubernetes.Namespace": {"metadata": Type("kubernetes.NamespaceMetadata"),
                             "spec": Type("kubernetes.NamespaceSpec"), "status": Type("kubernetes.NamespaceStatus")},
}
# library/authz.go's types: `cel.ObjectType`s no type provider describes (receiver-only values)
RECEIVER_ONLY = frozenset(t.name for t in (AUTHORIZER, PATH_CHECK, GROUP_CHECK, RESOURCE_CHECK, DECISION))
REQUEST, NAMESPACE = Type("kubernetes.AdmissionRequest"), Type("kubernetes.Namespace")

"""Read upstream's protobuf schemas out of a kubectl binary, and regenerate our declaration table.

Every Kubernetes Go binary registers the gzipped ``FileDescriptorProto`` of each
``generated.proto`` it links (gogo ``proto.RegisterFile``). Those are the exact field numbers
kubectl encodes with, so they are the authority for ``wire/_proto_table.py``:

    python -m tests.tools.proto_descriptors > conformance/reference_server/wire/_proto_table.py

and ``tests/reference_server/wire/test_proto_table.py`` checks the committed table against them.
"""

from __future__ import annotations

import re
import sys
import zlib
from pathlib import Path

from google.protobuf import descriptor_pb2

PACKAGES = {  # proto package -> short prefix used in the table
    "k8s.io.api.core.v1": "core",
    "k8s.io.apimachinery.pkg.apis.meta.v1": "meta",
    "k8s.io.apimachinery.pkg.api.resource": "resource",
    "k8s.io.apimachinery.pkg.util.intstr": "intstr",
    "k8s.io.apimachinery.pkg.runtime": "runtime",
    "k8s.io.api.authorization.v1": "authorization",
    "k8s.io.api.authentication.v1": "authentication",
    "k8s.io.api.apps.v1": "apps",
    "k8s.io.api.batch.v1": "batch",
    "k8s.io.api.networking.v1": "networking",
    "k8s.io.api.policy.v1": "policy",
    "k8s.io.api.coordination.v1": "coordination",
    "k8s.io.api.discovery.v1": "discovery",
    "k8s.io.api.rbac.v1": "rbac",
    "k8s.io.api.autoscaling.v1": "autoscaling",
    "k8s.io.api.autoscaling.v2": "autoscalingv2",  # registry/autoscaling.py: HPAs, v2 beside v1
    "k8s.io.api.scheduling.v1": "scheduling",
    "k8s.io.api.storage.v1": "storage",
    "k8s.io.api.node.v1": "node",
    "k8s.io.api.certificates.v1": "certificates",  # registry/certificates.py
    "k8s.io.api.events.v1": "events",  # registry/eventsview.py
    "k8s.io.api.flowcontrol.v1": "flowcontrol",
}
PACKAGES["k8s.io.api.admissionregistration.v1"] = "admissionregistration"  # registry/admissionregistration.py
ROOTS = [f"core.{k}" for k in ("Namespace", "ConfigMap", "Secret", "Service", "ServiceAccount", "Pod",
                               "ResourceQuota", "LimitRange", "Event", "Endpoints",
                               "PersistentVolumeClaim", "PersistentVolume", "PodTemplate", "ReplicationController",
                               "ComponentStatus", "Node")]
ROOTS += [f"{root}List" for root in ROOTS]  # list responses
ROOTS += ["meta.DeleteOptions", "runtime.Unknown", "meta.Status", "meta.WatchEvent", "meta.PartialObjectMetadata",
          "meta.PartialObjectMetadataList"]
ROOTS += [f"authorization.{k}" for k in ("SubjectAccessReview", "SelfSubjectAccessReview", "LocalSubjectAccessReview",
                                         "SelfSubjectRulesReview")]
ROOTS += [f"authentication.{k}" for k in ("SelfSubjectReview", "TokenReview", "TokenRequest")]
ROOTS += ["autoscaling.Scale"]  # the /scale subresource of deployments, replicasets, statefulsets
ROOTS += ["policy.Eviction"]  # the body of pods/eviction (registry/eviction.py)
ROOTS += ["core.Binding"]  # the body of pods/binding and bindings (registry/binding.py), in the OpenAPI documents
# the named-group built-in kinds (registry/workloads.py, auth/kinds.py) and their lists
GROUP_KINDS = {"apps": ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "ControllerRevision"), "batch": ("Job", "CronJob"),
               "networking": ("NetworkPolicy",), "policy": ("PodDisruptionBudget",), "coordination": ("Lease",),
               "discovery": ("EndpointSlice",),
               "rbac": ("Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding")}
GROUP_KINDS["networking"] += ("Ingress", "IngressClass")  # registry/groupkinds.py
GROUP_KINDS["networking"] += ("ServiceCIDR", "IPAddress")  # registry/servicecidr.py
GROUP_KINDS.update({"scheduling": ("PriorityClass",), "node": ("RuntimeClass",),
                    "storage": ("StorageClass", "CSIDriver", "CSINode", "VolumeAttachment", "CSIStorageCapacity")})
GROUP_KINDS.update({"autoscaling": ("HorizontalPodAutoscaler",), "autoscalingv2": ("HorizontalPodAutoscaler",)})
GROUP_KINDS.update({"certificates": ("CertificateSigningRequest",), "events": ("Event",)})
GROUP_KINDS["admissionregistration"] = ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
                                        "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")
GROUP_KINDS["flowcontrol"] = ("FlowSchema", "PriorityLevelConfiguration")  # registry/flowcontrol.py
ROOTS += [f"{group}.{kind}{suffix}" for group, kinds in GROUP_KINDS.items() for kind in kinds for suffix in ("", "List")]
# Go field names whose gogo proto name differs from the JSON name (the table speaks JSON names).
JSON_NAMES = {"authentication.BoundObjectReference.uID": "uid",
              "networking.IngressClassParametersReference.aPIGroup": "apiGroup"}
JSON_NAMES.update({f"admissionregistration.{name}": name.rsplit(".", 1)[1].lower() for name in (
    "ValidatingWebhookConfiguration.Webhooks", "MutatingWebhookConfiguration.Webhooks", "Validation.Expression",
    "Variable.Name", "Variable.Expression")})
SCALARS = {1: "f64", 2: "f32", 3: "i64", 4: "u64", 5: "i32", 8: "b", 9: "s", 12: "y", 13: "u32"}


def extract_descriptors(binary: Path) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    """Find every gzipped k8s ``generated.proto`` descriptor embedded in a Go binary."""
    data = binary.read_bytes()
    found: dict[str, descriptor_pb2.FileDescriptorProto] = {}
    for match in re.finditer(rb"\x1f\x8b\x08\x00\x00\x00\x00\x00", data):
        try:
            raw = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data[match.start():match.start() + 4_000_000])
        except zlib.error:
            continue
        if b"generated.proto" not in raw[:200]:
            continue
        fd = descriptor_pb2.FileDescriptorProto.FromString(raw)
        found[fd.name] = fd
    return found


def _short(type_name: str) -> str:
    pkg, _, name = type_name.lstrip(".").rpartition(".")
    if pkg in PACKAGES:
        return f"{PACKAGES[pkg]}.{name}"
    outer_pkg, _, outer = pkg.rpartition(".")  # nested (map entry) type
    return f"{PACKAGES[outer_pkg]}.{outer}.{name}"


def message_index(files: dict[str, descriptor_pb2.FileDescriptorProto]) -> dict[str, descriptor_pb2.DescriptorProto]:
    """All messages of the packages we care about, keyed by short name (``core.Pod``)."""
    out: dict[str, descriptor_pb2.DescriptorProto] = {}
    for fd in files.values():
        if fd.package not in PACKAGES:
            continue
        for msg in fd.message_type:
            out[f"{PACKAGES[fd.package]}.{msg.name}"] = msg
            for nested in msg.nested_type:
                out[f"{PACKAGES[fd.package]}.{msg.name}.{nested.name}"] = nested
    return out


def field_spec(msgs: dict[str, descriptor_pb2.DescriptorProto], field: descriptor_pb2.FieldDescriptorProto,
               message: str = "") -> str:
    """One field in table syntax: ``name=N:type`` with ``*`` for repeated, ``{k:v}`` for maps."""
    name = JSON_NAMES.get(f"{message}.{field.name}", field.name)
    if field.type == 11:
        target = _short(field.type_name)
        entry = msgs[target]
        if entry.options.map_entry:
            key, value = entry.field
            vtype = "@" + _short(value.type_name) if value.type == 11 else SCALARS[value.type]
            return f"{name}={field.number}:{{{SCALARS[key.type]}:{vtype}}}"
        typ = "@" + target
    else:
        typ = SCALARS[field.type]
    rep = "*" if field.label == 3 else ""
    return f"{name}={field.number}:{rep}{typ}"


def closure(msgs: dict[str, descriptor_pb2.DescriptorProto], roots: list[str]) -> list[str]:
    """Every non-map-entry message reachable from the roots, sorted."""
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        for field in msgs[name].field:
            if field.type == 11:
                stack.append(_short(field.type_name))
    return sorted(n for n in seen if not msgs[n].options.map_entry)


def table_from(files: dict[str, descriptor_pb2.FileDescriptorProto]) -> dict[str, str]:
    """The declaration table (message -> space-separated field specs) for our roots."""
    msgs = message_index(files)
    return {name: " ".join(field_spec(msgs, f, name) for f in msgs[name].field) for name in closure(msgs, ROOTS)}


def render(table: dict[str, str], source: str) -> str:
    """Python source of ``_proto_table.py``."""
    lines = [
        '"""Protobuf field declarations of the Kubernetes kinds the reference server accepts and answers.',
        "",
        "GENERATED by ``python -m tests.tools.proto_descriptors`` from the descriptors embedded in",
        f"{source}; field names are the JSON names, numbers are upstream's generated.proto numbers.",
        "Syntax: ``name=N:type``; type is s/b/i32/i64/u32/u64/f32/f64/y(bytes) or ``@pkg.Message``;",
        "``*`` marks repeated, ``{k:v}`` a map. Do not edit by hand: regenerate.",
        '"""',
        "",
        "MESSAGES: dict[str, str] = {",
    ]
    for name, spec in table.items():
        lines.append(f"    {name!r}: (")
        chunk = ""
        for tok in spec.split(" "):
            if len(chunk) + len(tok) > 80:
                lines.append(f"        {chunk!r}")
                chunk = ""
            chunk += tok + " "
        if chunk:
            lines.append(f"        {chunk.rstrip()!r}")
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> int:
    from tests.tools.kubectl import kubectl_and_version

    found = kubectl_and_version()
    if found is None:
        return 1
    kubectl, version = found
    sys.stdout.write(render(table_from(extract_descriptors(kubectl)), f"kubectl ({version})"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

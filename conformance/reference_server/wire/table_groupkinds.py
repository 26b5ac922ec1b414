"""Table printers of the networking/scheduling/storage/node kinds (registry/groupkinds.py), after upstream's
`pkg/printers/internalversion/printers.go` (`printIngress`, `printIngressClass`, `printPriorityClass`,
`printStorageClass`, `printServiceCIDR`, `printIPAddress`, `printCSIDriver`, `printCSINode`, `printVolumeAttachment`, `printCSIStorageCapacity`,
`printRuntimeClass`): the same columns, in the same order, with the same cells.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

NONE = "<none>"
UNSET = "<unset>"
Col = Callable[..., dict[str, Any]]


def _hosts(rules: list[Any]) -> str:
    """`formatHosts`: the first three hosts, `*` when none, `+ N more...`."""
    shown: list[str] = []
    more = False
    for rule in rules:
        if len(shown) == 3:
            more = True
        host = rule.get("host") if isinstance(rule, dict) else None
        if not more and host:
            shown.append(host)
    if not shown:
        return "*"
    text = ",".join(shown)
    return f"{text} + {len(rules) - 3} more..." if more else text


def _address(status: dict[str, Any]) -> str:
    """`ingressLoadBalancerStatusStringer(s, false)`: IPs and hostnames, cut at 16 characters."""
    found = []
    for ing in (status.get("loadBalancer") or {}).get("ingress") or []:
        if isinstance(ing, dict):
            found += [v for v in (ing.get("ip"), ing.get("hostname")) if v]
    text = ",".join(found)
    return text[:16] + "..." if len(text) > 16 else text


def _is_default_class(meta: dict[str, Any]) -> bool:
    """`storageutil.IsDefaultAnnotation`."""
    ann = meta.get("annotations") or {}
    return "true" in (ann.get("storageclass.kubernetes.io/is-default-class"),
                      ann.get("storageclass.beta.kubernetes.io/is-default-class"))


def printers(col: Col, name: dict[str, Any], age_col: dict[str, Any],
             age: Callable[[dict[str, Any], datetime], str]) -> dict[str, tuple[list[dict[str, Any]], Callable]]:
    """kind → (columns, printer), built with `table`'s column helpers."""

    def n(obj: dict[str, Any]) -> str:
        return obj["metadata"].get("name", "")

    def ingress(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec, st = obj.get("spec") or {}, obj.get("status") or {}
        cls = spec.get("ingressClassName")
        return [n(obj), cls if cls is not None else NONE, _hosts(spec.get("rules") or []), _address(st),
                "80, 443" if spec.get("tls") else "80", age(obj, now)]

    def ingressclass(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec = obj.get("spec") or {}
        params = spec.get("parameters")
        shown = NONE
        if isinstance(params, dict):
            shown = str(params.get("kind", ""))
            if params.get("apiGroup") is not None:
                shown += "." + str(params["apiGroup"])
            shown += "/" + str(params.get("name", ""))
        return [n(obj), spec.get("controller", ""), shown, age(obj, now)]

    def priorityclass(obj: dict[str, Any], now: datetime) -> list[Any]:
        policy = obj.get("preemptionPolicy")
        return [n(obj), obj.get("value", 0), bool(obj.get("globalDefault")), age(obj, now),
                policy if policy is not None else UNSET]

    def storageclass(obj: dict[str, Any], now: datetime) -> list[Any]:
        shown = n(obj) + (" (default)" if _is_default_class(obj["metadata"]) else "")
        return [shown, obj.get("provisioner", ""), obj.get("reclaimPolicy") or "Delete",
                obj.get("volumeBindingMode") or "Immediate", bool(obj.get("allowVolumeExpansion")), age(obj, now)]

    def csidriver(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec = obj.get("spec") or {}
        tokens = [str(t.get("audience", "")) for t in spec.get("tokenRequests") or () if isinstance(t, dict)]
        modes = ",".join(str(m) for m in spec.get("volumeLifecycleModes") or ())
        attach = spec.get("attachRequired")
        return [n(obj), True if attach is None else bool(attach), bool(spec.get("podInfoOnMount")),
                bool(spec.get("storageCapacity")), ",".join(tokens) if tokens else UNSET,
                bool(spec.get("requiresRepublish")), modes or NONE, age(obj, now)]

    def csinode(obj: dict[str, Any], now: datetime) -> list[Any]:
        return [n(obj), len((obj.get("spec") or {}).get("drivers") or ()), age(obj, now)]

    def volumeattachment(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec = obj.get("spec") or {}
        pv = (spec.get("source") or {}).get("persistentVolumeName") or ""
        return [n(obj), spec.get("attacher", ""), pv, spec.get("nodeName", ""),
                bool((obj.get("status") or {}).get("attached")), age(obj, now)]

    def csistoragecapacity(obj: dict[str, Any], now: datetime) -> list[Any]:
        capacity = obj.get("capacity")
        return [n(obj), obj.get("storageClassName", ""), capacity if capacity is not None else UNSET]

    def runtimeclass(obj: dict[str, Any], now: datetime) -> list[Any]:
        return [n(obj), obj.get("handler", ""), age(obj, now)]

    def servicecidr(obj: dict[str, Any], now: datetime) -> list[Any]:  # printServiceCIDR
        return [n(obj), ",".join(str(c) for c in (obj.get("spec") or {}).get("cidrs") or []), age(obj, now)]

    def ipaddress(obj: dict[str, Any], now: datetime) -> list[Any]:  # printIPAddress: no age column
        ref = (obj.get("spec") or {}).get("parentRef")
        if not isinstance(ref, dict):
            return [n(obj), "<none>"]
        group, resource = ref.get("group") or "", ref.get("resource") or ""
        shown = (f"{resource}.{group}" if group else resource).lower()  # GroupResource.String()
        if ref.get("namespace"):
            shown += "/" + ref["namespace"]
        return [n(obj), f"{shown}/{ref.get('name') or ''}"]

    return {
        "ServiceCIDR": ([name, col("CIDRs", "CIDRs defines the IP blocks in CIDR notation (e.g. \"192.168.0.0/24\" or "
                                            "\"2001:db8::/64\") from which to assign service cluster IPs. Max of two "
                                            "CIDRs is allowed, one of each IP family. This field is immutable."),
                         age_col], servicecidr),
        "IPAddress": ([name, col("ParentRef", "ParentRef references the resource that an IPAddress is attached to. An "
                                              "IPAddress must reference a parent object.")], ipaddress),
        "Ingress": ([name, col("Class", "The name of the IngressClass resource."),
                     col("Hosts", "The hosts this ingress serves."), col("Address", "Address is a list containing "
                                                                          "ingress points for the load-balancer"),
                     col("Ports", "Ports of TLS configurations that open"), age_col], ingress),
        "IngressClass": ([name, col("Controller", "Controller that is responsible for handling this class"),
                          col("Parameters", "A reference to a resource with additional parameters"), age_col],
                         ingressclass),
        "PriorityClass": ([name, col("Value", "value represents the integer value of this priority class.",
                                     type_="integer"),
                           col("Global-Default", "globalDefault specifies whether this PriorityClass should be "
                                                 "considered as the default priority.", type_="boolean"), age_col,
                           col("PreemptionPolicy", "preemptionPolicy is the Policy for preempting pods with lower "
                                                   "priority.")], priorityclass),
        "StorageClass": ([name, col("Provisioner", "provisioner indicates the type of the provisioner."),
                          col("ReclaimPolicy", "reclaimPolicy controls the reclaimPolicy for dynamically "
                                               "provisioned PersistentVolumes."),
                          col("VolumeBindingMode", "volumeBindingMode indicates how PersistentVolumeClaims should "
                                                   "be provisioned and bound."),
                          col("AllowVolumeExpansion", "allowVolumeExpansion shows whether the storage class allow "
                                                      "volume expand."), age_col], storageclass),
        "CSIDriver": ([name, col("AttachRequired", "attachRequired indicates this CSI volume driver requires an "
                                                   "attach operation.", type_="boolean"),
                       col("PodInfoOnMount", "podInfoOnMount indicates this CSI volume driver requires additional "
                                             "pod information during mount operations.", type_="boolean"),
                       col("StorageCapacity", "storageCapacity indicates that the CSI volume driver wants pod "
                                              "scheduling to consider the storage capacity.", type_="boolean"),
                       col("TokenRequests", "tokenRequests indicates the CSI driver needs pods' service account "
                                            "tokens it is mounting volume for to do necessary authentication."),
                       col("RequiresRepublish", "requiresRepublish indicates the CSI driver wants `NodePublishVolume`"
                                                " being periodically called.", type_="boolean"),
                       col("Modes", "volumeLifecycleModes defines what kind of volumes this CSI volume driver "
                                    "supports."), age_col], csidriver),
        "CSINode": ([name, col("Drivers", "Drivers indicates the number of CSI drivers registered on the node",
                               type_="integer"), age_col], csinode),
        "VolumeAttachment": ([name, col("Attacher", "attacher indicates the name of the volume driver that MUST "
                                                    "handle this request.", format_="name"),
                              col("PV", "persistentVolumeName represents the name of the persistent volume to "
                                        "attach."),
                              col("Node", "nodeName represents the node that the volume should be attached to."),
                              col("Attached", "attached indicates the volume is successfully attached.",
                                  type_="boolean"), age_col], volumeattachment),
        "CSIStorageCapacity": ([name, col("StorageClassName", "storageClassName represents the name of the "
                                                              "StorageClass that the reported capacity applies to."),
                                col("Capacity", "capacity is the value reported by the CSI driver.")],
                               csistoragecapacity),
        "RuntimeClass": ([name, col("Handler", "handler specifies the underlying runtime and configuration that "
                                               "the CRI implementation will use."), age_col], runtimeclass),
    }

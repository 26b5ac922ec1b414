"""Where a pod's, a service's or a node's connect subresources would lead, as kube-apiserver 1.33 decides it on a
cluster without kubelets.

Follows `pkg/registry/core/pod/strategy.go` (`validateContainer`, `LogLocation`, `streamLocation` of exec/attach,
`PortForwardLocation`, `ResourceLocation` of pods/proxy), `pkg/registry/core/pod/rest/log.go` and
`pkg/apis/core/validation/validation.go` `ValidatePodLogOptions` (1.33: the PodLogsQuerySplitStreams gate is alpha,
off, so `stream` is neither validated nor used), `pkg/kubelet/client/kubelet_client.go` `GetConnectionInfo` (the
pod's Node read first: a missing one answers its NotFound), `pkg/registry/core/node/strategy.go` `ResourceLocation`
(nodes/proxy) and `pkg/registry/core/service/storage/rest.go` `ResourceLocation` + `isValidAddress`
(services/proxy). Every function answers upstream's refusal as a `StatusError`, or returns what the HTTP layer
serves (pods/log of an unscheduled pod: an answer without a body: `LocationStreamer` without a location, 204).
Nothing here proxies: a location that upstream would reach is `Unreachable` (README's Known gaps).
"""
from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any

from .. import apierrors as E
from ..cel.libs.conversions import parse_rfc3339
from ..gonet.strconv import quote
from .shapes import as_list

CONTAINER_KINDS = ("initContainers", "containers", "ephemeralContainers")  # podutil.VisitContainers' order
_INT = re.compile(r"[+-]?[0-9]+\Z")
MAX_INT64 = (1 << 63) - 1


class Unreachable(Exception):
    """Upstream would connect to `location` (a kubelet, a pod or an endpoint address): not modelled here."""

    def __init__(self, location: str):
        super().__init__(location)
        self.location = location


def _spec(pod: Mapping[str, Any]) -> dict[str, Any]:
    spec = pod.get("spec")
    return spec if isinstance(spec, dict) else {}


def container_names(pod: Mapping[str, Any]) -> list[str]:
    """Every container's name, init, regular, then ephemeral (`VisitContainers` with every kind enabled)."""
    spec = _spec(pod)
    return [str(c.get("name") or "") for k in CONTAINER_KINDS for c in as_list(spec.get(k)) if isinstance(c, dict)]


def validate_container(container: str, pod: Mapping[str, Any]) -> str:
    """`validateContainer`: the named container must exist; none named picks the only regular container."""
    name = str((pod.get("metadata") or {}).get("name") or "")
    if not container:
        regular = [c for c in as_list(_spec(pod).get("containers")) if isinstance(c, dict)]
        if len(regular) == 1:
            return str(regular[0].get("name") or "")
        if not regular:
            raise E.bad_request(f"a container name must be specified for pod {name}")
        names = " ".join(container_names(pod))  # Go's %s of a []string: [a b c]
        raise E.bad_request(f"a container name must be specified for pod {name}, choose one of: [{names}]")
    if container not in container_names(pod):
        raise E.bad_request(f"container {container} is not valid for pod {name}")
    return container


# ---- query parameters as the parameter codec decodes them (runtime/conversion.go) -------------------------
def query_value(query: Mapping[str, Any], key: str) -> str | None:
    getall = getattr(query, "getall", None)
    values = getall(key, []) if getall is not None else ([query[key]] if key in query else [])
    return str(values[0]) if values else None


def query_bool(query: Mapping[str, Any], key: str) -> bool:
    """`Convert_Slice_string_To_bool`: absent, "0" or "false" (any case) is false, anything else true."""
    v = query_value(query, key)
    return v is not None and v != "0" and v.lower() != "false"


def query_int(query: Mapping[str, Any], key: str) -> int | None:
    """`Convert_Slice_string_To_Pointer_int64`: absent or empty is nil; else strconv.ParseInt's value or error
    (the handler's BadRequest)."""
    v = query_value(query, key)
    return None if v is None or v == "" else parse_int64(v)


def parse_int64(v: str) -> int:
    """strconv.ParseInt(v, 10, 64), its errors a BadRequest (the parameter codec's)."""
    if not _INT.match(v):
        raise E.bad_request(f'strconv.ParseInt: parsing "{v}": invalid syntax')
    n = int(v)
    if not -MAX_INT64 - 1 <= n <= MAX_INT64:
        raise E.bad_request(f'strconv.ParseInt: parsing "{v}": value out of range')
    return n


def query_time(query: Mapping[str, Any], key: str) -> str | None:
    """`Convert_Slice_string_To_v1_Time` → `Time.UnmarshalQueryParameter`: empty or "null" is no time; else
    `time.Parse(time.RFC3339, ...)` (its error the handler's BadRequest, in the words of its commonest case)."""
    v = query_value(query, key)
    if not v or v == "null":
        return None
    if parse_rfc3339(v) is None:
        raise E.bad_request(f'parsing time "{v}" as "2006-01-02T15:04:05Z07:00": cannot parse "{v}" as "2006"')
    return v


def log_options(query: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The PodLogOptions of a query, validated (`ValidatePodLogOptions`: 422 `PodLogOptions "<pod>" is
    invalid`)."""
    opts: dict[str, Any] = {"container": query_value(query, "container") or "",
                            "follow": query_bool(query, "follow"), "previous": query_bool(query, "previous"),
                            "timestamps": query_bool(query, "timestamps")}
    for key in ("sinceSeconds", "tailLines", "limitBytes"):
        opts[key] = query_int(query, key)
    opts["sinceTime"] = query_time(query, "sinceTime")
    errs: list[E.FieldError] = []
    if opts["tailLines"] is not None and opts["tailLines"] < 0:
        errs.append(E.field_invalid("tailLines", opts["tailLines"], "must be greater than or equal to 0"))
    if opts["limitBytes"] is not None and opts["limitBytes"] < 1:
        errs.append(E.field_invalid("limitBytes", opts["limitBytes"], "must be greater than 0"))
    if opts["sinceSeconds"] is not None and opts["sinceTime"] is not None:
        errs.append(E.field_forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified"))
    elif opts["sinceSeconds"] is not None and opts["sinceSeconds"] < 1:
        errs.append(E.field_invalid("sinceSeconds", opts["sinceSeconds"], "must be greater than 0"))
    if errs:
        raise E.invalid("PodLogOptions", name, errs)
    return opts


# ---- the lookups ------------------------------------------------------------------------------------------
def connection_info(registry: Any, node_name: str) -> str:
    """`NodeConnectionInfoGetter.GetConnectionInfo`: the Node is read (its NotFound answers); a Node without a
    reported address is `NoMatchError` (a plain error: 500); one with an address would be dialled."""
    nodes = registry.cluster("nodes")
    if nodes is None:
        raise E.not_found("nodes", node_name)
    node = nodes.get("", node_name, shared=True)
    addresses = [a for a in as_list((node.get("status") or {}).get("addresses")) if isinstance(a, dict)]
    if not addresses:
        # a plain Go error: ErrorToAPIStatus answers 500 with no reason (StatusReasonUnknown is "")
        raise E.StatusError(E.status_dict(500, None, "no preferred addresses found; known addresses: []"))
    port = ((node.get("status") or {}).get("daemonEndpoints") or {}).get("kubeletEndpoint", {}).get("port") or 10250
    raise Unreachable(f"https://{addresses[0].get('address')}:{port}")


def _pod(registry: Any, namespace: str, name: str) -> dict[str, Any]:
    return registry.content("pods").get(namespace, name, shared=True)


def pod_log(registry: Any, namespace: str, name: str, opts: Mapping[str, Any]) -> None:
    """`LogLocation`: an unscheduled pod has no location, which `LocationStreamer.InputStream` answers with no
    stream, and `StreamObject` with 204 No Content."""
    pod = _pod(registry, namespace, name)
    validate_container(str(opts.get("container") or ""), pod)
    node = _spec(pod).get("nodeName")
    if node:
        connection_info(registry, str(node))


def stream_location(registry: Any, namespace: str, name: str, container: str | None) -> None:
    """`streamLocation` (exec, attach; container None: `PortForwardLocation`, which checks none)."""
    pod = _pod(registry, namespace, name)
    if container is not None:
        validate_container(container, pod)
    node = _spec(pod).get("nodeName")
    if not node:
        raise E.bad_request(f"pod {name} does not have a host assigned")
    connection_info(registry, str(node))


def split_scheme_name_port(id_: str) -> tuple[str, str, str, bool]:
    """`utilnet.SplitSchemeNamePort`: "name", "name:port" or "scheme:name:port" (scheme "" or http/https)."""
    parts = id_.split(":")
    if len(parts) == 1:
        scheme, name, port = "", parts[0], ""
    elif len(parts) == 2:
        scheme, name, port = "", parts[0], parts[1]
    elif len(parts) == 3:
        scheme, name, port = parts
    else:
        return "", "", "", False
    if not name or scheme not in ("", "http", "https"):
        return "", "", "", False
    return scheme, name, port, True


def _global_unicast(ip: str) -> bool:
    """`netutils.ParseIPSloppy(ip).IsGlobalUnicast()` (leading zeros read as decimal)."""
    try:
        if "." in ip and ":" not in ip:
            ip = ".".join(str(int(p, 10)) for p in ip.split("."))
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return False
    if addr.version == 4:
        return not (addr.is_loopback or addr.is_link_local or addr.is_multicast or addr.is_unspecified
                    or int(addr) == 0xFFFFFFFF)
    return not (addr.is_loopback or addr.is_link_local or addr.is_multicast or addr.is_unspecified)


def pod_proxy(registry: Any, namespace: str, id_: str) -> None:
    """`pod.ResourceLocation`: a pod without a global unicast IP is refused; one with an IP would be dialled."""
    scheme, name, port, valid = split_scheme_name_port(id_)
    if not valid:
        raise E.bad_request(f"invalid pod request {quote(id_)}")
    pod = _pod(registry, namespace, name)
    ips = [p.get("ip") for p in as_list((pod.get("status") or {}).get("podIPs")) if isinstance(p, dict)]
    ip = str(ips[0] or "") if ips else ""
    if not _global_unicast(ip):
        raise E.bad_request("address not allowed")
    raise Unreachable(f"{scheme or 'http'}://{ip}{':' + port if port else ''}")


def node_proxy(registry: Any, id_: str) -> None:
    """`node.ResourceLocation`: the Node's connection info first (its NotFound answers)."""
    _, name, _, valid = split_scheme_name_port(id_)
    if not valid:
        raise E.bad_request(f"invalid node request {quote(id_)}")
    connection_info(registry, name)


def service_unavailable(msg: str) -> E.StatusError:
    """`errors.NewServiceUnavailable`."""
    return E.StatusError(E.status_dict(503, "ServiceUnavailable", msg))


def _valid_address(registry: Any, namespace: str, addr: Mapping[str, Any]) -> bool:
    """`isValidAddress`: the address must name a pod of the namespace whose IPs include it."""
    ref = addr.get("targetRef")
    if not isinstance(ref, dict) or ref.get("namespace") != namespace:
        return False
    try:
        pod = _pod(registry, namespace, str(ref.get("name") or ""))
    except E.StatusError:
        return False
    return any(isinstance(p, dict) and p.get("ip") == addr.get("ip")
               for p in as_list((pod.get("status") or {}).get("podIPs")))


def service_proxy(registry: Any, namespace: str, id_: str) -> None:
    """The service storage's `ResourceLocation`: a numeric port must be one of the Service's; then its
    Endpoints (their NotFound answers), an address of a subset with the named port, valid by `isValidAddress`."""
    scheme, name, port, valid = split_scheme_name_port(id_)
    if not valid:
        raise E.bad_request(f"invalid service request {quote(id_)}")
    if _INT.match(port or "x"):
        svc = registry.content("services").get(namespace, name, shared=True)
        names = [p.get("name") or "" for p in as_list(_spec(svc).get("ports"))
                 if isinstance(p, dict) and p.get("port") == int(port)]
        if not names:
            raise service_unavailable(f"no service port {int(port)} found for service {quote(name)}")
        port = names[0]
    eps = registry.content("endpoints").get(namespace, name, shared=True)
    subsets = [s for s in as_list(eps.get("subsets")) if isinstance(s, dict)]
    if not subsets:
        raise service_unavailable(f"no endpoints available for service {quote(name)}")
    for ss in subsets:
        addresses = [a for a in as_list(ss.get("addresses")) if isinstance(a, dict)]
        for p in as_list(ss.get("ports")):
            if isinstance(p, dict) and (p.get("name") or "") == port:
                for addr in addresses:
                    if _valid_address(registry, namespace, addr):
                        raise Unreachable(f"{scheme or 'http'}://{addr.get('ip')}:{p.get('port')}")
    raise service_unavailable(f"no endpoints available for service {quote(id_)}")


__all__ = ["Unreachable", "container_names", "log_options", "node_proxy", "parse_int64", "pod_log", "pod_proxy",
           "query_bool", "query_int", "query_time", "query_value", "service_proxy", "service_unavailable",
           "split_scheme_name_port", "stream_location", "validate_container"]

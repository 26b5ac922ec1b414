"""Where a pod's, a service's or a node's connect subresources would lead, as kube-apiserver 1.33 decides it on a
cluster without kubelets.

Follows `pkg/registry/core/pod/strategy.go` (`validateContainer`, `LogLocation`, `streamLocation` of exec/attach,
`PortForwardLocation`, `ResourceLocation` of pods/proxy), `pkg/registry/core/pod/rest/log.go` and
`pkg/apis/core/validation/validation.go` `ValidatePodLogOptions` (1.33: the PodLogsQuerySplitStreams gate is alpha,
off, so `stream` is neither validated nor used), `pkg/kubelet/client/kubelet_client.go` `GetConnectionInfo` (the
pod's Node read first: a missing one answers its NotFound), `pkg/registry/core/node/strategy.go` `ResourceLocation`
(nodes/proxy) and `pkg/registry/core/service/storage/rest.go` `ResourceLocation` + `isValidAddress`
(services/proxy). Every function answers upstream's refusal as a `StatusError`, or returns the `Location` upstream
would dial (pods/log of an unscheduled pod: none, `LocationStreamer` without a location, 204); the HTTP layer
(http/proxying.py) dials it. The kubelet's address is `GetPreferredNodeAddress` over kubeadm's (so kind's)
`--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname`, its port the Node's
`status.daemonEndpoints.kubeletEndpoint.Port` or `--kubelet-port`'s 10250, on https.
"""
from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote as url_quote

from .. import apierrors as E
from ..cel.libs.conversions import parse_rfc3339
from ..goport.gonet.strconv import quote
from ..paramcodec import int64_value
from .shapes import as_list

CONTAINER_KINDS = ("initContainers", "containers", "ephemeralContainers")  # podutil.VisitContainers' order
_INT = re.compile(r"[+-]?[0-9]+\Z")


PREFERRED_ADDRESS_TYPES = ("InternalIP", "ExternalIP", "Hostname")  # kubeadm's kube-apiserver flag (kind's)
KUBELET_PORT = 10250  # --kubelet-port


@dataclass(frozen=True)
class Location:
    """A `*url.URL` upstream's REST returns: `scheme` "" is http (`normalizeLocation`), `port` "" the scheme's;
    `kubelet`: dialled with the kubelet's transport (kind gives kube-apiserver no kubelet CA: TLS unverified), else
    the proxy transport (also unverified: "proxying to pods and services is IP-based"); `resolve`: a host name
    `node.ResourceLocation` must first see resolve to global unicast addresses only (`isProxyableHostname`)."""

    scheme: str
    host: str
    port: str = ""
    path: str = ""
    query: str = ""
    kubelet: bool = False
    resolve: bool = False

    def with_path(self, path: str) -> Location:
        """`net.JoinPreservingTrailingSlash(location.Path, opts.Path)` (the Connect of each ProxyREST)."""
        joined = go_path_join(self.path, path)
        last = path or self.path
        if last.endswith("/") and not joined.endswith("/"):
            joined += "/"
        return Location(self.scheme, self.host, self.port, joined, self.query, self.kubelet, self.resolve)

    @property
    def hostport(self) -> str:
        """`netutil.CanonicalAddr`: host:port, the scheme's port when none (IPv6 bracketed)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port or (443 if self.scheme == 'https' else 80)}"

    def url(self) -> str:
        """`url.URL.String()` of the location (the path escaped as Go's `EscapedPath`)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        path = escaped_path(self.path)
        if path and not path.startswith("/"):
            path = "/" + path
        return f"{self.scheme or 'http'}://{host}{':' + self.port if self.port else ''}{path}" \
            f"{'?' + self.query if self.query else ''}"


def go_path_join(*elems: str) -> str:
    """Go's `path.Join`: the non-empty elements joined by "/", then `path.Clean`ed ("" when all are empty)."""
    parts = [e for e in elems if e]
    return go_path_clean("/".join(parts)) if parts else ""


def go_path_clean(p: str) -> str:
    """Go's `path.Clean`: one slash between names, no `.`, `..` resolved lexically, "." for an empty result."""
    if not p:
        return "."
    rooted = p.startswith("/")
    out: list[str] = []
    for name in p.split("/"):
        if name in ("", "."):
            continue
        if name == "..":
            if out and out[-1] != "..":
                out.pop()
            elif not rooted:
                out.append("..")
            continue
        out.append(name)
    cleaned = "/".join(out)
    return ("/" + cleaned) if rooted else (cleaned or ".")


def escaped_path(p: str) -> str:
    """`url.URL.EscapedPath` for a path without RawPath: Go's `shouldEscape(c, encodePath)` escapes all but
    unreserved characters and `$&+,/:;=@`."""
    return url_quote(p, safe="/$&+,:;=@~")


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
    """`Convert_Slice_string_To_Pointer_int64`: absent is nil; else strconv.ParseInt's value or error (the
    handler's BadRequest; an empty value too: `strconv.ParseInt: parsing "": invalid syntax`)."""
    v = query_value(query, key)
    return None if v is None else parse_int64(v)


def parse_int64(v: str) -> int:
    """strconv.ParseInt(v, 10, 64), its errors a BadRequest (the parameter codec's, its text `%q`-quoted)."""
    return int64_value(v)


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
def connection_info(registry: Any, node_name: str) -> Location:
    """`NodeConnectionInfoGetter.GetConnectionInfo`: the Node is read (its NotFound answers); its address is
    `GetPreferredNodeAddress`'s (the first of each preferred type in turn; none: `NoMatchError`, a plain error,
    500, printing the addresses as Go's `%v`); the kubelet's https location."""
    nodes = registry.cluster("nodes")
    if nodes is None:
        raise E.not_found("nodes", node_name)
    node = nodes.get("", node_name, shared=True)
    status = node.get("status") if isinstance(node.get("status"), dict) else {}
    addresses = [a for a in as_list(status.get("addresses")) if isinstance(a, dict)]
    host = next((str(a.get("address") or "") for t in PREFERRED_ADDRESS_TYPES for a in addresses
                 if a.get("type") == t), None)
    if host is None:
        known = " ".join(f"{{{a.get('type') or ''} {a.get('address') or ''}}}" for a in addresses)
        # a plain Go error: ErrorToAPIStatus answers 500 with no reason (StatusReasonUnknown is "")
        raise E.StatusError(E.status_dict(500, None, f"no preferred addresses found; known addresses: [{known}]"))
    daemons = status.get("daemonEndpoints")
    endpoint = daemons.get("kubeletEndpoint") if isinstance(daemons, dict) else None
    port = endpoint.get("Port") if isinstance(endpoint, dict) else None  # DaemonEndpoint's json name is "Port"
    port = port if isinstance(port, int) and not isinstance(port, bool) and port > 0 else KUBELET_PORT
    return Location("https", host, str(port), kubelet=True)


def _pod(registry: Any, namespace: str, name: str) -> dict[str, Any]:
    return registry.content("pods").get(namespace, name, shared=True)


def _encode(params: list[tuple[str, str]]) -> str:
    """`url.Values.Encode`: sorted by key (stable within one key), `QueryEscape`d."""
    from urllib.parse import quote_plus
    return "&".join(f"{quote_plus(k)}={quote_plus(v)}" for k, v in sorted(params, key=lambda kv: kv[0]))


def pod_log(registry: Any, namespace: str, name: str, opts: Mapping[str, Any]) -> Location | None:
    """`LogLocation`: an unscheduled pod has no location, which `LocationStreamer.InputStream` answers with no
    stream, and `StreamObject` with 204 No Content; else the kubelet's `/containerLogs/<ns>/<pod>/<container>`."""
    pod = _pod(registry, namespace, name)
    container = validate_container(str(opts.get("container") or ""), pod)
    node = _spec(pod).get("nodeName")
    if not node:
        return None
    info = connection_info(registry, str(node))
    params = [(k, "true") for k in ("follow", "previous", "timestamps") if opts.get(k)]
    params += [(k, str(opts[k])) for k in ("sinceSeconds", "sinceTime", "tailLines", "limitBytes")
               if opts.get(k) is not None]
    return Location(info.scheme, info.host, info.port, f"/containerLogs/{namespace}/{name}/{container}",
                    _encode(params), kubelet=True)


_STREAM_PARAMS = (("stdin", "input"), ("stdout", "output"), ("stderr", "error"), ("tty", "tty"))


def stream_location(registry: Any, namespace: str, name: str, sub: str, opts: Mapping[str, Any]) -> Location:
    """`streamLocation` (exec, attach: the container checked first) and `PortForwardLocation` (none checked):
    the kubelet's `/<exec|attach>/<ns>/<pod>/<container>` or `/portForward/<ns>/<pod>`, `streamParams`' query."""
    pod = _pod(registry, namespace, name)
    container = "" if sub == "portforward" else validate_container(str(opts.get("container") or ""), pod)
    node = _spec(pod).get("nodeName")
    if not node:
        raise E.bad_request(f"pod {name} does not have a host assigned")
    info = connection_info(registry, str(node))
    if sub == "portforward":
        ports = [str(p) for p in opts.get("ports") or ()]
        return Location(info.scheme, info.host, info.port, f"/portForward/{namespace}/{name}",
                        _encode([("port", ",".join(ports))] if ports else []), kubelet=True)
    params = [(q, "1") for k, q in _STREAM_PARAMS if opts.get(k)]
    params += [("command", str(c)) for c in opts.get("command") or ()] if sub == "exec" else []
    return Location(info.scheme, info.host, info.port, f"/{sub}/{namespace}/{name}/{container}", _encode(params),
                    kubelet=True)


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


def _parse_ip(ip: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """`netutils.ParseIPSloppy` (leading zeros read as decimal)."""
    try:
        if "." in ip and ":" not in ip:
            ip = ".".join(str(int(p, 10)) for p in ip.split("."))
        return ipaddress.ip_address(ip)
    except ValueError:
        return None


def global_unicast(ip: str) -> bool:
    """`netutils.ParseIPSloppy(ip).IsGlobalUnicast()`."""
    addr = _parse_ip(ip)
    if addr is None:
        return False
    if addr.version == 4:
        return not (addr.is_loopback or addr.is_link_local or addr.is_multicast or addr.is_unspecified
                    or int(addr) == 0xFFFFFFFF)
    return not (addr.is_loopback or addr.is_link_local or addr.is_multicast or addr.is_unspecified)


def pod_proxy(registry: Any, namespace: str, id_: str) -> Location:
    """`pod.ResourceLocation`: "name", "name:port" or "scheme:name:port"; no port: the first declared port of the
    first regular container that has one; a pod without a global unicast IP is refused."""
    scheme, name, port, valid = split_scheme_name_port(id_)
    if not valid:
        raise E.bad_request(f"invalid pod request {quote(id_)}")
    pod = _pod(registry, namespace, name)
    if not port:
        for c in as_list(_spec(pod).get("containers")):
            ports = [p for p in as_list(c.get("ports")) if isinstance(p, dict)] if isinstance(c, dict) else []
            if ports:
                port = str(ports[0].get("containerPort") or 0)
                break
    ips = [p.get("ip") for p in as_list((pod.get("status") or {}).get("podIPs")) if isinstance(p, dict)]
    ip = str(ips[0] or "") if ips else ""
    if not global_unicast(ip):
        raise E.bad_request("address not allowed")
    return Location(scheme, ip, port)


def node_proxy(registry: Any, id_: str) -> Location:
    """`node.ResourceLocation`: the Node's connection info first (its NotFound answers), then its address must be
    global unicast (an IP here; a host name `resolve`s in the HTTP layer); no port or the kubelet's: the kubelet
    with its transport; another port: the scheme asked for, with the proxy transport."""
    scheme, name, port, valid = split_scheme_name_port(id_)
    if not valid:
        raise E.bad_request(f"invalid node request {quote(id_)}")
    info = connection_info(registry, name)
    resolve = False
    if is_ip(info.host):
        if not global_unicast(info.host):
            raise E.bad_request("address not allowed")
    else:
        resolve = True
    if not port or port == info.port:
        return Location(info.scheme, info.host, info.port, kubelet=True, resolve=resolve)
    return Location(scheme, info.host, port, resolve=resolve)


def is_ip(host: str) -> bool:
    """Whether `host` parses as an IP (`netutils.ParseIPSloppy`), not a name to resolve."""
    return _parse_ip(host) is not None


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


def service_proxy(registry: Any, namespace: str, id_: str) -> Location:
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
                        return Location(scheme, str(addr.get("ip") or ""), str(p.get("port")))
    raise service_unavailable(f"no endpoints available for service {quote(id_)}")


__all__ = ["Location", "connection_info", "container_names", "escaped_path", "global_unicast", "go_path_clean",
           "go_path_join", "is_ip", "log_options", "node_proxy", "parse_int64", "pod_log", "pod_proxy",
           "query_bool", "query_int", "query_time", "query_value", "service_proxy", "service_unavailable",
           "split_scheme_name_port", "stream_location", "validate_container"]

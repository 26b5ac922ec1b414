"""core/v1 Endpoints: decode-time defaults, validation and the repacking the REST strategy does.

Upstream: `pkg/apis/core/v1/defaults.go` (`SetDefaults_Endpoints`: a port without protocol is TCP),
`pkg/apis/core/validation/validation.go` (`ValidateEndpoints`: every subset has `addresses` or
`notReadyAddresses`; addresses are IPs that are not unspecified, loopback or link-local (`ValidateEndpointIP`);
ports are named when there are several, in range, with a supported protocol) and
`pkg/registry/core/endpoint/strategy.go` (`Canonicalize`: `endpoints.RepackSubsets`, so addresses that share
the same ports end up in one subset, ready winning over not ready; its warnings: registry/endpointwarnings.py).
The kind is deprecated since 1.33: every
request on it carries the `Warning` its `ResourceInfo.deprecation` names (KEP-4974).
"""
from __future__ import annotations

import ipaddress
from typing import Any

from ..apierrors import FieldError, field_invalid, field_not_supported, field_required
from .endpointwarnings import endpoints_warnings
from .status_validation import parse_ip_sloppy
from .strategy import Strategy
from .validation import is_dns1123_label, is_dns1123_subdomain, is_valid_port_num
from .shapes import as_list

PROTOCOLS = ("SCTP", "TCP", "UDP")
_IP_EXAMPLE = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in as_list(value) if isinstance(v, dict)]


def _parse_ip(ip: Any) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """`netutils.ParseIPSloppy` (`IsValidIPForLegacyField` with strict validation off, as 1.33 ships: leading
    zeros pass, and are warned of), an IPv4-mapped address judged as the IPv4 one it is (Go's `net.IP`)."""
    addr = parse_ip_sloppy(ip) if isinstance(ip, str) else None
    mapped = addr.ipv4_mapped if isinstance(addr, ipaddress.IPv6Address) else None
    return mapped if mapped is not None else addr


def special_ip_errors(ip: str, path: str) -> list[FieldError]:
    """`ValidateEndpointIP`: no unspecified, loopback or link-local address (they name the node, not a pod)."""
    addr = _parse_ip(ip)
    if addr is None:
        return [field_invalid(path, ip, "must be a valid IP address")]
    errs = []
    if addr.is_unspecified:
        errs.append(field_invalid(path, ip, f"may not be unspecified ({ip})"))
    if addr.is_loopback:
        errs.append(field_invalid(path, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
    if addr.is_link_local:
        errs.append(field_invalid(path, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
    if (addr.version == 4 and addr in ipaddress.ip_network("224.0.0.0/24")) or \
            (addr.version == 6 and (int(addr) >> 112) & 0xff0f == 0xff02):
        errs.append(field_invalid(path, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
    return errs


def _address_errors(addr: dict[str, Any], path: str) -> list[FieldError]:
    """`validateEndpointAddress`: the special-range checks run only when the rest is valid."""
    ip = addr.get("ip")
    errs = [] if _parse_ip(ip) is not None else [field_invalid(f"{path}.ip", ip if ip is not None else "",
                                                               _IP_EXAMPLE)]
    hostname = addr.get("hostname")
    if isinstance(hostname, str) and hostname:
        errs += [field_invalid(f"{path}.hostname", hostname, m) for m in is_dns1123_label(hostname)]
    node = addr.get("nodeName")
    if isinstance(node, str):
        errs += [field_invalid(f"{path}.nodeName", node, m) for m in is_dns1123_subdomain(node)]
    return errs or special_ip_errors(ip, f"{path}.ip")


def _port_errors(port: dict[str, Any], require_name: bool, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    name = port.get("name") or ""
    if require_name and not name:
        errs.append(field_required(f"{path}.name"))
    elif name:
        errs += [field_invalid(f"{path}.name", name, m) for m in is_dns1123_label(str(name))]
    num = port.get("port")
    errs += [field_invalid(f"{path}.port", num if num is not None else 0, m) for m in is_valid_port_num(num)]
    proto = port.get("protocol")
    if not proto:
        errs.append(field_required(f"{path}.protocol"))
    elif proto not in PROTOCOLS:
        errs.append(field_not_supported(f"{path}.protocol", proto, PROTOCOLS))
    return errs


def validate_subsets(subsets: Any) -> list[FieldError]:
    """`validateEndpointSubsets`."""
    errs: list[FieldError] = []
    for i, ss in enumerate(as_list(subsets)):
        ss = ss if isinstance(ss, dict) else {}
        path = f"subsets[{i}]"
        if not as_list(ss.get("addresses")) and not as_list(ss.get("notReadyAddresses")):
            errs.append(field_required(path, "must specify `addresses` or `notReadyAddresses`"))
        for j, addr in enumerate(as_list(ss.get("addresses"))):
            errs += _address_errors(addr if isinstance(addr, dict) else {}, f"{path}.addresses[{j}]")
        for j, addr in enumerate(as_list(ss.get("notReadyAddresses"))):
            errs += _address_errors(addr if isinstance(addr, dict) else {}, f"{path}.notReadyAddresses[{j}]")
        ports = as_list(ss.get("ports"))
        for j, port in enumerate(ports):
            errs += _port_errors(port if isinstance(port, dict) else {}, len(ports) > 1, f"{path}.ports[{j}]")
    return errs


def _port_key(port: dict[str, Any]) -> tuple[Any, ...]:
    return (port.get("name") or "", port.get("port") or 0, port.get("protocol") or "", port.get("appProtocol") or "")


def _address_key(addr: dict[str, Any]) -> tuple[str, str]:
    """`addressKey`: the IP and the target's uid (two pods may have had one IP)."""
    return str(addr.get("ip", "")), str((addr.get("targetRef") or {}).get("uid", ""))


def repack_subsets(subsets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`endpoints.RepackSubsets`: one subset per distinct set of addresses, carrying every port they share;
    an address ready for a port in any subset is ready for it. Addresses sort by IP, then target uid."""
    addresses: dict[tuple[str, str], dict[str, Any]] = {}
    by_port: dict[tuple[Any, ...], dict[tuple[str, str], bool]] = {}
    ports: dict[tuple[Any, ...], dict[str, Any] | None] = {}
    for ss in subsets:
        for port in _dicts(ss.get("ports")) or [None]:
            pk = _port_key(port) if port is not None else ("", -1, "", "")  # a sentinel for port-less subsets
            ports.setdefault(pk, port)
            ready_of = by_port.setdefault(pk, {})
            for ready, field in ((True, "addresses"), (False, "notReadyAddresses")):
                for addr in _dicts(ss.get(field)):
                    key = _address_key(addr)
                    addresses.setdefault(key, addr)
                    ready_of[key] = ready_of.get(key, False) or ready
    groups: dict[tuple[Any, ...], list[Any]] = {}
    for pk, ready_of in by_port.items():
        group = tuple(sorted(ready_of.items()))
        groups.setdefault(group, [])
        if ports[pk] is not None:
            groups[group].append(ports[pk])
    out = []
    for group, group_ports in groups.items():
        ss: dict[str, Any] = {}
        ready = [addresses[k] for k, r in group if r]
        not_ready = [addresses[k] for k, r in group if not r]
        if ready:
            ss["addresses"] = ready
        if not_ready:
            ss["notReadyAddresses"] = not_ready
        if group_ports:
            ss["ports"] = sorted(group_ports, key=_port_key)
        out.append(ss)
    return out


class EndpointsStrategy(Strategy):
    """`endpointsStrategy`: defaults, `ValidateEndpointsCreate`/`Update`, `Canonicalize` (repack)."""

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        super().default(obj, update=update)
        for ss in _dicts(obj.get("subsets")):
            for port in _dicts(ss.get("ports")):
                if not port.get("protocol"):
                    port["protocol"] = "TCP"

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + validate_subsets(obj.get("subsets"))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + validate_subsets(new.get("subsets"))

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return endpoints_warnings(obj)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return endpoints_warnings(new)

    def canonicalize(self, obj: dict[str, Any]) -> None:
        subsets = obj.get("subsets")
        if isinstance(subsets, list):
            repacked = repack_subsets([ss for ss in subsets if isinstance(ss, dict)])
            if repacked:
                obj["subsets"] = repacked
            else:
                obj.pop("subsets", None)

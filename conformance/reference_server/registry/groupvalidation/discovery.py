"""`pkg/apis/discovery/validation/validation.go` (1.33) `ValidateEndpointSliceCreate`/`ValidateEndpointSliceUpdate`:
the address type (the deprecated `IP` only kept by an update; immutable), at most 1000 endpoints of 1 to 100
addresses each, addresses by type (IPv4/IPv6: `IsValidIPForLegacyField` with strict validation off, then the family
and `ValidateEndpointIP`; FQDN: `IsFullyQualifiedDomainName`), nodeName, topology labels (at most 16), hostname,
zone hints (at most 8, unique label values), and at most 100 ports with unique DNS-label names, a protocol and a
qualified-name appProtocol."""
from __future__ import annotations

import ipaddress
from typing import Any

from ...apierrors import FieldError, _go_quote, field_invalid, field_not_supported, field_required
from ..endpoints import special_ip_errors
from ..shapes import as_dict, as_list
from ..status_validation import INVALID_IP, parse_ip_sloppy
from ..validation import is_dns1123_label, is_dns1123_subdomain, is_label_value, is_qualified_name, validate_labels
from .formats import fully_qualified_domain_name

ADDRESS_TYPES = ("FQDN", "IPv4", "IPv6")
PROTOCOLS = ("SCTP", "TCP", "UDP")
MAX_ENDPOINTS, MAX_ADDRESSES, MAX_PORTS, MAX_TOPOLOGY_LABELS, MAX_ZONE_HINTS = 1000, 100, 100, 16, 8


def too_many(path: str, actual: int, most: int) -> FieldError:
    """`field.TooMany`."""
    return FieldError("FieldValueTooMany", path, f"Too many: {actual}: must have at most {most} items")


def duplicate(path: str, value: Any) -> FieldError:
    """`field.Duplicate` of a string."""
    return FieldError("FieldValueDuplicate", path, f"Duplicate value: {_go_quote(value)}")


def _address_errors(address: Any, address_type: str, path: str) -> list[FieldError]:
    text = str(address)
    if address_type == "FQDN":
        return fully_qualified_domain_name(path, text)
    if address_type not in ("IPv4", "IPv6", "IP"):
        return []  # an unknown type was refused above; its addresses are not checked
    ip = parse_ip_sloppy(text)
    if ip is None:
        return [field_invalid(path, text, INVALID_IP)]
    if address_type == "IP":
        return []
    v4 = ip.version == 4 or (isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None)
    errs = []
    if address_type == "IPv4" and not v4:
        errs.append(field_invalid(path, text, "must be an IPv4 address"))
    if address_type == "IPv6" and v4:
        errs.append(field_invalid(path, text, "must be an IPv6 address"))
    try:
        ipaddress.ip_address(text)
    except ValueError:  # leading zeros: judged by the address they mean
        text = str(ip)
    return errs + special_ip_errors(text, path)


def _hints_errors(hints: dict[str, Any], path: str) -> list[FieldError]:
    """`validateHints`."""
    zones = as_list(hints.get("forZones"))
    if len(zones) > MAX_ZONE_HINTS:
        return [too_many(f"{path}.forZones", len(zones), MAX_ZONE_HINTS)]
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, zone in enumerate(zones):
        name, zpath = str(as_dict(zone).get("name") or ""), f"{path}.forZones[{i}].name"
        if name in seen:
            errs.append(duplicate(zpath, name))
        seen.add(name)
        errs += [field_invalid(zpath, name, m) for m in is_label_value(name)]
    return errs


def _endpoints_errors(endpoints: list[Any], address_type: str) -> list[FieldError]:
    """`validateEndpoints`."""
    if len(endpoints) > MAX_ENDPOINTS:
        return [too_many("endpoints", len(endpoints), MAX_ENDPOINTS)]
    errs: list[FieldError] = []
    for i, ep in enumerate(endpoints):
        ep, path = as_dict(ep), f"endpoints[{i}]"
        addresses = as_list(ep.get("addresses"))
        if not addresses:
            errs.append(field_required(f"{path}.addresses", "must contain at least 1 address"))
        elif len(addresses) > MAX_ADDRESSES:
            errs.append(too_many(f"{path}.addresses", len(addresses), MAX_ADDRESSES))
        for j, address in enumerate(addresses):
            errs += _address_errors(address, address_type, f"{path}.addresses[{j}]")
        node = ep.get("nodeName")
        if isinstance(node, str):
            errs += [field_invalid(f"{path}.nodeName", node, m) for m in is_dns1123_subdomain(node)]
        topology = as_dict(ep.get("deprecatedTopology"))
        if len(topology) > MAX_TOPOLOGY_LABELS:
            errs.append(too_many(f"{path}.deprecatedTopology", len(topology), MAX_TOPOLOGY_LABELS))
        errs += validate_labels(topology, f"{path}.deprecatedTopology")
        hostname = ep.get("hostname")
        if isinstance(hostname, str):
            errs += [field_invalid(f"{path}.hostname", hostname, m) for m in is_dns1123_label(hostname)]
        if isinstance(ep.get("hints"), dict):
            errs += _hints_errors(ep["hints"], f"{path}.hints")
    return errs


def _ports_errors(ports: list[Any]) -> list[FieldError]:
    """`validatePorts` (a port's name defaults to "" in v1)."""
    if len(ports) > MAX_PORTS:
        return [too_many("ports", len(ports), MAX_PORTS)]
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(ports):
        port, path = as_dict(port), f"ports[{i}]"
        name = str(port.get("name") or "")
        if name:
            errs += [field_invalid(f"{path}.name", name, m) for m in is_dns1123_label(name)]
        if name in names:
            errs.append(duplicate(f"{path}.name", name))
        names.add(name)
        protocol = port.get("protocol")
        if protocol is None:
            errs.append(field_required(f"{path}.protocol"))
        elif protocol not in PROTOCOLS:
            errs.append(field_not_supported(f"{path}.protocol", protocol, PROTOCOLS))
        app = port.get("appProtocol")
        if isinstance(app, str):
            errs += [field_invalid(f"{path}.appProtocol", app, m) for m in is_qualified_name(app)]
    return errs


def endpoint_slice_errors(obj: dict[str, Any], *, update: bool = False) -> list[FieldError]:
    """`ValidateEndpointSlice` after the metadata: addressType, endpoints, ports."""
    valid = ADDRESS_TYPES + ("IP",) if update else ADDRESS_TYPES
    address_type = obj.get("addressType")
    errs: list[FieldError] = []
    if not address_type:
        errs.append(field_required("addressType"))
    elif address_type not in valid:
        errs.append(field_not_supported("addressType", address_type, sorted(valid)))
    errs += _endpoints_errors(as_list(obj.get("endpoints")), str(address_type or ""))
    return errs + _ports_errors(as_list(obj.get("ports")))

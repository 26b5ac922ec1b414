"""apimachinery's `pkg/util/validation/ip.go` (0.33) `GetWarningsForIP`: an IP address that validation accepts
(`IsValidIPForLegacyField`, i.e. `netutils.ParseIPSloppy`) but in a form 1.33 warns of (kubernetes#128786): one
`netip.ParseAddr` refuses (an IPv4 part with a leading zero) or an IPv4-mapped IPv6 address, to be written as
`net.IP.String()` writes it, and an IPv6 address not in RFC 5952's canonical form. `GetWarningsForCIDR`, its
counterpart for CIDR values (`IsValidCIDRForLegacyField`): host bits set (ambiguous), a form `netip.ParsePrefix`
refuses (leading zeros in the address or the prefix length) or an IPv4-mapped address, and an IPv6 prefix not in
canonical form (only when neither other warning was given)."""
from __future__ import annotations

import ipaddress
from typing import Any

from ..goport.gonet.strconv import quote
from .groupvalidation.formats import parse_cidr_sloppy
from .shapes import as_dict, as_list
from .status_validation import parse_ip_sloppy

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def ip_warnings(path: str, value: str) -> list[str]:
    """The warning (at most one) for the address `value` at the field `path`; none for what does not parse."""
    ip = parse_ip_sloppy(value)
    if ip is None:
        return []
    try:
        addr: ipaddress.IPv4Address | ipaddress.IPv6Address | None = ipaddress.ip_address(value)
    except ValueError:
        addr = None
    if addr is None or (isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None):
        return [f"{path}: non-standard IP address {quote(value)} will be considered invalid in a future Kubernetes "
                f"release: use {quote(_go_ip(ip))}"]
    if isinstance(addr, ipaddress.IPv6Address) and str(addr) != value:
        return [f"{path}: IPv6 address {quote(value)} should be in RFC 5952 canonical format ({quote(str(addr))})"]
    return []


def entry_ip_warnings(path: str, entries: Any) -> list[str]:
    """`GetWarningsForIP(<path>[i].ip, entries[i].IP)` over a list of objects holding an `ip` (host aliases, pod and
    host IPs)."""
    out = []
    for i, entry in enumerate(as_list(entries)):
        ip = as_dict(entry).get("ip")
        if isinstance(ip, str):
            out += ip_warnings(f"{path}[{i}].ip", ip)
    return out


def _go_ip(ip: Address) -> str:
    """`net.IP.String()`: an IPv4-mapped IPv6 address is written as IPv4."""
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return str(mapped if mapped is not None else ip)


def _go_net(net: ipaddress.IPv4Network | ipaddress.IPv6Network) -> str:
    """`net.IPNet.String()`: its (masked) address as `net.IP.String()` writes it, then the prefix length."""
    return f"{_go_ip(net.network_address)}/{net.prefixlen}"


def cidr_warnings(path: str, value: str) -> list[str]:
    """`GetWarningsForCIDR(path, value)`: none for what does not parse (validation's to refuse)."""
    net = parse_cidr_sloppy(value)
    if net is None:
        return []
    addr_text, _, bits = value.partition("/")
    ip = parse_ip_sloppy(addr_text)
    assert ip is not None  # parse_cidr_sloppy parsed it
    out = []
    if ip != net.network_address:
        out.append(f"{path}: CIDR value {quote(value)} is ambiguous in this context (should be "
                   f"{quote(_go_net(net))} or {quote(f'{_go_ip(ip)}/{ip.max_prefixlen}')}?)")
    try:
        addr: Address | None = ipaddress.ip_address(addr_text)
    except ValueError:
        addr = None
    if addr is None or (len(bits) > 1 and bits.startswith("0")) or \
            (isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None):
        out.append(f"{path}: non-standard CIDR value {quote(value)} will be considered invalid in a future "
                   f"Kubernetes release: use {quote(_go_net(net))}")
    if not out and isinstance(addr, ipaddress.IPv6Address) and f"{addr}/{int(bits)}" != value:
        out.append(f"{path}: IPv6 CIDR value {quote(value)} should be in RFC 5952 canonical format "
                   f"({quote(f'{addr}/{int(bits)}')})")
    return out


__all__ = ["cidr_warnings", "entry_ip_warnings", "ip_warnings"]

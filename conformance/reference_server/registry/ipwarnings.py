"""apimachinery's `pkg/util/validation/ip.go` (0.33) `GetWarningsForIP`: an IP address that validation accepts
(`IsValidIPForLegacyField`, i.e. `netutils.ParseIPSloppy`) but in a form 1.33 warns of (kubernetes#128786): one
`netip.ParseAddr` refuses (an IPv4 part with a leading zero) or an IPv4-mapped IPv6 address, to be written as
`net.IP.String()` writes it, and an IPv6 address not in RFC 5952's canonical form."""
from __future__ import annotations

import ipaddress

from ..gonet.strconv import quote
from .status_validation import parse_ip_sloppy


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
        mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
        shown = str(mapped if mapped is not None else ip)  # net.IP.String(): a mapped address as IPv4
        return [f"{path}: non-standard IP address {quote(value)} will be considered invalid in a future Kubernetes "
                f"release: use {quote(shown)}"]
    if isinstance(addr, ipaddress.IPv6Address) and str(addr) != value:
        return [f"{path}: IPv6 address {quote(value)} should be in RFC 5952 canonical format ({quote(str(addr))})"]
    return []


__all__ = ["ip_warnings"]

"""Format checks of apimachinery `pkg/util/validation/validation.go` and `ip.go` (v0.33) that the group kinds'
validation uses (the port checks are registry/validation.py's): `IsWildcardDNS1123Subdomain`, `IsDomainPrefixedPath`,
`IsFullyQualifiedDomainName`, `IsValidCIDR` and the sloppy (`StrictIPCIDRValidation` off, as 1.33 ships) CIDR parse of
`IsValidCIDRForLegacyField`."""
from __future__ import annotations

import ipaddress
import re

from ...apierrors import FieldError, field_invalid, field_required
from ..status_validation import parse_ip_sloppy
from ..validation import is_dns1123_label, is_dns1123_subdomain, max_len_error, regex_error

_WILDCARD_FMT = r"\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_WILDCARD_MSG = ("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must "
                 "consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character")
_HTTP_PATH_FMT = r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+"
INVALID_CIDR = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"


def is_wildcard_dns1123_subdomain(value: str) -> list[str]:
    """`IsWildcardDNS1123Subdomain`."""
    errs = []
    if len(value) > 253:
        errs.append(max_len_error(253))
    if not re.fullmatch(_WILDCARD_FMT, value):
        errs.append(regex_error(_WILDCARD_MSG, _WILDCARD_FMT, "*.example.com"))
    return errs


def domain_prefixed_path(path: str, value: str) -> list[FieldError]:
    """`IsDomainPrefixedPath`: a subdomain, "/", then RFC 3986 path characters."""
    if not value:
        return [field_required(path)]
    host, sep, rest = value.partition("/")
    if not sep or not host or not rest:
        return [field_invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    errs = [field_invalid(path, host, m) for m in is_dns1123_subdomain(host)]
    if not re.fullmatch(_HTTP_PATH_FMT, rest):
        errs.append(field_invalid(path, rest, regex_error("Invalid path", _HTTP_PATH_FMT)))
    return errs


def fully_qualified_domain_name(path: str, name: str) -> list[FieldError]:
    """`IsFullyQualifiedDomainName`: at least two labels, a trailing dot allowed."""
    if not name:
        return [field_required(path)]
    name = name[:-1] if name.endswith(".") else name
    errs = is_dns1123_subdomain(name)
    if errs:
        return [field_invalid(path, name, ",".join(errs))]
    if len(name.split(".")) < 2:
        return [field_invalid(path, name, "should be a domain with at least two segments separated by dots")]
    for label in name.split("."):
        errs = is_dns1123_label(label)
        if errs:
            return [field_invalid(path, label, ",".join(errs))]
    return []


def parse_cidr_sloppy(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """`netutils.ParseCIDRSloppy`: the network (host bits cleared) or None."""
    addr, sep, bits = text.partition("/")
    ip = parse_ip_sloppy(addr) if sep else None
    if ip is None or not bits.isascii() or not bits.isdigit() or len(bits) > 3:
        return None
    if int(bits) > ip.max_prefixlen:
        return None
    return ipaddress.ip_network(f"{ip}/{int(bits)}", strict=False)


def strict_cidr_errors(path: str, value: str) -> list[FieldError]:
    """`IsValidCIDR` (1.33's `parseCIDR` with strict validation): the sloppy parse, then what `netip.ParsePrefix`
    refuses (leading 0s), an IPv4-mapped IPv6 address, and bits set beyond the prefix length."""
    net = parse_cidr_sloppy(value)
    if net is None:
        return [field_invalid(path, value, INVALID_CIDR)]
    addr_text, _, bits = value.partition("/")
    try:
        addr = ipaddress.ip_address(addr_text)
    except ValueError:
        addr = None
    if addr is None or (len(bits) > 1 and bits.startswith("0")):
        return [field_invalid(path, value, "must not have leading 0s in IP or prefix length")]
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return [field_invalid(path, value, "must not have an IPv4-mapped IPv6 address")]
    if addr != net.network_address:
        return [field_invalid(path, value, "must not have bits set beyond the prefix length")]
    return []


def cidr_errors(path: str, value: str, valid_old: tuple[str, ...] = ()) -> list[FieldError]:
    """`IsValidCIDRForLegacyField` with strict validation off: a value of the old object passes unchecked."""
    if value in valid_old or parse_cidr_sloppy(value) is not None:
        return []
    return [field_invalid(path, value, INVALID_CIDR)]

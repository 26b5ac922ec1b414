"""`library.IP` and `library.CIDR` (`staging/src/k8s.io/apiserver/pkg/cel/library/ip.go`, `cidr.go`, enabled since
1.30) over Go's `net/netip` rules: `ip`, `isIP`, `ip.isCanonical`, `family`, `isUnspecified`, `isLoopback`,
`isLinkLocalMulticast`, `isLinkLocalUnicast`, `isGlobalUnicast`, `string`; `cidr`, `isCIDR`, `containsIP`,
`containsCIDR`, `ip` (of a CIDR), `prefixLength`, `masked`, `string`.

`netip.ParseAddr`'s parse (`parseIPv4Fields`, `parseIPv6`) is ported with its error texts. Addresses print as
`Addr.String()`: RFC 5952 for IPv6, which Python's `compressed` form is."""
from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any

from .values import CIDR, IP, LibraryError, go_quote, type_name, unwrap, wrap

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _addr_error(raw: str, msg: str, at: str = "") -> str:
    text = f"ParseAddr({go_quote(raw)}): {msg}"
    return text + (f" (at {go_quote(at)})" if at else "")


def _ipv4_error(raw: str, s: str) -> str | None:
    """netip's `parseIPv4Fields` scan of `s` (the whole input, or the tail of an IPv6 address)."""
    val = digits = pos = 0
    for i, ch in enumerate(s):
        if "0" <= ch <= "9":
            if digits == 1 and val == 0:
                return _addr_error(raw, "IPv4 field has octet with leading zero")
            val, digits = val * 10 + int(ch), digits + 1
            if val > 255:
                return _addr_error(raw, "IPv4 field has value >255")
        elif ch == ".":
            if i == 0 or i == len(s) - 1 or s[i - 1] == ".":
                return _addr_error(raw, "IPv4 field must have at least one digit", s[i:])
            if pos == 3:
                return _addr_error(raw, "IPv4 address too long")
            pos, val, digits = pos + 1, 0, 0
        else:
            return _addr_error(raw, "unexpected character", s[i:])
    return _addr_error(raw, "IPv4 address too short") if pos < 3 else None


def _ipv6(raw: str) -> tuple[Address, str]:
    """netip's `parseIPv6`, its errors word for word."""
    s, zone = raw, ""
    if "%" in s:
        s, _, zone = s.partition("%")
        if not zone:
            raise LibraryError(_addr_error(raw, "zone must be a non-empty string"))
    ip = bytearray(16)
    ellipsis, i = -1, 0
    if s.startswith("::"):
        ellipsis, s = 0, s[2:]
        if not s:
            return ipaddress.IPv6Address(bytes(ip)), zone
    while i < 16:
        off = acc = 0
        while off < len(s) and s[off] in "0123456789abcdefABCDEF":
            acc = (acc << 4) + int(s[off], 16)
            if off > 3:
                raise LibraryError(_addr_error(raw, "each group must have 4 or less digits", s))
            if acc > 0xFFFF:
                raise LibraryError(_addr_error(raw, "IPv6 field has value >=2^16", s))
            off += 1
        if off == 0:
            raise LibraryError(_addr_error(raw, "each colon-separated field must have at least one digit", s))
        if off < len(s) and s[off] == ".":
            if ellipsis < 0 and i != 12:
                raise LibraryError(_addr_error(
                    raw, "embedded IPv4 address must replace the final 2 fields of the address", s))
            if i + 4 > 16:
                raise LibraryError(_addr_error(
                    raw, "too many hex fields to fit an embedded IPv4 at the end of the address", s))
            err = _ipv4_error(raw, s)
            if err:
                raise LibraryError(err)
            ip[i:i + 4] = ipaddress.IPv4Address(s).packed
            i, s = i + 4, ""
            break
        ip[i], ip[i + 1] = acc >> 8, acc & 0xFF
        i, s = i + 2, s[off:]
        if not s:
            break
        if s[0] != ":":
            raise LibraryError(_addr_error(raw, "unexpected character, want colon", s))
        if len(s) == 1:
            raise LibraryError(_addr_error(raw, "colon must be followed by more characters", s))
        s = s[1:]
        if s[0] == ":":
            if ellipsis >= 0:
                raise LibraryError(_addr_error(raw, "multiple :: in address", s))
            ellipsis, s = i, s[1:]
            if not s:
                break
    if s:
        raise LibraryError(_addr_error(raw, "trailing garbage after address", s))
    if i < 16:
        if ellipsis < 0:
            raise LibraryError(_addr_error(raw, "address string too short"))
        n = 16 - i
        ip[ellipsis + n:16] = ip[ellipsis:i]
        ip[ellipsis:ellipsis + n] = bytes(n)
    elif ellipsis >= 0:
        raise LibraryError(_addr_error(raw, "the :: must expand to at least one field of zeros", s))
    return ipaddress.IPv6Address(bytes(ip)), zone


def parse_addr(raw: str) -> tuple[Address, str]:
    """`netip.ParseAddr`: the address and its zone, or LibraryError with Go's message."""
    for ch in raw:
        if ch == ".":
            err = _ipv4_error(raw, raw)
            if err:
                raise LibraryError(err)
            return ipaddress.IPv4Address(raw), ""
        if ch == ":":
            return _ipv6(raw)
        if ch == "%":
            raise LibraryError(_addr_error(raw, "missing IPv6 address"))
    raise LibraryError(_addr_error(raw, "unable to parse IP"))


def _is_4in6(addr: Address) -> bool:
    return isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None


def parse_ip(raw: str) -> Address:
    """ip.go `parseIPAddr`: no zones, no IPv4-mapped IPv6."""
    try:
        addr, zone = parse_addr(raw)
    except LibraryError as exc:
        raise LibraryError(f"IP Address {go_quote(raw)} parse error during conversion from string: {exc}") from None
    if zone:
        raise LibraryError(f"IP address {go_quote(raw)} with zone value is not allowed")
    if _is_4in6(addr):
        raise LibraryError(f"IPv4-mapped IPv6 address {go_quote(raw)} is not allowed")
    return addr


def parse_cidr(raw: str) -> tuple[Address, int]:
    """cidr.go `parseCIDR` over `netip.ParsePrefix` (its message prefix doubled, as upstream's is)."""
    def fail(msg: str) -> LibraryError:
        return LibraryError("network address parse error during conversion from string: "
                            f"netip.ParsePrefix({go_quote(raw)}): {msg}")
    at = raw.rfind("/")
    if at < 0:
        raise fail("no '/'")
    try:
        addr, zone = parse_addr(raw[:at])
    except LibraryError as exc:
        raise fail(str(exc)) from None
    if zone:
        raise fail("IPv6 zones cannot be present in a prefix")
    bits = raw[at + 1:]
    if (len(bits) > 1 and not "1" <= bits[0] <= "9") or not bits.isdigit() or not bits.isascii():
        raise fail(f"bad bits after slash: {go_quote(bits)}")
    if int(bits) > addr.max_prefixlen:
        raise fail("prefix length out of range")
    if _is_4in6(addr):
        raise LibraryError(f"IPv4-mapped IPv6 address {go_quote(raw)} is not allowed")
    return addr, int(bits)


def _string_to_cidr(raw: str) -> tuple[Address, int]:
    """cidr.go `stringToCIDR`: `parseCIDR`'s error behind the prefix once more."""
    try:
        return parse_cidr(raw)
    except LibraryError as exc:
        raise LibraryError(f"network address parse error during conversion from string: {exc}") from None


def _ip_value(addr: Address) -> dict[str, Any]:
    return wrap(IP, ip=addr.compressed)


def _addr(value: Any, function: str) -> Address:
    return ipaddress.ip_address(unwrap(value, IP, function)["ip"])


def _network(value: Any, function: str) -> tuple[Address, int]:
    text = unwrap(value, CIDR, function)["cidr"]
    addr, _, bits = text.rpartition("/")
    return ipaddress.ip_address(addr), int(bits)


def _str_arg(value: Any, function: str) -> str:
    if not isinstance(value, str):
        raise LibraryError(f"no such overload: {function}")
    return value


def ip(value: Any) -> dict[str, Any]:
    """`ip(<string>)`, and `<CIDR>.ip()` (the prefix's address, unmasked)."""
    if type_name(value) == CIDR:
        return _ip_value(_network(value, "ip")[0])
    return _ip_value(parse_ip(_str_arg(value, "ip")))


def _parses(parse: Callable[[str], Any], value: Any, function: str) -> bool:
    """`isIP`/`isCIDR`: whether the string parses (a non-string is no such overload)."""
    text = _str_arg(value, function)
    try:
        parse(text)
    except LibraryError:
        return False
    return True


def is_ip(value: Any) -> bool:
    return _parses(parse_ip, value, "isIP")


def is_canonical(value: Any) -> bool:
    raw = _str_arg(value, "ip.isCanonical")
    return parse_ip(raw).compressed == raw


def _cidr_value(addr: Address, bits: int) -> dict[str, Any]:
    return wrap(CIDR, cidr=f"{addr.compressed}/{bits}")


def cidr(value: Any) -> dict[str, Any]:
    return _cidr_value(*_string_to_cidr(_str_arg(value, "cidr")))


def is_cidr(value: Any) -> bool:
    return _parses(parse_cidr, value, "isCIDR")


def _masked(addr: Address, bits: int) -> Address:
    return ipaddress.ip_network(f"{addr}/{bits}", strict=False).network_address


def contains_ip(value: Any, other: Any) -> bool:
    addr, bits = _network(value, "containsIP")
    target = parse_ip(other) if isinstance(other, str) else _addr(other, "containsIP")
    return target.version == addr.version and _masked(target, bits) == _masked(addr, bits)


def contains_cidr(value: Any, other: Any) -> bool:
    addr, bits = _network(value, "containsCIDR")
    o_addr, o_bits = _string_to_cidr(other) if isinstance(other, str) else _network(other, "containsCIDR")
    return o_addr.version == addr.version and _masked(o_addr, bits) == _masked(addr, bits) and bits <= o_bits


def masked(value: Any) -> dict[str, Any]:
    addr, bits = _network(value, "masked")
    return _cidr_value(_masked(addr, bits), bits)


def to_string(value: Any) -> str:
    """`string(<IP>)`, `string(<CIDR>)`; the engine's own `string()` serves every other type first."""
    kind = type_name(value)
    if kind == IP:
        return value["ip"]
    if kind == CIDR:
        return value["cidr"]
    raise LibraryError(f"no such overload: string({kind})")


def _multicast_link_local(a: Address) -> bool:
    if a.version == 4:
        return a.packed[:3] == b"\xe0\x00\x00"
    return a.packed[0] == 0xFF and a.packed[1] & 0x0F == 0x02


def _global_unicast(a: Address) -> bool:
    if a.version == 4 and a.packed in (b"\0\0\0\0", b"\xff\xff\xff\xff"):
        return False
    return not (a.is_unspecified or a.is_loopback or a.is_multicast or a.is_link_local)


def _predicate(name: str, test: Callable[[Address], bool]) -> Callable[[Any], bool]:
    return lambda value: test(_addr(value, name))


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "ip": ip, "isIP": is_ip, "ip.isCanonical": is_canonical,
    "family": lambda value: _addr(value, "family").version,
    "isUnspecified": _predicate("isUnspecified", lambda a: a.is_unspecified),
    "isLoopback": _predicate("isLoopback", lambda a: a.is_loopback if a.version == 6
                             else a.packed[0] == 127),
    "isLinkLocalMulticast": _predicate("isLinkLocalMulticast", _multicast_link_local),
    "isLinkLocalUnicast": _predicate("isLinkLocalUnicast", lambda a: a.packed[:2] == b"\xa9\xfe" if a.version == 4
                                     else a.packed[0] == 0xFE and a.packed[1] & 0xC0 == 0x80),
    "isGlobalUnicast": _predicate("isGlobalUnicast", _global_unicast),
    "cidr": cidr, "isCIDR": is_cidr, "containsIP": contains_ip, "containsCIDR": contains_cidr,
    "prefixLength": lambda value: _network(value, "prefixLength")[1], "masked": masked,
    "string": to_string,
}

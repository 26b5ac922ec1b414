"""The string `format`s a custom resource's schema validation checks (kube-openapi's `strfmt.Default` registry).

Follows `apiextensions-apiserver/pkg/apiserver/validation/formats.go` (`supportedVersionedFormats`: the formats CRD
schemas support in 1.33, all introduced at 1.0) and the checkers kube-openapi registers for them
(`k8s.io/kube-openapi/pkg/validation/strfmt/default.go`, `bson.go`, `date.go`, `time.go`, `duration.go`, and its
forked govalidator; `uri` is Go's `url.ParseRequestURI` and `email` Go's `mail.ParseAddress`, both from gonet/).
A format name is matched with its dashes removed (`date-time` is `datetime`), as go-openapi's registry normalises
it; a format outside the set is not checked. A failing value is kube-openapi's `InvalidTypeFormat`
(`<path> in body must be of type <format>: "<value>"`), a `FieldValueTypeInvalid`.
"""
from __future__ import annotations

import ipaddress
import re
from datetime import date
from typing import Callable

from ..goport import gounicode
from ..goport.gonet import mail as gomail
from ..goport.gonet import url as gourl
from .crdrules.values import strfmt_duration
from .status_validation import parse_ip_sloppy

_UUID = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
_UUID3 = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
_UUID4 = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")
_UUID5 = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")
# HostnamePattern, with \p{L} (a letter outside ASCII) read as "a" and \p{S} (a symbol) as \x01 by `_hostname`
_HOSTNAME = re.compile(r"^([a-zA-Z0-9\x01]((-?[a-zA-Z0-9\x01]{0,62})?)|([a-zA-Z0-9\x01](([a-zA-Z0-9\-\x01]{0,61}"
                       r"[a-zA-Z0-9\x01])?)(\.)){1,}([a-zA-Z]){2,63})$")
_DATE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})$")
_TIME = re.compile(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$")  # rxDateTime
_BASE64 = re.compile(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$")
_ISBN10 = re.compile(r"^(?:[0-9]{9}X|[0-9]{10})$")
_ISBN13 = re.compile(r"^(?:[0-9]{13})$")
_CREDIT_CARD = re.compile(r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|"
                          r"3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11})$")
_SSN = re.compile(r"^[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}$")
_HEX_COLOR = re.compile(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")
_BYTE = r"(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])"
_RGB_COLOR = re.compile(rf"^rgb\(\s*{_BYTE}\s*,\s*{_BYTE}\s*,\s*{_BYTE}\s*\)$")


def _date(text: str) -> bool:
    """`IsDate`: Go's `time.Parse("2006-01-02", s)` (the day checked against its month and year)."""
    m = _DATE.match(text)
    if m is None:
        return False
    try:
        date(int(m[1]) or 1, int(m[2]), int(m[3]))  # year 0 is a leap year as 2000 is; Python has no year 0
    except ValueError:
        return False
    return True


def _date_time(text: str) -> bool:
    """`IsDateTime`: the date before the first `t` (case-blind), then rxDateTime on what follows it."""
    parts = text.lower().split("t")
    if len(text) < 4 or len(parts) < 2 or not _date(parts[0]):
        return False
    m = _TIME.search(parts[1])
    return m is not None and m[1] <= "23" and m[2] <= "59" and m[3] <= "59"


def _duration(text: str) -> bool:
    try:
        strfmt_duration(text)
    except ValueError:
        return False
    return True


def _hostname(text: str) -> bool:
    """`IsHostname`: HostnamePattern, at most 255 bytes, labels of at most 63 bytes; `\\p{L}` and `\\p{S}` are Go
    1.24's tables (Unicode 15.0.0)."""
    mapped = []
    for ch in text:
        if ch.isascii() and (ch.isalnum() or ch in "-."):
            mapped.append(ch)
        elif gounicode.category_of(ch).startswith("S"):
            mapped.append("\x01")
        elif not ch.isascii() and gounicode.category_of(ch).startswith("L"):
            mapped.append("a")
        else:
            return False
    if _HOSTNAME.match("".join(mapped)) is None or len(text.encode()) > 255:
        return False
    return all(len(p.encode()) <= 63 for p in text.split("."))


def _sloppy_ip(text: str) -> bool:
    """`netutils.ParseIPSloppy` (status_validation.parse_ip_sloppy), an embedded IPv4 tail of an IPv6 address
    read sloppily too (Go 1.16's parseIPv6 reads it with parseIPv4)."""
    head, _, tail = text.rpartition(":")
    if head and "." in tail:
        v4 = parse_ip_sloppy(tail)
        if not isinstance(v4, ipaddress.IPv4Address):
            return False
        text = f"{head}:{v4}"
    return parse_ip_sloppy(text) is not None


def _ipv6(text: str) -> bool:
    """govalidator's `IsIPv6`: `net.ParseIP` (strict) of a text with a colon."""
    return isinstance(parse_ip_sloppy(text), ipaddress.IPv6Address)


def _cidr(text: str) -> bool:
    """`netutils.ParseCIDRSloppy`."""
    addr, sep, bits = text.partition("/")
    if not sep or not bits.isascii() or not bits.isdigit() or not _sloppy_ip(addr):
        return False
    return int(bits) <= (32 if isinstance(parse_ip_sloppy(addr), ipaddress.IPv4Address) else 128)


def _mac(text: str) -> bool:
    """`net.ParseMAC`: 6, 8 or 20 octets as `xx:xx:...`, `xx-xx-...` or `xxxx.xxxx.xxxx`."""
    if len(text) < 14:
        return False
    if text[2] in ":-":
        if (len(text) + 1) % 3:
            return False
        groups, size = text.split(text[2]), 2
    elif text[4] == ".":
        if (len(text) + 1) % 5:
            return False
        groups, size = text.split("."), 4
    else:
        return False
    if len(groups) * size // 2 not in (6, 8, 20):
        return False
    return all(len(g) == size and all(c in "0123456789abcdefABCDEF" for c in g) for g in groups)


def _uri(text: str) -> bool:
    """govalidator's `IsRequestURI`: Go's `url.ParseRequestURI` succeeds (an absolute URI, or an absolute path)."""
    try:
        gourl.parse_request_uri(text)
    except gourl.URLError:
        return False
    return True


def _email(text: str) -> bool:
    """`IsEmail`: Go's `mail.ParseAddress` succeeds with a non-empty address."""
    try:
        return gomail.parse_address(text).address != ""
    except gomail.MailError:
        return False


def _isbn10(text: str) -> bool:
    s = re.sub(r"[\s-]+", "", text)
    if _ISBN10.match(s) is None:
        return False
    total = sum((i + 1) * int(s[i]) for i in range(9)) + (100 if s[9] == "X" else 10 * int(s[9]))
    return total % 11 == 0


def _isbn13(text: str) -> bool:
    s = re.sub(r"[\s-]+", "", text)
    if _ISBN13.match(s) is None:
        return False
    total = sum((1, 3)[i % 2] * int(s[i]) for i in range(12))
    return int(s[12]) - (10 - total % 10) % 10 == 0


def _credit_card(text: str) -> bool:
    """govalidator's `IsCreditCard`: the digits (anything else removed) match the card pattern and Luhn's sum."""
    s = re.sub(r"[^0-9]+", "", text)
    if _CREDIT_CARD.match(s) is None:
        return False
    total = 0
    for i, ch in enumerate(reversed(s)):
        n = int(ch) * (2 if i % 2 else 1)
        total += n % 10 + 1 if n >= 10 else n
    return total % 10 == 0


_CHECKERS: dict[str, Callable[[str], bool]] = {
    "bsonobjectid": lambda s: len(s) == 24 and all(c in "0123456789abcdefABCDEF" for c in s),
    "uri": _uri,
    "email": _email,
    "hostname": _hostname,
    "ipv4": lambda s: "." in s and _sloppy_ip(s),
    "ipv6": _ipv6,
    "cidr": _cidr,
    "mac": _mac,
    "uuid": lambda s: _UUID.match(s) is not None,
    "uuid3": lambda s: _UUID3.match(s) is not None,
    "uuid4": lambda s: _UUID4.match(s) is not None,
    "uuid5": lambda s: _UUID5.match(s) is not None,
    "isbn": lambda s: _isbn10(s) or _isbn13(s),
    "isbn10": _isbn10,
    "isbn13": _isbn13,
    "creditcard": _credit_card,
    "ssn": lambda s: len(s) == 11 and _SSN.match(s) is not None,
    "hexcolor": lambda s: _HEX_COLOR.match(s) is not None,
    "rgbcolor": lambda s: _RGB_COLOR.match(s) is not None,
    "byte": lambda s: _BASE64.match(s) is not None,
    "password": lambda s: True,
    "date": _date,
    "duration": _duration,
    "datetime": _date_time,
}


def checks(fmt: object) -> bool:
    """Whether upstream checks this format (`KnownFormats.ContainsName`)."""
    return isinstance(fmt, str) and fmt.replace("-", "") in _CHECKERS


def valid(fmt: str, value: str) -> bool:
    """Whether `value` is of the format (`KnownFormats.Validates`); a format upstream does not check is valid."""
    checker = _CHECKERS.get(fmt.replace("-", ""))
    return checker is None or checker(value)

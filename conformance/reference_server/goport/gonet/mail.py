"""Go 1.24's `net/mail.ParseAddress` (src/net/mail/message.go: `addrParser`, `parseSingleAddress`,
`parseAddress`, `consumeAddrSpec`, `consumePhrase`, `consumeQuotedString`, `consumeAtom`,
`consumeDomainLiteral`, `skipCFWS`, `consumeComment`) with its error texts (`mail: no address`,
`mail: no angle-addr`, `mail: missing @ in addr-spec`, `mail: missing '@' or angle-addr`, ...), and the RFC 2047
encoded-word decoding it applies to display names (src/mime/encodedword.go `WordDecoder.Decode`: utf-8,
iso-8859-1 and us-ascii; any other charset is `charset not supported: "<charset>"`, as net/mail's own
CharsetReader answers).

Like Go it reads the UTF-8 bytes of the text (strconv.to_bytes): `peek` and `consume` look at bytes, the atoms and
quoted strings at runes. `ParseAddress` is memoised. `domain-literal` IPs are judged by Go's `net.ParseIP`
(IPv4 dotted decimal without leading zeros, or IPv6).
"""
from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from dataclasses import dataclass

from ...memo import remember
from .strconv import quote, quote_bytes, to_bytes, to_text


class MailError(ValueError):
    """An error `mail.ParseAddress` returns; its text is Go's."""


@dataclass(frozen=True)
class Address:
    """Go's `mail.Address`."""
    name: str
    address: str


_RUNE_ERROR = 0xFFFD


def _decode_rune(s: str, i: int) -> tuple[int, int]:
    """`utf8.DecodeRuneInString(s[i:])` on bytes: (rune, size); (RuneError, 1) for an invalid byte, size 0 at end."""
    if i >= len(s):
        return _RUNE_ERROR, 0
    lead = ord(s[i])
    if lead < 0x80:
        return lead, 1
    n = 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else 4 if 0xF0 <= lead <= 0xF4 else 0
    chunk = s[i:i + n]
    if n == 0 or len(chunk) < n:
        return _RUNE_ERROR, 1
    try:
        return ord(chunk.encode("latin-1").decode("utf-8")), n
    except UnicodeDecodeError:
        return _RUNE_ERROR, 1


def _is_vchar(r: int) -> bool:
    return 0x21 <= r <= 0x7E or r >= 0x80


def _is_wsp(r: int) -> bool:
    return r in (0x20, 0x09)


def _is_atext(r: int, dot: bool) -> bool:
    if r == 0x2E:
        return dot
    if r < 0x80 and chr(r) in '()<>[]:;@\\,"':
        return False
    return _is_vchar(r)


def _is_qtext(r: int) -> bool:
    return r not in (0x5C, 0x22) and _is_vchar(r)


def _is_dtext(r: int) -> bool:
    return r not in (0x5B, 0x5D, 0x5C) and _is_vchar(r)


def _go_parse_ip(text: str) -> bool:
    """`net.ParseIP(text) != nil`: dotted-decimal IPv4 (no leading zeros) or IPv6 (a dotted tail allowed)."""
    if "%" in text:  # Python takes an IPv6 zone; net.ParseIP does not
        return False
    try:
        if ":" in text:
            ipaddress.IPv6Address(text)
        else:
            ipaddress.IPv4Address(text)
    except ValueError:
        return False
    return True


_Q_TEXT = re.compile("(?:[\t\n\r -<>-~]|=[0-9A-Fa-f]{2})*")
_HEX_BYTE = {a + b: int(a + b, 16) for a in "0123456789abcdefABCDEF" for b in "0123456789abcdefABCDEF"}


def _q_decode(text: str) -> bytes | None:
    """mime's `qDecode`: `_` a space, `=XX` a byte, printable ASCII and CR, LF, tab as they are; None for an
    invalid word."""
    if _Q_TEXT.fullmatch(text) is None:
        return None
    head, *rest = text.replace("_", " ").split("=")
    out = bytearray(head.encode("latin-1"))
    for part in rest:
        out.append(_HEX_BYTE[part[:2]])
        out += part[2:].encode("latin-1")
    return bytes(out)


class _CharsetError(MailError):
    pass


def _decode_word(word: str) -> str | None:
    """`WordDecoder.Decode` (bytes in, bytes out); None when `word` is not an encoded-word; _CharsetError for a
    charset net/mail's decoder refuses."""
    if len(word) < 8 or not word.startswith("=?") or not word.endswith("?=") or word.count("?") != 4:
        return None
    charset, _, text = word[2:-2].partition("?")
    encoding, _, text = text.partition("?")
    if not charset or len(encoding) != 1:
        return None
    if encoding in "Bb":
        try:
            content: bytes | None = base64.b64decode(text.encode("latin-1"), validate=True)
        except (binascii.Error, ValueError):
            content = None
    elif encoding in "Qq":
        content = _q_decode(text)
    else:
        content = None
    if content is None:
        return None
    lowered = charset.lower()
    if lowered == "utf-8":
        return content.decode("latin-1")
    if lowered == "iso-8859-1":
        return to_bytes(content.decode("latin-1"))
    if lowered == "us-ascii":
        return "".join(chr(b) if b < 0x80 else "\xef\xbf\xbd" for b in content)
    raise _CharsetError(f"charset not supported: {quote(to_text(lowered))}")


def _decode_rfc2047_word(word: str) -> tuple[str, bool]:
    """`decodeRFC2047Word`: (text, whether it was an encoded word); a refused charset raises."""
    decoded = _decode_word(word)
    return (word, False) if decoded is None else (decoded, True)


# runs of bytes scanned in C: ASCII atext (with or without `.`) and any byte from 0x80 up (checked as UTF-8
# afterwards), qtext and WSP, and a comment's bytes up to the next `\\`, `(` or `)`
_ATEXT_ASCII = "A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~"
_ATEXT_RUN = {dot: re.compile("[" + _ATEXT_ASCII + ("." if dot else "") + "\x80-\xff]*") for dot in (False, True)}
_COMMENT_RUN = re.compile(r"[^\\()]*")
_SPACE_RUN = re.compile(r"[ \t]*")
_WORD = "[" + _ATEXT_ASCII + ".\x80-\xff]+"
_WORD_RUN = re.compile(_WORD + "(?:[ \t]+" + _WORD + ")*")
_BLANKS = re.compile(r"[ \t]+")
_OPEN_RUN = re.compile(r"\(+")
_CLOSE_RUN = re.compile(r"\)+")
# a quoted string's content: qtext, WSP and quoted pairs (`\\` and a VCHAR or WSP byte)
_QUOTED_RUN = re.compile("(?:[ \t!#-\\[\\]-~\x80-\xff]|\\\\[ \t!-~\x80-\xff])*")
_QUOTED_PAIR = re.compile(r"\\(.)", re.DOTALL)


def _first_invalid_utf8(chunk: str) -> int:
    """The index of the first byte of `chunk` that does not start a valid UTF-8 sequence, or -1."""
    if chunk.isascii():
        return -1
    try:
        chunk.encode("latin-1").decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    return -1


class _Parser:
    """`addrParser` over the bytes `s`; `i` is where Go's `p.s` starts (an index: Go's slicing is free, Python's
    copies)."""

    def __init__(self, s: str):
        self.s, self.i = s, 0

    def rest(self) -> str:
        return self.s[self.i:]

    def empty(self) -> bool:
        return self.i >= len(self.s)

    def peek(self) -> str:
        return self.s[self.i]

    def consume(self, c: str) -> bool:
        if self.i >= len(self.s) or self.s[self.i] != c:
            return False
        self.i += 1
        return True

    def skip_space(self) -> None:
        self.i = _SPACE_RUN.match(self.s, self.i).end()  # type: ignore[union-attr]

    def skip_cfws(self) -> bool:
        self.skip_space()
        while self.consume("("):
            if not self.consume_comment()[1]:
                return False
            self.skip_space()
        return True

    def consume_comment(self) -> tuple[str, bool]:
        depth, comment, s = 1, [], self.s
        while self.i < len(s) and depth:
            end = _COMMENT_RUN.match(s, self.i).end()  # type: ignore[union-attr]
            if end > self.i:
                comment.append(s[self.i:end])
                self.i = end
                continue
            c = s[self.i]
            if c == "\\":
                if self.i + 1 < len(s):
                    self.i += 1
                comment.append(s[self.i])
                self.i += 1
            elif c == "(":
                run = _OPEN_RUN.match(s, self.i).end() - self.i  # type: ignore[union-attr]
                depth += run
                comment.append(s[self.i:self.i + run])
                self.i += run
            else:  # a run of `)`: each closes one level; those leaving it open are part of the comment
                run = _CLOSE_RUN.match(s, self.i).end() - self.i  # type: ignore[union-attr]
                taken = min(run, depth)
                comment.append(s[self.i:self.i + min(run, depth - 1)])
                depth -= taken
                self.i += taken
        return "".join(comment), depth == 0

    def parse_single_address(self) -> Address:
        addrs = self.parse_address(True)
        if not self.skip_cfws():
            raise MailError("mail: misformatted parenthetical comment")
        if not self.empty():
            raise MailError(f"mail: expected single address, got {quote_bytes(self.rest())}")
        if not addrs:
            raise MailError("mail: empty group")
        if len(addrs) > 1:
            raise MailError("mail: group with multiple addresses")
        return addrs[0]

    def parse_address(self, handle_group: bool) -> list[Address]:
        self.skip_space()
        if self.empty():
            raise MailError("mail: no address")
        try:
            spec = self.consume_addr_spec()
        except MailError:
            pass
        else:
            name = ""
            self.skip_space()
            if not self.empty() and self.peek() == "(":
                name = self.consume_display_name_comment()
            return [Address(to_text(name), to_text(spec))]
        name = ""
        if self.peek() != "<":
            name = self.consume_phrase()
        self.skip_space()
        if handle_group and self.consume(":"):
            return self.consume_group_list()
        if not self.consume("<"):
            if _ATEXT_RUN[True].fullmatch(name):  # every rune atext (a byte from 0x80 up always is)
                raise MailError("mail: missing '@' or angle-addr")
            raise MailError("mail: no angle-addr")
        spec = self.consume_addr_spec()
        if not self.consume(">"):
            raise MailError("mail: unclosed angle-addr")
        return [Address(to_text(name), to_text(spec))]

    def consume_group_list(self) -> list[Address]:
        group: list[Address] = []
        self.skip_space()
        if self.consume(";"):
            if not self.skip_cfws():
                raise MailError("mail: misformatted parenthetical comment")
            return group
        while True:
            self.skip_space()
            group += self.parse_address(False)
            if not self.skip_cfws():
                raise MailError("mail: misformatted parenthetical comment")
            if self.consume(";"):
                if not self.skip_cfws():
                    raise MailError("mail: misformatted parenthetical comment")
                return group
            if not self.consume(","):
                raise MailError("mail: expected comma")

    def consume_addr_spec(self) -> str:
        orig = self.i
        try:
            return self._addr_spec()
        except MailError:
            self.i = orig
            raise

    def _addr_spec(self) -> str:
        self.skip_space()
        if self.empty():
            raise MailError("mail: no addr-spec")
        if self.peek() == '"':
            try:
                local = self.consume_quoted_string()
            except MailError:  # Go's consumeQuotedString returns "" with its error, which this then replaces
                local = ""
            if local == "":
                raise MailError("mail: empty quoted string in addr-spec")
        else:
            local = self.consume_atom(True, False)
        if not self.consume("@"):
            raise MailError("mail: missing @ in addr-spec")
        self.skip_space()
        if self.empty():
            raise MailError("mail: no domain in addr-spec")
        domain = self.consume_domain_literal() if self.peek() == "[" else self.consume_atom(True, False)
        return local + "@" + domain

    def consume_phrase(self) -> str:
        words: list[str] = []
        prev_encoded = False
        err: MailError | None = None
        while True:
            if words and not self.skip_cfws():
                raise MailError("mail: misformatted parenthetical comment")
            self.skip_space()
            if self.empty():
                break
            bulk = _WORD_RUN.match(self.s, self.i)
            if bulk is not None and "=?" not in bulk[0] and _first_invalid_utf8(bulk[0]) < 0:
                # plain atoms separated by blanks, taken at once (what Go's loop does one by one)
                words += _BLANKS.split(bulk[0])
                self.i, prev_encoded = bulk.end(), False
                continue
            encoded = False
            try:
                if self.peek() == '"':
                    word = self.consume_quoted_string()
                else:
                    word = self.consume_atom(True, True)
                    word, encoded = _decode_rfc2047_word(word)
            except MailError as exc:
                err = exc
                break
            if prev_encoded and encoded:
                words[-1] += word
            else:
                words.append(word)
            prev_encoded = encoded
        if err is not None and not words:
            raise MailError(f"mail: missing word in phrase: {err}")
        return " ".join(words)

    def consume_quoted_string(self) -> str:
        s, i, out, escaped = self.s, self.i + 1, [], False
        while True:
            if not escaped:
                end = _QUOTED_RUN.match(s, i).end()  # type: ignore[union-attr]
                if _first_invalid_utf8(s[i:end]) >= 0:
                    raise MailError(f"mail: invalid utf-8 in quoted-string: {quote_bytes(self.rest())}")
                out.append(_QUOTED_PAIR.sub(lambda m: m[1], s[i:end]))
                i = end
            r, size = _decode_rune(s, i)
            if size == 0:
                raise MailError("mail: unclosed quoted-string")
            if size == 1 and r == _RUNE_ERROR:
                raise MailError(f"mail: invalid utf-8 in quoted-string: {quote_bytes(self.rest())}")
            if escaped:
                if not _is_vchar(r) and not _is_wsp(r):
                    raise MailError(f"mail: bad character in quoted-string: {_quote_rune(r)}")
                out.append(s[i:i + size])
                escaped = False
            elif r == 0x22:
                break
            elif r == 0x5C:
                escaped = True
            else:
                raise MailError(f"mail: bad character in quoted-string: {_quote_rune(r)}")
            i += size
        self.i = i + 1
        return "".join(out)

    def consume_atom(self, dot: bool, permissive: bool) -> str:
        s, start = self.s, self.i
        end = _ATEXT_RUN[dot].match(s, start).end()  # type: ignore[union-attr]
        bad = _first_invalid_utf8(s[start:end])
        if bad >= 0:
            raise MailError(f"mail: invalid utf-8 in address: {quote_bytes(self.rest())}")
        if end == start:
            raise MailError("mail: invalid string")
        atom, self.i = s[start:end], end
        if not permissive:
            if atom.startswith("."):
                raise MailError("mail: leading dot in atom")
            if ".." in atom:
                raise MailError("mail: double dot in atom")
            if atom.endswith("."):
                raise MailError("mail: trailing dot in atom")
        return atom

    def consume_domain_literal(self) -> str:
        if not self.consume("["):
            raise MailError('mail: missing "[" in domain-literal')
        start = self.i
        while True:
            if self.empty():
                raise MailError("mail: unclosed domain-literal")
            if self.peek() == "]":
                break
            r, size = _decode_rune(self.s, self.i)
            if size == 1 and r == _RUNE_ERROR:
                raise MailError(f"mail: invalid utf-8 in domain-literal: {quote_bytes(self.rest())}")
            if not _is_dtext(r):
                raise MailError(f"mail: bad character in domain-literal: {_quote_rune(r)}")
            self.i += size
        text = self.s[start:self.i]
        self.consume("]")
        if not _go_parse_ip(to_text(text)):
            raise MailError(f"mail: invalid IP address in domain-literal: {quote_bytes(text)}")
        return "[" + text + "]"

    def consume_display_name_comment(self) -> str:
        if not self.consume("("):
            raise MailError("mail: comment does not start with (")
        comment, ok = self.consume_comment()
        if not ok:
            raise MailError("mail: misformatted parenthetical comment")
        words = [w for w in comment.replace("\t", " ").split(" ") if w]
        return " ".join(_decode_rfc2047_word(w)[0] for w in words)


def _quote_rune(r: int) -> str:
    """`%q` of a rune: Go's `strconv.QuoteRune` (`'x'`)."""
    inner = quote(chr(r))[1:-1]
    return "'" + inner.replace('\\"', '"').replace("'", "\\'") + "'"


_MEMO: dict[str, Address | MailError] = {}


def parse_address(address: str) -> Address:
    """`mail.ParseAddress`: one RFC 5322 address (`Name <local@domain>` or `local@domain`); MailError otherwise."""
    hit = _MEMO.get(address)
    if hit is None:
        try:
            hit = _Parser(to_bytes(address)).parse_single_address()
        except MailError as exc:
            hit = exc
        remember(_MEMO, address, hit, 4096)
    if isinstance(hit, MailError):
        raise MailError(str(hit))
    return hit

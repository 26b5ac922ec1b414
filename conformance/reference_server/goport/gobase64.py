"""Go's `encoding/base64` `StdEncoding` as `encoding/json` uses it for a `[]byte` field (decode.go `literalStore`:
`base64.StdEncoding.Decode`): padding required, and `\r` and `\n` ignored anywhere, so a Secret whose PEM was
pasted as a YAML block with its line breaks (the Kubernetes docs' TLS Secret example) decodes."""
from __future__ import annotations

import base64


def canonical_std(text: str) -> str:
    """What Go answers for a `[]byte` it decoded from `text` and encodes again: `text` itself unless it has line
    breaks (the common case, no work), else the same bytes re-encoded without them. Text that does not decode
    is returned as is (the decoder's 400 is someone else's business)."""
    if "\n" not in text and "\r" not in text:
        return text
    try:
        return base64.b64encode(decode_std(text)).decode()
    except ValueError:
        return text


def decode_std(text: str) -> bytes:
    """The bytes Go decodes from `text`; binascii.Error (a ValueError) where Go's decoder fails."""
    return base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True)


def corrupt_offset(data: bytes) -> int | None:
    """The byte offset of Go's `CorruptInputError` (`illegal base64 data at input byte N`) for `data` under
    `StdEncoding.Decode` (`decodeQuantum`: CR and LF skipped, padding required), or None when it decodes."""
    si, n = 0, len(data)
    while True:
        j = 0
        while j < 4:
            if si == n:
                if j == 0:
                    return None
                return si - j  # a quantum cut short (padding is required)
            c = data[si]
            si += 1
            if c in _ALPHABET:
                j += 1
                continue
            if c in b"\r\n":
                continue
            if c != 0x3D or j < 2:  # not `=`, or padding too early
                return si - 1
            if j == 2:  # `==` expected: the second, past line breaks
                while si < n and data[si] in b"\r\n":
                    si += 1
                if si == n:
                    return n
                if data[si] != 0x3D:
                    return si - 1
                si += 1
            while si < n and data[si] in b"\r\n":
                si += 1
            return si if si < n else None  # trailing garbage after the padding


_ALPHABET = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

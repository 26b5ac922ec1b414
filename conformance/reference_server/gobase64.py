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

"""Go's `encoding/base64` `StdEncoding` as `encoding/json` uses it for a `[]byte` field (decode.go `literalStore`:
`base64.StdEncoding.Decode`): padding required, and `\r` and `\n` ignored anywhere, so a Secret whose PEM was
pasted as a YAML block with its line breaks (the Kubernetes docs' TLS Secret example) decodes."""
from __future__ import annotations

import base64


def decode_std(text: str) -> bytes:
    """The bytes Go decodes from `text`; binascii.Error (a ValueError) where Go's decoder fails."""
    return base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True)

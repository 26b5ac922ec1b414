"""A `curl` command that reproduces a recorded request, with the token as a shell variable, never its value."""

from __future__ import annotations

import json
import shlex
from typing import Any

_KEEP_HEADERS = {"content-type", "accept"}


def curl_command(ex: dict[str, Any]) -> str:
    """`curl -k -X METHOD -H "Authorization: Bearer $TOKEN" -H 'Content-Type: ...' --data '...' 'URL'`.

    The Authorization header is double-quoted so the shell expands `$TOKEN`; everything else is single-quoted.
    """
    headers = {str(k).lower(): str(v) for k, v in (ex.get("request_headers") or {}).items()}
    parts = ["curl", "-k", "-X", shlex.quote(str(ex.get("method", "GET")).upper())]
    if "authorization" in headers:
        parts += ["-H", '"Authorization: Bearer $TOKEN"']
    for name in ("content-type", "accept"):
        value = headers.get(name)
        if value and not (name == "accept" and value in ("*/*", "application/json, */*")):
            parts += ["-H", shlex.quote(f"{name.title()}: {value}")]
    body = ex.get("request_body")
    if body not in (None, "", b""):
        data = body if isinstance(body, str) else json.dumps(body, separators=(",", ":"), sort_keys=False)
        parts += ["--data", shlex.quote(data)]
    parts.append(shlex.quote(str(ex.get("url") or ex.get("path") or "")))
    return " ".join(parts)

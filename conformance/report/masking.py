"""Defensive masking of everything that goes into an artefact.

The client already masks exchanges when it records them; this runs again over the whole run document (headers,
bodies, URLs, messages) with every secret the harness told us about, so no artefact can carry a token.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from conformance.client.exchange import MASK, mask_headers, mask_secret_data, mask_text

_URL_USERINFO = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)[^/@\s]+@")
_QUERY_SECRET = re.compile(r"(?i)([?&](?:access_token|token|password|secret)=)[^&#\s'\"]+")
_SECRET_KEYS = re.compile(r"(?i)^(authorization|proxy-authorization|cookie|set-cookie|x-auth-token|token|"
                          r"access_token|bearer_token|password|client-key-data|client_key_data)$")


def scrub_text(text: str, secrets: Iterable[str] = ()) -> str:
    """Bearer tokens, URL credentials, token query parameters and every known secret string → `***`."""
    text = mask_text(text, tuple(s for s in secrets if s and len(s) >= 4))
    text = _URL_USERINFO.sub(r"\1" + MASK + "@", text)
    return _QUERY_SECRET.sub(r"\1" + MASK, text)


def scrub(obj: Any, secrets: Iterable[str] = ()) -> Any:
    """A deep copy of `obj` with `scrub_text` applied to every string and secret-named keys masked."""
    secrets = tuple(secrets)
    if isinstance(obj, str):
        return scrub_text(obj, secrets)
    if isinstance(obj, list | tuple):
        return [scrub(v, secrets) for v in obj]
    if isinstance(obj, dict):
        return {k: (MASK if isinstance(k, str) and _SECRET_KEYS.match(k) and isinstance(v, str) and v
                    else scrub(v, secrets))
                for k, v in obj.items()}
    return obj


def mask_exchange(ex: dict[str, Any], secrets: Iterable[str] = ()) -> dict[str, Any]:
    """One exchange dict, masked again with the client's own rules plus `scrub`."""
    ex = dict(ex)
    for key in ("request_headers", "response_headers"):
        if isinstance(ex.get(key), dict):
            ex[key] = mask_headers(ex[key])
    for key in ("request_body", "response_body"):
        ex[key] = mask_secret_data(ex.get(key))
    return scrub(ex, secrets)

"""A PATCH's `Content-Type` as kube-apiserver 1.33 reads it: exactly, never lower-cased.

Two steps upstream, each with its own 415:
* go-restful's router (v3.11.0 `route.go` `matchesContentType`) takes the route when one of the header's
  comma-separated types, cut at its `;` and trimmed of spaces, is one the PATCH route consumes (the four patch
  types; a missing header counts as `application/octet-stream`); else its `415: Unsupported Media Type`
  (`apierrors.router_unsupported_media_type`). A custom resource's PATCH is served outside go-restful
  (`customresource_handler.go`), so it skips this step.
* `handlers.PatchResource` (k8s.io/apiserver `pkg/endpoints/handlers/patch.go`) cuts the header at its first `;`
  (when not the first character) and looks the rest up, as it is, among the patch types the resource takes
  (a custom resource: no strategic merge); else `NewUnsupportedMediaTypeError` naming them.

So `Application/Merge-Patch+JSON` is refused by the router, and `application/merge-patch+json ;charset=utf-8`
(a space before `;`) by the handler, where a request body's `Content-Type` is read case-insensitively
(wire/gomime.py).
"""
from __future__ import annotations

from collections.abc import Sequence

from .. import apierrors as E

_OCTET_STREAM = "application/octet-stream"  # go-restful's MIME_OCTET


def _router_accepts(content_type: str, consumes: Sequence[str]) -> bool:
    """go-restful's `matchesContentType` for a PATCH route."""
    for part in (content_type or _OCTET_STREAM).split(","):
        if part.split(";", 1)[0].strip(" ") in consumes:
            return True
    return False


def patch_type(content_type: str | None, types: Sequence[str], routed: bool = True) -> str:
    """The patch type of a PATCH request, or the 415 upstream answers. `types`: what the resource takes, in
    upstream's order; `routed`: the request came through go-restful (every built-in resource), whose route
    consumes the built-in patch types."""
    header = content_type or ""
    if routed and not _router_accepts(header, types):
        raise E.router_unsupported_media_type()
    cut = header.find(";")
    if cut > 0:
        header = header[:cut]
    if header not in types:
        raise E.unsupported_media_type(accepted=types)
    return header

"""`staging/src/k8s.io/apiserver/pkg/util/webhook/validation.go`: a webhook's `clientConfig` as kube-apiserver
validates it wherever one is written (admission webhook configurations, a CRD's conversion webhook):
`ValidateWebhookURL` on Go's `url.Parse` (gonet/url.py) and `ValidateWebhookService`."""
from __future__ import annotations

from typing import Any

from ..apierrors import FieldError, field_invalid, field_required
from ..goport.gonet import url as gourl
from ..goport.gonet.strconv import valid_text
from .validation import is_dns1123_subdomain


def webhook_url_errors(path: str, url: str) -> list[FieldError]:
    """`webhook.ValidateWebhookURL(forceHttps=true)`, on Go's `url.Parse` (gonet)."""
    form = "; desired format: https://host[/path]"
    try:
        u = gourl.parse(url)
    except gourl.URLError as exc:
        return [field_required(path, f"url must be a valid URL: {exc}{form}")]
    errs: list[FieldError] = []
    if u.scheme != "https":
        errs.append(field_invalid(path, u.scheme, "'https' is the only allowed URL scheme" + form))
    if not u.host:
        errs.append(field_invalid(path, u.host, "host must be provided" + form))
    if u.user is not None:
        errs.append(field_invalid(path, u.user.string(), "user information is not permitted in the URL"))
    if u.fragment:
        errs.append(field_invalid(path, valid_text(u.fragment), "fragments are not permitted in the URL"))
    if u.raw_query:
        errs.append(field_invalid(path, u.raw_query, "query parameters are not permitted in the URL"))
    return errs


def webhook_service_errors(path: str, service: dict[str, Any]) -> list[FieldError]:
    """`webhook.ValidateWebhookService`."""
    errs: list[FieldError] = []
    if not service.get("name"):
        errs.append(field_required(f"{path}.name", "service name is required"))
    if not service.get("namespace"):
        errs.append(field_required(f"{path}.namespace", "service namespace is required"))
    port = service.get("port")
    if not isinstance(port, int) or not 1 <= port <= 65535:
        errs.append(field_invalid(f"{path}.port", port, "port is not valid: must be between 1 and 65535, inclusive"))
    url_path = service.get("path")
    if url_path is None or url_path in ("", "/"):
        return errs
    if url_path == "//":
        return errs + [field_invalid(f"{path}.path", url_path, "segment[0] may not be empty")]
    if not url_path.startswith("/"):
        errs.append(field_invalid(f"{path}.path", url_path, "must start with a '/'"))
    check = url_path[1:]
    if check.endswith("/"):
        check = check[:-1]
    for i, step in enumerate(check.split("/")):
        if not step:
            errs.append(field_invalid(f"{path}.path", url_path, f"segment[{i}] may not be empty"))
            continue
        errs += [field_invalid(f"{path}.path", url_path, f"segment[{i}]: {m}") for m in is_dns1123_subdomain(step)]
    return errs

"""Calling one webhook over HTTPS (admission webhooks, admission/webhooks/; CRD conversion webhooks,
registry/crconversion/), never on the request's thread of control: an aiohttp request bounded by the
webhook's `timeoutSeconds` (`staging/src/k8s.io/apiserver/pkg/util/webhook/client.go`: the rest client's URL,
`?timeout=`, the caBundle as the only trusted roots).

A `service` reference is resolved as kube-apiserver's default `ClusterIPServiceResolver` does
(`staging/src/k8s.io/apiserver/pkg/util/proxy/proxy.go` `ResolveCluster`): a missing Service, a headless one or a
port it lacks fail with upstream's words; otherwise upstream dials the ClusterIP, and on a cluster whose Service
has no ready endpoints kube-proxy's reject rule answers `connection refused`, which is what this server reports
(it has no pods, so no Service here ever has a ready endpoint). Errors keep Go's `url.Error` shape:
`Post "<url>": <cause>`. A `url` is read by Go's `url.Parse` (gonet/) and posted to as the rest client rebuilds it:
scheme, host (escaped as Go escapes a host) and the cleaned path.
"""
from __future__ import annotations

import asyncio
import base64
import json
import posixpath
import ssl
from typing import Any, Callable

import aiohttp

from ..apierrors import StatusError
from ..goport.gojsonhtml import utf8_bytes
from ..goport.gojsonnum import encode as go_encode
from ..goport.gonet import url as gourl
from ..goport.gonet.strconv import quote


def _go_duration(seconds: int) -> str:
    minutes, secs = divmod(seconds, 60)
    return f"{minutes}m{secs}s" if minutes else f"{secs}s"


def target(hook: dict[str, Any]) -> tuple[str, str | None]:
    """(the URL the rest client posts to, the host a service reference stands for, or None)."""
    cc = hook.get("clientConfig") or {}
    query = f"?timeout={_go_duration(int(hook.get('timeoutSeconds') or 10))}"
    service = cc.get("service")
    if isinstance(service, dict):
        host = f"{service.get('name')}.{service.get('namespace')}.svc:{service.get('port') or 443}"
        return f"https://{host}{posixpath.join('/', service.get('path') or '')}{query}", host
    try:
        u = gourl.parse(str(cc.get("url") or ""))  # Go's url.Parse, which accepted it on write
    except gourl.URLError:
        return str(cc.get("url") or "") + query, None
    path = posixpath.normpath(posixpath.join("/", u.path)) if u.path else "/"
    if path.startswith("//"):  # Go's path.Clean keeps one leading slash
        path = "/" + path.lstrip("/")
    return gourl.URL(scheme=u.scheme, host=u.host, path=path).string() + query, None


def service_lookup(registry: Any) -> Callable[[str, str], dict[str, Any] | None]:
    """The Service a webhook's `service` reference names in `registry` (None: none)."""
    def lookup(namespace: str, name: str) -> dict[str, Any] | None:
        services = registry.content("services")
        if services is None:
            return None
        try:
            return services.get(namespace, name, shared=True)
        except StatusError:
            return None
    return lookup


def resolve_service(service: dict[str, Any], get_service: Callable[[str, str], dict[str, Any] | None]) -> str:
    """The cause a call to a Service fails with on a cluster where it has no ready endpoint."""
    name, namespace, port = service.get("name", ""), service.get("namespace", ""), service.get("port") or 443
    svc = get_service(namespace, name)
    if svc is None:
        return f'service "{name}" not found'
    spec = svc.get("spec") or {}
    kind, cluster_ip = spec.get("type") or "ClusterIP", spec.get("clusterIP") or ""
    if kind == "ClusterIP" and cluster_ip == "None":
        return 'cannot route to service with ClusterIP "None"'
    if kind == "ExternalName":
        return f"dial tcp: lookup {spec.get('externalName', '')}: no such host"
    if not any(isinstance(p, dict) and p.get("port") == port for p in spec.get("ports") or []):
        return f'no service port {port} found for service "{name}"'
    host = f"[{cluster_ip}]" if ":" in cluster_ip else cluster_ip
    return f"dial tcp {host}:{port}: connect: connection refused"


def _ssl(hook: dict[str, Any]) -> ssl.SSLContext:
    bundle = (hook.get("clientConfig") or {}).get("caBundle")
    ctx = ssl.create_default_context()
    if bundle:
        try:
            ctx = ssl.create_default_context(cadata=base64.b64decode(bundle).decode("ascii", "replace"))
        except (ValueError, ssl.SSLError):
            pass  # upstream fails building the client; the call below then fails verification
    return ctx


def _cause(exc: BaseException) -> str:
    """A Go-like cause for what aiohttp raised."""
    if isinstance(exc, asyncio.TimeoutError):
        return "context deadline exceeded"
    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        return "tls: failed to verify certificate: x509: certificate signed by unknown authority"
    if isinstance(exc, aiohttp.ClientConnectorError):
        return f"dial tcp {exc.host}:{exc.port}: connect: connection refused"
    return str(exc) or type(exc).__name__


class PostError(Exception):
    """The rest client's error for a failed POST (`Post "<url>": <cause>`, or the answer's status text);
    `code`: the Status code upstream's callers report it with."""

    def __init__(self, message: str, code: int = 400):
        super().__init__(message)
        self.code = code


_GENERIC = {  # apimachinery errors.go `NewGenericServerResponse`: the message per status code
    400: "the server rejected our request for an unknown reason",
    401: "the server has asked for the client to provide credentials",
    403: "the server does not allow access to the requested resource",
    404: "the server could not find the requested resource",
    405: "the server does not allow this method on the requested resource",
    422: "the server rejected our request due to an error in our request",
    429: "the server has received too many requests and has asked us to try again later",
    503: "the server is currently unable to handle the request",
    504: "the server was unable to return a response in the time allotted, but may still be processing the request",
}


def response_error(status: int, content_type: str, raw: bytes) -> str:
    """The rest client's error for a webhook's answer outside 200..206 (client-go `rest/request.go`): a
    Failure Status in the body is that Status' message; otherwise `newUnstructuredResponseError`, the body
    quoted (Go's `%q`, at most 2048 bytes) only when it is text."""
    try:
        answer = json.loads(raw)
    except ValueError:
        answer = None
    if isinstance(answer, dict) and answer.get("kind") == "Status" and answer.get("status") == "Failure":
        return str(answer.get("message") or "")
    if status == 409:
        return "the server reported a conflict"
    if status in _GENERIC:
        return _GENERIC[status]
    if status >= 500:
        media = content_type.split(";")[0].strip().lower()
        text = raw[:2048].decode("utf-8", "surrogateescape").strip() if not media or media.startswith("text/") \
            else "unknown"
        return f"an error on the server ({quote(text)}) has prevented the request from succeeding"
    return f"the server responded with the status code {status} but did not return more information"


async def post(hook: dict[str, Any], body: dict[str, Any],
               get_service: Callable[[str, str], dict[str, Any] | None]) -> Any:
    """POST `body` to the webhook `hook` (`clientConfig`, `timeoutSeconds`) as upstream's webhook rest client
    does; the decoded answer, or a `PostError`. Shared by the admission webhooks and CRD conversion webhooks
    (registry/crconversion/)."""
    url, service_host = target(hook)
    if service_host is not None:
        cause = resolve_service((hook.get("clientConfig") or {})["service"], get_service)
        raise PostError(f'Post "{url}": {cause}')
    timeout = aiohttp.ClientTimeout(total=int(hook.get("timeoutSeconds") or 10))
    try:
        async with aiohttp.ClientSession(timeout=timeout) as session:
            async with session.post(url, data=utf8_bytes(go_encode(body)), ssl=_ssl(hook),  # Go's numbers
                                    headers={"Content-Type": "application/json", "Accept": "application/json"}) as r:
                raw = await r.read()
                status, content_type = r.status, r.headers.get("Content-Type", "")
    except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
        raise PostError(f'Post "{url}": {_cause(exc)}') from None
    if not 200 <= status <= 206:
        raise PostError(response_error(status, content_type, raw), status)
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise PostError(str(exc)) from None

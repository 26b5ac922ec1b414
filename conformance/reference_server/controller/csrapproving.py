"""kube-controller-manager's `csrapproving` controller (`pkg/controller/certificates/approver/sarapprove.go` on
`pkg/controller/certificates/certificate_controller.go`).

It auto-approves kubelet client certificates: a CSR not yet approved, denied or issued, for the
`kubernetes.io/kube-apiserver-client-kubelet` signer, whose x509 request passes `IsKubeletClientCSR` (organization
exactly `system:nodes`, common name `system:node:*`, no SANs, usages exactly the RSA or non-RSA client set), is
checked against two recognizers in upstream's order:

- `selfnodeclient` (only when `spec.username` equals the request's common name: a node renewing its own
  certificate): may the requester `create` `certificatesigningrequests/selfnodeclient`?
- `nodeclient` (a bootstrap token asking for a node's first certificate): may it `create`
  `certificatesigningrequests/nodeclient`?

"May the requester" is a SubjectAccessReview of the CSR's `username`/`uid`/`groups`/`extra`, asked of the server's
authorizer directly (upstream posts a SubjectAccessReview, whose handler asks the same authorizer; with no
authorizer, `--authorization always-allow`, every review is allowed, as kube-apiserver's `AlwaysAllow` answers).
The first allowed recognizer appends `Approved`/`AutoApproved` with its message through `/approval`, which
`csrsigning` then signs. A recognised request that no review allows stays pending and is retried with the work
queue's per-item exponential backoff (200 ms doubling to 1000 s: `IgnorableError` → `AddRateLimited`), so a
permission granted later still approves it.
"""
from __future__ import annotations

import logging
from typing import Any

from cryptography.x509.oid import NameOID

from .. import apierrors as E
from ..auth.rbac import Attributes, Authorizer, UserInfo
from ..registry import Registry
from ..registry import certificates as C
from .csrsigning import signer_error
from .loop import Controller

log = logging.getLogger("nsconform.reference_server.controller")
FIELD_MANAGER = "kube-controller-manager"
REASON = "AutoApproved"
SELF_NODE_CLIENT = ("selfnodeclient", "Auto approving self kubelet client certificate after SubjectAccessReview.")
NODE_CLIENT = ("nodeclient", "Auto approving kubelet client certificate after SubjectAccessReview.")


def common_name(req: Any) -> str:
    names = req.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(names[0].value) if names else ""


def is_node_client_cert(csr: dict[str, Any], req: Any) -> bool:
    """`isNodeClientCert`: the kubelet client signer and `IsKubeletClientCSR`."""
    spec = csr.get("spec") or {}
    if spec.get("signerName") != C.KUBE_APISERVER_CLIENT_KUBELET:
        return False
    usages = [u for u in spec.get("usages") or [] if isinstance(u, str)]
    return signer_error(C.KUBE_APISERVER_CLIENT_KUBELET, req, usages) == ""


def is_self_node_client_cert(csr: dict[str, Any], req: Any) -> bool:
    """`isSelfNodeClientCert`: a node client certificate requested by the node it names."""
    if (csr.get("spec") or {}).get("username", "") != common_name(req):
        return False
    return is_node_client_cert(csr, req)


RECOGNIZERS = ((is_self_node_client_cert, *SELF_NODE_CLIENT), (is_node_client_cert, *NODE_CLIENT))


def requester(csr: dict[str, Any]) -> UserInfo:
    """The SubjectAccessReview's subject: the CSR's recorded requester."""
    spec = csr.get("spec") or {}
    extra = {k: tuple(v or ()) for k, v in (spec.get("extra") or {}).items()}
    return UserInfo(name=spec.get("username", ""), uid=spec.get("uid", ""), groups=tuple(spec.get("groups") or ()),
                     extra=extra)


def decide(csr: dict[str, Any], authorizer: Authorizer | None) -> tuple[str | None, list[str]]:
    """`sarApprover.handle` minus the write: (the approval message or None, the subresources tried)."""
    status = csr.get("status") or {}
    if status.get("certificate"):
        return None, []
    if C.has_true(csr, C.APPROVED) or C.has_true(csr, C.DENIED):  # GetCertApprovalCondition
        return None, []
    try:
        req = C.parse_csr(C.decode_bytes((csr.get("spec") or {}).get("request")))
    except ValueError:
        return None, []
    tried: list[str] = []
    user = requester(csr)
    for recognize, subresource, message in RECOGNIZERS:
        if not recognize(csr, req):
            continue
        tried.append(subresource)
        attrs = Attributes(user=user, verb="create", api_group=C.GROUP, resource="certificatesigningrequests",
                           subresource=subresource, api_version="*")
        allowed = True if authorizer is None else authorizer.authorize(attrs)[0]
        if allowed:
            return message, tried
    return None, tried


class CSRApprovingController(Controller):
    name = "csrapproving"
    service_account = "certificate-controller"  # its `certificatesigningrequests/approval` UPDATEs' user
    backoff_base = 0.2  # its queue's ItemExponentialFailureRateLimiter: 200 ms doubling, at most 1000 s

    def __init__(self, registry: Registry, authorizer: Authorizer | None = None):
        super().__init__()
        self.registry = registry
        self.authorizer = authorizer
        self.keys = self._queue()

    def _store(self) -> Any:
        return self.registry.group(C.GROUP, C.CSR_INFO.plural)

    def start(self) -> None:
        store = self._store()
        if store is None:
            return
        self._inform(store, self._on)
        self._work(self.keys, self._sync)

    def _on(self, ev: Any) -> None:
        self.keys.add(ev.name)  # add, update and delete handlers all enqueue (a deleted one is not found)

    def _retry(self, name: str) -> None:
        """`AddRateLimited`."""
        self.keys.add_after(name, self.backoff(name))

    async def _sync(self, name: str) -> None:
        store = self._store()
        try:
            csr = store.get("", name)
        except E.StatusError:
            self.forget(name)
            return
        message, tried = decide(csr, self.authorizer)
        if message is None:
            if tried:  # IgnorableError: "recognized csr %q as %v but subject access review was not approved"
                log.debug("%s: recognized csr %r as %s but subject access review was not approved",
                          self.name, name, tried)
                self._retry(name)
            else:
                self.forget(name)
            return
        rv = csr["metadata"]["resourceVersion"]
        conditions = list((csr.get("status") or {}).get("conditions") or []) + [
            {"type": C.APPROVED, "status": "True", "reason": REASON, "message": message}]

        def approved(cur: dict[str, Any]) -> dict[str, Any]:
            cur.setdefault("status", {})["conditions"] = conditions
            cur["metadata"]["resourceVersion"] = rv  # UpdateApproval sends the lister's copy: stale ⇒ 409
            return cur
        try:
            self.writes.update(store, "", name, transform=approved, strategy=store.extra_subresources["approval"],
                               field_manager=FIELD_MANAGER)
        except E.StatusError as exc:
            if exc.code != 404:
                log.info("%s: error updating approval for csr %s: %s", self.name, name, exc.message)
                self._retry(name)
            return
        self.forget(name)


__all__ = ["CSRApprovingController", "decide", "is_node_client_cert", "is_self_node_client_cert"]

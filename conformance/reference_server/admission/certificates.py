"""The CertificateSubjectRestriction admission plugin (`plugin/pkg/admission/certificates/subjectrestriction`,
on by default): a create of a CSR for the `kubernetes.io/kube-apiserver-client` signer whose request names the
`system:masters` organization is refused (403), after validation, as a validating plugin.

The CertificateApproval and CertificateSigning plugins (the `approve`/`sign` verbs on `signers`) matter only under
RBAC: `CertificateAdmission` below, installed by server.py with an authorizer."""
from __future__ import annotations

from typing import Any, Callable

from cryptography.x509.oid import NameOID

from .. import apierrors as E
from ..registry.certificates import GROUP, KUBE_APISERVER_CLIENT, decode_bytes, parse_csr
from .chain import VALIDATE, timed


def subject_restriction(obj: dict[str, Any]) -> Callable[[], None] | None:
    """`Plugin.Validate` for a create (the validating hook: raises the 403, nothing to do after the write)."""
    spec = obj.get("spec") or {}
    if spec.get("signerName") != KUBE_APISERVER_CLIENT:
        return None
    name = (obj.get("metadata") or {}).get("name") or ""
    try:
        req = parse_csr(decode_bytes(spec.get("request")))
    except ValueError as exc:
        raise E.forbidden("certificatesigningrequests", name, f"failed to parse CSR: {exc}", GROUP) from None
    if any(a.value == "system:masters" for a in req.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)):
        raise E.forbidden("certificatesigningrequests", name, f"use of {KUBE_APISERVER_CLIENT} signer with "
                                                              "system:masters group is not allowed", GROUP)
    return None


subject_restriction_step = timed("CertificateSubjectRestriction", VALIDATE, subject_restriction)


class CertificateAdmission:
    """The CertificateApproval and CertificateSigning plugins (`plugin/pkg/admission/certificates/approval`,
    `signing`), which need an authorizer (installed with `--authorization rbac`; wraps the chain, other phases
    are the inner chain's). On an update of a CSR's `/approval` the requester needs the `approve` verb, on an
    update of its `/status` that changes `status.certificate` or `status.conditions` the `sign` verb, on the
    synthetic `signers` resource of `certificates.k8s.io` named by the signer, or by its domain's wildcard
    (`IsAuthorizedForSignerName`: `example.com/*`); a refusal is upstream's 403."""

    def __init__(self, inner: Any, authorizer: Any):
        self.inner = inner
        self.authorizer = authorizer

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def for_validate_update(self, info: Any, subresource: str) -> Callable[[dict[str, Any], dict[str, Any]],
                                                                          None] | None:
        inner = getattr(self.inner, "for_validate_update", None)
        inner_step = inner(info, subresource) if inner is not None else None
        if info.kind != "CertificateSigningRequest" or subresource not in ("approval", "status"):
            return inner_step

        def check(new: dict[str, Any], old: dict[str, Any]) -> None:
            if subresource == "approval":  # checked against the new object's signer (approval/admission.go)
                verb, signer = "approve", (new.get("spec") or {}).get("signerName") or ""
            else:
                new_status, old_status = new.get("status") or {}, old.get("status") or {}
                verb, signer = "sign", (old.get("spec") or {}).get("signerName") or ""
                if new_status.get("certificate") == old_status.get("certificate") \
                        and (new_status.get("conditions") or []) == (old_status.get("conditions") or []):
                    verb = ""
            if verb and not self._authorized(verb, signer):
                raise E.forbidden("certificatesigningrequests", (new.get("metadata") or {}).get("name") or "",
                                  f'user not permitted to {verb} requests with signerName "{signer}"', GROUP)
        plugin = timed("CertificateApproval" if subresource == "approval" else "CertificateSigning", VALIDATE, check)

        def validate(new: dict[str, Any], old: dict[str, Any]) -> None:
            plugin(new, old)
            if inner_step is not None:
                inner_step(new, old)
        return validate

    def _authorized(self, verb: str, signer: str) -> bool:
        from ..auth.escalation import CURRENT_USER
        from ..auth.rbac import Attributes
        user = CURRENT_USER.get()
        if user is None:  # a write of the server's own (no request user)
            return True
        for name in (signer, signer.split("/")[0] + "/*"):
            attrs = Attributes(user, verb, api_group=GROUP, resource="signers", name=name, api_version="*")
            if self.authorizer.authorize(attrs)[0]:
                return True
        return False

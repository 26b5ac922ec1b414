"""The CertificateSubjectRestriction admission plugin (`plugin/pkg/admission/certificates/subjectrestriction`,
on by default): a create of a CSR for the `kubernetes.io/kube-apiserver-client` signer whose request names the
`system:masters` organization is refused (403), after validation, as a validating plugin.

The CertificateApproval and CertificateSigning plugins (the `approve`/`sign` verbs on `signers`) matter only under
RBAC and are not modelled."""
from __future__ import annotations

from typing import Any, Callable

from cryptography.x509.oid import NameOID

from .. import apierrors as E
from ..registry.certificates import GROUP, KUBE_APISERVER_CLIENT, decode_bytes, parse_csr


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

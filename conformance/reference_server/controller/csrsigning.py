"""kube-controller-manager's `csrsigning` controller (`pkg/controller/certificates/signer/signer.go`, with
`pkg/controller/certificates/authority/{authority,policies}.go` and `pkg/apis/certificates/helpers.go`).

Four signers share the cluster signing CA (`--cluster-signing-cert-file`, on kind the cluster CA): the server's
CA when it serves TLS (the one its kubeconfig and `kube-root-ca.crt` publish), else a CA made for the server on
first need. Each handles only the approved, not failed CSRs naming it:

- `kubernetes.io/kube-apiserver-client`: usages among `digital signature`, `key encipherment`, `client auth`, with
  `client auth` required (`validAPIServerClientUsages`);
- `kubernetes.io/kube-apiserver-client-kubelet`: `ValidateKubeletClientCSR` (organization `system:nodes`, common
  name `system:node:*`, no SANs, usages exactly the RSA or non-RSA set);
- `kubernetes.io/kubelet-serving`: `ValidateKubeletServingCSR` (organization, a DNS or IP SAN, no email/URI SANs,
  usages, common name);
- `kubernetes.io/legacy-unknown`: never signed (its signer refuses every request: not reachable through v1).

A request its signer refuses gets the `Failed` condition (`SignerValidationFailure`, the rule's words); one it
accepts gets `status.certificate`: the request's subject, SANs and key, the usages as key usages
(`keyUsagesFromStrings`), not a CA, `NotBefore` now - 5 min, `NotAfter` now + the duration (`expirationSeconds`
clamped to [10 min, `--cluster-signing-duration` 8760h]) minus the 5 min backdate unless shorter than 8 h, never after
the CA's own end.
Other signer names are left to their own signers (none here), as upstream.

Its `certificatesigningrequests/status` UPDATEs are made as `certificate-controller`
(`cmd/kube-controller-manager/app/certificates.go` `ClientOrDie("certificate-controller")`, shared by the signer,
approver and cleaner) through admission/admitted.py; a refused write requeues the CSR with the queue's backoff.
The certificate issued for a CSR's resourceVersion is kept for the sync's reruns, so the write a pending admission
stopped is the same when the sync reaches it again.
"""
from __future__ import annotations

import base64
import datetime as _dt
import ipaddress
import logging
import secrets
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from .. import apierrors as E
from ..admission.admitted import AdmissionRefusal
from ..registry import Registry
from ..registry import certificates as C
from ..registry.meta import now as meta_now
from .loop import Controller

log = logging.getLogger("nsconform.reference_server.controller")
FIELD_MANAGER = "kube-controller-manager"
CERT_TTL = _dt.timedelta(hours=8760)  # --cluster-signing-duration's default
BACKDATE = _dt.timedelta(minutes=5)
SHORT = _dt.timedelta(hours=8)

_KEY_USAGES = {"signing": "digital_signature", "digital signature": "digital_signature",
               "content commitment": "content_commitment", "key encipherment": "key_encipherment",
               "key agreement": "key_agreement", "data encipherment": "data_encipherment",
               "cert sign": "key_cert_sign", "crl sign": "crl_sign", "encipher only": "encipher_only",
               "decipher only": "decipher_only"}
_EXT_USAGES = {  # Go's x509.ExtKeyUsage values, the order keyUsagesFromStrings sorts them in
    "any": (0, ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE), "server auth": (1, ExtendedKeyUsageOID.SERVER_AUTH),
    "client auth": (2, ExtendedKeyUsageOID.CLIENT_AUTH), "code signing": (3, ExtendedKeyUsageOID.CODE_SIGNING),
    "email protection": (4, ExtendedKeyUsageOID.EMAIL_PROTECTION), "s/mime": (4, ExtendedKeyUsageOID.EMAIL_PROTECTION),
    "ipsec end system": (5, x509.ObjectIdentifier("1.3.6.1.5.5.7.3.5")),
    "ipsec tunnel": (6, x509.ObjectIdentifier("1.3.6.1.5.5.7.3.6")),
    "ipsec user": (7, x509.ObjectIdentifier("1.3.6.1.5.5.7.3.7")),
    "timestamping": (8, ExtendedKeyUsageOID.TIME_STAMPING), "ocsp signing": (9, ExtendedKeyUsageOID.OCSP_SIGNING),
    "microsoft sgc": (10, x509.ObjectIdentifier("1.3.6.1.4.1.311.10.3.3")),
    "netscape sgc": (11, x509.ObjectIdentifier("2.16.840.1.113730.4.1")),
}
_KUBELET_SERVING = ({"digital signature", "key encipherment", "server auth"}, {"digital signature", "server auth"})
_KUBELET_CLIENT = ({"digital signature", "key encipherment", "client auth"}, {"digital signature", "client auth"})


class SigningCA:
    """The cluster signing CA: a certificate and its key (PEM)."""

    def __init__(self, cert_pem: bytes, key_pem: bytes):
        self.cert = x509.load_pem_x509_certificate(cert_pem)
        self.key = serialization.load_pem_private_key(key_pem, password=None)

    @classmethod
    def generate(cls) -> "SigningCA":
        """A CA for a server without TLS (no CA of its own to sign with); valid a year."""
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "nsconform-signing-ca")])
        start = _dt.datetime.now(_dt.timezone.utc)
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                .serial_number(x509.random_serial_number()).not_valid_before(start - BACKDATE)
                .not_valid_after(start + CERT_TTL)
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=False,
                                             content_commitment=False, key_encipherment=True, data_encipherment=False,
                                             key_agreement=False, encipher_only=False, decipher_only=False),
                               critical=True)
                .sign(key, hashes.SHA256()))
        return cls(cert.public_bytes(serialization.Encoding.PEM),
                   key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption()))


def duration(expiration_seconds: Any) -> _dt.timedelta:
    """`signer.duration`: the requested duration within [2 × backdate, --cluster-signing-duration]."""
    if not isinstance(expiration_seconds, int) or isinstance(expiration_seconds, bool):
        return CERT_TTL
    return min(max(_dt.timedelta(seconds=expiration_seconds), 2 * BACKDATE), CERT_TTL)


def _sans(req: x509.CertificateSigningRequest) -> tuple[list[str], list[Any], list[str], list[str]]:
    try:
        ext = req.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return [], [], [], []
    return (ext.get_values_for_type(x509.DNSName), ext.get_values_for_type(x509.IPAddress),
            ext.get_values_for_type(x509.RFC822Name), ext.get_values_for_type(x509.UniformResourceIdentifier))


def _organizations(req: x509.CertificateSigningRequest) -> list[str]:
    return [str(a.value) for a in req.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]


def _common_name(req: x509.CertificateSigningRequest) -> str:
    names = req.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(names[0].value) if names else ""


def signer_error(signer: str, req: x509.CertificateSigningRequest, usages: list[str]) -> str:
    """Why `signer` refuses the request ("" when it accepts), in the words of its `isRequestForSignerFn`."""
    used = set(usages)
    if signer == C.KUBE_APISERVER_CLIENT:  # validAPIServerClientUsages
        for u in usages:
            if u not in ("digital signature", "key encipherment", "client auth"):
                return f"invalid usage for client certificate: {u}"
        return "" if "client auth" in used else "missing required usage for client certificate: client auth"
    dns, ips, emails, uris = _sans(req)
    if _organizations(req) != ["system:nodes"]:
        return "subject organization is not system:nodes"
    if signer == C.KUBELET_SERVING:  # ValidateKubeletServingCSR
        if not dns and not ips:
            return "DNS or IP subjectAltName is required"
        if emails:
            return "Email subjectAltNames are not allowed"
        if uris:
            return "URI subjectAltNames are not allowed"
        if used not in _KUBELET_SERVING:
            return "usages did not match [digital signature key encipherment server auth]"
        return "" if _common_name(req).startswith("system:node:") else \
            "subject common name does not begin with system:node:"
    # ValidateKubeletClientCSR
    for present, what in ((dns, "DNS"), (emails, "Email"), (ips, "IP"), (uris, "URI")):
        if present:
            return f"{what} subjectAltNames are not allowed"
    if not _common_name(req).startswith("system:node:"):
        return "subject common name does not begin with system:node:"
    return "" if used in _KUBELET_CLIENT else "usages did not match [client auth digital signature key encipherment]"


def sign(ca: SigningCA, req: x509.CertificateSigningRequest, usages: list[str], expiration_seconds: Any,
         at: _dt.datetime | None = None) -> bytes:
    """`CertificateAuthority.Sign` with `PermissiveSigningPolicy`: the certificate's PEM."""
    now = at or _dt.datetime.now(_dt.timezone.utc)
    ttl = duration(expiration_seconds)
    not_after = now + ttl if ttl < SHORT else now + ttl - BACKDATE
    not_after = min(not_after, ca.cert.not_valid_after_utc)
    dns, ips, emails, uris = _sans(req)
    builder = (x509.CertificateBuilder().subject_name(req.subject).issuer_name(ca.cert.subject)
               .public_key(req.public_key()).serial_number(secrets.randbits(128) or 1)
               .not_valid_before(now - BACKDATE).not_valid_after(not_after))
    flags = {f: False for f in set(_KEY_USAGES.values())}
    for u in usages:
        if u in _KEY_USAGES:
            flags[_KEY_USAGES[u]] = True
    if any(flags.values()):
        builder = builder.add_extension(x509.KeyUsage(**flags), critical=True)
    ext = sorted({_EXT_USAGES[u] for u in usages if u in _EXT_USAGES}, key=lambda p: p[0])
    if ext:
        builder = builder.add_extension(x509.ExtendedKeyUsage([oid for _, oid in ext]), critical=False)
    builder = builder.add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
    names: list[x509.GeneralName] = [x509.DNSName(d) for d in dns] + [x509.RFC822Name(e) for e in emails] + \
        [x509.IPAddress(ipaddress.ip_address(i)) for i in ips] + [x509.UniformResourceIdentifier(u) for u in uris]
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=not list(req.subject))
    try:
        ski = ca.cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
        builder = builder.add_extension(x509.AuthorityKeyIdentifier(ski.digest, None, None), critical=False)
    except x509.ExtensionNotFound:
        pass
    algorithm = hashes.SHA256() if isinstance(ca.key, (ec.EllipticCurvePrivateKey, rsa.RSAPrivateKey)) else None
    cert = builder.sign(ca.key, algorithm)  # type: ignore[arg-type]
    return cert.public_bytes(serialization.Encoding.PEM)


class CSRSigningController(Controller):
    name = "csrsigning"
    service_account = "certificate-controller"

    def __init__(self, registry: Registry, ca_pem: bytes | None = None, ca_key_pem: bytes | None = None):
        super().__init__()
        self.registry = registry
        self._ca = SigningCA(ca_pem, ca_key_pem) if ca_pem and ca_key_pem else None
        self.keys = self._queue()
        self._issued: dict[tuple[str, str], bytes] = {}  # (name, resourceVersion) → the certificate to write

    @property
    def ca(self) -> SigningCA:
        if self._ca is None:
            self._ca = SigningCA.generate()
        return self._ca

    def _store(self) -> Any:
        return self.registry.group(C.GROUP, C.CSR_INFO.plural)

    def start(self) -> None:
        store = self._store()
        if store is None:
            return
        self._inform(store, self._on)
        self._work(self.keys, self._sync)

    def _on(self, ev: Any) -> None:
        if ev.type != "DELETED":
            self.keys.add(ev.name)

    async def _sync(self, name: str) -> None:
        store = self._store()
        try:
            csr = store.get("", name)
        except E.StatusError:
            return
        try:
            self._handle(store, csr)
        except AdmissionRefusal as exc:  # the sync's error: `AddRateLimited`
            self.refused(self.keys, name, exc)
            return
        except E.StatusError as exc:
            if exc.code == 409:
                self.keys.add_after(name, 0.05)
            elif exc.code != 404:
                log.info("%s: csr %s: %s", self.name, name, exc.message)
            return
        self.forget(name)

    def _handle(self, store: Any, csr: dict[str, Any]) -> None:
        """`signer.handle`: approved, not failed, not yet issued, for one of the four signers."""
        spec, status = csr.get("spec") or {}, csr.get("status") or {}
        if not C.has_true(csr, C.APPROVED) or C.has_true(csr, C.FAILED) or status.get("certificate"):
            return
        signer = spec.get("signerName")
        if signer not in (C.KUBE_APISERVER_CLIENT, C.KUBE_APISERVER_CLIENT_KUBELET, C.KUBELET_SERVING):
            return  # legacy-unknown's signer recognises nothing; other names have their own signers
        try:
            req = C.parse_csr(C.decode_bytes(spec.get("request")))
        except ValueError as exc:
            log.info("%s: unable to parse csr %q: %s", self.name, csr["metadata"]["name"], exc)
            return
        usages = [u for u in spec.get("usages") or [] if isinstance(u, str)]
        refusal = signer_error(signer, req, usages)
        name = csr["metadata"]["name"]
        if refusal:
            stamp = meta_now()

            def failed(cur: dict[str, Any]) -> dict[str, Any]:
                st = cur.setdefault("status", {})
                st["conditions"] = list(st.get("conditions") or []) + [{
                    "type": C.FAILED, "status": "True", "reason": "SignerValidationFailure", "message": refusal,
                    "lastUpdateTime": stamp}]
                cur["metadata"]["resourceVersion"] = csr["metadata"]["resourceVersion"]
                return cur
            self.writes.update(store, "", name, transform=failed, strategy=store.status_strategy,
                               field_manager=FIELD_MANAGER)
            return
        key = (name, csr["metadata"]["resourceVersion"])
        pem = self._issued.get(key)
        if pem is None:
            self._issued.clear()  # (one CSR's sync at a time)
            pem = self._issued[key] = sign(self.ca, req, usages, spec.get("expirationSeconds"))

        def issued(cur: dict[str, Any]) -> dict[str, Any]:
            cur.setdefault("status", {})["certificate"] = base64.b64encode(pem).decode()
            cur["metadata"]["resourceVersion"] = csr["metadata"]["resourceVersion"]
            return cur
        self.writes.update(store, "", name, transform=issued, strategy=store.status_strategy,
                           field_manager=FIELD_MANAGER)
        self._issued.pop(key, None)


__all__ = ["CSRSigningController", "SigningCA", "duration", "sign", "signer_error"]

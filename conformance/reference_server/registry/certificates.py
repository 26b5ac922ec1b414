"""`certificates.k8s.io/v1` CertificateSigningRequests, as kube-apiserver 1.33 serves them:

- `pkg/registry/certificates/certificates/strategy.go`: on create the requesting user's name, uid, groups and
  extra are written into `spec` (whatever the client sent) and `status` is cleared; an update of the object keeps
  `spec` and `status`; `/status` keeps `spec` and the Approved/Denied conditions (it sets `status.certificate`
  and other conditions); `/approval` keeps `spec` and `status.certificate` (it sets the conditions); both fill
  missing condition timestamps (`populateConditionTimestamps`);
- `pkg/apis/certificates/validation/validation.go`: the request is a PEM `CERTIFICATE REQUEST` whose signature
  checks (`certificates.ParseCSR`, `CheckSignature`), usages known and not repeated, `ValidateSignerName`
  (`pkg/apis/core/validation`), `expirationSeconds` at least 600, Approved and Denied exclusive, one condition of
  a type, `status.certificate` only CERTIFICATE PEM blocks, set once and only through `/status`;
- `pkg/apis/certificates/v1/defaults.go`: a condition without `status` is `True`.

The requesting user comes from `auth.escalation.CURRENT_USER` (set by the HTTP layer for every request that
reaches this store's create).
"""
from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from cryptography import x509

from ..apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ..auth.authn import user_to_dict
from ..auth.escalation import CURRENT_USER
from ..storage.clone import clone
from .kinds import ResourceInfo
from .meta import now
from ..apierrors import field_duplicate
from .strategy import Strategy
from .validation import is_dns1123_label, is_dns1123_subdomain
from .shapes import as_dict, as_list

GROUP, VERSION = "certificates.k8s.io", "v1"
CSR_INFO = ResourceInfo("CertificateSigningRequest", "certificatesigningrequests", "certificatesigningrequest",
                        ("csr",), namespaced=False, fields=frozenset({"spec", "status"}),
                        selectable_fields=("metadata.name",))

APPROVED, DENIED, FAILED = "Approved", "Denied", "Failed"
KUBE_APISERVER_CLIENT = "kubernetes.io/kube-apiserver-client"
KUBE_APISERVER_CLIENT_KUBELET = "kubernetes.io/kube-apiserver-client-kubelet"
KUBELET_SERVING = "kubernetes.io/kubelet-serving"
LEGACY_UNKNOWN = "kubernetes.io/legacy-unknown"
VALID_USAGES = sorted((
    "signing", "digital signature", "content commitment", "key encipherment", "key agreement", "data encipherment",
    "cert sign", "crl sign", "encipher only", "decipher only", "any", "server auth", "client auth", "code signing",
    "email protection", "s/mime", "ipsec end system", "ipsec tunnel", "ipsec user", "timestamping", "ocsp signing",
    "microsoft sgc", "netscape sgc"))
_TRUE_ONLY = (APPROVED, DENIED, FAILED)
_PEM = re.compile(rb"-----BEGIN ([^-\r\n]*)-----\r?\n(.*?)-----END \1-----", re.S)


def decode_bytes(value: Any) -> bytes:
    """A `[]byte` field's JSON (base64) as bytes; b"" when absent or not decodable (the decoder refused those)."""
    if not isinstance(value, str):
        return b""
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return b""


def go_bytes(value: Any) -> str:
    """Go's `%#v` of a `[]byte` (how `field.Invalid` prints `spec.request`)."""
    if not isinstance(value, str):
        return "[]byte(nil)"
    return "[]byte{" + ", ".join(f"0x{b:x}" for b in decode_bytes(value)) + "}"


def pem_blocks(data: bytes) -> list[tuple[str, bytes, bool]]:
    """`pem.Decode` repeatedly: (type, DER, has headers) of each block, in order."""
    out = []
    for m in _PEM.finditer(data):
        body = m.group(2)
        headers = b":" in body.split(b"\n\n", 1)[0] if b"\n\n" in body else False
        lines = body.split(b"\n\n", 1)[1] if headers else body
        try:
            der = base64.b64decode(b"".join(lines.split()), validate=True)
        except (binascii.Error, ValueError):
            break
        out.append((m.group(1).decode("latin-1"), der, headers))
    return out


def parse_csr(request: bytes) -> x509.CertificateSigningRequest:
    """`certificates.ParseCSR` and `CheckSignature`; ValueError with upstream's words."""
    blocks = pem_blocks(request)
    if not blocks or blocks[0][0] != "CERTIFICATE REQUEST":
        raise ValueError("PEM block type must be CERTIFICATE REQUEST")
    try:
        csr = x509.load_der_x509_csr(blocks[0][1])
    except ValueError:
        raise ValueError("x509: malformed certificate request") from None
    if not csr.is_signature_valid:
        raise ValueError("x509: ECDSA verification failure" if "ecdsa" in csr.signature_algorithm_oid._name.lower()
                         else "crypto/rsa: verification error")
    return csr


def _certificate_error(data: bytes) -> str:
    """`validateCertificate`: "" when `data` is empty or only CERTIFICATE blocks without headers that parse."""
    if not data:
        return ""
    blocks = pem_blocks(data)
    for typ, der, headers in blocks:
        if typ != "CERTIFICATE":
            return f'only CERTIFICATE PEM blocks are allowed, found "{typ}"'
        if headers:
            return "no PEM block headers are permitted"
        try:
            x509.load_der_x509_certificate(der)
        except ValueError:
            return "x509: malformed certificate"
    return "" if blocks else "must contain at least one CERTIFICATE PEM block"


def validate_signer_name(path: str, name: str) -> list[FieldError]:
    """`ValidateSignerName` (`pkg/apis/core/validation`)."""
    if not name:
        return [field_required(path)]
    segments = name.split("/")
    if len(segments) != 2:
        return [field_invalid(path, name, "must be a fully qualified domain and path of the form "
                                          "'example.com/signer-name'")]
    errs: list[FieldError] = []
    if len(segments[0]) > 253:
        errs.append(FieldError("FieldValueTooLong", path, "Too long: may not be more than 253 bytes"))
    labels = segments[0].split(".")
    for label in labels:
        msgs = is_dns1123_label(label)
        if msgs:
            errs += [field_invalid(path, segments[0], f'validating label "{label}": {m}') for m in msgs]
            break
    if len(labels) < 2:
        errs.append(field_invalid(path, segments[0], "should be a domain with at least two segments separated by dots"))
    for label in segments[1].split("."):
        msgs = is_dns1123_subdomain(label)
        if msgs:
            errs += [field_invalid(path, segments[1], f'validating label "{label}": {m}') for m in msgs]
            break
    if len(name) > 253 + 253 + 63 + 1 + 1:
        errs.append(FieldError("FieldValueTooLong", path, "Too long: may not be more than 571 bytes"))
    return errs


def _conditions(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in as_list(as_dict(obj.get("status")).get("conditions")) if isinstance(c, dict)]


def _find(obj: dict[str, Any], ctype: str) -> list[dict[str, Any]]:
    return [c for c in _conditions(obj) if c.get("type") == ctype]


def has_true(obj: dict[str, Any], ctype: str) -> bool:
    return any(c.get("status") == "True" for c in _find(obj, ctype))


class _Options:
    """`certificateValidationOptions` from `getValidationOptions(new, old)`."""

    def __init__(self, new: dict[str, Any], old: dict[str, Any] | None):
        types = [c.get("type") for c in _conditions(old)] if old is not None else []
        ospec = as_dict(old.get("spec")) if old is not None else {}
        ousages = as_list(ospec.get("usages"))
        self.setting_approval = False
        self.setting_certificate = False
        self.both_approved_and_denied = APPROVED in types and DENIED in types
        self.legacy_signer = old is not None and ospec.get("signerName") == LEGACY_UNKNOWN
        self.duplicate_conditions = len(types) != len(set(types))
        self.empty_condition_type = "" in types or None in types
        new_cert = as_dict(new.get("status")).get("certificate")
        old_cert = as_dict(old.get("status")).get("certificate") if old is not None else None
        self.arbitrary_certificate = old is not None and (
            decode_bytes(new_cert) == decode_bytes(old_cert) or bool(_certificate_error(decode_bytes(old_cert))))
        self.unknown_usages = any(u not in VALID_USAGES for u in ousages)
        self.duplicate_usages = len(ousages) != len(set(map(str, ousages)))


def validate_csr(obj: dict[str, Any], opts: _Options) -> list[FieldError]:
    """`validateCertificateSigningRequest` (metadata is the caller's)."""
    spec = as_dict(obj.get("spec"))
    errs: list[FieldError] = []
    try:
        parse_csr(decode_bytes(spec.get("request")))
    except ValueError as exc:
        errs.append(FieldError("FieldValueInvalid", "spec.request",
                               f"Invalid value: {go_bytes(spec.get('request'))}: {exc}"))
    usages = as_list(spec.get("usages"))
    if not usages:
        errs.append(field_required("spec.usages"))
    if not opts.unknown_usages:
        errs += [field_not_supported(f"spec.usages[{i}]", u, VALID_USAGES)
                 for i, u in enumerate(usages) if u not in VALID_USAGES]
    if not opts.duplicate_usages:
        seen: set[Any] = set()
        for i, u in enumerate(usages):
            if u in seen:
                errs.append(field_duplicate(f"spec.usages[{i}]", u))
            seen.add(u)
    signer = spec.get("signerName") or ""
    if not opts.legacy_signer and signer == LEGACY_UNKNOWN:
        errs.append(field_invalid("spec.signerName", signer, "the legacy signerName is not allowed via this API "
                                                             "version"))
    else:
        errs += validate_signer_name("spec.signerName", signer)
    expiration = spec.get("expirationSeconds")
    if isinstance(expiration, int) and not isinstance(expiration, bool) and expiration < 600:
        errs.append(field_invalid("spec.expirationSeconds", expiration,
                                  "may not specify a duration less than 600 seconds (10 minutes)"))
    errs += _validate_conditions(obj, opts)
    if not opts.arbitrary_certificate:
        err = _certificate_error(decode_bytes(as_dict(obj.get("status")).get("certificate")))
        if err:
            errs.append(field_invalid("status.certificate", "<certificate data>", err))
    return errs


def _validate_conditions(obj: dict[str, Any], opts: _Options) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[Any] = set()
    approved = denied = False
    for i, c in enumerate(_conditions(obj)):
        path = f"status.conditions[{i}]"
        ctype, status = c.get("type") or "", c.get("status") or ""
        if not opts.empty_condition_type and not ctype:
            errs.append(field_required(f"{path}.type"))
        allowed = ["True"] if ctype in _TRUE_ONLY else ["False", "True", "Unknown"]
        if not status:
            errs.append(field_required(f"{path}.status"))
        elif status not in allowed:
            errs.append(field_not_supported(f"{path}.status", status, allowed))
        if not opts.both_approved_and_denied:
            if ctype == APPROVED:
                approved = True
                if denied:
                    errs.append(field_invalid(f"{path}.type", ctype, "Approved and Denied conditions are mutually "
                                                                     "exclusive"))
            elif ctype == DENIED:
                denied = True
                if approved:
                    errs.append(field_invalid(f"{path}.type", ctype, "Approved and Denied conditions are mutually "
                                                                     "exclusive"))
        if not opts.duplicate_conditions:
            if ctype in seen:
                errs.append(field_duplicate(f"{path}.type", ctype))
            seen.add(ctype)
    return errs


def validate_csr_update(new: dict[str, Any], old: dict[str, Any], opts: _Options) -> list[FieldError]:
    """`validateCertificateSigningRequestUpdate` (the metadata update errors are the caller's, appended last)."""
    errs = validate_csr(new, opts)
    for ctype in (APPROVED, DENIED, FAILED):
        if len(_find(new, ctype)) < len(_find(old, ctype)):
            errs.append(field_forbidden("status.conditions", f'updates may not remove a condition of type "{ctype}"'))
    if not opts.setting_approval:
        for ctype in (APPROVED, DENIED):
            o, n = _find(old, ctype), _find(new, ctype)
            if len(n) > len(o):
                errs.append(field_forbidden("status.conditions", f'updates may not add a condition of type "{ctype}"'))
            elif len(n) == len(o) and n != o:
                errs.append(field_forbidden("status.conditions", f'updates may not modify a condition of type '
                                                                 f'"{ctype}"\n'))
    new_cert = decode_bytes(as_dict(new.get("status")).get("certificate"))
    old_cert = decode_bytes(as_dict(old.get("status")).get("certificate"))
    if new_cert != old_cert:
        if not opts.setting_certificate:
            errs.append(field_forbidden("status.certificate", "updates may not set certificate content"))
        elif old_cert:
            errs.append(field_forbidden("status.certificate", "updates may not modify existing certificate content"))
    return errs


def _populate_timestamps(new: dict[str, Any], old: dict[str, Any]) -> None:
    """`populateConditionTimestamps`."""
    stamp = now()
    for c in _conditions(new):
        if not c.get("lastUpdateTime"):
            c["lastUpdateTime"] = stamp
        if not c.get("lastTransitionTime"):
            c["lastTransitionTime"] = next(
                (o["lastTransitionTime"] for o in _conditions(old) if o.get("type") == c.get("type")
                 and o.get("status") == c.get("status") and o.get("lastTransitionTime")), stamp)


class CSRStrategy(Strategy):
    """`csrStrategy`."""

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        for c in _conditions(obj):  # SetDefaults_CertificateSigningRequestCondition
            if not c.get("status"):
                c["status"] = "True"

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            spec = obj["spec"] = {}
        for k in ("username", "uid", "groups", "extra"):
            spec.pop(k, None)
        user = CURRENT_USER.get()
        if user is not None:  # the requester as UserInfo JSON, empty fields left out
            spec.update((k, v) for k, v in user_to_dict(user).items() if v)
        obj["status"] = {}

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + validate_csr(obj, _Options(obj, None))

    def _keep(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        new["spec"] = clone(old.get("spec") or {})
        new["status"] = clone(old.get("status") or {})

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        self._keep(new, old)

    def options(self, new: dict[str, Any], old: dict[str, Any]) -> _Options:
        return _Options(new, old)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        meta_errs = super().validate_update(new, old)
        return validate_csr_update(new, old, self.options(new, old)) + meta_errs


class CSRStatusStrategy(CSRStrategy):
    """`csrStatusStrategy`: keeps `spec` and each Approved/Denied condition instance (when their number is
    unchanged: adding or removing them is refused by validation)."""

    subresource = "status"

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        new["spec"] = clone(old.get("spec") or {})
        if not isinstance(new.get("status"), dict):
            new["status"] = {}
        conds = as_list(new["status"].get("conditions"))
        for ctype in (APPROVED, DENIED):
            old_idx = [i for i, c in enumerate(_conditions(old)) if c.get("type") == ctype]
            new_idx = [i for i, c in enumerate(conds) if isinstance(c, dict) and c.get("type") == ctype]
            if len(old_idx) == len(new_idx):
                for oi, ni in zip(old_idx, new_idx):
                    conds[ni] = clone(_conditions(old)[oi])
        _populate_timestamps(new, old)

    def options(self, new: dict[str, Any], old: dict[str, Any]) -> _Options:
        opts = _Options(new, old)
        opts.setting_certificate = True
        return opts


class CSRApprovalStrategy(CSRStrategy):
    """`csrApprovalStrategy`: only the conditions change."""

    subresource = "approval"

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        _populate_timestamps(new, old)
        conditions = as_dict(new.get("status")).get("conditions")
        new["spec"] = clone(old.get("spec") or {})
        new["status"] = clone(old.get("status") or {})
        if conditions is None:
            new["status"].pop("conditions", None)
        else:
            new["status"]["conditions"] = conditions

    def options(self, new: dict[str, Any], old: dict[str, Any]) -> _Options:
        opts = _Options(new, old)
        opts.setting_approval = True
        return opts


__all__ = ["CSR_INFO", "CSRApprovalStrategy", "CSRStatusStrategy", "CSRStrategy", "GROUP", "VERSION", "has_true",
           "parse_csr"]

"""Table printers of CertificateSigningRequests and of events.k8s.io/v1 Events, after upstream's
`pkg/printers/internalversion/printers.go`: `printCertificateSigningRequest` (`extractCSRStatus`) and, for
events.k8s.io, `printEvent` itself (upstream converts an events/v1 Event to the internal core Event, the one type
both APIs store, before printing: `registry/eventsview.py`'s `to_core` plays that part here).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

NONE = "<none>"
Col = Callable[..., dict[str, Any]]
_SIGNER_DOC = ("Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If "
               "empty, it will be defaulted:\n 1. If it's a kubelet client certificate, it is assigned\n    "
               "\"kubernetes.io/kube-apiserver-client-kubelet\".\n 2. If it's a kubelet serving certificate, it is "
               "assigned\n    \"kubernetes.io/kubelet-serving\".\n 3. Otherwise, it is assigned "
               "\"kubernetes.io/legacy-unknown\".\nDistribution of trust for signers happens out of band. You can "
               "select on this field using `spec.signerName`.")
_DURATION_DOC = (
    "expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may "
    "issue a certificate with a different validity duration so a client must check the delta between the notBefore "
    "and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe v1.22+ in-tree "
    "implementations of the well-known Kubernetes signers will honor this field as long as the requested duration "
    "is not greater than the maximum duration they will honor per the --cluster-signing-duration CLI flag to the "
    "Kubernetes controller manager.\n\nCertificate signers may not honor this field for various reasons:\n\n  1. Old "
    "signer that is unaware of the field (such as the in-tree\n     implementations prior to v1.22)\n  2. Signer "
    "whose configured maximum is shorter than the requested duration\n  3. Signer whose configured minimum is longer "
    "than the requested duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes.")


def csr_condition(obj: dict[str, Any]) -> str:
    """`extractCSRStatus`: Denied over Approved over Pending, then `,Failed` and `,Issued`."""
    status = obj.get("status") or {}
    types = {c.get("type") for c in status.get("conditions") or [] if isinstance(c, dict)}
    out = "Denied" if "Denied" in types else "Approved" if "Approved" in types else "Pending"
    if "Failed" in types:
        out += ",Failed"
    if status.get("certificate"):
        out += ",Issued"
    return out


def printers(col: Col, name: dict[str, Any], age_col: dict[str, Any], age: Callable[[dict[str, Any], datetime], str],
             human_duration: Callable[[float], str], core_event: tuple[list[dict[str, Any]], Callable],
             to_core: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, tuple[list[dict[str, Any]], Callable]]:
    """kind → (columns, printer); `core_event` is the core Event's (columns, printer)."""

    def csr(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec = obj.get("spec") or {}
        seconds = spec.get("expirationSeconds")
        duration = human_duration(seconds) if isinstance(seconds, int) and not isinstance(seconds, bool) else NONE
        return [obj["metadata"].get("name", ""), age(obj, now), spec.get("signerName") or NONE,
                spec.get("username", ""), duration, csr_condition(obj)]

    def events_v1(obj: dict[str, Any], now: datetime) -> list[Any]:
        return core_event[1](to_core(obj), now)

    return {
        "CertificateSigningRequest": ([name, age_col, col("SignerName", _SIGNER_DOC),
                                       col("Requestor", "Base64-encoded PKCS#10 CSR data"),
                                       col("RequestedDuration", _DURATION_DOC),
                                       col("Condition", "Conditions applied to the request, such as approval or "
                                                        "denial.")], csr),
        "events.k8s.io/Event": (core_event[0], events_v1),
    }

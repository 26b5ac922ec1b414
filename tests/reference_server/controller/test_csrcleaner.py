"""The csrcleaner controller (controller/csrcleaner.py): which CSRs one pass deletes, with the clock moved
instead of slept: approved-and-issued, denied and failed after 1 h, pending after 24 h, issued with an expired
certificate at once; approved without a certificate never."""
from __future__ import annotations

import base64
import datetime as dt

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from conformance.reference_server.controller.csrcleaner import CSRCleanerController, why_clean
from conformance.reference_server.controller.csrsigning import SigningCA, sign
from conformance.reference_server.registry import ListOptions, Registry
from conformance.reference_server.registry import certificates as C
from conformance.reference_server.storage import MemoryStore

H = dt.timedelta(hours=1)
KEY = ec.generate_private_key(ec.SECP256R1())
PEM = (x509.CertificateSigningRequestBuilder()
       .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "alice")]))
       .sign(KEY, hashes.SHA256()).public_bytes(serialization.Encoding.PEM))


def _store(reg: Registry):
    return reg.group(C.GROUP, C.CSR_INFO.plural)


def _csr(reg: Registry, name: str) -> dict:
    return _store(reg).create({"metadata": {"name": name}, "spec": {
        "request": base64.b64encode(PEM).decode(), "signerName": C.KUBE_APISERVER_CLIENT, "usages": ["client auth"]}})


def _condition(reg: Registry, name: str, ctype: str) -> None:
    store = _store(reg)
    strategy = store.extra_subresources["approval"] if ctype != C.FAILED else store.status_strategy

    def add(cur: dict) -> dict:
        cur.setdefault("status", {}).setdefault("conditions", []).append(
            {"type": ctype, "status": "True", "reason": "Test", "message": "by the test"})
        return cur
    store.update("", name, transform=add, strategy=strategy)


def _issue(reg: Registry, name: str, seconds: int) -> None:
    store = _store(reg)
    req = x509.load_pem_x509_csr(PEM)
    pem = sign(SigningCA.generate(), req, ["client auth"], seconds)

    def issued(cur: dict) -> dict:
        cur.setdefault("status", {})["certificate"] = base64.b64encode(pem).decode()
        return cur
    store.update("", name, transform=issued, strategy=store.status_strategy)


def _names(reg: Registry) -> list[str]:
    return sorted(c["metadata"]["name"] for c in _store(reg).list(None, ListOptions())["items"])


def test_each_state_goes_after_its_duration():
    reg = Registry(MemoryStore())
    for name in ("pending", "approved", "issued", "denied", "failed", "expiring"):
        _csr(reg, name)
    for name in ("approved", "issued", "expiring"):
        _condition(reg, name, C.APPROVED)
    _issue(reg, "issued", 86400)
    _issue(reg, "expiring", 600)  # 10 min, not backdated (shorter than 8 h)
    _condition(reg, "denied", C.DENIED)
    _condition(reg, "failed", C.FAILED)
    start = dt.datetime.now(dt.timezone.utc)
    moved = {"now": start}
    cleaner = CSRCleanerController(reg, clock=lambda: moved["now"])
    assert cleaner.clean() == []
    moved["now"] = start + dt.timedelta(minutes=11)  # the 10-minute certificate has expired
    assert cleaner.clean() == ["expiring"]
    moved["now"] = start + H - dt.timedelta(seconds=60)  # not yet "more than" an hour (a slow machine: margin)
    assert cleaner.clean() == []
    moved["now"] = start + H + dt.timedelta(seconds=2)
    assert sorted(cleaner.clean()) == ["denied", "failed", "issued"]
    moved["now"] = start + 23 * H
    assert cleaner.clean() == []
    moved["now"] = start + 24 * H + dt.timedelta(seconds=2)
    assert cleaner.clean() == ["pending"]
    moved["now"] = start + 1000 * H
    assert cleaner.clean() == [] and _names(reg) == ["approved"]  # approved, never issued: kept


def test_rules_read_the_conditions_not_their_status():
    now = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    old = "2025-12-31T22:00:00Z"
    meta = {"name": "x", "creationTimestamp": old}
    assert why_clean({"metadata": meta, "status": {"conditions": [
        {"type": "Denied", "status": "False", "lastUpdateTime": old}]}}, now) == "denied"
    assert why_clean({"metadata": meta, "status": {"conditions": [
        {"type": "Approved", "status": "True", "lastUpdateTime": old}]}}, now) == ""
    assert why_clean({"metadata": meta, "status": {"conditions": [
        {"type": "Denied", "status": "True"}]}}, now) == ""  # no lastUpdateTime: the zero time is never old
    assert why_clean({"metadata": meta, "status": {}}, now) == ""  # pending 2 h
    assert why_clean({"metadata": {**meta, "creationTimestamp": "2025-12-30T00:00:00Z"}}, now) == "pending"

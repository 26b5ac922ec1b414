"""registry/servicecidr.py: ServiceCIDR and IPAddress validation (`pkg/apis/networking/validation/validation.go`
with apimachinery's `IsValidIP`/`IsValidCIDR`), upstream's messages."""
from __future__ import annotations

import pytest

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.registry.groupvalidation.formats import strict_cidr_errors
from conformance.reference_server.registry.status_validation import ip_errors
from conformance.reference_server.server import build_context


@pytest.mark.parametrize("value,errors", [
    ("10.96.0.0/16", []), ("2001:db8::/64", []),
    ("2001:DB8::/64", []),  # 1.33's strict parse accepts any case (no canonical-form rule yet)
    ("10.96.0.1/16", ["must not have bits set beyond the prefix length"]),
    ("10.96.0.0", ["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"]),
    ("10.96.0.0/33", ["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"]),
    ("010.96.0.0/16", ["must not have leading 0s in IP or prefix length"]),
    ("10.96.0.0/016", ["must not have leading 0s in IP or prefix length"]),
    ("::ffff:10.0.0.0/104", ["must not have an IPv4-mapped IPv6 address"]),
])
def test_cidr_rules(value, errors):
    assert [e.body for e in strict_cidr_errors("spec.cidrs[0]", value)] == [f'Invalid value: "{value}": {m}'
                                                                              for m in errors]


@pytest.mark.parametrize("value,errors", [
    ("10.96.0.1", []), ("2001:db8::1", []), ("2001:DB8::1", []),
    ("10.96.0.256", ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]),
    ("010.96.0.1", ["must not have leading 0s"]),
    ("::ffff:1.2.3.4", ["must not be an IPv4-mapped IPv6 address"]),
])
def test_ip_rules(value, errors):
    assert [e.body for e in ip_errors("metadata.name", value, strict=True)] == [f'Invalid value: "{value}": {m}'
                                                                                  for m in errors]


def _causes(store, obj) -> list[tuple[str, str]]:
    with pytest.raises(StatusError) as err:
        store.create(obj)
    assert err.value.code == 422
    return [(c["field"], c["message"]) for c in err.value.status["details"]["causes"]]


def test_service_cidr_validation_and_immutability():
    registry = build_context(flavor="bare").registry
    store = registry.group("networking.k8s.io", "servicecidrs")

    def cidr(name, *cidrs):
        return {"apiVersion": "networking.k8s.io/v1", "kind": "ServiceCIDR", "metadata": {"name": name},
                "spec": {"cidrs": list(cidrs)}}
    assert _causes(store, cidr("empty")) == [("spec.cidrs", "Required value: at least one CIDR required")]
    assert _causes(store, cidr("two-v4", "10.0.0.0/24", "10.1.0.0/24")) == [
        ("spec.cidrs", 'Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{"10.0.0.0/24", "10.1.0.0/24"}}: '
                       "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64")]
    # `field.Invalid(fieldPath, cidrConfig.Spec, ...)`: the internal struct (no `String()`) prints with `%#v`, its
    # strings with strconv.Quote (a tab as `\t`, a non-ASCII letter as itself)
    assert _causes(store, cidr("three", "10.0.0.0/24\t", "fd00::/64", "é")) == [
        ("spec.cidrs", 'Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{"10.0.0.0/24\\t", "fd00::/64", '
                       '"é"}}: may only hold up to 2 values')]
    made = store.create(cidr("extra", "10.100.0.0/24"))
    assert made["status"] == {}  # (a by-value ServiceCIDRStatus: written, zero)
    changed = {**made, "spec": {"cidrs": ["10.101.0.0/24"]}}
    with pytest.raises(StatusError) as err:
        store.update("", "extra", changed)
    assert err.value.status["details"]["causes"][0]["message"] == (
        'Invalid value: []string{"10.101.0.0/24"}: field is immutable')


def test_ip_address_validation():
    registry = build_context(flavor="bare").registry
    store = registry.group("networking.k8s.io", "ipaddresses")

    def ipaddr(ip, **ref):
        return {"apiVersion": "networking.k8s.io/v1", "kind": "IPAddress", "metadata": {"name": ip},
                "spec": {"parentRef": ref} if ref else {}}
    assert _causes(store, ipaddr("10.96.5.5")) == [("spec.parentRef", "Required value")]
    assert _causes(store, ipaddr("010.96.5.5", resource="services", name="a")) == [
        ("metadata.name", 'Invalid value: "010.96.5.5": must not have leading 0s')]
    assert _causes(store, ipaddr("10.96.5.256", resource="services", name="a")) == [
        ("metadata.name", 'Invalid value: "10.96.5.256": must be a valid IP address, (e.g. 10.9.8.7 or '
                          '2001:db8::ffff)')]
    assert _causes(store, ipaddr("10.96.5.6", group="Bad_Group", name="a/b")) == [
        ("spec.parentRef.group", "Invalid value: \"Bad_Group\": a lowercase RFC 1123 subdomain must consist of lower "
                                 "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
                                 "character (e.g. 'example.com', regex used for validation is "
                                 "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
        ("spec.parentRef.resource", "Required value"),
        ("spec.parentRef.name", "Invalid value: \"a/b\": may not contain '/'")]

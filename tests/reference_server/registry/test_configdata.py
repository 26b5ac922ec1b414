"""registry/configdata.py: a ConfigMap's and a Secret's own checks as kube-apiserver 1.33 makes them
(pkg/apis/core/validation/validation.go `ValidateConfigMap`, `ValidateConfigMapUpdate`, `ValidateSecret`,
`ValidateSecretUpdate`): keys (`IsConfigMapKey`), the 1 MiB total, a Secret's type-specific keys, `immutable`."""
from __future__ import annotations

import base64
from typing import Any

import requests

from tests.reference_server.conftest import NamespaceFactory

IMMUTABLE = "Forbidden: field is immutable when `immutable` is set"
KEY = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
       "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')")


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _causes(r: requests.Response) -> list[dict[str, str]]:
    assert r.status_code == 422, r.text
    return r.json()["details"]["causes"]


def _fields(r: requests.Response) -> list[tuple[str, str]]:
    return [(c.get("field", ""), c["message"]) for c in _causes(r)]


def _collection(url: str, namespaces: NamespaceFactory, plural: str) -> str:
    return f"{url}/api/v1/namespaces/{namespaces.create('cfd')['metadata']['name']}/{plural}"


def test_a_config_maps_keys_and_size(http: requests.Session, url: str, namespaces: NamespaceFactory) -> None:
    """Each bad key of `data`, one also in `binaryData`, then `binaryData`'s; the total at the empty path (its
    cause has no `field`: `omitempty`)."""
    cms = _collection(url, namespaces, "configmaps")
    r = http.post(cms, json={"metadata": {"name": "k"}, "data": {"a b": "x", "ok": "y", "..": "z"},
                             "binaryData": {"ok": _b64("y"), "": _b64("z")}})
    assert _fields(r) == [("data[a b]", f'Invalid value: "a b": {KEY}'),
                          ("data[ok]", 'Invalid value: "ok": duplicate of key present in binaryData'),
                          ("data[..]", 'Invalid value: "..": must not be \'..\''),
                          ("binaryData[]", f'Invalid value: "": {KEY}')]
    r = http.post(cms, json={"metadata": {"name": "big"}, "data": {"a": "x" * (1024 * 1024 - 1)},
                             "binaryData": {"b": _b64("yy")}})
    assert _causes(r) == [{"reason": "FieldValueTooLong", "message": "Too long: may not be more than 1048576 bytes"}]
    assert r.json()["message"] == 'ConfigMap "big" is invalid: : Too long: may not be more than 1048576 bytes'
    assert http.post(cms, json={"metadata": {"name": "max"}, "data": {"a": "x" * (1024 * 1024)}}).status_code == 201


def test_an_immutable_config_map_keeps_its_data_and_stays_immutable(http: requests.Session, url: str,
                                                                    namespaces: NamespaceFactory) -> None:
    """Its labels may change, its data, binaryData and `immutable` may not; it may be deleted."""
    cms = _collection(url, namespaces, "configmaps")
    r = http.post(cms, json={"metadata": {"name": "i"}, "data": {"a": "b"}, "immutable": True})
    assert r.status_code == 201, r.text
    obj: dict[str, Any] = r.json()
    obj["metadata"]["labels"] = {"x": "y"}
    r = http.put(f"{cms}/i", json=obj)
    assert r.status_code == 200, r.text
    obj = r.json()
    changed = {**obj, "data": {"a": "c"}, "binaryData": {"b": _b64("b")}, "immutable": False}
    assert _fields(http.put(f"{cms}/i", json=changed)) == [("immutable", IMMUTABLE), ("data", IMMUTABLE),
                                                           ("binaryData", IMMUTABLE)]
    r = http.patch(f"{cms}/i", json={"data": {"a": "d"}}, headers={"Content-Type": "application/merge-patch+json"})
    assert _fields(r) == [("data", IMMUTABLE)]
    assert r.json()["message"] == 'ConfigMap "i" is invalid: data: ' + IMMUTABLE
    assert http.delete(f"{cms}/i").status_code == 200
    r = http.post(cms, json={"metadata": {"name": "m"}, "data": {"a": "b"}})
    assert http.patch(f"{cms}/m", json={"immutable": True, "data": {"a": "c"}},
                      headers={"Content-Type": "application/merge-patch+json"}).status_code == 200


def test_a_secrets_keys_size_and_type(http: requests.Session, url: str, namespaces: NamespaceFactory) -> None:
    """`ValidateSecret`: keys, the total (at `data`), then what each built-in type needs."""
    secrets = _collection(url, namespaces, "secrets")

    def refused(body: dict[str, Any]) -> list[tuple[str, str]]:
        return _fields(http.post(secrets, json={"metadata": {"name": "s"}, **body}))
    assert refused({"data": {"a b": _b64("x")}}) == [("data[a b]", f'Invalid value: "a b": {KEY}')]
    assert refused({"data": {"a": _b64("x" * (1024 * 1024 + 1))}}) == [
        ("data", "Too long: may not be more than 1048576 bytes")]
    assert refused({"type": "kubernetes.io/tls", "data": {"tls.key": ""}}) == [("data[tls.crt]", "Required value")]
    assert refused({"type": "kubernetes.io/basic-auth"}) == [("data[username]", "Required value"),
                                                             ("data[password]", "Required value")]
    assert refused({"type": "kubernetes.io/ssh-auth", "data": {"ssh-privatekey": ""}}) == [
        ("data[ssh-privatekey]", "Required value")]
    assert refused({"type": "kubernetes.io/service-account-token"}) == [
        ("metadata.annotations[kubernetes.io/service-account.name]", "Required value")]
    assert refused({"type": "kubernetes.io/dockercfg"}) == [("data[.dockercfg]", "Required value")]
    assert refused({"type": "kubernetes.io/dockerconfigjson", "data": {".dockerconfigjson": _b64("{x")}}) == [
        ("data[.dockerconfigjson]", ('Invalid value: "<secret contents redacted>": invalid character \'x\' looking '
                                     "for beginning of object key string"))]
    assert refused({"type": "kubernetes.io/dockercfg", "data": {".dockercfg": _b64("[]")}}) == [
        ("data[.dockercfg]", ('Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go '
                              "value of type map[string]interface {}"))]
    for body in ({"type": "kubernetes.io/basic-auth", "data": {"password": ""}},
                 {"type": "kubernetes.io/dockerconfigjson", "data": {".dockerconfigjson": _b64("{}")}},
                 {"type": "example.com/any", "stringData": {"k": "v"}}):
        r = http.post(secrets, json={"metadata": {"generateName": "ok-"}, **body})
        assert r.status_code == 201, r.text


def test_an_immutable_secret_keeps_its_data_and_its_type(http: requests.Session, url: str,
                                                         namespaces: NamespaceFactory) -> None:
    """`ValidateSecretUpdate`: the type is immutable, and once `immutable` is set the data too (stringData was
    merged into data when the body was read)."""
    secrets = _collection(url, namespaces, "secrets")
    r = http.post(secrets, json={"metadata": {"name": "s"}, "stringData": {"a": "b"}, "immutable": True})
    assert r.status_code == 201, r.text
    obj = r.json()
    r = http.put(f"{secrets}/s", json={**obj, "type": "example.com/other", "stringData": {"a": "c"}})
    assert _fields(r) == [("type", 'Invalid value: "example.com/other": field is immutable'), ("data", IMMUTABLE)]
    r = http.put(f"{secrets}/s", json={**obj, "immutable": None})
    assert _fields(r) == [("immutable", IMMUTABLE)]

"""Write a kubeconfig the official clients load (cluster + CA data, a token or client-certificate user (as kind
writes its admin's: `client-certificate-data`, `client-key-data`), context `nsconform`)."""
from __future__ import annotations

import base64
import os

import yaml


def kubeconfig_dict(url: str, token: str | None, ca_pem: bytes | None,
                    client_cert: tuple[bytes, bytes] | None = None) -> dict:
    cluster: dict = {"server": url}
    if ca_pem:
        cluster["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    user: dict = {"token": token} if token else {}
    if client_cert:
        user["client-certificate-data"] = base64.b64encode(client_cert[0]).decode()
        user["client-key-data"] = base64.b64encode(client_cert[1]).decode()
    return {"apiVersion": "v1", "kind": "Config", "preferences": {},
            "clusters": [{"name": "nsconform", "cluster": cluster}],
            "users": [{"name": "nsconform", "user": user}],
            "contexts": [{"name": "nsconform", "context": {"cluster": "nsconform", "user": "nsconform"}}],
            "current-context": "nsconform"}


def write_kubeconfig(path: str, url: str, token: str | None, ca_pem: bytes | None,
                     client_cert: tuple[bytes, bytes] | None = None) -> None:
    """Write with mode 0600 (it may hold a token or a private key)."""
    data = yaml.safe_dump(kubeconfig_dict(url, token, ca_pem, client_cert), sort_keys=False)
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as fh:
        fh.write(data)

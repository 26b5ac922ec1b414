"""Replaces the suite's `base.py` (which loads ~/.kube/config or probes localhost): `get_e2e_configuration`
answers a client Configuration for the embedded server the conftest starts (TLS, a token, RBAC and the kind
flavour, as `nsconform serve --tls --token T --authorization rbac --flavor kind`), loaded from the kubeconfig the
server writes, as a user of the real suite would."""
from __future__ import annotations

import unittest

from kubernetes.client.configuration import Configuration
from kubernetes.config import kube_config

KUBECONFIG: str | None = None  # set by conftest.py's session fixture


def get_e2e_configuration() -> Configuration:
    if KUBECONFIG is None:
        raise unittest.SkipTest("no embedded server (run through pytest)")
    config = Configuration()
    kube_config.load_kube_config(config_file=KUBECONFIG, client_configuration=config)
    return config

"""pytest side of the storage suite: `--etcd-endpoints URL[,URL...]` (+ `--etcd-cacert/--etcd-cert/--etcd-key`,
`--etcd-prefix`).

The suite is opt-in: without an endpoint its tests skip with the reason. `--etcd-endpoints embedded` (the
sensitivity run of `content-keys-without-namespace`, and anyone trying the suite) starts the embedded reference
server on etcd storage, with a private etcd, and reads that etcd."""
from __future__ import annotations

from typing import Any

import pytest

__all__ = ["etcd_options", "EtcdOptions", "EMBEDDED", "EMBEDDED_STORAGE_KEY"]

EMBEDDED = "embedded"
EMBEDDED_STORAGE_KEY: pytest.StashKey[Any] = pytest.StashKey()
"""`config.stash[EMBEDDED_STORAGE_KEY]`: the storage config the embedded server starts with (`embedded`)."""
_ETCD_PROCESS_KEY: pytest.StashKey[Any] = pytest.StashKey()
SKIP_REASON = ("opt-in: run with --etcd-endpoints URL[,URL...] (and --etcd-cacert/--etcd-cert/--etcd-key for a "
               "TLS etcd) to read the target's etcd key layout; README 'Storage layout (etcd)'")


class EtcdOptions:
    def __init__(self, endpoints: list[str], cacert: str | None, cert: str | None, key: str | None, prefix: str):
        self.endpoints, self.cacert, self.cert, self.key, self.prefix = endpoints, cacert, cert, key, prefix


def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("nsconform")
    g.addoption("--etcd-endpoints", dest="nsconform_etcd_endpoints", default=None, metavar="URL[,URL...]",
                help="run the opt-in storage suite: read the target's etcd (read-only) at these client URLs "
                     "(`embedded`: the embedded server on etcd storage, with a private etcd)")
    g.addoption("--etcd-cacert", dest="nsconform_etcd_cacert", default=None, metavar="FILE",
                help="CA of etcd's serving certificate (kubeadm: /etc/kubernetes/pki/etcd/ca.crt)")
    g.addoption("--etcd-cert", dest="nsconform_etcd_cert", default=None, metavar="FILE",
                help="etcd client certificate (kubeadm: /etc/kubernetes/pki/apiserver-etcd-client.crt)")
    g.addoption("--etcd-key", dest="nsconform_etcd_key", default=None, metavar="FILE",
                help="key of --etcd-cert")
    g.addoption("--etcd-prefix", dest="nsconform_etcd_prefix", default="/registry", metavar="PREFIX",
                help="kube-apiserver's --etcd-prefix (default /registry)")


def etcd_options(config: pytest.Config) -> EtcdOptions | None:
    """The etcd to read, or None (the suite skips)."""
    raw = config.getoption("nsconform_etcd_endpoints", default=None)
    if not raw:
        return None
    return EtcdOptions([e.strip() for e in str(raw).split(",") if e.strip()],
                       config.getoption("nsconform_etcd_cacert", default=None),
                       config.getoption("nsconform_etcd_cert", default=None),
                       config.getoption("nsconform_etcd_key", default=None),
                       config.getoption("nsconform_etcd_prefix", default="/registry") or "/registry")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "storage: the opt-in storage suite (runs only with --etcd-endpoints)")
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:  # an xdist worker: the controller's resolved endpoint
        if workerinput.get("nsconform_etcd_endpoints"):
            config.option.nsconform_etcd_endpoints = workerinput["nsconform_etcd_endpoints"]
        return
    if config.option.collectonly:
        return
    if config.getoption("nsconform_etcd_endpoints", default=None) not in (None, EMBEDDED):
        _check_reachable(config)
        return
    if config.getoption("nsconform_etcd_endpoints", default=None) != EMBEDDED:
        return
    if not _embedded_target(config):
        raise pytest.UsageError("--etcd-endpoints embedded only applies to the embedded reference server; "
                                "give the target's etcd client URLs")
    # the plugin imports the reference server only to start the embedded target; so does this
    from ..reference_server.storage.backends import StorageConfig
    from ..reference_server.storage.etcdprocess import EtcdNotInstalled, EtcdProcess

    try:
        proc = EtcdProcess()
    except (EtcdNotInstalled, RuntimeError) as e:
        raise pytest.UsageError(f"--etcd-endpoints embedded: cannot start etcd: {e}") from None
    config.stash[_ETCD_PROCESS_KEY] = proc
    config.stash[EMBEDDED_STORAGE_KEY] = StorageConfig("etcd", (proc.url,),
                                                       config.getoption("nsconform_etcd_prefix") or "/registry")
    config.option.nsconform_etcd_endpoints = proc.url


def _check_reachable(config: pytest.Config) -> None:
    """One read before any test: a wrong CA, a missing client certificate or a dead endpoint is one line,
    not the same error on every storage test."""
    from .reader import EtcdReader, EtcdReadError

    opts = etcd_options(config)
    assert opts is not None
    reader = EtcdReader(opts.endpoints, cacert=opts.cacert, cert=opts.cert, key=opts.key)
    try:
        reader.revision()
    except EtcdReadError as e:
        raise pytest.UsageError(f"--etcd-endpoints: {e}") from None
    finally:
        reader.close()


def _embedded_target(config: pytest.Config) -> bool:
    return not any(config.getoption(o, default=None) for o in ("kubeconfig", "context", "server", "in_cluster"))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    raw = node.config.getoption("nsconform_etcd_endpoints", default=None)
    if raw:
        node.workerinput["nsconform_etcd_endpoints"] = raw


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    proc = config.stash.get(_ETCD_PROCESS_KEY, None)
    if proc is not None:  # after the plugin stopped the embedded server
        proc.stop()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if etcd_options(config) is not None:
        return
    for item in items:
        if item.get_closest_marker("storage") is not None:
            item.add_marker(pytest.mark.skip(reason=SKIP_REASON))

"""Which store a server runs on: `memory` (the zero-set-up default) or `etcd` (`--etcd-servers URL,...` or
`embedded`: a private etcd started for the process's lifetime, its data kept in `--etcd-data-dir`)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable

from .leases import REUSE_DURATION_SECONDS
from .memory import MemoryStore

BACKENDS = ("memory", "etcd")
EMBEDDED = "embedded"
TRANSPORTS = ("grpc", "gateway")  # etcd's gRPC API (etcdgrpc.py) or its v3 JSON gateway (etcdclient.py)


def default_data_dir() -> str:
    """`$XDG_CACHE_HOME/nsconform/etcd` (default `~/.cache/nsconform/etcd`): survives restarts of the server."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "nsconform", "etcd")


@dataclass(frozen=True)
class StorageConfig:
    backend: str = "memory"
    etcd_servers: tuple[str, ...] = ()
    etcd_prefix: str = "/registry"
    etcd_cafile: str | None = None
    etcd_certfile: str | None = None
    etcd_keyfile: str | None = None
    etcd_data_dir: str | None = None  # for `embedded`; default `default_data_dir()`
    etcd_transport: str = "grpc"  # one of TRANSPORTS
    lease_reuse_duration_seconds: int = REUSE_DURATION_SECONDS  # --lease-reuse-duration-seconds (storage/leases.py)
    options: dict[str, Any] = field(default_factory=dict)


class StorageUnavailable(Exception):
    """The configured store cannot be opened (one line for the user)."""


def open_store(config: StorageConfig | None, deviations: Any = None) -> tuple[Any, Callable[[], None]]:
    """The store and the function that closes it (and stops an embedded etcd); `deviations` (a `Deviations`)
    reach the etcd store's key layout."""
    if config is None or config.backend == "memory":
        reuse = config.lease_reuse_duration_seconds if config is not None else REUSE_DURATION_SECONDS
        return MemoryStore(lease_reuse_seconds=reuse), lambda: None
    if config.backend != "etcd":
        raise ValueError(f"unknown storage backend {config.backend!r}; known: {', '.join(BACKENDS)}")
    from .etcd import EtcdStore
    from .etcdclient import EtcdError
    from .etcdprocess import EtcdNotInstalled, EtcdProcess

    if not config.etcd_servers:
        raise ValueError("--storage etcd needs --etcd-servers URL[,URL...] (or `embedded`)")
    process = None
    servers = list(config.etcd_servers)
    if servers == [EMBEDDED]:
        try:
            process = EtcdProcess(config.etcd_data_dir or default_data_dir())
        except (EtcdNotInstalled, RuntimeError) as e:
            raise StorageUnavailable(f"cannot start the embedded etcd: {e}") from None
        servers = [process.url]
    client = etcd_client(servers, config.etcd_transport, ca_file=config.etcd_cafile,
                         cert_file=config.etcd_certfile, key_file=config.etcd_keyfile)
    try:
        store = EtcdStore(client, config.etcd_prefix, lease_reuse_seconds=config.lease_reuse_duration_seconds,
                          **({"deviations": deviations} if deviations else {}))
    except (EtcdError, OSError, ValueError) as e:
        if process is not None:
            process.stop()
        raise StorageUnavailable(str(e) if "etcd" in str(e) else f"etcd at {', '.join(servers)}: {e}") from None

    def close() -> None:
        store.close()
        if process is not None:
            process.stop()
    return store, close


def etcd_client(servers: list[str], transport: str = "grpc", **tls: str | None) -> Any:
    """An `etcdapi.KVClient` on `transport` (`ca_file`, `cert_file`, `key_file` for TLS)."""
    if transport == "grpc":
        from .etcdgrpc import GrpcEtcdClient
        return GrpcEtcdClient(servers, **tls)
    if transport == "gateway":
        from .etcdclient import EtcdClient
        return EtcdClient(servers, **tls)
    raise ValueError(f"unknown etcd transport {transport!r}; known: {', '.join(TRANSPORTS)}")

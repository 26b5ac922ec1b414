"""`nsconform serve`: run the reference server in the foreground until SIGINT/SIGTERM."""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from typing import TYPE_CHECKING, Sequence

from .deviations import DEVIATIONS
from .extensions import parse_feature_gates
from .flavors import DEFAULT_FLAVOR, FLAVORS
from .goport.godur import DurationError, parse_duration
from .logmask import protect
from .http import PROFILES
from .server import EVENT_TTL, ReferenceServer
from .controller.system_objects import PRIORITY_CLASSES_HOOK
from .storage.backends import BACKENDS, TRANSPORTS, StorageConfig, StorageUnavailable
from .storage.leases import REUSE_DURATION_SECONDS

if TYPE_CHECKING:
    from .auth.requestheader import RequestHeaderConfig


class _ParseError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one clear line instead of a usage dump
        raise _ParseError(message)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The `serve` options, for a top-level CLI that mounts this as a subcommand."""
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=6443)
    p.add_argument("--profile", choices=PROFILES, default="kubernetes")
    p.add_argument("--token", default=None, help="require `Authorization: Bearer TOKEN` (visible in `ps`: "
                                                 "prefer --token-file)")
    p.add_argument("--token-file", metavar="PATH", default=None, help="read the --token from the first line of PATH")
    p.add_argument("--tls", action="store_true", help="serve HTTPS with a CA generated at start")
    p.add_argument("--cert-dir", metavar="DIR", default=None,
                   help="serve HTTPS with a CA and certificate kept in DIR and reused across restarts (implies --tls)")
    p.add_argument("--client-ca-file", metavar="FILE", default=None,
                   help="authenticate client certificates signed by a CA of this PEM bundle (user = CN, groups = O; "
                        "kube-apiserver's flag; implies --tls). Default with --tls/--cert-dir: the server's own CA, "
                        "which also signs the admin certificate --write-kubeconfig writes")
    g = p.add_argument_group("front proxy (kube-apiserver's --requestheader-*; needs --requestheader-client-ca-file)")
    g.add_argument("--requestheader-client-ca-file", metavar="FILE", default=None,
                   help="trust the user a client certificate signed by a CA of this bundle names in the request "
                        "headers below (implies --tls)")
    for flag, what in (("allowed-names", "client certificate common names allowed (empty: any)"),
                       ("username-headers", "request headers naming the user, first non-empty wins "
                                            "(X-Remote-User is common)"),
                       ("uid-headers", "request headers naming the user's UID (X-Remote-Uid is common)"),
                       ("group-headers", "request headers naming groups (X-Remote-Group is common)"),
                       ("extra-headers-prefix", "request header prefixes of extra user info "
                                                "(X-Remote-Extra- is common)")):
        g.add_argument(f"--requestheader-{flag}", action="append", default=[], metavar="A,B", help=what)
    p.add_argument("--anonymous-auth", type=_bool_flag, default=True, metavar="true|false",
                   help="false: a request without credentials is 401 Unauthorized (kube-apiserver's flag)")
    p.add_argument("--event-ttl", type=_duration, default=EVENT_TTL, metavar="DURATION",
                   help="amount of time to retain events (default 1h0m0s; under a second: forever)")
    p.add_argument("--request-timeout", type=_duration, default=60.0, metavar="DURATION",
                   help="end a non-watch request after this long with a 504 (default 1m0s, as kube-apiserver)")
    p.add_argument("--shutdown-delay-duration", type=_duration, default=0.0, metavar="DURATION",
                   help="after SIGTERM/SIGINT, keep serving this long with /readyz failing (its `shutdown` check) "
                        "before closing the listener (kube-apiserver's flag, default 0s)")
    p.add_argument("--max-requests-inflight", type=int, default=400, metavar="N",
                   help="with --max-mutating-requests-inflight: API Priority and Fairness' total seats, shared by "
                        "the priority levels (kube-apiserver's flag, default 400)")
    p.add_argument("--max-mutating-requests-inflight", type=int, default=200, metavar="N",
                   help="see --max-requests-inflight (kube-apiserver's flag, default 200)")
    p.add_argument("--write-kubeconfig", metavar="PATH", default=None)
    p.add_argument("--controller-delay", type=float, default=0.0, metavar="S")
    p.add_argument("--authorization", choices=("always-allow", "rbac"), default="always-allow",
                   help="rbac: authenticate (client certificates, bearer tokens, impersonation) and authorize every "
                        "request with RBAC (default always-allow: authentication alone decides: the --token, a client "
                        "certificate). The RBAC API and its bootstrap policy are served in both, as kube-apiserver's")
    p.add_argument("--users", "--token-auth-file", dest="users", metavar="FILE", default=None,
                   help="token file for --authorization rbac (kube-apiserver --token-auth-file CSV: "
                        "token,user,uid,\"group1,group2\")")
    p.add_argument("--service-account-key-file", metavar="PATH", default=None,
                   help="PEM RSA private key that signs service-account tokens (kube-apiserver's "
                        "--service-account-signing-key-file); default: a key made on first need. Replicas on one etcd "
                        "must share it to accept each other's tokens")
    p.add_argument("--service-account-issuer", dest="service_account_issuers", action="append", default=[],
                   metavar="URL", help="identifier of the service-account token issuer, the `iss` claim of the tokens "
                   "it issues (kube-apiserver's flag; default https://kubernetes.default.svc.cluster.local). "
                   "Repeatable: the first signs tokens, all are accepted, and all are the API server's audiences. "
                   "The discovery document (/.well-known/openid-configuration) is served only when the first is "
                   "an https URL")
    p.add_argument("--deviate", action="append", default=[], metavar="NAME", choices=sorted(DEVIATIONS),
                   help="switch on a named deliberate bug (repeatable)")
    p.add_argument("--feature-gates", action="append", default=[], metavar="NAME=true",
                   help="switch on an opt-in extension (kube-apiserver syntax; known: NamespaceInitializers, "
                        "KEP-33, never merged upstream)")
    p.add_argument("--flavor", choices=sorted(FLAVORS), default=DEFAULT_FLAVOR,
                   help="behave like this kind of cluster (controllers, admission, timings; see README "
                        "'Cluster flavours'; default: %(default)s)")
    g = p.add_argument_group("storage (default: in memory, lost at exit)")
    g.add_argument("--storage", choices=BACKENDS, default="memory",
                   help="etcd: keep objects in etcd as kube-apiserver does (several servers may share one etcd)")
    g.add_argument("--etcd-servers", metavar="URL[,URL...]|embedded", default=None,
                   help="etcd client URLs; `embedded`: start a private etcd for this process (data in "
                        "--etcd-data-dir, kept across restarts)")
    g.add_argument("--etcd-prefix", default="/registry", help="key prefix (default %(default)s)")
    g.add_argument("--etcd-cafile", metavar="PATH", default=None)
    g.add_argument("--etcd-certfile", metavar="PATH", default=None)
    g.add_argument("--etcd-keyfile", metavar="PATH", default=None)
    g.add_argument("--etcd-data-dir", metavar="DIR", default=None,
                   help="data of `--etcd-servers embedded` (default: ~/.cache/nsconform/etcd)")
    g.add_argument("--lease-reuse-duration-seconds", type=int, default=REUSE_DURATION_SECONDS, metavar="N",
                   help="the seconds each etcd lease of a TTL'd write (Events) is reused (default %(default)s; the "
                        "memory store keeps leases as etcd's)")
    g.add_argument("--etcd-transport", choices=TRANSPORTS, default="grpc",
                   help="how to talk to etcd: its gRPC API (default), or its v3 JSON gateway (no watch progress "
                        "requests, ~2x etcd CPU per write)")
    _leader_election_arguments(p)
    p.add_argument("-v", "--verbose", action="store_true")


def _leader_election_arguments(p: argparse.ArgumentParser) -> None:
    """kube-controller-manager's leader election flags: the controllers run only in the replica that holds
    the Lease `kube-system/kube-controller-manager` (see controller/leader.py)."""
    p.add_argument("--leader-elect", type=_bool_flag, default=True, metavar="true|false",
                   help="run the controllers only while holding the leader Lease (default true, as "
                        "kube-controller-manager; a lone server acquires it at once)")
    p.add_argument("--leader-elect-lease-duration", type=_duration, default=15.0, metavar="DURATION",
                   help="how long a non-leader waits after the Lease last changed before taking it (default 15s)")
    p.add_argument("--leader-elect-renew-deadline", type=_duration, default=10.0, metavar="DURATION",
                   help="how long the leader keeps trying to renew before it stops its controllers "
                        "(default 10s)")
    p.add_argument("--leader-elect-retry-period", type=_duration, default=2.0, metavar="DURATION",
                   help="between attempts to acquire or renew (default 2s)")
    p.add_argument("--leader-elect-resource-name", default="kube-controller-manager", metavar="NAME")
    p.add_argument("--leader-elect-resource-namespace", default="kube-system", metavar="NAMESPACE")


def leader_election(args: argparse.Namespace) -> dict:
    """`ReferenceServer`'s leader election options from the flags (ValueError for inconsistent durations)."""
    from .controller.leader import LeaderElectionConfig
    if not getattr(args, "leader_elect", True):
        return {"leader_elect": False}
    if not hasattr(args, "leader_elect_lease_duration"):
        return {}
    return {"leader_election": LeaderElectionConfig(
        lease_duration=args.leader_elect_lease_duration, renew_deadline=args.leader_elect_renew_deadline,
        retry_period=args.leader_elect_retry_period, name=args.leader_elect_resource_name,
        namespace=args.leader_elect_resource_namespace)}


def _bool_flag(value: str) -> bool:
    if value.lower() in ("true", "1", "t"):
        return True
    if value.lower() in ("false", "0", "f"):
        return False
    raise argparse.ArgumentTypeError(f"invalid boolean value {value!r}")


def _duration(value: str) -> float:
    """A Go duration (`1m0s`, `90s`, `.5s`: kube-apiserver's flags are `time.ParseDuration`'s, godur.py) or plain
    seconds, in seconds."""
    try:
        return float(value)
    except ValueError:
        pass
    try:
        return parse_duration(value) / 1e9
    except DurationError as exc:
        raise argparse.ArgumentTypeError(f"{exc} (e.g. 60s, 1m0s)") from None


def read_token_file(path: str) -> str:
    """The first line of a token file (OSError/ValueError for a missing or empty one)."""
    with open(path, encoding="utf-8") as fh:
        token = fh.readline().strip()
    if not token:
        raise ValueError(f"--token-file {path}: no token on its first line")
    return token


def build_parser(prog: str = "nsconform serve") -> argparse.ArgumentParser:
    p = _Parser(prog=prog, description="Run the bundled Kubernetes-faithful Namespace API server.")
    add_arguments(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Parse, start, print where we listen, wait for a signal; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
    except _ParseError as exc:
        print(f"nsconform serve: error: {exc} (see `nsconform serve --help`)", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    protect(handlers=logging.getLogger().handlers)  # every line the process logs, whatever its logger
    return run(args)


def run(args: argparse.Namespace) -> int:
    """Serve with already-parsed options (from `build_parser` or a CLI using `add_arguments`)."""
    try:
        return asyncio.run(_run(args))
    except KeyboardInterrupt:
        return 0


def storage_config(args: argparse.Namespace) -> StorageConfig | None:
    """The `--storage`/`--etcd-*` options (ValueError for an inconsistent set)."""
    backend = getattr(args, "storage", "memory") or "memory"
    servers = getattr(args, "etcd_servers", None)
    reuse = getattr(args, "lease_reuse_duration_seconds", REUSE_DURATION_SECONDS)
    if backend == "memory":
        if servers:
            raise ValueError("--etcd-servers needs --storage etcd")
        return None if reuse == REUSE_DURATION_SECONDS else StorageConfig(lease_reuse_duration_seconds=reuse)
    if not servers:
        raise ValueError("--storage etcd needs --etcd-servers URL[,URL...] (or `embedded`)")
    return StorageConfig("etcd", tuple(u.strip() for u in servers.split(",") if u.strip()),
                         getattr(args, "etcd_prefix", "/registry"), getattr(args, "etcd_cafile", None),
                         getattr(args, "etcd_certfile", None), getattr(args, "etcd_keyfile", None),
                         getattr(args, "etcd_data_dir", None), getattr(args, "etcd_transport", "grpc"),
                         lease_reuse_duration_seconds=reuse)


def _string_slice(values: list[str] | None) -> tuple[str, ...]:
    """pflag's StringSlice: repeatable, each value a comma-separated list."""
    return tuple(item for value in values or () for item in value.split(","))


def request_header(args: argparse.Namespace) -> "RequestHeaderConfig | None":
    """The `--requestheader-*` options (None without `--requestheader-client-ca-file`, as upstream ignores the
    others then)."""
    ca_file = getattr(args, "requestheader_client_ca_file", None)
    if not ca_file:
        return None
    from .auth.requestheader import RequestHeaderConfig

    return RequestHeaderConfig(ca_file, *(_string_slice(getattr(args, f"requestheader_{name}", None)) for name in (
        "allowed_names", "username_headers", "uid_headers", "group_headers", "extra_headers_prefix")))


def _hardening(args: argparse.Namespace) -> dict:
    """The issue-13 options (timeouts, --cert-dir, --anonymous-auth) for `ReferenceServer`."""
    return {"request_timeout": getattr(args, "request_timeout", 60.0), "cert_dir": getattr(args, "cert_dir", None),
            "anonymous_auth": getattr(args, "anonymous_auth", True),
            "client_ca_file": getattr(args, "client_ca_file", None), "request_header": request_header(args),
            "max_requests_inflight": getattr(args, "max_requests_inflight", 400),
            "max_mutating_requests_inflight": getattr(args, "max_mutating_requests_inflight", 200),
            "event_ttl": getattr(args, "event_ttl", EVENT_TTL)}


async def _run(args: argparse.Namespace) -> int:
    try:
        token = read_token_file(args.token_file) if getattr(args, "token_file", None) else args.token
        server = ReferenceServer(profile=args.profile, deviations=args.deviate, token=token, tls=args.tls,
                                 controller_delay=args.controller_delay, host=args.host, port=args.port,
                                 authorization=getattr(args, "authorization", "always-allow"),
                                 users_file=getattr(args, "users", None),
                                 flavor=getattr(args, "flavor", None),
                                 feature_gates=parse_feature_gates(getattr(args, "feature_gates", None)),
                                 storage=storage_config(args), **_hardening(args), **leader_election(args),
                                 service_account_key_file=getattr(args, "service_account_key_file", None),
                                 service_account_issuers=getattr(args, "service_account_issuers", None) or ())
    except (ValueError, OSError, StorageUnavailable) as exc:  # incl. TokenFileError and an unreadable --users file
        print(f"nsconform serve: error: {exc}", file=sys.stderr)
        return 2
    try:
        await server.start()
    except BaseException as exc:
        with contextlib.suppress(Exception):  # its TLS files and any half-opened listener
            await server.stop()
        if not isinstance(exc, OSError):
            raise
        print(f"nsconform serve: error: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
              file=sys.stderr)
        return 1
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    flavor = getattr(args, "flavor", None) or DEFAULT_FLAVOR
    print(f"nsconform reference server ({args.profile}, flavor {flavor}) listening on {server.url}", flush=True)
    if args.write_kubeconfig:
        server.write_kubeconfig(args.write_kubeconfig)
        print(f"kubeconfig written to {args.write_kubeconfig}", flush=True)
    if args.deviate:
        print(f"deviations: {', '.join(args.deviate)}", flush=True)
    if server.elector is not None and getattr(args, "storage", "memory") == "etcd":  # replicas: who is who
        cfg = server.elector.config
        print(f"leader election: identity {cfg.identity} on lease {cfg.namespace}/{cfg.name}", flush=True)
    stopping = asyncio.ensure_future(stop.wait())
    failing = asyncio.ensure_future(server.failed.wait())
    try:
        await asyncio.wait((stopping, failing), return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
        failing.cancel()
        await _delay_shutdown(server, getattr(args, "shutdown_delay_duration", 0.0), stop.is_set())
        await server.stop()
    if server.failed.is_set():  # a post-start hook failed: kube-apiserver's `klog.Fatalf` exits 255
        print(f"nsconform serve: PostStartHook \"{PRIORITY_CLASSES_HOOK}\" failed: {server.failure}", file=sys.stderr,
              flush=True)
        return 255
    print("stopped", flush=True)
    return 0


async def _delay_shutdown(server: ReferenceServer, delay: float, signalled: bool) -> None:
    """`--shutdown-delay-duration` (genericapiserver.go `RunWithContext`): once a signal initiated the shutdown,
    `/readyz` fails (`ShutdownInitiated` → the `shutdown` check) while the server keeps serving for `delay`, so
    load balancers stop sending it requests before it stops listening."""
    server.initiate_shutdown()
    if signalled and delay > 0:
        await asyncio.sleep(delay)


if __name__ == "__main__":
    sys.exit(main())

"""`nsconform serve`: run the reference server in the foreground until SIGINT/SIGTERM."""
from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from typing import Sequence

from .deviations import DEVIATIONS
from .extensions import parse_feature_gates
from .flavors import DEFAULT_FLAVOR, FLAVORS
from .http import PROFILES
from .server import ReferenceServer


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
    p.add_argument("--token", default=None, help="require `Authorization: Bearer TOKEN`")
    p.add_argument("--tls", action="store_true", help="serve HTTPS with a CA generated at start")
    p.add_argument("--write-kubeconfig", metavar="PATH", default=None)
    p.add_argument("--controller-delay", type=float, default=0.0, metavar="S")
    p.add_argument("--authorization", choices=("always-allow", "rbac"), default="always-allow",
                   help="rbac: authenticate (bearer tokens, impersonation) and authorize every request with RBAC "
                        "(default always-allow: the --token alone decides)")
    p.add_argument("--users", metavar="FILE", default=None,
                   help="token file for --authorization rbac (kube-apiserver --token-auth-file CSV: "
                        "token,user,uid,\"group1,group2\")")
    p.add_argument("--deviate", action="append", default=[], metavar="NAME", choices=sorted(DEVIATIONS),
                   help="switch on a named deliberate bug (repeatable)")
    p.add_argument("--feature-gates", action="append", default=[], metavar="NAME=true",
                   help="switch on an opt-in extension (kube-apiserver syntax; known: NamespaceInitializers, "
                        "KEP-33, never merged upstream)")
    p.add_argument("--flavor", choices=sorted(FLAVORS), default=DEFAULT_FLAVOR,
                   help="behave like this kind of cluster (controllers, admission, timings; see README "
                        "'Cluster flavours'; default: %(default)s)")
    p.add_argument("-v", "--verbose", action="store_true")


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
    return run(args)


def run(args: argparse.Namespace) -> int:
    """Serve with already-parsed options (from `build_parser` or a CLI using `add_arguments`)."""
    try:
        return asyncio.run(_run(args))
    except KeyboardInterrupt:
        return 0


async def _run(args: argparse.Namespace) -> int:
    try:
        server = ReferenceServer(profile=args.profile, deviations=args.deviate, token=args.token, tls=args.tls,
                                 controller_delay=args.controller_delay, host=args.host, port=args.port,
                                 authorization=getattr(args, "authorization", "always-allow"),
                                 users_file=getattr(args, "users", None),
                                 flavor=getattr(args, "flavor", None),
                                 feature_gates=parse_feature_gates(getattr(args, "feature_gates", None)))
    except (ValueError, OSError) as exc:  # incl. TokenFileError and an unreadable --users file
        print(f"nsconform serve: error: {exc}", file=sys.stderr)
        return 2
    try:
        await server.start()
    except OSError as exc:
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
    try:
        await stop.wait()
    finally:
        await server.stop()
    print("stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`nsconform diagnose [NAMESPACE ...] [--all-terminating] [target options] [--output text|json]`.

Exit codes: 0 nothing is stuck, 1 a namespace is stuck (terminating), 2 usage or connection problem.
"""
from __future__ import annotations

import json
import os
import sys
from typing import Sequence

from ..argtypes import OneLineParser

EXIT_OK, EXIT_STUCK, EXIT_USAGE = 0, 1, 2


def build_parser() -> OneLineParser:
    from ..cli import _add_target_options

    p = OneLineParser(prog="nsconform diagnose",
                      description="Explain why namespaces are stuck in Terminating and how to release them "
                                  "(read-only). Without NAMESPACE: every terminating namespace.")
    p.add_argument("namespaces", nargs="*", metavar="NAMESPACE")
    p.add_argument("--all-terminating", action="store_true", help="also every other terminating namespace")
    p.add_argument("--output", "-o", choices=("text", "json"), default="text")
    _add_target_options(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    from ..cli import _err, _validate_target
    from ..client import TargetError

    p = build_parser()
    try:
        ns = p.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:
        return int(exc.code or 0) if exc.code in (0, None) else EXIT_USAGE
    if ns.token and not ns.server:
        _err("--token needs --server")
        return EXIT_USAGE
    if not (ns.kubeconfig or ns.context or ns.server or ns.in_cluster):
        default = os.environ.get("KUBECONFIG") or os.path.expanduser("~/.kube/config")
        if not os.path.exists(default.split(os.pathsep)[0]):
            _err("diagnose needs a cluster: pass --kubeconfig/--context or --server "
                 "(no $KUBECONFIG, no ~/.kube/config)")
            return EXIT_USAGE
        ns.kubeconfig = default.split(os.pathsep)[0]
    try:
        t = _validate_target(ns, "kubernetes")
    except TargetError as exc:
        _err(str(exc))
        return EXIT_USAGE
    from . import diagnose
    from .render import text
    try:
        try:
            d = diagnose(t.client(), ns.namespaces, all_terminating=ns.all_terminating, server=t.describe()["url"])
        except TargetError as exc:
            _err(str(exc))
            return EXIT_USAGE
    finally:
        t.stop()
    if ns.output == "json":
        print(json.dumps(d.to_dict(), indent=2))
    else:
        print(text(d), end="")
    if any(not n.found and n.unreadable for n in d.namespaces) or (d.unreadable and not d.namespaces):
        return EXIT_USAGE if not d.stuck else EXIT_STUCK
    return EXIT_STUCK if d.stuck else EXIT_OK

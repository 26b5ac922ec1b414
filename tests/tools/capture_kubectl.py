"""Record what a real kubectl sends, and turn the protobuf bodies into decode fixtures.

    python -m tests.tools.capture_kubectl tests/reference_server/wire/data

writes, per command, ``kubectl_<id>.hex`` (the request body) and ``kubectl_<id>.json`` (what
``kubectl ... --dry-run=client -o json`` prints for the same object: Go's own JSON encoding, i.e.
the dict ``wire.protobuf.decode`` must return), plus ``kubectl_requests.json`` (method, path,
query and the content-negotiation headers of every request, for documentation).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.tools.kubectl import get_kubectl
from tests.tools.stub_server import Recorded, start_stub

# id -> kubectl arguments (without --server); each creates one object through the typed client.
CREATE_COMMANDS: dict[str, list[str]] = {
    "namespace": ["create", "namespace", "foo"],
    "configmap": ["create", "configmap", "x", "--from-literal=a=b", "-n", "foo"],
    "secret": ["create", "secret", "generic", "s1", "--from-literal=k=v", "--type=Opaque", "-n", "foo"],
    "serviceaccount": ["create", "serviceaccount", "sa1", "-n", "foo"],
    "service": ["create", "service", "clusterip", "svc1", "--tcp=80:8080", "-n", "foo"],
    "resourcequota": ["create", "quota", "q1", "--hard=pods=3,cpu=1", "-n", "foo"],
}
OTHER_COMMANDS: dict[str, list[str]] = {
    "delete_namespace": ["delete", "namespace", "foo"],
    "delete_configmap_now": ["delete", "configmap", "x", "-n", "foo", "--grace-period=0", "--force"],
    "get_namespaces": ["get", "namespaces"],
    "get_configmaps_all": ["get", "configmaps", "-A"],
}
HEADERS = ("Accept", "Content-Type", "User-Agent")


def run_kubectl(kubectl: Path, server: str, args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    """Run kubectl with an empty HOME so no real kubeconfig or cache leaks in."""
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    return subprocess.run([str(kubectl), "--server", server, *args], capture_output=True, text=True,
                          timeout=120, env=env, check=False)


def summarize(req: Recorded) -> dict[str, Any]:
    """The parts of a request that matter for content negotiation."""
    out: dict[str, Any] = {"method": req.method, "path": req.path, "query": req.query}
    out.update({h: req.headers[h] for h in HEADERS if h in req.headers})
    if req.body and not req.body.startswith(b"k8s\x00"):
        out["body"] = req.body.decode("utf-8", "replace")
    elif req.body:
        out["body_hex"] = req.body.hex()
    return out


def capture(kubectl: Path, home: Path) -> dict[str, list[Recorded]]:
    """Run every command against a fresh stub; returns the requests each one sent."""
    out: dict[str, list[Recorded]] = {}
    with start_stub() as stub:
        for cid, args in {**CREATE_COMMANDS, **OTHER_COMMANDS}.items():
            before = len(stub.requests)
            run_kubectl(kubectl, stub.url, args, home)
            out[cid] = stub.requests[before:]
    return out


def main(dest: str) -> int:
    import tempfile

    kubectl = get_kubectl()
    if kubectl is None:
        print("kubectl unavailable", file=sys.stderr)
        return 1
    data = Path(dest)
    with tempfile.TemporaryDirectory() as home:
        captured = capture(kubectl, Path(home))
        for cid, args in CREATE_COMMANDS.items():
            post = next(r for r in captured[cid] if r.method == "POST")
            (data / f"kubectl_{cid}.hex").write_text(post.body.hex() + "\n")
            dry = run_kubectl(kubectl, "http://127.0.0.1:9", [*args, "--dry-run=client", "-o", "json"], Path(home))
            (data / f"kubectl_{cid}.json").write_text(json.dumps(json.loads(dry.stdout), indent=1) + "\n")
    summary = {cid: [summarize(r) for r in reqs] for cid, reqs in captured.items()}
    (data / "kubectl_requests.json").write_text(json.dumps(summary, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "tests/reference_server/wire/data"))

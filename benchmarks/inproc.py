"""CPU microseconds per GET, in-process: the server's own connection protocol fed raw requests through a transport
that never touches a socket.

Why: on this shared 2-core machine wrk's figures move by a tenth with other processes' load, and a slower server
also pays more per `send()` (the load generator has gone to sleep and must be woken), so a change of a few
microseconds is hard to see in `server_rps_get`. The thread's CPU time per request, without the kernel's share, is
steadier: interleave two trees with `--against` and compare the minima.

    python -m benchmarks.inproc                       # this tree
    python -m benchmarks.inproc --against /tmp/base   # this tree and another checkout, interleaved

Not part of the `python -m benchmarks` JSON (its keys stay as they are).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from typing import Any

PATH = "/api/v1/namespaces/bench-tp"


class _Transport(asyncio.Transport):
    """Records what the server writes; resolves `answered` at each write (one per response here)."""

    def __init__(self) -> None:
        super().__init__()
        self.answered: asyncio.Future[None] | None = None
        self.last = b""

    def write(self, data: Any) -> None:
        self.last = bytes(data)
        if self.answered is not None and not self.answered.done():
            self.answered.set_result(None)

    def writelines(self, lines: Any) -> None:
        self.write(b"".join(lines))

    def is_closing(self) -> bool:
        return False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 1), "sockname": ("127.0.0.1", 2)}.get(name, default)

    def close(self) -> None:
        pass

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def set_write_buffer_limits(self, high: Any = None, low: Any = None) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0


def measure(requests: int = 15_000, rounds: int = 4, path: str = PATH) -> dict[str, Any]:
    """Start the embedded server of the tree on `sys.path`, GET `path` `rounds` × `requests` times on one
    connection; each round's thread CPU µs per request."""
    from conformance.reference_server.embedded import start_embedded

    server = start_embedded()
    try:
        body = json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bench-tp"}}).encode()
        urllib.request.urlopen(urllib.request.Request(server.url + "/api/v1/namespaces", data=body, method="POST",
                                                      headers={"Content-Type": "application/json"})).read()
        raw = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()

        async def drive() -> tuple[list[float], bytes]:
            loop = asyncio.get_running_loop()
            protocol = server._server._runner.server()  # the server's own connection handler (benchmark-only use)
            transport = _Transport()
            protocol.connection_made(transport)

            async def one() -> None:
                transport.answered = loop.create_future()
                protocol.data_received(raw)
                await transport.answered

            for _ in range(200):  # warm-up: caches, the interpreter's specialisation
                await one()
            out = []
            for _ in range(rounds):
                t0 = time.thread_time()
                for _ in range(requests):
                    await one()
                out.append((time.thread_time() - t0) / requests * 1e6)
            protocol.connection_lost(None)
            return out, transport.last

        per_round, last = asyncio.run_coroutine_threadsafe(drive(), server._loop).result()  # benchmark-only use
    finally:
        server.stop()
    return {"status_line": last.split(b"\r\n", 1)[0].decode(), "cpu_us_per_get": per_round,
            "min": min(per_round), "median": statistics.median(per_round)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.inproc", description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", metavar="TREE", help="another checkout, measured interleaved with this one")
    ap.add_argument("--pairs", type=int, default=3, help="interleaved runs of each tree (default 3)")
    ap.add_argument("--requests", type=int, default=15_000)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--child", metavar="TREE", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:  # the tree measured comes first on the path (this file need not exist in it)
        sys.path.insert(0, args.child)
        print(json.dumps(measure(args.requests, args.rounds)))
        return 0
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trees = [here] + ([os.path.abspath(args.against)] if args.against else [])
    found: dict[str, list[float]] = {t: [] for t in trees}
    for _ in range(args.pairs):
        for tree in trees:  # each run in a fresh process
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", tree, "--requests",
                                  str(args.requests), "--rounds", str(args.rounds)], cwd=tree,
                                 capture_output=True, text=True, check=True)
            res = json.loads(out.stdout.strip().splitlines()[-1])
            found[tree].append(res["min"])
            print(f"{tree}: {res['status_line']}; cpu µs/GET min {res['min']:.1f}, median {res['median']:.1f}",
                  flush=True)
    print(json.dumps({t: round(min(v), 2) for t, v in found.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

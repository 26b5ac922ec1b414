"""Instructions per in-process GET, counted by valgrind's cachegrind: a figure that does not move with the machine's
load, for A/B of changes of a few percent on the request path.

Why: `benchmarks.inproc`'s CPU time moves by a few microseconds a GET on this shared machine, as much as the change
measured. Counting instructions is deterministic but for the server's start (threads, timers), so each tree is run
twice, with `base` and with `base + requests` GETs (benchmarks/inproc.py's driver), and the difference is divided by
`requests`: what remains of the start's spread is ~1,500 instructions a GET at the defaults (two runs of the same
tree agreed within that). Instructions are not time (cache misses, branch predictions), so check the result with
`benchmarks.inproc` and `python -m benchmarks --quick --only throughput`. Needs valgrind (Debian: `valgrind`);
about three minutes a tree.

    python -m benchmarks.instructions                       # this tree
    python -m benchmarks.instructions --against /tmp/base   # this tree and another checkout

Not part of the `python -m benchmarks` JSON (its keys stay as they are).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

_SUMMARY = re.compile(r"^summary:\s+(\d+)", re.M)
_DRIVE = ("import sys; sys.path.insert(0, {tree!r}); from benchmarks.inproc import measure; "
          "measure(requests={n}, rounds=1)")


def summary_instructions(cachegrind_out: str) -> int:
    """The instruction count (`Ir`) a cachegrind output file's `summary:` line gives."""
    found = _SUMMARY.search(cachegrind_out)
    if found is None:
        raise ValueError("no 'summary:' line in the cachegrind output")
    return int(found.group(1))


def per_request(low: int, high: int, requests: int) -> float:
    """Instructions a GET: the two runs' difference over the GETs the second made more."""
    return (high - low) / requests


def _run(tree: str, n: int, env: dict[str, str], workdir: str, valgrind: bool) -> int:
    code = _DRIVE.format(tree=tree, n=n)
    if not valgrind:  # the warm-up: byte code compiled and cached, so both counted runs find it
        subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, check=True, capture_output=True)
        return 0
    out = os.path.join(workdir, f"cg.{n}")
    subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
                    sys.executable, "-c", code], cwd=tree, env=env, check=True, capture_output=True)
    with open(out, encoding="utf-8") as f:
        return summary_instructions(f.read())


def measure_tree(tree: str, base: int, requests: int) -> float:
    """Instructions per GET of `tree` (a checkout with benchmarks/inproc.py)."""
    with tempfile.TemporaryDirectory(prefix="nsconform-ir-") as workdir:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = os.path.join(workdir, "pyc")
        _run(tree, 300, env, workdir, valgrind=False)
        low = _run(tree, base, env, workdir, valgrind=True)
        high = _run(tree, base + requests, env, workdir, valgrind=True)
    return per_request(low, high, requests)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.instructions", description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", metavar="TREE", help="another checkout, measured after this one")
    ap.add_argument("--requests", type=int, default=20_000, help="GETs the second run makes more (default 20000)")
    ap.add_argument("--base", type=int, default=1_000, help="GETs of the first run (default 1000)")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("benchmarks.instructions: valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trees = [here] + ([os.path.abspath(args.against)] if args.against else [])
    found = {}
    for tree in trees:
        found[tree] = round(measure_tree(tree, args.base, args.requests))
        print(f"{tree}: {found[tree]:,} instructions per GET", flush=True)
    print(json.dumps(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())

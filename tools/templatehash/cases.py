"""Record upstream's template hashes for the test fixture `tests/reference_server/controller/workloads/data/
templatehash_cases.json` (a list of {name, template, collisionCount, hash}): each case's template and collision
count go through `main.go` (upstream's ComputeHash built against the 1.33 sources, see gopath.sh) and its
answer is written back as `hash`. The Python renderer is tested against these values; run this again after
changing a case or regenerating the type model for a newer release.

Usage:
    tools/templatehash/gopath.sh /tmp/gopath API_GIT APIMACHINERY_GIT SPEW_GIT INF_GIT
    python tools/templatehash/cases.py --gopath /tmp/gopath
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
CASES = ROOT / "tests/reference_server/controller/workloads/data/templatehash_cases.json"
MAIN = pathlib.Path(__file__).resolve().parent / "main.go"


def upstream_hashes(cases: list[dict], gopath: str) -> list[str]:
    lines = "".join(json.dumps({"template": c["template"], "collisionCount": c["collisionCount"]}) + "\n"
                    for c in cases)
    env = {**os.environ, "GO111MODULE": "off", "GOPATH": gopath,
           "GOCACHE": os.environ.get("GOCACHE") or os.path.join(tempfile.gettempdir(), "templatehash-gocache")}
    out = subprocess.run(["go", "run", str(MAIN)], input=lines, env=env, cwd=tempfile.gettempdir(),
                         capture_output=True, text=True, check=True).stdout
    return out.split()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gopath", required=True, help="the GOPATH gopath.sh assembled")
    ap.add_argument("--cases", default=str(CASES))
    args = ap.parse_args()
    cases = json.loads(pathlib.Path(args.cases).read_text(encoding="utf-8"))
    for case, h in zip(cases, upstream_hashes(cases, args.gopath), strict=True):
        case["hash"] = h
    pathlib.Path(args.cases).write_text(json.dumps(cases, indent=1) + "\n", encoding="utf-8")
    print(f"{args.cases}: {len(cases)} hashes")


if __name__ == "__main__":
    main()

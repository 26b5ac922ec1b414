"""`nsconform report DIR [--allure-html]` (re-render html+md; Allure's own report) and `nsconform report --compare A B` (exit 1 on regression).

Exit codes: 0 ok, 1 B regressed, 2 a missing or invalid conformance.json (one clear line on stderr).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from ..argtypes import OneLineParser
from .allure_html import AllureError, render_allure_html
from .compare import compare, format_table, regressions
from .writer import load_run, render, resolve_run_dir


def _parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="nsconform report",
                                description="Re-render a run's HTML/Markdown, or compare two runs clause by clause.")
    p.add_argument("dir", nargs="?", default="reports",
                   help="run directory, conformance.json, or reports directory meaning its 'latest' (default: reports)")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"),
                   help="compare run A (baseline) with run B; exit 1 when B regressed")
    p.add_argument("--allure-html", action="store_true",
                   help="also render Allure's own report of the run's allure-results with Allure 3 "
                        "(npx allure@3; needs Node.js) into DIR/allure-report")
    p.add_argument("--allure-output", metavar="DIR", default=None,
                   help="with --allure-html: where to write it (default: the run's allure-report)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["report"]:
        args_list = args_list[1:]
    args = _parser().parse_args(args_list)
    try:
        if args.compare:
            a, b = (load_run(p) for p in args.compare)
            changes = compare(a, b)
            sys.stdout.write(format_table(changes, a, b))
            from ..scale.compare import scale_table
            sys.stdout.write(scale_table(a, b))
            return 1 if regressions(changes) else 0
        run_dir = resolve_run_dir(args.dir)
        run = load_run(run_dir)
        for path in render(run, run_dir):
            print(f"wrote {path}")
        if args.allure_html:
            out = Path(args.allure_output) if args.allure_output else None
            name = f"nsconform {run.get('run_id') or run_dir.name}"
            print(f"wrote {render_allure_html(run_dir, out, name=name)}")
        return 0
    except (FileNotFoundError, ValueError, OSError, AllureError) as exc:
        print(f"nsconform report: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

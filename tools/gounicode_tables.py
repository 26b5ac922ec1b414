"""Regenerate `conformance/reference_server/goport/gounicode/tables15.json.gz`: Go 1.24's `unicode` tables (Unicode 15.0.0).

Go 1.24's `src/unicode/tables.go` is generated (`golang.org/x/text/internal/export/unicode`) from the Unicode
Character Database of 15.0.0: `Categories` from UnicodeData.txt (the two-letter general categories of assigned
code points; `Cn` is none of Go's), `Scripts` from Scripts.txt (every script value but `Unknown`). Python 3.11's
`unicodedata` is 14.0.0, so the same data is read here from two packages that carry 15.0.0:

- `unicodedata2==15.0.0` (its `category()` over every code point: UnicodeData.txt's categories),
- `fonttools==4.40.0` (`fontTools/unicodedata/Scripts.py`, generated from `Scripts-15.0.0.txt`; its `RANGES`,
  `VALUES` and `NAMES`, the script's long name being Go's table name).

The output keeps each table as flat inclusive ranges `[lo, hi, lo, hi, ...]`.

Usage:
    pip download --no-deps unicodedata2==15.0.0 fonttools==4.40.0 -d /tmp/ucd
    (unzip both wheels into /tmp/ucd/x)
    python tools/gounicode_tables.py --unicodedata2 /tmp/ucd/x --scripts /tmp/ucd/x/fontTools/unicodedata/Scripts.py
"""
from __future__ import annotations

import argparse
import gzip
import json
import pathlib
import runpy
import sys

OUT = pathlib.Path(__file__).resolve().parent.parent / "conformance/reference_server/goport/gounicode/tables15.json.gz"
VERSION = "15.0.0"
MAX_RUNE = 0x10FFFF


def categories(category) -> dict[str, list[int]]:  # type: ignore[no-untyped-def]
    """Every two-letter category's ranges, `Cn` (unassigned) left out as Go leaves it out."""
    spans: dict[str, list[int]] = {}
    prev, start = None, 0
    for cp in range(MAX_RUNE + 2):
        c = category(chr(cp)) if cp <= MAX_RUNE else None
        if c != prev:
            if prev is not None and prev != "Cn":
                spans.setdefault(prev, []).extend((start, cp - 1))
            prev, start = c, cp
    return dict(sorted(spans.items()))


def scripts(path: str) -> dict[str, list[int]]:
    """Every script's ranges from fontTools' Scripts.py (`RANGES[i]` starts the run `VALUES[i]` holds)."""
    data = runpy.run_path(path)
    ranges, values, names = data["RANGES"], data["VALUES"], data["NAMES"]
    out: dict[str, list[int]] = {}
    for i, lo in enumerate(ranges):
        hi = ranges[i + 1] - 1 if i + 1 < len(ranges) else MAX_RUNE
        name = names[values[i]]
        if name == "Unknown":
            continue
        spans = out.setdefault(name, [])
        if spans and spans[-1] == lo - 1:
            spans[-1] = hi
        else:
            spans.extend((lo, hi))
    return dict(sorted(out.items()))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--unicodedata2", required=True, help="a directory holding the unicodedata2 15.0.0 module")
    ap.add_argument("--scripts", required=True, help="fontTools 4.40.0's fontTools/unicodedata/Scripts.py")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    sys.path.insert(0, args.unicodedata2)
    import unicodedata2  # type: ignore[import-not-found]

    if unicodedata2.unidata_version != VERSION:
        raise SystemExit(f"unicodedata2 has Unicode {unicodedata2.unidata_version}, not {VERSION}")
    if f"Scripts-{VERSION}.txt" not in pathlib.Path(args.scripts).read_text():
        raise SystemExit(f"{args.scripts} is not generated from Scripts-{VERSION}.txt")
    doc = {"version": VERSION, "categories": categories(unicodedata2.category), "scripts": scripts(args.scripts)}
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(out, "wb", mtime=0) as f:
        f.write(json.dumps(doc, separators=(",", ":")).encode())
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()

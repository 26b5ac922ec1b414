"""A strict reader of Prometheus' text format 0.0.4 as expfmt writes it (the tests' oracle besides
prometheus_client's parser): every family has `# HELP` then `# TYPE` before its samples, families are sorted and
not repeated, a sample's label pairs are sorted by name (`le` last), values are Go floats, a histogram's buckets
are cumulative and end with `+Inf` equal to `_count`."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_SAMPLE = re.compile(rf"^({_NAME})(?:\{{(.*)\}})? (\S+)$")
_PAIR = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\[\\"n])*)"(,|$)')
_FLOAT = re.compile(r"^(?:[+-]Inf|NaN|-?\d+(?:\.\d+)?(?:e[+-]\d{2,3})?)$")


@dataclass
class Family:
    name: str
    help: str
    type: str
    samples: list[tuple[str, dict[str, str], float]] = field(default_factory=list)

    def value(self, **labels: str) -> float:
        """The one sample (of the family's own name) whose labels include these; 0 when there is none."""
        found = [v for n, ls, v in self.samples if n == self.name and all(ls.get(k) == x for k, x in labels.items())]
        assert len(found) <= 1, (self.name, labels, found)
        return found[0] if found else 0.0


def _labels(text: str) -> tuple[list[str], dict[str, str]]:
    names, out, pos = [], {}, 0
    while pos < len(text):
        m = _PAIR.match(text, pos)
        assert m, f"bad label pairs: {text!r}"
        names.append(m.group(1))
        out[m.group(1)] = m.group(2).replace("\\n", "\n").replace('\\"', '"').replace("\\\\", "\\")
        pos = m.end()
    return names, out


def parse(text: str) -> dict[str, Family]:
    assert text.endswith("\n"), "the exposition ends with a newline"
    families: dict[str, Family] = {}
    current: Family | None = None
    order: list[str] = []
    lines = text[:-1].split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("# HELP "):
            name, _, help_text = line[7:].partition(" ")
            t = lines[i + 1]
            assert t.startswith(f"# TYPE {name} "), f"HELP without its TYPE: {line!r} / {t!r}"
            kind = t.split(" ")[3]
            assert kind in ("counter", "gauge", "histogram", "summary", "untyped"), t
            assert name not in families, f"family {name} repeated"
            current = families[name] = Family(name, help_text, kind)
            order.append(name)
            i += 2
            continue
        assert not line.startswith("#"), f"stray comment {line!r}"
        m = _SAMPLE.match(line)
        assert m and current is not None, f"bad sample line {line!r}"
        name, labels, value = m.groups()
        suffixes = {"histogram": ("_bucket", "_sum", "_count"), "summary": ("", "_sum", "_count")}.get(current.type,
                                                                                                   ("",))
        assert any(name == current.name + s for s in suffixes), f"{name} outside its family {current.name}"
        names, ls = _labels(labels or "")
        plain = [n for n in names if n != "le"]
        assert plain == sorted(plain) and ("le" not in names or names[-1] == "le"), f"label order: {line!r}"
        assert _FLOAT.match(value), f"not a Go float: {value!r}"
        current.samples.append((name, ls, float(value)))
        i += 1
    assert order == sorted(order), "families not sorted by name"
    for fam in families.values():
        assert fam.samples, f"{fam.name}: a family without samples"
        if fam.type == "histogram":
            _check_histogram(fam)
    return families


def _check_histogram(fam: Family) -> None:
    series: dict[tuple, list[tuple[float, float]]] = {}
    counts: dict[tuple, float] = {}
    for name, ls, v in fam.samples:
        key = tuple(sorted((k, x) for k, x in ls.items() if k != "le"))
        if name.endswith("_bucket"):
            series.setdefault(key, []).append((float(ls["le"]), v))
        elif name.endswith("_count"):
            counts[key] = v
    for key, buckets in series.items():
        bounds = [b for b, _ in buckets]
        assert bounds == sorted(bounds) and bounds[-1] == float("inf"), (fam.name, key)
        values = [v for _, v in buckets]
        assert values == sorted(values), f"{fam.name}: buckets not cumulative"
        assert values[-1] == counts[key], f"{fam.name}: +Inf bucket differs from _count"

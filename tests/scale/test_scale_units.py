"""The scale room's pure parts: steps, fit and verdict, the SVG plot, the compare table."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest

from conformance.scale.compare import scale_table
from conformance.scale.fit import fit_curve, growth
from conformance.scale.plan import steps
from conformance.scale.plot import svg_panels


def test_steps_two_a_decade_ending_at_n():
    assert steps(1) == [1]
    assert steps(30) == [1, 3, 10, 30]
    assert steps(10000) == [1, 3, 10, 30, 100, 300, 1000, 3000, 10000]
    assert steps(2500) == [1, 3, 10, 30, 100, 300, 1000, 2500]
    with pytest.raises(ValueError):
        steps(0)


def test_fit_tells_log_from_linear():
    ns = [1, 3, 10, 30, 100, 300, 1000, 3000, 10000]
    log = fit_curve([(n, 0.001 + 0.0001 * math.log(n)) for n in ns])
    lin = fit_curve([(n, 0.001 + 0.000002 * n) for n in ns])
    assert log["model"] == "log" and lin["model"] == "linear"
    assert lin["b"] == pytest.approx(0.000002)


def test_growth_is_judged_only_from_a_thousandfold_range():
    flat = [(1, 0.002), (10, 0.0021), (1000, 0.0025)]
    g = growth(flat, 1000)
    assert g["judged"] and g["ok"] and g["ratio"] == pytest.approx(1.25)
    steep = [(1, 0.002), (1000, 0.0101)]
    assert growth(steep, 1000)["ok"] is False
    assert growth([(1, 0.002), (100, 0.05)], 1000) | {"fit": None} == {
        "first": 1, "last": 100, "ratio": 25.0, "judged": False, "ok": None, "fit": None}


def _run(medians: list[tuple[int, float]], n: int) -> dict:
    ops = ["list", "get", "watch_start", "event_delivery"]
    return {"run_id": "r", "scale": {
        "n": n, "objects": 2, "rounds": 3, "limit": 2.0, "judged_operations": ops,
        "reported_operations": ["cross_namespace_list", "namespace_deletion"],
        "steps": [{"namespaces": k, "median_s": {op: v for op in ops} | {"cross_namespace_list": v * 3,
                                                                        "namespace_deletion": None},
                   "relative": {op: v * 1000 for op in ops}, "samples_s": {}} for k, v in medians],
        "growth": {op: growth(medians, 1000) for op in ops}}}


def test_svg_panels_are_well_formed_and_self_contained():
    panels = svg_panels(_run([(1, 0.001), (10, 0.0012), (1000, 0.0013)], 1000)["scale"])
    assert len(panels) == 3  # judged (relative), raw, reported
    for svg in panels:
        root = ET.fromstring(svg)  # well-formed XML
        assert root.tag.endswith("svg")
        assert "http" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "")  # no external asset
    assert "relative to GET /version" in panels[0] and "LIST (one namespace)" in panels[1]
    assert "namespace deletion" not in panels[2]  # an all-null series is left out
    assert svg_panels({"steps": []}) == []


def test_compare_table_lines_up_common_steps():
    a = _run([(1, 0.001), (1000, 0.0012)], 1000)
    b = _run([(1, 0.001), (1000, 0.004)], 1000)
    text = scale_table(a, b)
    assert "list" in text and "4.00" not in text.split("Growth")[0].split("list")[0]
    assert "3.33" in text  # 4 ms / 1.2 ms at 1,000
    assert "A 1.2× (" in text and "B 4.0× (" in text
    assert scale_table({}, {}) == ""
    assert "only run A" in scale_table(a, {})

"""The clause catalogue loader and the marker/coverage rules."""

from __future__ import annotations

import pytest

from conformance import clauses as C


def test_packaged_catalogue_loads():
    all_ = C.load()
    assert all_ and len({c.id for c in all_}) == len(all_)
    for c in all_:
        assert c.profiles and set(c.profiles) <= {"kubernetes", "design"}
        assert c.severity in C.SEVERITIES and c.group and c.requirement, c.id
    some = all_[0]
    assert C.by_id()[some.id] is some or C.by_id()[some.id] == some
    assert all(c.applies_to("design") for c in C.for_profile("design"))


def test_rules():
    cat = {"A": C.Clause("A", "phase", "r", "s", ("kubernetes",), "major"),
           "B": C.Clause("B", "phase", "r", "s", ("design",), "minor")}
    problems = C.check_markers({"t::x": [], "t::y": ["A", "Z"], "t::z": ["A"]}, cat)
    assert problems == ["t::x: no @pytest.mark.clause(...) marker (every suite test must name its clause)",
                        "t::y: unknown clause id(s) Z (not in clauses.toml)"]
    assert C.check_coverage({"t::z": ["A"]}, cat) == ["B"]


@pytest.mark.parametrize("text, match", [
    ("[[clause]]\nid = 'A'\n", "lacks requirement, profiles"),
    ("[[clause]]\nid = 'A'\nrequirement = 'r'\nprofiles = ['mars']\n", "unknown profile"),
    ("[[clause]]\nid='A'\nrequirement='r'\nprofiles=['design']\n[[clause]]\nid='A'\nrequirement='r'\nprofiles=['design']\n",
     "duplicate id A"),
    ("[[clause\n", "clause catalogue"),
    ("[[clause]]\nid='A'\nrequirement='r'\nprofiles=['design']\ndepends_on=['Z']\n", "A depends_on unknown clause"),
    ("[[clause]]\nid='A'\nrequirement='r'\nprofiles=['design']\ndepends_on='B'\n", "must be a list"),
    ("[[clause]]\nid='A'\nrequirement='r'\nprofiles=['design']\ndepends_on=['B']\n"
     "[[clause]]\nid='B'\nrequirement='r'\nprofiles=['design']\ndepends_on=['A']\n", "depends_on cycle A -> B -> A"),
])
def test_malformed_catalogue(tmp_path, text, match):
    p = tmp_path / "c.toml"
    p.write_text(text)
    with pytest.raises(C.CatalogueError, match=match):
        C.load(p)


def test_missing_catalogue(tmp_path):
    with pytest.raises(C.CatalogueError, match="file not found"):
        C.load(tmp_path / "nope.toml")


def test_lifecycle_clauses_depend_on_the_default_finalizer_and_the_terminating_phase():
    cat = C.by_id()
    assert {"NS-FIN-001", "NS-PHA-003"} <= set(cat["NS-LIF-001"].depends_on)
    assert cat["NS-FIN-001"].depends_on == ()
    assert cat["NS-LIF-001"].to_dict()["depends_on"] == ["NS-FIN-001", "NS-PHA-003"]

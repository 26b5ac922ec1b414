"""registry/pvnodeaffinity.py: `validatePvNodeAffinity`'s comparison (`apiequality.Semantic` with the beta → GA key
exception of `getMaskNodeSelectorLabelChangeEqualities`, 1.33)."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.reference_server.registry.pvnodeaffinity import BETA_TO_GA, node_affinity_update_errors


def _spec(*requirements: dict[str, Any], fields: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    term: dict[str, Any] = {"matchExpressions": list(requirements)}
    if fields is not None:
        term["matchFields"] = fields
    return {"nodeAffinity": {"required": {"nodeSelectorTerms": [term]}}}


def _req(key: str, *values: str, op: str = "In") -> dict[str, Any]:
    return {"key": key, "operator": op, "values": list(values)}


@pytest.mark.parametrize("beta, ga", sorted(BETA_TO_GA.items()))
def test_each_beta_label_may_become_its_ga_label(beta: str, ga: str) -> None:
    assert node_affinity_update_errors(_spec(_req(ga, "v")), _spec(_req(beta, "v"))) == []
    assert node_affinity_update_errors(_spec(_req(beta, "v")), _spec(_req(ga, "v")))  # not back


@pytest.mark.parametrize("new, old", [
    (_spec(_req("k", "v")), _spec(_req("k", "v"))),
    (_spec({"key": "k", "operator": "Exists"}), _spec({"key": "k", "operator": "Exists", "values": []})),
    (_spec(_req("k", "v"), fields=[]), _spec(_req("k", "v"))),  # nil and empty slices alike
    (_spec(_req("k", "v")), {}),  # a volume without one may be given one
])
def test_semantically_equal_or_newly_set_passes(new: dict[str, Any], old: dict[str, Any]) -> None:
    assert node_affinity_update_errors(new, old) == []


@pytest.mark.parametrize("new", [
    _spec(_req("k", "w")),
    _spec(_req("k", "v", op="NotIn")),
    _spec(_req("k", "v"), _req("k2", "v")),
    _spec(_req("k", "v"), fields=[_req("metadata.name", "n")]),
    _spec(_req("topology.kubernetes.io/zone", "v")),
    {"nodeAffinity": {}},
])
def test_any_other_change_is_refused(new: dict[str, Any]) -> None:
    shown = ("core.VolumeNodeAffinity{Required:(*core.NodeSelector)(nil)}" if new["nodeAffinity"] == {} else
             "core.VolumeNodeAffinity{Required:(*core.NodeSelector)(0xc000000000)}")
    assert [str(e) for e in node_affinity_update_errors(new, _spec(_req("k", "v")))] == [
        f"nodeAffinity: Invalid value: {shown}: field is immutable, except for updating from beta label to GA"]

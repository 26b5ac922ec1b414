"""Field paths, sets and their FieldsV1 form (structured-merge-diff `fieldpath`)."""
from __future__ import annotations

import pytest

from conformance.reference_server.fieldmanager import fieldpath as fp


def test_fields_v1_marks_member_nodes_with_a_dot_and_sorts_children() -> None:
    item = ("f:spec", "f:containers", fp.key({"name": "app"}))
    paths = {("f:data", "f:b"), ("f:data", "f:a"), ("f:data",), item, item + ("f:image",),
             ("f:metadata", "f:finalizers", fp.value("x"))}
    assert fp.to_fields_v1(paths) == {
        "f:data": {".": {}, "f:a": {}, "f:b": {}},
        "f:metadata": {"f:finalizers": {'v:"x"': {}}},
        "f:spec": {"f:containers": {'k:{"name":"app"}': {".": {}, "f:image": {}}}},
    }
    assert list(fp.to_fields_v1(paths)["f:data"]) == [".", "f:a", "f:b"]


def test_fields_v1_round_trips() -> None:
    tree = {"f:data": {".": {}, "f:a": {}}, "f:spec": {"f:ports": {'k:{"port":80,"protocol":"TCP"}': {
        ".": {}, "f:port": {}}}}}
    assert fp.to_fields_v1(fp.from_fields_v1(tree)) == tree


@pytest.mark.parametrize("bad", [[], {"data": {}}, {"f:data": 1}, {'k:{"name"': {}}])
def test_malformed_fields_v1_is_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        fp.from_fields_v1(bad)


def test_list_map_keys_are_sorted_by_name() -> None:
    assert fp.key({"protocol": "TCP", "containerPort": 80}) == 'k:{"containerPort":80,"protocol":"TCP"}'


def test_path_strings_are_upstreams() -> None:
    """`Path.String`, as a conflict message prints it."""
    path = ("f:spec", "f:ports", fp.key({"port": 80, "protocol": "TCP"}), "f:targetPort")
    assert fp.path_string(path) == '.spec.ports[port=80,protocol="TCP"].targetPort'
    assert fp.path_string(("f:metadata", "f:finalizers", fp.value("a/b"))) == '.metadata.finalizers[="a/b"]'
    assert fp.path_string(("f:data", "f:key")) == ".data.key"

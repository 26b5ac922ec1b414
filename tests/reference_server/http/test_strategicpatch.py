"""Strategic merge patch against upstream's `strategicpatch/patch.go`: merge keys from each kind's published
schema, the directives kubectl sends, upstream's list order and errors."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.http.strategicpatch import strategic_merge_patch
from conformance.reference_server.wire.patchmeta import for_kind

POD = for_kind("", "v1", "Pod")
SERVICE = for_kind("", "v1", "Service")
SA = for_kind("", "v1", "ServiceAccount")
DEPLOY = for_kind("apps", "v1", "Deployment")
NETPOL = for_kind("networking.k8s.io", "v1", "NetworkPolicy")


def failure(live: dict[str, Any], patch: dict[str, Any], node: Any = POD) -> dict[str, Any]:
    with pytest.raises(StatusError) as exc:
        strategic_merge_patch(live, patch, node)
    return exc.value.status


def test_merge_keys_come_from_the_schema_of_the_kind() -> None:
    live = {"spec": {"containers": [{"name": "a", "image": "i", "ports": [{"containerPort": 80}],
                                     "env": [{"name": "A", "value": "1"}]}],
                     "readinessGates": [{"conditionType": "x"}], "tolerations": [{"key": "t1"}]}}
    patch = {"spec": {"containers": [{"name": "a", "ports": [{"containerPort": 81}], "env": [{"name": "A", "value": "2"}]}],
                      "readinessGates": [{"conditionType": "y"}], "tolerations": [{"key": "t2"}]}}
    out = strategic_merge_patch(live, patch, POD)["spec"]
    assert out["containers"] == [{"name": "a", "image": "i", "ports": [{"containerPort": 81}, {"containerPort": 80}],
                                  "env": [{"name": "A", "value": "2"}]}]
    assert out["readinessGates"] == [{"conditionType": "y"}]  # no patchStrategy upstream: replaced
    assert out["tolerations"] == [{"key": "t2"}]  # atomic


def test_a_field_name_alone_does_not_choose_the_merge_key() -> None:
    """`ports` merge by `port` in a ServiceSpec, are atomic in a NetworkPolicy rule; `imagePullSecrets` merge by
    name in a PodSpec but are replaced in a ServiceAccount."""
    svc = strategic_merge_patch({"spec": {"ports": [{"port": 80, "protocol": "TCP"}, {"port": 443}]}},
                                {"spec": {"ports": [{"port": 80, "targetPort": 8080}]}}, SERVICE)
    assert svc["spec"]["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 8080}, {"port": 443}]
    np = strategic_merge_patch({"spec": {"ingress": [{"ports": [{"port": 80}, {"port": 81}]}]}},
                               {"spec": {"ingress": [{"ports": [{"port": 80, "protocol": "UDP"}]}]}}, NETPOL)
    assert np["spec"]["ingress"] == [{"ports": [{"port": 80, "protocol": "UDP"}]}]
    sa = strategic_merge_patch({"imagePullSecrets": [{"name": "a"}], "secrets": [{"name": "s"}]},
                               {"imagePullSecrets": [{"name": "b"}], "secrets": [{"name": "t"}]}, SA)
    assert sa == {"imagePullSecrets": [{"name": "b"}], "secrets": [{"name": "t"}, {"name": "s"}]}


def test_named_group_kinds_merge_their_pod_template_and_status_conditions() -> None:
    live = {"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "1"}]}}},
            "status": {"conditions": [{"type": "Available", "status": "True"}]}}
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "b", "image": "2"}]}}},
             "status": {"conditions": [{"type": "Progressing", "status": "True"}]}}
    out = strategic_merge_patch(live, patch, DEPLOY)
    assert out["spec"]["template"]["spec"]["containers"] == [{"name": "b", "image": "2"}, {"name": "a", "image": "1"}]
    assert [c["type"] for c in out["status"]["conditions"]] == ["Progressing", "Available"]


def test_new_items_come_first_unless_set_element_order_says_otherwise() -> None:
    """`mergeSortedSlice`: the patch's items in the patch's order, live-only items woven in by live order."""
    live = {"metadata": {"finalizers": ["a", "b"]}, "spec": {"containers": [{"name": "x"}, {"name": "y"}]}}
    out = strategic_merge_patch(live, {"metadata": {"finalizers": ["c"]}}, POD)
    assert out["metadata"]["finalizers"] == ["c", "a", "b"]
    ordered = strategic_merge_patch(live, {"spec": {
        "$setElementOrder/containers": [{"name": "y"}, {"name": "z"}, {"name": "x"}],
        "containers": [{"name": "z", "image": "new"}]}}, POD)
    assert ordered["spec"]["containers"] == [{"name": "y"}, {"name": "z", "image": "new"}, {"name": "x"}]
    assert "$setElementOrder/containers" not in ordered["spec"]


def test_kubectl_apply_directives() -> None:
    """What `kubectl apply` (client side) sends: $setElementOrder, $retainKeys, $deleteFromPrimitiveList,
    `$patch: delete` items."""
    live = {"metadata": {"finalizers": ["a", "b", "c"]},
            "spec": {"containers": [{"name": "x"}, {"name": "y"}],
                     "volumes": [{"name": "v", "emptyDir": {}}]}}
    patch = {"metadata": {"$deleteFromPrimitiveList/finalizers": ["b"]},
             "spec": {"$setElementOrder/containers": [{"name": "x"}],
                      "containers": [{"name": "y", "$patch": "delete"}],
                      "volumes": [{"name": "v", "$retainKeys": ["configMap", "name"], "configMap": {"name": "cm"}}]}}
    out = strategic_merge_patch(live, patch, POD)
    assert out["metadata"]["finalizers"] == ["a", "c"]
    assert out["spec"]["containers"] == [{"name": "x"}]
    assert out["spec"]["volumes"] == [{"name": "v", "configMap": {"name": "cm"}}]  # emptyDir not retained
    strategy = strategic_merge_patch(
        {"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}},
        {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}, DEPLOY)
    assert strategy["spec"]["strategy"] == {"type": "Recreate"}


def test_patch_replace_and_delete_directives() -> None:
    live = {"metadata": {"labels": {"a": "1"}}, "spec": {"containers": [{"name": "x"}, {"name": "y"}],
                                                         "securityContext": {"runAsUser": 1}}}
    out = strategic_merge_patch(live, {"metadata": {"labels": {"$patch": "replace", "b": "2"}},
                                       "spec": {"containers": [{"name": "z"}, {"$patch": "replace"}],
                                                "securityContext": {"$patch": "delete"}}}, POD)
    assert out["metadata"]["labels"] == {"b": "2"}
    assert out["spec"]["containers"] == [{"name": "z"}]
    assert out["spec"]["securityContext"] == {}  # handleDirectiveInMergeMap: an empty map


def test_nulls_delete_and_new_values_lose_their_directives() -> None:
    """A null deletes; a value the live object lacks is taken without its nulls and without any map that
    carries `$patch` (`discardNullValuesFromPatch`, `removeDirectives`)."""
    out = strategic_merge_patch({"metadata": {"labels": {"a": "1", "b": "2"}}},
                                {"metadata": {"labels": {"a": None, "c": None}},
                                 "spec": {"hostname": None, "containers": [{"name": "x", "$patch": "delete"},
                                                                           {"name": "y", "image": None}]}}, POD)
    assert out == {"metadata": {"labels": {"b": "2"}}, "spec": {"containers": [{"name": "y"}]}}


def test_a_deletion_list_applies_whatever_the_strategy() -> None:
    out = strategic_merge_patch({"spec": {"containers": [{"name": "a", "args": ["1", "2"]}]}},
                                {"spec": {"containers": [{"name": "a", "$deleteFromPrimitiveList/args": ["1"]}]}}, POD)
    assert out["spec"]["containers"] == [{"name": "a", "args": ["2"]}]


@pytest.mark.parametrize("live,patch,code,message", [
    ({"spec": {"containers": [{"name": "a"}]}}, {"spec": {"containers": [{"image": "i"}]}}, 500,
     "map: map[image:i] does not contain declared merge key: name"),
    ({"spec": {"containers": [{"name": "a"}]}}, {"spec": {"containers": [{"name": "a", "$patch": "merge"}]}}, 500,
     "merging lists cannot yet be specified in the patch"),
    ({"spec": {"containers": [{"name": "a"}]}}, {"spec": {"containers": [{"name": "a", "$patch": "zap"}]}}, 500,
     "unknown patch type: zap in map: map[$patch:zap name:a]"),
    ({"spec": {}}, {"spec": {"$patch": "zap"}}, 500, "unknown patch type: zap in map: map[$patch:zap]"),
    ({"spec": {}}, {"spec": {"$retainKeys": ["a"], "b": 1}}, 400, "invalid patch format of retainKeys"),
    ({"spec": {}}, {"spec": {"$retainKeys": "a"}}, 400, "invalid patch format of retainKeys"),
    ({"spec": {}}, {"spec": {"$setElementOrder": []}}, 400, "invalid patch format of setElementOrder list"),
    ({"metadata": {"finalizers": ["a"]}}, {"metadata": {"$deleteFromPrimitiveList": ["a"]}}, 400,
     "invalid patch format of primitive list"),
    ({"metadata": {"finalizers": []}}, {"metadata": {"finalizers": [["b"]]}}, 422,
     "lists of lists are not supported"),
    ({"spec": {"containers": [{"name": "a"}, {"name": "b"}]}},
     {"spec": {"$setElementOrder/containers": [{"name": "a"}], "containers": [{"name": "b"}]}}, 500,
     "The order in patch list:\n[map[name:b]]\n doesn't match $setElementOrder list:\n[map[name:a]]\n"),
])
def test_errors_are_upstreams(live: dict[str, Any], patch: dict[str, Any], code: int, message: str) -> None:
    st = failure(live, patch)
    assert st["code"] == code
    if code == 422:  # `NewGenericServerResponse(422, ..., 0, false)`: no cause; the error's text is not shown
        assert (st["message"], st["details"]) == ("the server rejected our request due to an error in our request", {})
    else:
        assert st["message"] == message
    if code == 500:
        assert "reason" not in st  # StatusReasonUnknown: an error the handler does not translate

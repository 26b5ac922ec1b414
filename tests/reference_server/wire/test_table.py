"""Table rendering matches upstream's printers column for column."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from conformance.reference_server.wire.table import (column_definitions, human_duration,
                                                     partial_object_metadata_list, to_table)

NOW = datetime(2026, 1, 10, 12, 0, 0, tzinfo=timezone.utc)


def stamp(delta: timedelta) -> str:
    return (NOW - delta).strftime("%Y-%m-%dT%H:%M:%SZ")


def meta(name: str, ago: timedelta = timedelta(seconds=30), **extra: object) -> dict:
    return {"name": name, "creationTimestamp": stamp(ago), "resourceVersion": "5", **extra}


def names(kind: str) -> list[str]:
    return [c["name"] for c in column_definitions(kind)]


def cells(obj: dict, kind: str) -> list:
    return to_table([obj], kind, now=NOW)["rows"][0]["cells"]


def test_namespace_columns_and_cells() -> None:  # NS-30
    table = to_table([{"metadata": meta("foo", timedelta(days=3)), "status": {"phase": "Active"}}],
                     "Namespace", {"resourceVersion": "9"}, now=NOW)
    assert table["kind"] == "Table" and table["apiVersion"] == "meta.k8s.io/v1"
    assert table["metadata"] == {"resourceVersion": "9"}
    assert [(c["name"], c["type"], c["format"], c["priority"]) for c in table["columnDefinitions"]] == [
        ("Name", "string", "name", 0), ("Status", "string", "", 0), ("Age", "string", "", 0)]
    assert table["columnDefinitions"][1]["description"] == "The status of the namespace"
    assert table["rows"][0]["cells"] == ["foo", "Active", "3d"]


def test_row_object_is_partial_object_metadata_by_default() -> None:
    obj = {"metadata": meta("foo"), "status": {"phase": "Active"}, "spec": {"finalizers": ["kubernetes"]}}
    row = to_table([obj], "Namespace", now=NOW)["rows"][0]
    assert row["object"] == {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                             "metadata": obj["metadata"]}
    assert to_table([obj], "Namespace", include_object="Object", now=NOW)["rows"][0]["object"] == obj
    assert "object" not in to_table([obj], "Namespace", include_object="None", now=NOW)["rows"][0]
    with pytest.raises(ValueError, match="includeObject"):
        to_table([obj], "Namespace", include_object="All")


def test_single_object_table_carries_its_resource_version() -> None:
    assert to_table([{"metadata": meta("foo")}], "Namespace", now=NOW)["metadata"] == {"resourceVersion": "5"}
    assert to_table([], "Namespace", now=NOW)["metadata"] == {}


def test_configmap() -> None:
    assert names("ConfigMap") == ["Name", "Data", "Age"]
    cm = {"metadata": meta("x"), "data": {"a": "b", "c": "d"}, "binaryData": {"z": "AA=="}}
    assert cells(cm, "ConfigMap") == ["x", 3, "30s"]
    assert cells({"metadata": meta("e")}, "ConfigMap") == ["e", 0, "30s"]


def test_secret() -> None:
    assert names("Secret") == ["Name", "Type", "Data", "Age"]
    assert cells({"metadata": meta("s"), "type": "Opaque", "data": {"k": "dg=="}}, "Secret") == ["s", "Opaque", 1, "30s"]


def test_serviceaccount() -> None:
    assert names("ServiceAccount") == ["Name", "Secrets", "Age"]
    assert cells({"metadata": meta("default")}, "ServiceAccount") == ["default", 0, "30s"]


def test_service() -> None:
    assert names("Service") == ["Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector"]
    assert column_definitions("Service")[-1]["priority"] == 1
    svc = {"metadata": meta("svc"), "spec": {"type": "NodePort", "clusterIP": "10.0.0.1",
                                             "ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"},
                                                       {"port": 53, "protocol": "UDP"}],
                                             "selector": {"b": "2", "a": "1"}}}
    assert cells(svc, "Service") == ["svc", "NodePort", "10.0.0.1", "<none>", "80:30080/TCP,53/UDP", "30s", "a=1,b=2"]
    lb = {"metadata": meta("lb"), "spec": {"type": "LoadBalancer", "clusterIP": "10.0.0.2"}}
    assert cells(lb, "Service")[3:5] == ["<pending>", "<none>"]
    ext = {"metadata": meta("ext"), "spec": {"type": "ExternalName", "externalName": "example.com"}}
    assert cells(ext, "Service")[1:4] == ["ExternalName", "<none>", "example.com"]


def test_pod_pending_running_terminating() -> None:
    assert names("Pod") == ["Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node",
                            "Readiness Gates"]
    pending = {"metadata": meta("p"), "spec": {"containers": [{"name": "c"}]}, "status": {"phase": "Pending"}}
    assert cells(pending, "Pod") == ["p", "0/1", "Pending", "0", "30s", "<none>", "<none>", "<none>", "<none>"]
    running = {"metadata": meta("r"), "spec": {"containers": [{"name": "a"}, {"name": "b"}], "nodeName": "n1"},
               "status": {"phase": "Running", "podIP": "10.1.1.1", "containerStatuses": [
                   {"name": "a", "ready": True, "restartCount": 2, "state": {"running": {}},
                    "lastState": {"terminated": {"exitCode": 1, "finishedAt": stamp(timedelta(minutes=4))}}},
                   {"name": "b", "ready": False, "restartCount": 0,
                    "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}}
    assert cells(running, "Pod")[:7] == ["r", "1/2", "CrashLoopBackOff", "2 (4m ago)", "30s", "10.1.1.1", "n1"]
    deleting = {**pending, "metadata": meta("d", deletionTimestamp=stamp(timedelta(0)))}
    assert cells(deleting, "Pod")[2] == "Terminating"
    init = {"metadata": meta("i"), "spec": {"initContainers": [{"name": "i1"}, {"name": "i2"}],
                                            "containers": [{"name": "c"}]},
            "status": {"phase": "Pending", "initContainerStatuses": [
                {"name": "i1", "restartCount": 0, "state": {"terminated": {"exitCode": 0}}},
                {"name": "i2", "restartCount": 0, "state": {"running": {}}}]}}
    assert cells(init, "Pod")[2] == "Init:1/2"


def test_default_table_for_kinds_without_a_printer() -> None:
    assert [(c["name"], c["type"]) for c in column_definitions("LimitRange")] == [("Name", "string"),
                                                                                  ("Created At", "date")]
    assert cells({"metadata": meta("l", timedelta(hours=1))}, "LimitRange") == ["l", "2026-01-10T11:00:00Z"]


def test_apiservice() -> None:  # kube-aggregator's ConvertToTable, as `kubectl get apiservices` shows it
    assert names("APIService") == ["Name", "Service", "Available", "Age"]
    local = {"metadata": meta("v1.apps"), "spec": {"group": "apps", "version": "v1"},
             "status": {"conditions": [{"type": "Available", "status": "True", "reason": "Local"}]}}
    assert cells(local, "APIService") == ["v1.apps", "Local", "True", "30s"]
    remote = {"metadata": meta("v1beta1.metrics.k8s.io"),
              "spec": {"service": {"namespace": "kube-system", "name": "metrics-server", "port": 443}},
              "status": {"conditions": [{"type": "Available", "status": "False", "reason": "ServiceNotFound"}]}}
    assert cells(remote, "APIService") == ["v1beta1.metrics.k8s.io", "kube-system/metrics-server",
                                           "False (ServiceNotFound)", "30s"]
    remote["status"]["conditions"][0].pop("reason")
    assert cells(remote, "APIService")[2] == "False"
    remote["status"] = {}
    assert cells(remote, "APIService")[2] == "Unknown"  # no Available condition written yet


def test_custom_resource() -> None:  # crdHandler without additionalPrinterColumns: Name, Age (type date)
    table = to_table([{"metadata": meta("w", timedelta(minutes=5))}], "CustomResource", now=NOW)
    assert [(c["name"], c["type"]) for c in table["columnDefinitions"]] == [("Name", "string"), ("Age", "date")]
    assert table["rows"][0]["cells"] == ["w", "5m"]


def test_event() -> None:
    assert names("Event") == ["Last Seen", "Type", "Reason", "Object", "Subobject", "Source", "Message",
                              "First Seen", "Count", "Name"]
    ev = {"metadata": meta("p.1"), "involvedObject": {"kind": "Pod", "name": "p", "fieldPath": "spec.containers{c}"},
          "reason": "Pulled", "message": " done ", "type": "Normal", "source": {"component": "kubelet", "host": "n1"},
          "firstTimestamp": stamp(timedelta(minutes=3)), "lastTimestamp": stamp(timedelta(seconds=10)), "count": 4}
    assert cells(ev, "Event") == ["10s", "Normal", "Pulled", "pod/p", "spec.containers{c}", "kubelet, n1", "done",
                                  "3m", 4, "p.1"]
    new_api = {"metadata": meta("e"), "involvedObject": {"kind": "Namespace"}, "eventTime": stamp(timedelta(seconds=5)),
               "reportingComponent": "ctrl", "firstTimestamp": None, "lastTimestamp": None}
    assert cells(new_api, "Event")[:6] == ["5s", "", "", "namespace", "", "ctrl"]
    assert cells(new_api, "Event")[8] == 1


def test_resourcequota() -> None:
    assert names("ResourceQuota") == ["Name", "Age", "Request", "Limit"]
    rq = {"metadata": meta("q"), "spec": {"hard": {"pods": "3"}},
          "status": {"hard": {"pods": "3", "limits.cpu": "2", "requests.cpu": "1"}, "used": {"pods": "1"}}}
    assert cells(rq, "ResourceQuota") == ["q", "30s", "pods: 1/3, requests.cpu: 0/1", "limits.cpu: 0/2"]


@pytest.mark.parametrize("seconds, text", [
    (-5, "<invalid>"), (-1, "0s"), (0, "0s"), (119, "119s"), (120, "2m"), (307, "5m7s"), (600, "10m"),
    (179 * 60, "179m"), (3 * 3600, "3h"), (3 * 3600 + 60 * 5, "3h5m"), (8 * 3600, "8h"), (47 * 3600, "47h"),
    (48 * 3600, "2d"), (50 * 3600, "2d2h"), (8 * 86400, "8d"), (729 * 86400, "729d"), (730 * 86400, "2y"),
    (731 * 86400, "2y1d"), (9 * 365 * 86400, "9y"),
])
def test_human_duration(seconds: int, text: str) -> None:
    assert human_duration(seconds) == text


def test_age_unknown_without_timestamp() -> None:
    assert cells({"metadata": {"name": "x"}, "status": {"phase": "Active"}}, "Namespace") == ["x", "Active", "<unknown>"]


def test_partial_object_metadata_list() -> None:
    out = partial_object_metadata_list([{"kind": "Namespace", "metadata": meta("a")}], {"resourceVersion": "3"})
    assert out == {"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1",
                   "metadata": {"resourceVersion": "3"},
                   "items": [{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": meta("a")}]}

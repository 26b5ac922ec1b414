"""wire/goconvert.py: upstream's unstructured converter (`runtime/converter.go` `fromUnstructured`) over the field
model: Go's conversions where it converts (integers wrap, `5.0` is 5), its own words where it does not."""
from __future__ import annotations

import base64

import pytest

from conformance.reference_server.goport.gobase64 import corrupt_offset
from conformance.reference_server.wire import goconvert


def test_integers_wrap_as_gos_conversion() -> None:
    obj = {"spec": {"replicas": 2 ** 32 + 3, "revisionHistoryLimit": -(2 ** 31) - 1, "minReadySeconds": 7.0,
                    "template": {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 2 ** 32 + 80}]}],
                                          "activeDeadlineSeconds": 2 ** 64 + 5}}}}
    assert goconvert.from_unstructured(obj, "apps.Deployment") is None
    assert obj["spec"]["replicas"] == 3 and obj["spec"]["revisionHistoryLimit"] == 2 ** 31 - 1
    assert obj["spec"]["minReadySeconds"] == 7 and isinstance(obj["spec"]["minReadySeconds"], int)
    spec = obj["spec"]["template"]["spec"]
    assert spec["containers"][0]["ports"][0]["containerPort"] == 80
    assert spec["activeDeadlineSeconds"] == -(2 ** 63)  # past an int64 a float64, which amd64 converts so


@pytest.mark.parametrize(("obj", "message", "error"), [
    ({"spec": {"replicas": "3"}}, "apps.Deployment", "unrecognized type: int32"),
    ({"spec": {"replicas": True}}, "apps.Deployment", "unrecognized type: int32"),
    ({"spec": {"replicas": 1.5}}, "apps.Deployment", "cannot convert float64 to int32"),
    ({"spec": {"paused": "yes"}}, "apps.Deployment", "unrecognized type: bool"),
    ({"spec": {"paused": 1}}, "apps.Deployment", "unrecognized type: bool"),
    ({"metadata": {"labels": {"a": 1}}}, "core.ConfigMap", "cannot convert int64 to string"),
    ({"metadata": {"labels": {"a": 1.5}}}, "core.ConfigMap", "unrecognized type: string"),
    ({"metadata": {"labels": {"a": True}}}, "core.ConfigMap", "unrecognized type: string"),
    ({"metadata": {"labels": ["a"]}}, "core.ConfigMap", "cannot restore map from slice"),
    ({"metadata": {"finalizers": "a"}}, "core.ConfigMap", "cannot restore slice from string"),
    ({"metadata": {"uid": 5}}, "core.ConfigMap", "cannot convert int64 to types.UID"),
    ({"spec": {"restartPolicy": 1}}, "core.Pod", "cannot convert int64 to v1.RestartPolicy"),
    ({"spec": "x"}, "core.Pod", "cannot restore struct from: string"),
    ({"spec": {"containers": {}}}, "core.Pod", "cannot restore slice from map"),
    ({"metadata": {"creationTimestamp": 5}}, "core.Secret", "json: cannot unmarshal number into Go value of type string"),
    ({"metadata": {"creationTimestamp": [1]}}, "core.Secret", "json: cannot unmarshal array into Go value of type string"),
    ({"data": {"a": "!!"}}, "core.Secret", "error decoding from json: illegal base64 data at input byte 0"),
    ({"data": {"a": "QUJD\nRA="}}, "core.Secret", "error decoding from json: illegal base64 data at input byte 8"),
    ({"data": {"a": 5}}, "core.Secret", "cannot restore slice from int64"),
    ({"spec": {"ports": [{"port": 80, "targetPort": 1e21}]}}, "core.Service",
     "json: cannot unmarshal number 1e+21 into Go value of type int32"),
    ({"spec": {"ports": [{"port": 80, "targetPort": 2 ** 31}]}}, "core.Service",
     "json: cannot unmarshal number 2147483648 into Go value of type int32"),
    ({"spec": {"ports": [{"port": 80, "targetPort": {}}]}}, "core.Service",
     "json: cannot unmarshal object into Go value of type int32"),
    ({"spec": {"hard": {"cpu": True}}}, "core.ResourceQuota",
     "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
])
def test_the_converters_words(obj: dict, message: str, error: str) -> None:
    assert goconvert.from_unstructured(obj, message) == error


def test_what_converts_is_what_go_holds() -> None:
    svc = {"spec": {"ports": [{"port": 80.0, "targetPort": 8080.0}], "sessionAffinity": "None"}}
    assert goconvert.from_unstructured(svc, "core.Service") is None
    assert svc["spec"]["ports"] == [{"port": 80, "targetPort": 8080}]
    assert all(isinstance(v, int) for v in svc["spec"]["ports"][0].values())
    secret = {"data": {"a": [65, 66, 323]}, "metadata": {"labels": {"a": None}}}  # bytes as numbers: uint8s wrap
    assert goconvert.from_unstructured(secret, "core.Secret") is None
    assert secret["data"]["a"] == base64.b64encode(b"ABC").decode()
    assert goconvert.from_unstructured({"spec": {"hard": {"cpu": " 5 ", "memory": 1.5}}}, "core.ResourceQuota") is None


def test_yaml_numbers_are_int64s_where_they_are_integers() -> None:
    config = {"spec": {"replicas": 2.0, "big": 2 ** 53 + 1, "list": [2 ** 64, 7, 1.5, 1e19, -0.0], "on": True}}
    assert goconvert.yaml_numbers(config) == {"spec": {"replicas": 2, "big": 2 ** 53 + 1,
                                                       "list": [float(2 ** 64), 7, 1.5, 1e19, 0], "on": True}}
    assert isinstance(config["spec"]["replicas"], int) and isinstance(config["spec"]["list"][0], float)
    assert config["spec"]["on"] is True


@pytest.mark.parametrize(("text", "offset"), [
    (b"QUJD", None), (b"QUI=", None), (b"QQ==", None), (b"QUJD\r\nRA==", None), (b"", None),
    (b"Q", 0), (b"QU", 0), (b"QUJ", 0), (b"QUJDR", 4), (b"Q===", 1), (b"QQ=", 3), (b"QQ=x", 2),
    (b"QUI=x", 4), (b"QU!D", 2), (b"QQ==\nx", 5),
])
def test_base64_error_offsets_follow_gos_decoder(text: bytes, offset: int | None) -> None:
    assert corrupt_offset(text) == offset

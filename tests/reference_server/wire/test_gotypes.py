"""wire/gotypes.py: an int-or-string's decoding error in the decoder's words and alone (the converter's), and the
converter's wrap of an integer out of its field's range (Go's conversion keeps the low bits)."""
from __future__ import annotations

import pickle

from conformance.reference_server.wire import gotypes


def test_an_int_or_string_error_has_both_wordings() -> None:
    port = {"spec": {"ports": [{"port": 80, "targetPort": 2 ** 31}]}}
    err = gotypes.type_error(port, "core.Service")
    assert err == ("json: cannot unmarshal number 2147483648 into Go struct field ServicePort.spec.ports.targetPort "
                   "of type int32")
    assert err.bare == "json: cannot unmarshal number 2147483648 into Go value of type int32"  # type: ignore[union-attr]
    assert pickle.loads(pickle.dumps(err)).bare == err.bare  # type: ignore[union-attr]
    assert gotypes.type_error({"spec": {"ports": [{"port": 80, "targetPort": 2 ** 31 - 1}]}}, "core.Service") is None


def test_integers_wrap_as_gos_conversion() -> None:
    obj = {"spec": {"replicas": 2 ** 32 + 3, "revisionHistoryLimit": -(2 ** 31) - 1,
                    "template": {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 2 ** 32 + 80}]}]}}}}
    gotypes.wrap_integers(obj, "apps.Deployment")
    assert obj["spec"]["replicas"] == 3 and obj["spec"]["revisionHistoryLimit"] == 2 ** 31 - 1
    assert obj["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] == 80
    huge = {"spec": {"replicas": 2 ** 64}}  # beyond an int64: not a patch's integer, left to the decoder
    gotypes.wrap_integers(huge, "apps.Deployment")
    assert huge["spec"]["replicas"] == 2 ** 64

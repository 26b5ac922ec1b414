"""wire/gotypes.py: an int-or-string's decoding error in the decoder's words and alone (the converter's words,
for the kinds outside the field model; wire/goconvert.py is the converter of the others)."""
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


def test_a_float32_field_refuses_what_parse_float_32_refuses_and_holds_it_rounded() -> None:
    """No field of a served kind is a float32 in 1.33 (k8s.io/api has none); the field model's `f32` is still
    decoded as encoding/json decodes one: `strconv.ParseFloat(s, 32)`, then written back with 32 bits."""
    from conformance.reference_server.goport import gojsonnum as G
    from conformance.reference_server.wire import schema
    from conformance.reference_server.wire.textdecode import loads_json
    f = schema.Field("x.Probe", "ratio", 1, "f32")
    for literal in ("1e39", "-3.4028236e38", "1" + "0" * 39):
        v = loads_json(f'{{"ratio":{literal}}}'.encode())["ratio"]
        assert gotypes._field(f, v, "Probe", "spec.ratio") == (
            f"json: cannot unmarshal number {literal} into Go struct field Probe.spec.ratio of type float32")
    for literal in ("3.4028234e38", "1e-46", "0.1", "16777217"):
        assert gotypes._field(f, loads_json(f'[{literal}]'.encode())[0], "Probe", "spec.ratio") is None
    assert G.float32_value(0.1) == 0.1 and G.encode([G.float32_value(0.1)]) == "[0.1]"  # not 0.10000000149011612
    assert G.float32_value(0.1000000001) == 0.1 and G.float32_value(16777217.0) == 16777216.0
    assert G.float32_value(3.4028234e38) == 3.4028235e38 and G.float32_value(1e-46) == 0.0
    assert G.float32_value(1e39) is None and G.float32_value(float("inf")) is None
    assert gotypes._float32([0.1000000001, 3, 2 ** 25 + 1]) == [0.1, 3, 33554432.0]

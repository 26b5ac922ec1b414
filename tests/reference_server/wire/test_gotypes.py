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

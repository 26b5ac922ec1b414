"""A webhook's answer outside 200..206 as client-go's rest client words it (registry/webhooktransport.py
`response_error`, `rest/request.go` `newUnstructuredResponseError` and apimachinery's `NewGenericServerResponse`)."""
from __future__ import annotations

import pytest

from conformance.reference_server.registry.webhooktransport import response_error


@pytest.mark.parametrize("status, content_type, body, message", [
    (500, "text/plain; charset=utf-8", b'  say "no"\n', 'an error on the server ("say \\"no\\"") has prevented the '
                                                        "request from succeeding"),
    (500, "", b"bare", 'an error on the server ("bare") has prevented the request from succeeding'),
    (502, "application/json", b'{"x": 1}', 'an error on the server ("unknown") has prevented the request from '
                                           "succeeding"),
    (500, "application/json", b'{"kind": "Status", "status": "Failure", "message": "nope"}', "nope"),
    (400, "text/plain", b"bad", "the server rejected our request for an unknown reason"),
    (404, "text/plain", b"", "the server could not find the requested resource"),
    (409, "text/plain", b"", "the server reported a conflict"),
    (302, "text/plain", b"", "the server responded with the status code 302 but did not return more information"),
])
def test_response_error(status: int, content_type: str, body: bytes, message: str) -> None:
    assert response_error(status, content_type, body) == message

"""http/h2/writer.py: an aiohttp answer's headers as Go's HTTP/2 server writes them."""
from __future__ import annotations

from multidict import CIMultiDict

from conformance.reference_server.http.h2.writer import response_headers


def test_names_lowercase_sorted_then_length_and_date_without_connection_headers() -> None:
    headers = CIMultiDict([("Date", "Tue, 24 Nov 2026 10:00:00 GMT"), ("Content-Type", "application/json"),
                           ("Transfer-Encoding", "chunked"), ("Connection", "close"), ("Keep-Alive", "timeout=5"),
                           ("Audit-Id", "a"), ("Warning", "299 - \"one\""), ("Warning", "299 - \"two\""),
                           ("Content-Length", "2"), ("Cache-Control", "no-cache, private")])
    assert response_headers(200, headers) == [
        (":status", "200"), ("audit-id", "a"), ("cache-control", "no-cache, private"),
        ("content-type", "application/json"), ("warning", '299 - "one"'), ("warning", '299 - "two"'),
        ("content-length", "2"), ("date", "Tue, 24 Nov 2026 10:00:00 GMT")]

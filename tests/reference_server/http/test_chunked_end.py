"""`http/chunked_end.py`: where a chunked body ends in a read, found from llhttp's state copied before the read,
however the read before it cut the body (net/http/internal/chunked.go reads the same framing to the same byte)."""
from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from conformance.reference_server.http import (
    chunked_end,
    chunked_length,
    head_pieces,
    head_repair,
)

pytestmark = pytest.mark.skipif(not chunked_end.SUPPORTED, reason="llhttp's state is not reachable here")

HEAD = b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
BODY = b'5;ext=1;q="a b"\r\nhello\r\n3\r\nabc\r\n0;last\r\nTrailer: x\r\nT2: y\r\n\r\n'
NEXT = b"GET /\xff HTTP/1.1\r\nHost: a\r\n\r\n"  # a head llhttp refuses


@pytest.fixture
def new() -> Iterator[Any]:
    from aiohttp import _http_parser as cparser

    loop = asyncio.new_event_loop()

    def make(queue: int) -> Any:
        parser = cparser.HttpRequestParser(head_repair.QUIET, loop, 2 ** 16, max_msg_queue_size=queue)
        chunked_length.allow(parser)
        return parser

    yield make
    loop.close()


def _state_after(new: Any, data: bytes) -> bytes:
    parser = new(0)
    parser.feed_data(data)
    view = head_pieces.body_view(parser)
    assert view is not None
    state = chunked_end.state(view)
    assert state is not None
    return state


@pytest.mark.parametrize("cut", range(len(BODY)))
def test_the_end_is_found_wherever_the_read_before_cut_the_body(new, cut: int) -> None:
    assert chunked_end.end(_state_after(new, HEAD + BODY[:cut]), BODY[cut:] + NEXT, new) == len(BODY) - cut


def test_a_body_that_does_not_end_in_the_read_has_no_end(new) -> None:
    assert chunked_end.end(_state_after(new, HEAD + BODY[:3]), BODY[3:-1], new) is None


def test_a_body_llhttp_refuses_has_no_end(new) -> None:
    assert chunked_end.end(_state_after(new, HEAD + b"1"), b"g\r\nabc\r\n0\r\n\r\n" + NEXT, new) is None


def test_a_content_length_body_has_no_chunked_state(new) -> None:
    parser = new(0)
    parser.feed_data(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nab")
    view = head_pieces.body_view(parser)
    assert view is not None and chunked_end.state(view) is None

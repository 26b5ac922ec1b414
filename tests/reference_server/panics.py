"""kube-apiserver's answer where its handler panics: none. `WithPanicRecovery`'s 500 stays in net/http's buffer
when `HandleCrash` panics again, and the connection is closed (http/respond.py `panic_dropped`)."""
from __future__ import annotations

from typing import Callable

import pytest
import requests


def assert_dropped(send: Callable[[], requests.Response]) -> None:
    """`send` meets a connection closed without an answer."""
    with pytest.raises(requests.exceptions.ConnectionError):
        r = send()
        pytest.fail(f"answered {r.status_code}: {r.text[:300]}")

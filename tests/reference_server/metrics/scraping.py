"""What the storage metrics' tests share: a scrape of the session server's `/metrics`, one sample's value."""
from __future__ import annotations

import requests

from conformance.reference_server.embedded import RunningServer

from .exposition import Family, parse


def scrape(server: RunningServer) -> dict[str, Family]:
    r = requests.get(server.url + "/metrics")
    assert r.status_code == 200
    return parse(r.text)


def value(fams: dict[str, Family], name: str, **labels: str) -> float:
    return fams[name].value(**labels) if name in fams else 0.0

"""CRD rules calling the URL library over HTTP judge URLs as Go's `net/url` does (cel/libs/url.py on gonet/url.py):
a %-encoded non-ASCII host is decoded by `getHostname`, an IP literal hiding an ASCII byte in `%31` is no URL."""
from __future__ import annotations

import requests

from .test_crd_rules import gadget, refused, served, spec_schema, srv  # noqa: F401 (srv: fixture)


def test_url_rules_follow_go(srv):  # noqa: F811
    coll = served(srv, spec_schema({"endpoint": {"type": "string", "maxLength": 256}}, [
        {"rule": "isURL(self.endpoint)", "message": "endpoint must be a URL"},
        {"rule": "!isURL(self.endpoint) || url(self.endpoint).getHostname() == 'bücher.example'",
         "message": "endpoint must be on bücher.example"},
    ]))
    ok = requests.post(coll, json=gadget(coll, "g1", {"endpoint": "https://b%C3%BCcher.example/hook"}))
    assert ok.status_code == 201, ok.text
    message, causes = refused(requests.post(coll, json=gadget(coll, "g2", {"endpoint": "https://[fe80::%31]/hook"})))
    assert message == 'spec: Invalid value: "object": endpoint must be a URL'
    assert [c["reason"] for c in causes] == ["FieldValueInvalid"]
    message, _ = refused(requests.post(coll, json=gadget(coll, "g3", {"endpoint": "https://other.example/hook"})))
    assert message == 'spec: Invalid value: "object": endpoint must be on bücher.example'

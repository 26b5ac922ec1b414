"""One embedded server per test module of this package."""
from __future__ import annotations



from tests.reference_server.ownserver import own_server

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


srv = own_server()

"""The storage suite's etcd reader: keys by prefix, existence, and a prefix watch in revision order, against a
private etcd written by the reference server's client (the reader itself never writes)."""
from __future__ import annotations

import uuid

from conformance.reference_server.storage.etcdclient import EtcdClient, b64
from conformance.storage.layout import key, root
from conformance.storage.reader import EtcdReader
from tests.reference_server.backends import etcd_process  # noqa: F401 - the fixture


def test_keys_exists_and_watch(etcd_process):  # noqa: F811
    prefix = f"/nsc-reader-{uuid.uuid4().hex[:8]}/registry"
    writer = EtcdClient([etcd_process.url])
    reader = EtcdReader([etcd_process.url])
    try:
        start = reader.revision() + 1
        with reader.watch(root(prefix, "services"), start) as watch:
            for ns, name in (("a", "x"), ("b", "y")):
                writer.txn([], [{"request_put": {"key": b64(key(prefix, "services", ns, name)),
                                                 "value": b64("{}")}}], [])
            events = [watch.next(10), watch.next(10)]
        assert [e.key for e in events] == [f"{prefix}/services/specs/a/x", f"{prefix}/services/specs/b/y"]
        assert events[0].mod_revision < events[1].mod_revision and {e.type for e in events} == {"PUT"}
        assert reader.keys(root(prefix, "services"))[0] == [e.key for e in events]
        assert reader.exists(key(prefix, "services", "a", "x")) and not reader.exists(key(prefix, "services", "a", "z"))
    finally:
        reader.close()
        writer.close()


def test_irregular_roots_follow_upstream():
    assert key("/registry", "services", "ns", "s") == "/registry/services/specs/ns/s"
    assert key("registry/", "namespaces", None, "n") == "/registry/namespaces/n"
    assert root("/registry", "configmaps") == "/registry/configmaps/"

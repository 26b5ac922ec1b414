"""Storage layout (opt-in, `--etcd-endpoints URL`): where the target keeps namespaces and their content in etcd.

Document 000: content persists at `/{k8s_storage_prefix}/{resourceType}/{namespace}/{name}` so that one WATCH on
`/registry/{resourceType}` sees every namespace. The suite reads the target's etcd (keys only, never values,
never a write) through `conformance.storage.reader`; the expected layout is `conformance.storage.layout`.
Every write the suite makes goes through the API, which answers only after etcd has it, so no wait is needed
before a key is read, except for deletions, which end when the API says the namespace is gone."""

from __future__ import annotations

from typing import Iterator

import pytest

from conformance import assertions as A
from conformance.storage.layout import key, normalize_prefix, root
from conformance.storage.options import etcd_options
from conformance.storage.reader import EtcdReader, EtcdReadError
from conformance.suites import DELETE_TIMEOUT, create_namespace, delete_namespace, wait_namespace_gone
from conformance.wait import WaitTimeout, scaled

pytestmark = pytest.mark.storage
WATCH_TIMEOUT = 30.0


@pytest.fixture(scope="session")
def etcd(pytestconfig: pytest.Config) -> Iterator[tuple[EtcdReader, str]]:
    """(reader, prefix) of the target's etcd."""
    opts = etcd_options(pytestconfig)
    if opts is None:  # the options plugin skipped these tests already; a direct call says why
        pytest.skip("opt-in: run with --etcd-endpoints URL")
    reader = EtcdReader(opts.endpoints, cacert=opts.cacert, cert=opts.cert, key=opts.key)
    try:
        reader.revision()
        error = None
    except EtcdReadError as e:
        error = f"--etcd-endpoints: {e}"  # failed outside the except: no "during handling" chain
    if error is not None:
        reader.close()
        pytest.fail(error, pytrace=False)
    yield reader, normalize_prefix(opts.prefix)
    reader.close()


def _named(keys: list[str], name: str) -> list[str]:
    return [k for k in keys if k.endswith("/" + name)]


def _where(reader: EtcdReader, prefix: str, resource: str, name: str) -> str:
    """What the failure says: the keys under the resource's root that end in the object's name."""
    found = _named(reader.keys(root(prefix, resource))[0], name)
    return f"keys under {root(prefix, resource)} ending in /{name}: {found or 'none'}"


@pytest.mark.clause("NS-STOR-001")
def test_namespace_key(namespaces, etcd):
    """A created namespace is at `{prefix}/namespaces/{name}`."""
    reader, prefix = etcd
    name = create_namespace(namespaces, "stor")["metadata"]["name"]
    expected = key(prefix, "namespaces", None, name)
    assert reader.exists(expected), (
        f"namespace {name} was created (201) but etcd has no key {expected}; "
        + _where(reader, prefix, "namespaces", name))


@pytest.mark.clause("NS-STOR-002")
@pytest.mark.parametrize("resource", ["configmaps", "services"])
def test_content_key(namespaces, content, etcd, resource):
    """Content is at `{prefix}/{resourceType}/{namespace}/{name}` (a Service under upstream's `services/specs`)."""
    reader, prefix = etcd
    ns = create_namespace(namespaces, "stor")["metadata"]["name"]
    name = content.create(ns, resource)["metadata"]["name"]
    expected = key(prefix, resource, ns, name)
    assert reader.exists(expected), (
        f"{resource} {ns}/{name} was created (201) but etcd has no key {expected}; "
        + _where(reader, prefix, resource, name))


@pytest.mark.clause("NS-STOR-003")
def test_one_watch_sees_every_namespace(namespaces, content, etcd):
    """One etcd watch on `{prefix}/configmaps/` delivers changes made in two namespaces, in their order."""
    reader, prefix = etcd
    a = create_namespace(namespaces, "stora")["metadata"]["name"]
    b = create_namespace(namespaces, "storb")["metadata"]["name"]
    start = reader.revision() + 1
    made: list[str] = []
    with reader.watch(root(prefix, "configmaps"), start) as watch:
        for ns in (a, b, a):  # each create is answered after etcd has it: their revisions are in this order
            made.append(content.create(ns, "configmaps")["metadata"]["name"])
        seen: list = []
        wanted = set(made)
        timeout = scaled(WATCH_TIMEOUT)
        while wanted:
            ev = watch.next(timeout)
            if ev is None:
                raise WaitTimeout(f"the etcd watch on {root(prefix, 'configmaps')} from revision {start} delivered "
                                  f"{[(e.key, e.mod_revision) for e in seen] or 'nothing'} of ours within "
                                  f"{timeout:.0f} s; still missing the ConfigMaps {sorted(wanted)} "
                                  f"(namespaces {a}, {b})")
            mine = [n for n in wanted if ev.key.endswith("/" + n)]
            if ev.type == "PUT" and mine:
                seen.append(ev)
                wanted.discard(mine[0])
    order = [next(n for n in made if e.key.endswith("/" + n)) for e in seen]
    revisions = [e.mod_revision for e in seen]
    assert order == made and revisions == sorted(set(revisions)), (
        f"the watch delivered {[(e.key, e.mod_revision) for e in seen]}; expected the ConfigMaps {made} in that "
        f"order with increasing revisions")


@pytest.mark.clause("NS-STOR-004")
def test_deleted_namespace_leaves_no_keys(api, paths, namespaces, content, waiter, etcd):
    """Once the API says the namespace is gone, etcd has neither its key nor its content's."""
    reader, prefix = etcd
    ns = create_namespace(namespaces, "stor")["metadata"]["name"]
    cm = content.create(ns, "configmaps")["metadata"]["name"]
    svc = content.create(ns, "services")["metadata"]["name"]
    delete_namespace(api, paths, ns)
    wait_namespace_gone(waiter, paths, ns, timeout=DELETE_TIMEOUT)
    left = [k for k in [key(prefix, "namespaces", None, ns)] if reader.exists(k)]
    for resource, name in (("configmaps", cm), ("services", svc)):
        keys = reader.keys(root(prefix, resource))[0]
        left += [k for k in keys if k.endswith("/" + name) or k.startswith(f"{root(prefix, resource)}{ns}/")]
    assert not left, f"namespace {ns} is gone from the API, but etcd still has {left}"


@pytest.mark.clause("NS-STOR-005")
def test_refused_content_leaves_no_key(api, paths, namespaces, content, etcd):
    """A ConfigMap refused because its namespace does not exist leaves no key."""
    reader, prefix = etcd
    missing = namespaces.name("missing")
    name = f"nsc-stor-{missing.rsplit('-', 1)[-1]}"
    resp = api.post(paths.content(missing, "configmaps"), content.body_for("configmaps", name))
    if resp.status_code < 400:
        content.track(missing, "configmaps", name)
        pytest.fail(f"a ConfigMap in the missing namespace {missing} was accepted (HTTP {resp.status_code}); "
                    f"this clause needs it refused (NS-CON clauses judge the refusal itself)", pytrace=False)
    A.expect_code(resp, 404)
    left = _named(reader.keys(root(prefix, "configmaps"))[0], name)
    left += reader.keys(f"{root(prefix, 'configmaps')}{missing}/")[0]
    left += [k for k in [key(prefix, "namespaces", None, missing)] if reader.exists(k)]
    assert not left, f"the refused ConfigMap {missing}/{name} left keys in etcd: {left}"

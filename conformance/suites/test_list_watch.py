"""Group `list-watch`: LIST and WATCH of namespaces and content, per namespace and across namespaces.

Cross-namespace assertions only ever look at objects carrying this test's own label: other tests (and other
users of a real cluster) create objects concurrently.
"""

from __future__ import annotations

import pytest

from conformance import assertions as A
from conformance.schemas import validate
from conformance.suites import (DELETE_TIMEOUT, HOLD, content_body, create_namespace, delete_namespace,
                                event_summary, names_of, own_label, read_object, selector_of, wait_namespace_gone)

WATCH_STYLES = [pytest.param("param", id="watch-param"), pytest.param("path", id="watch-path")]
EVENT_TIMEOUT = 30.0


def _skip_param_style_in_design(profile, style):
    if style == "param" and profile != "kubernetes":
        pytest.skip("the design document serves watches only on /watch/ paths")


def _list(api, path, schema, **params):
    lst = A.expect_ok(api.get(path, params={k: v for k, v in params.items() if v is not None}))
    validate(lst, schema)
    return lst


def _rv(lst):
    return (lst.get("metadata") or {}).get("resourceVersion") or None


def _open(api, path, style, params):
    params = {k: v for k, v in params.items() if v is not None}
    if style == "param":
        params = {"watch": "true", **params}
    stream = api.watch(path, params=params, timeout_s=EVENT_TIMEOUT * 2)
    assert stream.status_code == 200, (
        f"GET {path} (watch {params}): expected HTTP 200 and an event stream, got HTTP {stream.status_code}: "
        f"{stream.error_body}")
    return stream


def _name(ev):
    return ((ev.get("object") or {}).get("metadata") or {}).get("name")


def _ns_of(ev):
    return ((ev.get("object") or {}).get("metadata") or {}).get("namespace")


def _checked(events):
    for ev in events:
        validate(ev, "WatchEvent")
    return [e for e in events if e.get("type") != "BOOKMARK"]


# --------------------------------------------------------------------------------------------- namespace LIST

@pytest.mark.clause("NS-LW-001")
def test_namespace_list_with_label_selector(api, paths, namespaces):
    """A namespace LIST with this test's label selector returns exactly this test's namespaces."""
    created = sorted(create_namespace(namespaces, "lst")["metadata"]["name"] for _ in range(3))
    lst = _list(api, paths.namespaces(), "NamespaceList", labelSelector=namespaces.selector)
    assert lst.get("kind") == "NamespaceList", f"kind {lst.get('kind')!r}"
    assert names_of(lst["items"]) == created, (
        f"GET {paths.namespaces()}?labelSelector={namespaces.selector}: expected {created}, "
        f"got {names_of(lst['items'])}")
    everything = names_of(_list(api, paths.namespaces(), "NamespaceList")["items"])
    missing = [n for n in created if n not in everything]
    assert not missing, f"GET {paths.namespaces()} without selector misses {missing}"


@pytest.mark.clause("NS-LW-002")
def test_terminating_namespace_still_listed(api, paths, profile, namespaces, waiter):
    """A Terminating namespace stays in the LIST, with phase Terminating."""
    name = create_namespace(namespaces, "lst", finalizers=[HOLD])["metadata"]["name"]
    delete_namespace(api, paths, name)
    if profile != "kubernetes":
        waiter.namespace_phase(name, "Terminating", timeout=DELETE_TIMEOUT)
    lst = _list(api, paths.namespaces(), "NamespaceList", labelSelector=namespaces.selector)
    items = {i["metadata"]["name"]: i for i in lst["items"]}
    assert name in items, f"the terminating namespace {name} is missing from the list: {sorted(items)}"
    assert A.phase(items[name]) == "Terminating" and items[name]["metadata"].get("deletionTimestamp"), (
        f"list item {name}: phase {A.phase(items[name])!r}, deletionTimestamp "
        f"{items[name]['metadata'].get('deletionTimestamp')!r}")


@pytest.mark.clause("NS-LW-003")
@pytest.mark.parametrize("field, expect", [
    pytest.param("metadata.name={active}", ["active"], id="name-eq"),
    pytest.param("metadata.name!={active}", ["terminating"], id="name-neq"),
    pytest.param("metadata.name=={terminating}", ["terminating"], id="name-eqeq"),
    pytest.param("status.phase=Active", ["active"], id="phase-active"),
    pytest.param("status.phase=Terminating", ["terminating"], id="phase-terminating"),
    pytest.param("status.phase!=Terminating", ["active"], id="phase-neq"),
    pytest.param("status.phase=Active,metadata.name={terminating}", [], id="combined-none"),
])
def test_namespace_field_selectors(api, paths, namespaces, field, expect):
    """Namespace LIST honours fieldSelector metadata.name and status.phase."""
    names = {"active": create_namespace(namespaces, "fs")["metadata"]["name"],
             "terminating": create_namespace(namespaces, "fs", finalizers=[HOLD])["metadata"]["name"]}
    delete_namespace(api, paths, names["terminating"])
    selector = field.format(**names)
    lst = _list(api, paths.namespaces(), "NamespaceList", labelSelector=namespaces.selector, fieldSelector=selector)
    wanted = sorted(names[e] for e in expect)
    assert names_of(lst["items"]) == wanted, (
        f"GET {paths.namespaces()}?fieldSelector={selector} (with this test's label selector): expected {wanted}, "
        f"got {names_of(lst['items'])}")


@pytest.mark.clause("NS-LW-004")
@pytest.mark.parametrize("field", ["metadata.namespace", "spec.finalizers", "name", "metadata.uid"])
def test_unsupported_namespace_field_selector(api, paths, field):
    """Namespace LIST with a field selector other than metadata.name/status.phase is a 400."""
    resp = api.get(paths.namespaces(), params={"fieldSelector": f"{field}=x"})
    body = A.expect_status(resp, 400, reason="BadRequest", message=f"field label not supported: {field}")
    validate(body, "Status")


# --------------------------------------------------------------------------------------------- content LIST

def _two_namespaces_with_content(namespaces, content):
    mine = own_label(namespaces)
    ns_a = create_namespace(namespaces, "lw-a")["metadata"]["name"]
    ns_b = create_namespace(namespaces, "lw-b")["metadata"]["name"]
    for ns, obj in ((ns_a, "nsc-cm-a"), (ns_b, "nsc-cm-b")):
        content.create(ns, "configmaps", obj, body=content_body(content, "configmaps", obj, labels=mine))
    return mine, ns_a, ns_b


@pytest.mark.clause("NS-LW-005")
def test_content_list_is_namespace_scoped(api, paths, namespaces, content):
    """A content LIST in one namespace returns only that namespace's content."""
    mine, ns_a, ns_b = _two_namespaces_with_content(namespaces, content)
    lst = _list(api, paths.content(ns_a, "configmaps"), "ConfigMapList")
    assert "nsc-cm-a" in names_of(lst["items"]), f"{ns_a}'s ConfigMap is missing: {names_of(lst['items'])}"
    foreign = [(i["metadata"].get("namespace"), i["metadata"]["name"]) for i in lst["items"]
               if i["metadata"].get("namespace") != ns_a]
    assert not foreign, f"GET {paths.content(ns_a, 'configmaps')} returned objects of other namespaces: {foreign}"
    lst = _list(api, paths.content(ns_a, "configmaps"), "ConfigMapList", labelSelector=selector_of(mine))
    assert names_of(lst["items"]) == ["nsc-cm-a"], f"with this test's label: {names_of(lst['items'])}"


@pytest.mark.clause("NS-LW-006")
def test_content_list_across_namespaces(api, paths, namespaces, content):
    """The all-namespaces content LIST returns the matching content of every namespace."""
    mine, ns_a, ns_b = _two_namespaces_with_content(namespaces, content)
    path = paths.all_namespaces("configmaps")
    lst = _list(api, path, "ConfigMapList", labelSelector=selector_of(mine))
    got = sorted((i["metadata"].get("namespace"), i["metadata"]["name"]) for i in lst["items"])
    assert got == sorted([(ns_a, "nsc-cm-a"), (ns_b, "nsc-cm-b")]), (
        f"GET {path}?labelSelector={selector_of(mine)}: expected the ConfigMaps of {ns_a} and {ns_b}, got {got}")
    everything = _list(api, path, "ConfigMapList")
    seen = {(i["metadata"].get("namespace"), i["metadata"]["name"]) for i in everything["items"]}
    missing = [k for k in [(ns_a, "nsc-cm-a"), (ns_b, "nsc-cm-b")] if k not in seen]
    assert not missing, f"GET {path} without selector misses {missing}"
    nameless = [i["metadata"]["name"] for i in everything["items"] if not i["metadata"].get("namespace")]
    assert not nameless, f"GET {path}: items without metadata.namespace: {nameless[:10]}"


@pytest.mark.clause("NS-LW-007")
def test_content_list_across_namespaces_field_selector(api, paths, namespaces, content):
    """The all-namespaces content LIST honours fieldSelector metadata.namespace."""
    mine, ns_a, ns_b = _two_namespaces_with_content(namespaces, content)
    lst = _list(api, paths.all_namespaces("configmaps"), "ConfigMapList", labelSelector=selector_of(mine),
                fieldSelector=f"metadata.namespace={ns_b}")
    got = sorted((i["metadata"].get("namespace"), i["metadata"]["name"]) for i in lst["items"])
    assert got == [(ns_b, "nsc-cm-b")], f"fieldSelector metadata.namespace={ns_b}: got {got}"


# --------------------------------------------------------------------------------------------- WATCH

@pytest.fixture(scope="module")
def namespace_life(api, paths, profile, module_namespaces, waiter):
    """One namespace created, deleted and awaited until gone while a watch of each style records it: the
    deletion is awaited once per run for both NS-LW-008 tests.

    Returns {style: (path, name, its events — or the exception opening or reading it ended with)}, or the
    exception the namespace's life ended with."""
    rv = _rv(_list(api, paths.namespaces(), "NamespaceList", labelSelector=module_namespaces.selector))
    streams, recorded = {}, {}
    for style in ("param", "path") if profile == "kubernetes" else ("path",):
        path = paths.namespaces() if style == "param" else paths.watch_namespaces()
        try:
            streams[style] = (path, _open(api, path, style, {"labelSelector": module_namespaces.selector,
                                                             "resourceVersion": rv}))
        except AssertionError as exc:
            recorded[style] = (path, None, exc)
    try:
        name = create_namespace(module_namespaces, "w")["metadata"]["name"]
        delete_namespace(api, paths, name)
        wait_namespace_gone(waiter, paths, name, timeout=DELETE_TIMEOUT)
    except Exception as exc:  # noqa: BLE001 - every test using it fails on it
        for _, stream in streams.values():
            stream.close()
        return exc
    for style, (path, stream) in streams.items():
        try:
            with stream:
                events = stream.until(lambda ev: ev.get("type") == "DELETED" and _name(ev) == name,
                                      timeout=EVENT_TIMEOUT, what=f"the DELETED event of namespace {name}")
        except Exception as exc:  # noqa: BLE001 - this style's test fails on it
            events = exc
        recorded[style] = (path, name, events)
    return recorded


@pytest.mark.clause("NS-LW-008")
@pytest.mark.parametrize("style", WATCH_STYLES)
def test_namespace_watch_event_sequence(profile, namespace_life, style):
    """A namespace watch shows its life: ADDED (Active), MODIFIED (Terminating + deletionTimestamp)..., DELETED."""
    _skip_param_style_in_design(profile, style)
    if isinstance(namespace_life, BaseException):
        raise namespace_life.with_traceback(None)
    path, name, events = namespace_life[style]
    if isinstance(events, BaseException):
        raise events.with_traceback(None)
    events = [e for e in _checked(events) if _name(e) == name]
    seq = event_summary(events)
    assert events[0]["type"] == "ADDED" and A.phase(events[0]["object"]) == "Active", (
        f"watch {path}: the first event must be ADDED with phase Active, got {seq}")
    assert events[-1]["type"] == "DELETED", f"watch {path}: the last event must be DELETED, got {seq}"
    middle = events[1:-1]
    assert all(e["type"] == "MODIFIED" for e in middle), (
        f"watch {path}: between ADDED and DELETED expected only MODIFIED events, got {seq}")
    # Other controllers may annotate a new namespace first: look at the first event showing the deletion.
    deleting = [e for e in middle if e["object"]["metadata"].get("deletionTimestamp")]
    assert deleting, f"watch {path}: no MODIFIED event shows the deletionTimestamp set by DELETE: {seq}"
    if profile == "kubernetes":
        assert A.phase(deleting[0]["object"]) == "Terminating", (
            f"watch {path}: the MODIFIED event carrying the deletionTimestamp must show Terminating (NS-50): {seq}")
    else:
        assert any(A.phase(e["object"]) == "Terminating" for e in deleting), f"no MODIFIED shows Terminating: {seq}"
    assert events[-1]["object"].get("kind") == "Namespace", f"DELETED object: {events[-1]['object']}"


@pytest.mark.clause("NS-LW-009")
@pytest.mark.parametrize("style", ["legacy-path", "field-selector", "content-legacy-path"])
def test_single_object_watch(api, paths, namespaces, content, style):
    """A watch of one namespace or object delivers its events and nothing about its neighbours."""
    mine = own_label(namespaces)
    a = create_namespace(namespaces, "one")["metadata"]["name"]
    b = create_namespace(namespaces, "one")["metadata"]["name"]
    if style == "content-legacy-path":
        for obj in ("nsc-cm-1", "nsc-cm-2"):
            content.create(a, "configmaps", obj)
        rv = _rv(_list(api, paths.content(a, "configmaps"), "ConfigMapList"))
        target, other = paths.content(a, "configmaps", "nsc-cm-1"), paths.content(a, "configmaps", "nsc-cm-2")
        watch_path, params, wanted = f"{paths.watch_content(a, 'configmaps')}/nsc-cm-1", {}, "nsc-cm-1"
    else:
        rv = _rv(_list(api, paths.namespaces(), "NamespaceList", labelSelector=selector_of(mine)))
        target, other, wanted = paths.namespace(a), paths.namespace(b), a
        if style == "legacy-path":
            watch_path, params = paths.watch_namespaces(a), {}
        else:
            watch_path, params = paths.namespaces(), {"watch": "true", "fieldSelector": f"metadata.name={a}"}
    with api.watch(watch_path, params={**params, "resourceVersion": rv}, timeout_s=EVENT_TIMEOUT * 2) as stream:
        assert stream.status_code == 200, f"GET {watch_path}: HTTP {stream.status_code}: {stream.error_body}"
        A.expect_ok(api.patch(other, {"metadata": {"labels": {"nsconform.io/touched": "first"}}}))
        A.expect_ok(api.patch(target, {"metadata": {"labels": {"nsconform.io/touched": "second"}}}))
        events = stream.until(lambda ev: _name(ev) == wanted and
                              A.labels(ev.get("object") or {}).get("nsconform.io/touched") == "second",
                              timeout=EVENT_TIMEOUT, what=f"the MODIFIED event of {wanted}")
    events = _checked(events)
    strangers = [e for e in events if _name(e) != wanted]
    assert not strangers, f"watch {watch_path} delivered events of other objects: {event_summary(strangers)}"


@pytest.mark.clause("NS-LW-010")
@pytest.mark.parametrize("style", WATCH_STYLES)
def test_content_watch_in_namespace(api, paths, profile, namespaces, content, style):
    """A content watch in one namespace sees ADDED, MODIFIED, DELETED there and nothing from elsewhere."""
    _skip_param_style_in_design(profile, style)
    mine = own_label(namespaces)
    ns_a = create_namespace(namespaces, "cw-a")["metadata"]["name"]
    ns_b = create_namespace(namespaces, "cw-b")["metadata"]["name"]
    rv = _rv(_list(api, paths.content(ns_a, "configmaps"), "ConfigMapList", labelSelector=selector_of(mine)))
    path = paths.content(ns_a, "configmaps") if style == "param" else paths.watch_content(ns_a, "configmaps")
    with _open(api, path, style, {"labelSelector": selector_of(mine), "resourceVersion": rv}) as stream:
        # The foreign object changes first: if it leaks into the stream it arrives before ours.
        content.create(ns_b, "configmaps", "nsc-cm", body=content_body(content, "configmaps", "nsc-cm", labels=mine))
        content.create(ns_a, "configmaps", "nsc-cm", body=content_body(content, "configmaps", "nsc-cm", labels=mine))
        obj_path = paths.content(ns_a, "configmaps", "nsc-cm")
        obj = read_object(api, obj_path, "ConfigMap")
        obj["data"] = {"key": "changed"}
        A.expect_ok(api.put(obj_path, obj))
        A.expect_ok(api.delete(obj_path), (200, 202))
        events = stream.until(lambda ev: ev.get("type") == "DELETED" and _ns_of(ev) == ns_a,
                              timeout=EVENT_TIMEOUT, what=f"the DELETED event of {ns_a}/nsc-cm")
    events = _checked(events)
    foreign = [e for e in events if _ns_of(e) != ns_a]
    assert not foreign, f"watch {path} delivered events of other namespaces: {event_summary(foreign)}"
    types = [e["type"] for e in events]
    assert types == ["ADDED", "MODIFIED", "DELETED"], f"watch {path}: expected ADDED, MODIFIED, DELETED, got " \
                                                      f"{event_summary(events)}"
    assert events[1]["object"].get("data") == {"key": "changed"}, f"MODIFIED object: {events[1]['object']}"


@pytest.mark.clause("NS-LW-011")
@pytest.mark.parametrize("style", WATCH_STYLES)
def test_content_watch_across_namespaces(api, paths, profile, namespaces, content, style):
    """A content watch across namespaces delivers the events of every namespace."""
    _skip_param_style_in_design(profile, style)
    mine = own_label(namespaces)
    spaces = [create_namespace(namespaces, f"cwa-{i}")["metadata"]["name"] for i in range(3)]
    rv = _rv(_list(api, paths.all_namespaces("configmaps"), "ConfigMapList", labelSelector=selector_of(mine)))
    path = paths.all_namespaces("configmaps") if style == "param" else paths.watch_all("configmaps")
    expected = {(ns, "ADDED") for ns in spaces} | {(ns, "DELETED") for ns in spaces}
    seen: set[tuple[str, str]] = set()

    def all_seen(ev):
        if ev.get("type") in ("ADDED", "DELETED") and _name(ev) == "nsc-cm":
            seen.add((_ns_of(ev), ev["type"]))
        return expected <= seen

    with _open(api, path, style, {"labelSelector": selector_of(mine), "resourceVersion": rv}) as stream:
        for ns in spaces:
            content.create(ns, "configmaps", "nsc-cm", body=content_body(content, "configmaps", "nsc-cm", labels=mine))
        for ns in spaces:
            A.expect_ok(api.delete(paths.content(ns, "configmaps", "nsc-cm")), (200, 202))
        try:
            events = stream.until(all_seen, timeout=EVENT_TIMEOUT, what="ADDED and DELETED from every namespace")
        except AssertionError as exc:
            raise AssertionError(f"watch {path}: missing events {sorted(expected - seen)}; {exc}") from None
    _checked(events)


@pytest.mark.clause("NS-LW-012")
def test_watch_without_resource_version_starts_with_state(api, paths, namespaces):
    """A watch without resourceVersion first sends the existing matching namespaces as ADDED."""
    created = {create_namespace(namespaces, "init")["metadata"]["name"] for _ in range(2)}
    with _open(api, paths.namespaces(), "param", {"labelSelector": namespaces.selector}) as stream:
        seen: set[str] = set()

        def done(ev):
            if ev.get("type") == "ADDED":
                seen.add(_name(ev))
            return created <= seen

        events = _checked(stream.until(done, timeout=EVENT_TIMEOUT, what=f"ADDED events for {sorted(created)}"))
    assert all(e["type"] == "ADDED" for e in events), f"initial events: {event_summary(events)}"

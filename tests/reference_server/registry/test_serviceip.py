"""registry/serviceip.py and registry/servicestore.py: ClusterIPs from every ready ServiceCIDR (`cidrallocator.go`
MetaAllocator, `ipallocator.go`), and the IPAddress as the reservation (`alloc.go`'s transaction): written before
the Service, removed when the Service's create fails, released when the Service is deleted; none on a dry run."""
from __future__ import annotations

import ipaddress

import pytest

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.registry.serviceip import MetaAllocator, range_offset
from conformance.reference_server.registry.store import DeleteOptions, ListOptions
from conformance.reference_server.server import build_context

G = "networking.k8s.io"


@pytest.fixture()
def registry(make_store):
    """On each backend (memory, etcd): the reservation and its revert are two keys' writes."""
    reg = build_context(flavor="kind", store=make_store()).registry
    reg.namespaces.create({"metadata": {"name": "app"}})
    return reg


def _cidr(registry, name, cidr):
    obj = {"metadata": {"name": name}, "spec": {"cidrs": [cidr]}}
    return registry.group(G, "servicecidrs").create(obj)


def _service(registry, name, ip=None, dry_run=False):
    spec = {"ports": [{"port": 80}], **({"clusterIP": ip} if ip else {})}
    return registry.content("services").create({"metadata": {"name": name, "namespace": "app"}, "spec": spec},
                                               dry_run=dry_run)


def _ips(registry) -> dict[str, dict]:
    items = registry.group(G, "ipaddresses").list(None, ListOptions())["items"]
    return {i["metadata"]["name"]: i for i in items}


def _refusal(registry, name, ip) -> str:
    with pytest.raises(StatusError) as err:
        _service(registry, name, ip)
    assert err.value.code == 422
    [cause] = err.value.status["details"]["causes"]
    assert cause["field"] == "spec.clusterIPs"
    return cause["message"]


def test_a_cluster_ip_from_an_added_service_cidr_is_reserved_before_its_service(registry):
    _cidr(registry, "extra", "10.100.0.0/24")
    svc = _service(registry, "web", "10.100.0.10")
    got = _ips(registry)["10.100.0.10"]
    assert got["spec"]["parentRef"] == {"resource": "services", "namespace": "app", "name": "web"}
    assert got["metadata"]["labels"]["ipaddress.kubernetes.io/managed-by"] == "ipallocator.k8s.io"
    assert int(got["metadata"]["resourceVersion"]) < int(svc["metadata"]["resourceVersion"])
    assert [m["manager"] for m in got["metadata"]["managedFields"]] == ["kube-apiserver"]


def test_requested_ips_get_the_meta_allocators_refusals(registry):
    _cidr(registry, "extra", "10.100.0.0/24")
    _service(registry, "web", "10.100.0.10")
    assert _refusal(registry, "b", "10.100.0.10") == (
        'Invalid value: []string{"10.100.0.10"}: failed to allocate IP 10.100.0.10: provided IP is already allocated')
    assert _refusal(registry, "c", "10.200.0.1") == (
        'Invalid value: []string{"10.200.0.1"}: failed to allocate IP 10.200.0.1: the provided network does not '
        'match the current range')
    for ip in ("10.100.0.0", "10.100.0.255"):  # the network and broadcast addresses
        assert _refusal(registry, "d", ip) == (
            f'Invalid value: []string{{"{ip}"}}: failed to allocate IP {ip}: the provided IP ({ip}) is not in the '
            'valid range. The range of valid IPs is 10.100.0.0/24')
    # an IPAddress a client wrote by hand holds its address too (`createIPAddress`: AlreadyExists)
    registry.group(G, "ipaddresses").create({"metadata": {"name": "10.100.0.20"}, "spec": {"parentRef": {
        "resource": "gateways", "name": "gw"}}})
    assert _refusal(registry, "e", "10.100.0.20").endswith("provided IP is already allocated")


def test_a_service_cidr_not_ready_or_being_deleted_allocates_nothing(registry):
    store = registry.group(G, "servicecidrs")
    _cidr(registry, "off", "10.100.0.0/24")
    store.update("", "off", transform=lambda o: {**o, "status": {"conditions": [{
        "type": "Ready", "status": "False", "reason": "x", "message": "", "lastTransitionTime": "2025-01-01T00:00:00Z"}]}},
        strategy=store.status_strategy)
    assert _refusal(registry, "a", "10.100.0.5").endswith("the provided network does not match the current range")
    _cidr(registry, "going", "10.101.0.0/24")
    store.update("", "going", transform=lambda o: {**o, "metadata": {**o["metadata"], "finalizers": ["x/y"]}})
    store.delete("", "going", DeleteOptions())
    assert _refusal(registry, "b", "10.101.0.5").endswith("the provided network does not match the current range")


def test_a_failed_create_leaves_no_ipaddress_and_a_dry_run_writes_none(registry):
    _cidr(registry, "extra", "10.100.0.0/24")
    _service(registry, "web", "10.100.0.10")
    before = _ips(registry)
    with pytest.raises(StatusError) as err:
        _service(registry, "web", "10.100.0.11")  # the name is taken: the reservation is reverted
    assert err.value.code == 409
    assert _ips(registry) == before
    _one_range(registry)  # the dry-run allocator: the default range's (a random one's upstream)
    dry = _service(registry, "dry", "10.96.0.12", dry_run=True)
    assert dry["spec"]["clusterIP"] == "10.96.0.12" and _ips(registry) == before
    _service(registry, "dry2", dry_run=True)
    assert _ips(registry) == before


def _one_range(registry):
    """The allocator's random choices (Go's map order) made for the default range when it is one of them."""
    registry.content("services").strategy.allocator.rng.choice = \
        lambda seq: next((x for x in seq if "10.96.0.0/16" in str(x)), seq[0])


def test_a_dry_run_create_answers_the_dry_run_allocators_values(registry):
    """`allocIPs` with `allocator.DryRun()`: `AllocateNext` answers the range's network address, `Allocate` checks
    the range only (a taken address passes); `PortAllocationOperation.AllocateNext` on a dry run: 32769, then one
    above the highest port the operation holds. Nothing is written."""
    _one_range(registry)
    before = _ips(registry)
    svc = _service(registry, "dry", dry_run=True)
    assert svc["spec"]["clusterIP"] == "10.96.0.0" and svc["spec"]["clusterIPs"] == ["10.96.0.0"]
    taken = _service(registry, "web")["spec"]["clusterIP"]
    assert _service(registry, "dry", taken, dry_run=True)["spec"]["clusterIP"] == taken  # not checked: a dry run
    assert _refusal(registry, "web2", taken).endswith("provided IP is already allocated")
    ports = [{"name": "a", "port": 80}, {"name": "b", "port": 81, "nodePort": 30100}, {"name": "c", "port": 82}]
    node = registry.content("services").create({"metadata": {"name": "np", "namespace": "app"},
                                                "spec": {"type": "NodePort", "ports": ports}}, dry_run=True)
    assert [p["nodePort"] for p in node["spec"]["ports"]] == [32769, 30100, 32770]
    with pytest.raises(StatusError) as err:
        _service(registry, "dry", "10.97.0.1", dry_run=True)
    assert err.value.status["details"]["causes"][0]["message"].endswith(
        "failed to allocate IP 10.97.0.1: the provided IP (10.97.0.1) is not in the valid range. "
        "The range of valid IPs is 10.96.0.0/16")
    assert set(_ips(registry)) == set(before) | {taken}


def test_a_dry_run_create_draws_its_range_at_random_among_all(registry):
    """`MetaAllocator.DryRun`: the first allocator in Go's map order, so with two ranges a dry run answers either
    network address, and checks a requested IP against that range only."""
    _cidr(registry, "extra", "10.100.0.0/24")
    seen = {_service(registry, "dry", dry_run=True)["spec"]["clusterIP"] for _ in range(60)}
    assert seen == {"10.96.0.0", "10.100.0.0"}


def test_deleting_a_service_releases_its_ipaddress_at_once(registry):
    ip = _service(registry, "web")["spec"]["clusterIP"]
    assert ip in _ips(registry)
    registry.content("services").delete("app", "web", DeleteOptions())
    assert ip not in _ips(registry)


def test_dynamic_allocation_spans_every_ready_range():
    """`AllocateNextService`: the ranges in random order, the next one when one is full; KEP-3070's offset in each."""
    taken: set[str] = set()
    cidrs = [{"metadata": {"name": "kubernetes"}, "spec": {"cidrs": ["10.0.0.0/29"]}},
             {"metadata": {"name": "b"}, "spec": {"cidrs": ["10.1.0.0/29"]}},
             {"metadata": {"name": "v6"}, "spec": {"cidrs": ["fd00::/120"]}},
             {"metadata": {"name": "off"}, "spec": {"cidrs": ["10.2.0.0/29"]},
              "status": {"conditions": [{"type": "Ready", "status": "False"}]}}]
    alloc = MetaAllocator(lambda: cidrs, taken.__contains__, lambda: ipaddress.ip_network("10.0.0.0/29"))
    for _ in range(12):  # 6 usable addresses in each ready /29
        taken.add(alloc.allocate_next())
    assert {ip.rsplit(".", 2)[0] for ip in taken} == {"10.0", "10.1"}
    assert not taken & {"10.0.0.0", "10.0.0.7", "10.1.0.0", "10.1.0.7"}
    with pytest.raises(ValueError, match="range is full"):
        alloc.allocate_next()
    assert [range_offset(n) for n in (8, 16, 32, 256, 65536, 1 << 20)] == [0, 0, 16, 16, 256, 256]


def test_a_slash_28_is_walked_whole_from_one_random_address():
    """`calculateRangeOffset` is 0 for a /28 (`cidrSize <= min`: 16 addresses, 14 allocatable), so the walk has no
    lower part: its 14 addresses from one random start, wrapping at .14 (not an upper part .17+ that is empty and
    a lower part .1-.16 that holds the broadcast address and the next range's first)."""
    alloc = MetaAllocator(lambda: [], lambda ip: False, lambda: ipaddress.ip_network("10.0.0.0/28"))
    walked = list(alloc.walk())
    hosts = [f"10.0.0.{i}" for i in range(1, 15)]
    start = hosts.index(walked[0])
    assert walked == hosts[start:] + hosts[:start]


def test_the_upper_part_is_used_first():
    taken: set[str] = set()
    alloc = MetaAllocator(lambda: [], taken.__contains__, lambda: ipaddress.ip_network("10.0.0.0/24"))
    for _ in range(254 - 16):
        taken.add(alloc.allocate_next())
    assert all(int(ip.rsplit(".", 1)[1]) > 16 for ip in taken)  # offset 16: .1-.16 left for requested IPs
    assert int(alloc.allocate_next().rsplit(".", 1)[1]) <= 16


def test_an_update_reserves_an_added_cluster_ip_and_releases_a_dropped_one(registry):
    svc = registry.content("services")
    svc.create({"metadata": {"name": "ext", "namespace": "app"},
                "spec": {"type": "ExternalName", "externalName": "example.com"}})
    before = set(_ips(registry))
    got = svc.update("app", "ext", transform=lambda o: {**o, "spec": {"type": "ClusterIP", "ports": [{"port": 80}]}})
    ip = got["spec"]["clusterIP"]
    assert set(_ips(registry)) == before | {ip}  # there when the update answers
    svc.update("app", "ext", transform=lambda o: {**o, "spec": {"type": "ExternalName", "externalName": "a.example"}})
    assert set(_ips(registry)) == before


def test_an_allocation_error_comes_before_the_strategys_validation(registry):
    """`beginCreate` (the allocation) runs before `BeforeCreate` (validation): a taken IP is the only error."""
    _service(registry, "web", "10.96.0.50")
    with pytest.raises(StatusError) as err:
        registry.content("services").create({"metadata": {"name": "b", "namespace": "app"},
                                             "spec": {"clusterIP": "10.96.0.50"}})
    assert [c["field"] for c in err.value.status["details"]["causes"]] == ["spec.clusterIPs"]


def test_a_cluster_ip_of_the_other_family_is_not_configured(registry):
    """`initIPFamilyFields` on a single-stack IPv4 cluster (kind's): the family inferred from the IP is missing."""
    with pytest.raises(StatusError) as err:
        _service(registry, "v6", "fd00::10")
    assert err.value.status["message"] == (
        'Service "v6" is invalid: spec.clusterIPs[0]: Invalid value: []string{"fd00::10"}: IPv6 is not configured '
        'on this cluster')


def test_a_cluster_ip_service_with_a_node_port_is_refused_and_reserves_nothing():
    """`ValidateService`: `nodePort` may not be used when `type` is 'ClusterIP' (a 422), and the IPAddress the
    allocator reserved first is released with the refused create."""
    registry = build_context(flavor="bare").registry
    ips = registry.group("networking.k8s.io", "ipaddresses")
    before = {i["metadata"]["name"] for i in ips.list(None, ListOptions())["items"]}
    with pytest.raises(StatusError) as err:
        registry.content("services").create({"apiVersion": "v1", "kind": "Service",
                                             "metadata": {"name": "s", "namespace": "default"},
                                             "spec": {"ports": [{"port": 80, "nodePort": 30080}]}})
    assert err.value.code == 422 and err.value.status["message"] == (
        "Service \"s\" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'")
    assert {i["metadata"]["name"] for i in ips.list(None, ListOptions())["items"]} == before


def test_an_update_leaving_external_name_reserves_its_cluster_ip_before_the_service(registry):
    """`txnUpdateClusterIPs` (case A): the new ClusterIP's IPAddress is written before the Service's update is
    stored (`beginUpdate`), so its resourceVersion is the lower."""
    store = registry.content("services")
    store.create({"metadata": {"name": "ext", "namespace": "app"},
                  "spec": {"type": "ExternalName", "externalName": "example.com"}})

    def to_cluster_ip(obj):
        spec = {k: v for k, v in obj["spec"].items() if k != "externalName"}
        return {**obj, "spec": {**spec, "type": "ClusterIP", "ports": [{"port": 80}]}}
    out = store.update("app", "ext", transform=to_cluster_ip)
    ip = out["spec"]["clusterIP"]
    got = _ips(registry)[ip]
    assert got["spec"]["parentRef"]["name"] == "ext"
    assert int(got["metadata"]["resourceVersion"]) < int(out["metadata"]["resourceVersion"])


def _node_port(registry, name, ports, dry_run=False):
    return registry.content("services").create(
        {"metadata": {"name": name, "namespace": "app"}, "spec": {"type": "NodePort", "ports": ports}},
        dry_run=dry_run)


def _port_refusal(registry, name, ports, dry_run=False) -> tuple[str, str]:
    with pytest.raises(StatusError) as err:
        _node_port(registry, name, ports, dry_run)
    assert err.value.code == 422
    [cause] = err.value.status["details"]["causes"]
    return cause["field"], cause["message"]


def test_a_requested_node_port_is_allocated_once_and_in_the_range(registry):
    """`initNodePorts` → `PortAllocationOperation.Allocate`: a port held already (by another Service or an earlier
    entry of the same Service) or outside 30000-32767 is the Service's 422; entries of one port number share a
    nodePort; a dry run checks only that the port is not held."""
    _node_port(registry, "a", [{"port": 80, "nodePort": 30080}])
    assert _port_refusal(registry, "b", [{"port": 80, "nodePort": 30080}]) == (
        "spec.ports[0].nodePort", "Invalid value: 30080: provided port is already allocated")
    assert _port_refusal(registry, "c", [{"port": 80, "nodePort": 40000}]) == (
        "spec.ports[0].nodePort", "Invalid value: 40000: provided port is not in the valid range. "
        "The range of valid ports is 30000-32767")
    assert _port_refusal(registry, "d", [{"name": "x", "port": 80, "nodePort": 30090},
                                         {"name": "y", "port": 81, "nodePort": 30090}])[0] == "spec.ports[1].nodePort"
    dns = _node_port(registry, "dns", [{"name": "t", "port": 53}, {"name": "u", "port": 53, "protocol": "UDP"}])
    assert dns["spec"]["ports"][0]["nodePort"] == dns["spec"]["ports"][1]["nodePort"]
    assert _port_refusal(registry, "e", [{"port": 80, "nodePort": 30080}], dry_run=True)[1].endswith(
        "provided port is already allocated")
    assert _node_port(registry, "f", [{"port": 80, "nodePort": 40000}], dry_run=True)["spec"]["ports"][0][
        "nodePort"] == 40000


def test_an_update_requesting_a_held_node_port_is_refused(registry):
    """`txnUpdateNodePorts` → `updateNodePorts` (alloc.go, in `beginUpdate`): a nodePort the old Service did not
    hold is `Allocate`d, one another Service holds (or outside the range) the update's 422, its only cause; the
    Service's own ports pass, swapped between its entries too."""
    store = registry.content("services")
    _node_port(registry, "a", [{"port": 80, "nodePort": 30080}])
    _node_port(registry, "b", [{"name": "x", "port": 80, "nodePort": 30081},
                               {"name": "y", "port": 81, "nodePort": 30082}])

    def refusal(**port):
        def put(obj):
            return {**obj, "spec": {**obj["spec"], "ports": [{**obj["spec"]["ports"][0], **port}]}}
        with pytest.raises(StatusError) as err:
            store.update("app", "b", transform=put)
        assert err.value.code == 422
        [cause] = err.value.status["details"]["causes"]
        return cause["field"], cause["message"]
    assert refusal(nodePort=30080) == ("spec.ports[0].nodePort",
                                       "Invalid value: 30080: provided port is already allocated")
    assert refusal(nodePort=40000) == ("spec.ports[0].nodePort", "Invalid value: 40000: provided port is not in "
                                       "the valid range. The range of valid ports is 30000-32767")

    def swap(obj):
        x, y = obj["spec"]["ports"]
        return {**obj, "spec": {**obj["spec"], "ports": [{**x, "nodePort": 30082}, {**y, "nodePort": 30081}]}}
    out = store.update("app", "b", transform=swap)
    assert [p["nodePort"] for p in out["spec"]["ports"]] == [30082, 30081]

    def to_node_port(obj):
        return {**obj, "spec": {**obj["spec"], "type": "NodePort", "ports": [{"port": 80, "nodePort": 30080}]}}
    _service(registry, "c")
    with pytest.raises(StatusError) as err:
        store.update("app", "c", transform=to_node_port)
    assert err.value.status["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "spec.ports[0].nodePort",
                                                      "message": "Invalid value: 30080: provided port is already "
                                                                 "allocated"}]


def test_an_update_draws_a_node_port_for_each_entry_without_one(registry):
    """`updateNodePorts` (alloc.go): on update each port without a nodePort gets its own `AllocateNext` (where a
    create's `initNodePorts` shares one per port number); two entries of one protocol naming one nodePort are its
    plain `duplicate nodePort` error, a reasonless 500; a dry run's draws are the operation's dummies."""
    store = registry.content("services")
    _service(registry, "dns")

    def to_node_port(obj):
        return {**obj, "spec": {**obj["spec"], "type": "NodePort",
                                "ports": [{"name": "t", "port": 53}, {"name": "u", "port": 53, "protocol": "UDP"}]}}
    out = store.update("app", "dns", transform=to_node_port)
    tcp, udp = (p["nodePort"] for p in out["spec"]["ports"])
    assert tcp != udp and all(30000 <= n <= 32767 for n in (tcp, udp))
    _service(registry, "dry")
    out = store.update("app", "dry", transform=to_node_port, dry_run=True)
    assert [p["nodePort"] for p in out["spec"]["ports"]] == [32769, 32770]

    def duplicate(obj):
        port = obj["spec"]["ports"][0]["nodePort"]
        return {**obj, "spec": {**obj["spec"], "ports": [{"name": "a", "port": 80, "nodePort": port},
                                                         {"name": "b", "port": 81, "nodePort": port}]}}
    with pytest.raises(StatusError) as err:
        store.update("app", "dns", transform=duplicate)
    assert err.value.status == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                "message": f"duplicate nodePort: {{TCP {tcp}}}", "code": 500}


def test_an_update_to_a_local_load_balancer_requesting_a_held_health_check_port(registry):
    """`updateHealthCheckNodePort`'s case 1 (the old Service did not need one): `allocHealthCheckNodePort` from the
    update's operation, a requested port held already the update's 500 (`NewInternalError`)."""
    store = registry.content("services")
    _node_port(registry, "a", [{"port": 80, "nodePort": 30080}])
    _node_port(registry, "b", [{"port": 80}])

    def local(obj):
        return {**obj, "spec": {**obj["spec"], "type": "LoadBalancer", "externalTrafficPolicy": "Local",
                                "healthCheckNodePort": 30080}}
    with pytest.raises(StatusError) as err:
        store.update("app", "b", transform=local)
    assert (err.value.code, err.value.message) == (500, "Internal error occurred: failed to allocate requested "
                                                        "HealthCheck NodePort 30080: provided port is already "
                                                        "allocated")


def test_a_local_load_balancer_gets_a_health_check_node_port(registry):
    """`allocHealthCheckNodePort` (a LoadBalancer with externalTrafficPolicy Local, `NeedsHealthCheck`): one more
    port from the same operation; a requested one held already is the create's 500 (`NewInternalError`); a dry
    run's is the operation's next dummy."""
    store = registry.content("services")

    def lb(name, dry_run=False, **spec):
        return store.create({"metadata": {"name": name, "namespace": "app"},
                             "spec": {"type": "LoadBalancer", "ports": [{"port": 80}], **spec}}, dry_run=dry_run)
    local = lb("local", externalTrafficPolicy="Local")
    hc = local["spec"]["healthCheckNodePort"]
    assert 30000 <= hc <= 32767 and hc != local["spec"]["ports"][0]["nodePort"]
    assert "healthCheckNodePort" not in lb("cluster")["spec"]
    with pytest.raises(StatusError) as err:
        lb("again", externalTrafficPolicy="Local", healthCheckNodePort=hc)
    assert (err.value.code, err.value.message) == (500, "Internal error occurred: failed to allocate requested "
                                                        f"HealthCheck NodePort {hc}: provided port is already allocated")
    dry = lb("dry", dry_run=True, externalTrafficPolicy="Local")
    assert (dry["spec"]["ports"][0]["nodePort"], dry["spec"]["healthCheckNodePort"]) == (32769, 32770)


def test_the_health_check_node_port_follows_the_traffic_policy_on_update(registry):
    """`patchAllocatedValues` keeps it while both need it; `dropTypeDependentFields` drops it (unchanged) when the
    policy leaves Local; an update to Local allocates one (`updateHealthCheckNodePort`)."""
    store = registry.content("services")
    created = store.create({"metadata": {"name": "lb", "namespace": "app"},
                            "spec": {"type": "LoadBalancer", "externalTrafficPolicy": "Local", "ports": [{"port": 80}]}})
    hc = created["spec"]["healthCheckNodePort"]

    def policy(value, keep=True):
        def step(obj):
            spec = dict(obj["spec"], externalTrafficPolicy=value)
            if not keep:
                spec.pop("healthCheckNodePort", None)
            return {**obj, "spec": spec}
        return store.update("app", "lb", transform=step)["spec"]
    assert policy("Local", keep=False)["healthCheckNodePort"] == hc
    assert "healthCheckNodePort" not in policy("Cluster")
    again = policy("Local")["healthCheckNodePort"]
    assert 30000 <= again <= 32767

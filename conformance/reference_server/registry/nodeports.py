"""A Service's NodePorts as the Service storage allocates them on create (and the ones an update adds or requests).

Upstream: `pkg/registry/core/service/storage/alloc.go` `initNodePorts` (a port without a nodePort takes the one an
entry of the same port number requested, else the next free one; entries of one port number share it; a requested
one is `Allocate`d, its refusal the Service's 422 on `spec.ports[i].nodePort`; `shouldAllocateNodePorts`: a
LoadBalancer with `allocateLoadBalancerNodePorts: false` gets none it did not ask for) over
`pkg/registry/core/service/portallocator/operation.go` (`PortAllocationOperation`; on a dry run `Allocate` only
checks that the port is not held, and `AllocateNext` answers a dummy: one above the highest port the operation
holds, 32769 for its first, outside the range: it is never stored), `allocHealthCheckNodePort` (a LoadBalancer
with `externalTrafficPolicy: Local` gets a `healthCheckNodePort` from the same operation) and
`portallocator/allocator.go` (`ErrNotInRange`, `ErrAllocated`, `ErrFull`). An update's (`updateNodePorts`)
shares nothing: each port without a nodePort draws its own, and two entries of one protocol naming one nodePort are
its plain `duplicate nodePort` error (a 500).
"""
from __future__ import annotations

import random
from typing import Any

from .. import apierrors as E
from ..apierrors import FieldError
from .draws import draw
from .shapes import as_list

NODE_PORTS = (30000, 32767)  # --service-node-port-range's default
ERR_PORT_ALLOCATED = "provided port is already allocated"
ERR_PORT_RANGE = "provided port is not in the valid range. The range of valid ports is {}"
ERR_PORT_FULL = "range is full"


class Operation:
    """`PortAllocationOperation` over the ports other Services hold (`used`)."""

    def __init__(self, used: set[int], dry_run: bool, rng: random.Random, check: bool = True):
        self.used, self.dry_run, self.rng, self.check = used, dry_run, rng, check
        self.held: list[int] = []  # the operation's `allocated`

    def allocate(self, port: Any) -> str | None:
        """`Allocate`: the refusal (None: held now); `check=False` (an update's own ports) holds it anyway."""
        low, high = NODE_PORTS
        in_range = isinstance(port, int) and low <= port <= high
        why = (ERR_PORT_RANGE.format(f"{low}-{high}") if not self.dry_run and not in_range
               else ERR_PORT_ALLOCATED if port in self.used or port in self.held else None)
        if why is not None and self.check:
            return why
        self.held.append(port)
        return None

    def allocate_next(self, index: int) -> int:
        """`AllocateNext` for the port at `index` (drawn once per request: registry/draws.py)."""
        if self.dry_run:
            value = draw("node-port", index, lambda: (max(self.held) if self.held else 32768) + 1)
        else:
            free = [n for n in range(NODE_PORTS[0], NODE_PORTS[1] + 1) if n not in self.used and n not in self.held]
            if not free:
                raise E.internal(f"failed to allocate a nodePort: {ERR_PORT_FULL}")
            value = draw("node-port", index, lambda: self.rng.choice(free))
        self.held.append(value)
        return value


def should_allocate(spec: dict[str, Any]) -> bool:
    """`shouldAllocateNodePorts`: a NodePort Service, or a LoadBalancer unless `allocateLoadBalancerNodePorts`
    is false."""
    typ = spec.get("type")
    return typ == "NodePort" or (typ == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is not False)


def plan(spec: dict[str, Any], op: Operation) -> tuple[list[FieldError], dict[int, int]]:
    """`initNodePorts`: the nodePort of each port that gets one, by index, or the first refusal."""
    ports = as_list(spec.get("ports"))
    should = should_allocate(spec)
    by_port: dict[Any, int] = {}
    out: dict[int, int] = {}

    def refused(i: int, port: Any, why: str) -> tuple[list[FieldError], dict[int, int]]:
        return [FieldError("FieldValueInvalid", f"spec.ports[{i}].nodePort", f"Invalid value: {port}: {why}")], {}
    for i, p in enumerate(ports):
        if not isinstance(p, dict) or (not p.get("nodePort") and not should):
            continue
        port = p.get("port") if isinstance(p.get("port"), (int, str)) else None
        allocated = by_port.get(port, 0)
        if not allocated:
            requested = next((q["nodePort"] for q in ports if isinstance(q, dict) and q.get("port") == port
                              and q.get("nodePort")), 0)  # `findRequestedNodePort`
            if requested:
                why = op.allocate(requested)
                if why is not None:
                    return refused(i, requested, why)
                out[i] = by_port[port] = requested
            else:
                out[i] = by_port[port] = op.allocate_next(i)
        elif p.get("nodePort") != allocated:
            if not p.get("nodePort"):
                out[i] = allocated
            elif (why := op.allocate(p["nodePort"])) is not None:
                return refused(i, p["nodePort"], why)
    return [], out


def update_refusal(spec: dict[str, Any], old_spec: dict[str, Any], op: Operation) -> list[FieldError]:
    """`updateNodePorts`' refusal (alloc.go, run by `txnUpdateNodePorts` in `beginUpdate`, before validation): a
    port's requested nodePort that the old Service did not hold (`collectServiceNodePorts`) and this update has not
    taken already is `Allocate`d, its refusal the 422 on `spec.ports[i].nodePort`; a port without one (only where
    `shouldAllocateNodePorts`) draws the next free one, which canonicalizing does here."""
    old = {p.get("nodePort") for p in as_list(old_spec.get("ports")) if isinstance(p, dict) and p.get("nodePort")}
    taken: set[Any] = set()
    seen: set[tuple[Any, Any]] = set()  # `newNodePorts`: (protocol, nodePort) of the entries before
    for i, p in enumerate(as_list(spec.get("ports"))):
        node_port = p.get("nodePort") if isinstance(p, dict) else None
        if not node_port:
            continue  # (one drawn is free: `update_draws`)
        if node_port not in old and node_port not in taken:
            why = op.allocate(node_port)
            if why is not None:
                return [FieldError("FieldValueInvalid", f"spec.ports[{i}].nodePort",
                                   f"Invalid value: {node_port}: {why}")]
            taken.add(node_port)
        key = (p.get("protocol") or "", node_port)
        if key in seen:  # `containsNodePort`: a plain error, which `ErrorToAPIStatus` answers as a reasonless 500
            raise E.StatusError(E.status_dict(500, None, f"duplicate nodePort: {{{key[0]} {node_port}}}"))
        seen.add(key)
    return []


def update_draws(spec: dict[str, Any], old_spec: dict[str, Any], op: Operation) -> dict[int, int]:
    """`updateNodePorts`' draws, its loop in order: a port's nodePort that the old Service did not hold is held
    by the operation (`update_refusal` judged it), and where `shouldAllocateNodePorts` a port without one gets the
    next free one of its own (`AllocateNext` per entry: none shared by port number as `initNodePorts` shares
    them; a dry run's dummies one above the highest the operation holds). The draws, by index."""
    old = {p.get("nodePort") for p in as_list(old_spec.get("ports")) if isinstance(p, dict) and p.get("nodePort")}
    should = should_allocate(spec)
    out: dict[int, int] = {}
    for i, p in enumerate(as_list(spec.get("ports"))):
        if not isinstance(p, dict):
            continue
        node_port = p.get("nodePort")
        if node_port:
            if node_port not in old and node_port not in op.held:
                op.allocate(node_port)
        elif should:
            out[i] = op.allocate_next(i)
    return out


def needs_health_check(spec: dict[str, Any]) -> bool:
    """`apiservice.NeedsHealthCheck`: a LoadBalancer whose externalTrafficPolicy is Local."""
    return spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"


def health_check_requested(spec: dict[str, Any], op: Operation) -> Any:
    """`allocHealthCheckNodePort`'s requested port, for a Service that `NeedsHealthCheck`: `Allocate`d, its
    refusal a 500 (`NewInternalError`); None when none is requested."""
    requested = spec.get("healthCheckNodePort")
    if not requested or not needs_health_check(spec):
        return None
    why = op.allocate(requested)
    if why is not None:
        raise E.internal(f"failed to allocate requested HealthCheck NodePort {requested}: {why}")
    return requested


def health_check(spec: dict[str, Any], op: Operation) -> int | None:
    """`allocHealthCheckNodePort`, for a Service that `NeedsHealthCheck` (a LoadBalancer whose
    externalTrafficPolicy is Local): the requested port, or the next free one, from the same operation; a failure
    is the create's 500 (`NewInternalError`)."""
    if not needs_health_check(spec):
        return None
    requested = health_check_requested(spec, op)
    if requested:
        return requested
    try:
        return op.allocate_next(-1)
    except E.StatusError:
        raise E.internal(f"failed to allocate a HealthCheck NodePort 0: {ERR_PORT_FULL}") from None


__all__ = ["ERR_PORT_ALLOCATED", "ERR_PORT_RANGE", "NODE_PORTS", "Operation", "health_check",
           "health_check_requested", "needs_health_check",
           "plan", "should_allocate", "update_draws", "update_refusal"]

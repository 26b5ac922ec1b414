"""ClusterIP allocation over every ServiceCIDR (MultiCIDRServiceAllocator, GA and on in 1.33): the IPAddress
objects are the reservations, the ServiceCIDRs the ranges.

Upstream: `pkg/registry/core/service/ipallocator/cidrallocator.go` (`MetaAllocator`: one allocator per CIDR of the
cluster's family; an allocator is ready when one of its ServiceCIDRs is Ready, or has no Ready condition, and is
not being deleted; `getAllocator` finds a ready one containing a requested IP, else `ErrMismatchedNetwork`;
`AllocateNextService` tries the allocators in Go's map order, which is random, going on while one is full) and
`ipallocator.go` (`allocateService`: the network address and, for IPv4, the broadcast address are outside the
range, `ErrNotInRange`; `createIPAddress`: an existing IPAddress of that name is `ErrAllocated`;
`allocateNextService`: KEP-3070's upper part first from a random offset, then the lower `calculateRangeOffset`
addresses). The ServiceCIDRs and IPAddresses are read from their stores (upstream: the informers' caches).
"""
from __future__ import annotations

import ipaddress
import random
from typing import Any, Callable, Iterable, Iterator

from .status_validation import parse_ip_sloppy

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

ERR_FULL = "range is full"
ERR_ALLOCATED = "provided IP is already allocated"
ERR_MISMATCHED = "the provided network does not match the current range"
ERR_NOT_READY = "allocator not ready"


def range_offset(size: int) -> int:
    """`calculateRangeOffset` (ipallocator/bitmap.go): min(max(16, size/16), 256) of the CIDR's size, `RangeSize`;
    0 for a /28 or smaller (16 addresses, of which only 14 are allocatable)."""
    if size <= 16:
        return 0
    return min(max(16, size // 16), 256)


def is_ready(cidr: dict[str, Any]) -> bool:
    """`isReady`: the Ready condition's status, True when there is none (kube-controller-manager not running)."""
    for cond in (cidr.get("status") or {}).get("conditions") or []:
        if isinstance(cond, dict) and cond.get("type") == "Ready":
            return cond.get("status") == "True"
    return True


def _bounds(net: Network) -> tuple[int, int]:
    """The first and last allocatable addresses (as integers): not `.0`, and not the IPv4 broadcast address."""
    first = int(net.network_address) + 1
    last = int(net.broadcast_address) - (1 if net.version == 4 else 0)
    return first, last


class MetaAllocator:
    """The ranges of every ServiceCIDR of one family, `fallback` standing for the default one until the
    `kubernetes` ServiceCIDR is stored (kube-apiserver's bootstrap writes come first here)."""

    def __init__(self, service_cidrs: Callable[[], list[dict[str, Any]]], taken: Callable[[str], bool],
                 fallback: Callable[[], Network], default_name: str = "kubernetes"):
        self._service_cidrs = service_cidrs
        self._taken = taken
        self._fallback = fallback
        self._default_name = default_name
        self.rng = random.Random()

    def allocators(self) -> dict[Network, bool]:
        """`syncAllocators`: each CIDR of the cluster's family and whether it is ready (an OR over the
        ServiceCIDRs holding it)."""
        family = self._fallback().version
        out: dict[Network, bool] = {}
        cidrs = self._service_cidrs()
        if not any((c.get("metadata") or {}).get("name") == self._default_name for c in cidrs):
            out[self._fallback()] = True
        for c in cidrs:
            ready = is_ready(c) and not (c.get("metadata") or {}).get("deletionTimestamp")
            for text in (c.get("spec") or {}).get("cidrs") or []:
                try:
                    net = ipaddress.ip_network(text)
                except (TypeError, ValueError):
                    continue
                if net.version == family:
                    out[net] = out.get(net, False) or ready
        return out

    def check(self, ip: str, mine: Iterable[str] = ()) -> str | None:
        """`AllocateService`'s refusal of a requested IP (None: it may be reserved; `mine`: addresses the request
        holds already)."""
        addr = ipaddress.ip_address(ip)
        ready = [net for net, ok in self.allocators().items() if ok and addr in net]
        if not ready:
            return ERR_MISMATCHED
        net = self.rng.choice(ready)  # `getAllocator`: the first in Go's (random) map order
        first, last = _bounds(net)
        if not first <= int(addr) <= last:
            return f"the provided IP ({ip}) is not in the valid range. The range of valid IPs is {net}"
        if ip not in mine and self._taken(ip):
            return ERR_ALLOCATED
        return None

    def dry_run(self) -> tuple[Network, bool] | None:
        """`DryRun`: the first allocator in Go's (random) map order, ready or not (None: there is none)."""
        nets = list(self.allocators().items())
        return self.rng.choice(nets) if nets else None

    @staticmethod
    def dry_next(chosen: tuple[Network, bool] | None) -> str:
        """The dry-run allocator's `AllocateNext`: the range's network address, not a free one ("Don't bother
        finding a free value"); `ValueError` for an allocator not ready."""
        if chosen is None or not chosen[1]:
            raise ValueError(ERR_NOT_READY)
        return str(chosen[0].network_address)

    @staticmethod
    def dry_check(chosen: tuple[Network, bool] | None, ip: str) -> str | None:
        """The dry-run allocator's `Allocate`: readiness and that allocator's bounds only (an address taken
        already passes)."""
        if chosen is None or not chosen[1]:
            return ERR_NOT_READY
        net = chosen[0]
        first, last = _bounds(net)
        if not first <= int(ipaddress.ip_address(ip)) <= last:
            return f"the provided IP ({ip}) is not in the valid range. The range of valid IPs is {net}"
        return None

    def allocate_next(self, taken: Iterable[str] = ()) -> str:
        """`AllocateNextService`: a free address of a ready range (ranges in random order); `ValueError` when
        every one is full."""
        ip = next(self.walk(taken), None)
        if ip is None:
            raise ValueError(ERR_FULL)
        return ip

    def walk(self, taken: Iterable[str] = ()) -> Iterator[str]:
        """The free addresses `AllocateNextService` tries, in its order: the ready ranges in Go's (random) map
        order, in each `allocateNextService`'s upper part from a random offset, one address after the other
        (wrapping at its end), then the lower part likewise. Lazy: each address is checked when reached (the
        informer cache's `Get` in `allocateFromRange`), so a caller whose IPAddress create failed goes on with
        the next one, as 1.33's `allocateFromRange` does."""
        extra = set(taken)
        nets = [net for net, ok in self.allocators().items() if ok]
        self.rng.shuffle(nets)
        for net in nets:
            yield from self._walk_in(net, extra)

    def _walk_in(self, net: Network, extra: set[str]) -> Iterator[str]:
        """`allocateNextService` in one range: the upper part from a random offset, then the lower part."""
        first, last = _bounds(net)
        if last - first + 1 <= 0:
            return
        offset = range_offset(net.num_addresses)
        parts = [(first + offset, last)] + ([(first, first + offset - 1)] if offset else [])
        kind = ipaddress.ip_address
        for low, high in parts:
            span = high - low + 1
            if span <= 0:
                continue
            start = self.rng.randrange(span)
            for i in range(span):
                ip = str(kind(low + (start + i) % span))
                if ip not in extra and not self._taken(ip):
                    yield ip


def canonical_ip(text: str) -> str:
    """The address a ClusterIP names (`netutils.ParseIPSloppy`: `10.96.0.010` is 10.96.0.10, an IPv4-mapped
    address its IPv4 one), as its IPAddress object is named; the text itself when it is no address."""
    addr = parse_ip_sloppy(text)
    mapped = addr.ipv4_mapped if isinstance(addr, ipaddress.IPv6Address) else None
    return str(mapped if mapped is not None else addr) if addr is not None else text

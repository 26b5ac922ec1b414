"""What-if patches for `python -m benchmarks --prelude benchmarks.whatif:<name>`.

Each function monkeypatches the reference server *in the benchmark's server process only*, to measure a
proposed fix before anyone edits the server (experiments, not fixes; they go stale as the server changes).

The patches that were here (fast_copy, shallow_reads, share_event_objects, history_tail, deliver_on_loop,
encode_once, cache_wire_attr, all) prototyped fixes that are now in the server itself (see "Findings" in
benchmarks/README.md), so they were removed: applied to today's server they would re-install the old code.
`none` is kept as a no-op prelude (a baseline measured through the same code path).
"""
from __future__ import annotations


def none() -> None:
    """No patch."""

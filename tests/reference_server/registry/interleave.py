"""Two updates through one strategy, interleaved as two writing threads can interleave them (the etcd store's
offload threads, a rehearsal's thread beside the event loop): one held between `prepare_for_update` and
`canonicalize` while the other runs whole."""
from __future__ import annotations

import threading
from typing import Any

Update = tuple[dict[str, Any], dict[str, Any]]  # (new, old)


def interleaved(strategy: Any, held: Update, meanwhile: Update) -> tuple[int, int]:
    """The generations `meanwhile` and then `held` end with."""
    prepared, go_on = threading.Event(), threading.Event()
    seen: dict[str, int] = {}

    def other_thread() -> None:
        new, old = held
        strategy.prepare_for_update(new, old)
        prepared.set()
        assert go_on.wait(10)
        strategy.canonicalize(new)
        seen["held"] = new["metadata"]["generation"]

    t = threading.Thread(target=other_thread)
    t.start()
    assert prepared.wait(10)
    new, old = meanwhile
    strategy.prepare_for_update(new, old)
    strategy.canonicalize(new)
    go_on.set()
    t.join(10)
    return new["metadata"]["generation"], seen["held"]

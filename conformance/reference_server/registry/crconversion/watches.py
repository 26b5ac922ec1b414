"""What every CRD storage's watch cache does with the watches it serves, whether or not a webhook converts its
objects (`apiserver/pkg/storage/cacher/cacher.go`, `watch_cache.go`; `apiextensions-apiserver/pkg/apiserver/
customresource_handler.go`):
- each served version's storage is made by the first request for the CRD's resources
  (`getOrCreateServingInfoFor`), its cacher LISTing etcd at once: a watch from a resourceVersion before that
  LIST is `too old resource version: <rv> (<list rv>)` (`getAllEventsSinceLocked`: `resourceVersion <
  oldest-1`, oldest being `listResourceVersion+1` while nothing has left the cache's window), a 410 `Expired`
  sent as an ERROR event on a 200 stream (`cacher.Watch` returns `newErrWatcher(err)`); a LIST at that
  resourceVersion is not refused (the cache is fresher than asked: `waitUntilFreshAndBlock`, the current state);
- a change of the CRD's spec or accepted names, its deletion or a new uid removes the storage
  (`updateCustomResourceDefinition`, `removeDeadStorage`) and `tearDown` destroys it a second later (it waits
  for in-flight requests, of which a watch is not one): the cacher's `Stop` ends every watch it serves
  (`terminateAllWatchers`: the stream closes, no ERROR event), and the clients' re-watch meets the new storage.

A CRD with a conversion webhook keeps its conversions too (cache.py `VersionCache`); one without keeps only
this (`PlainCache`): its objects are storage's, as upstream's cache would hold them."""
from __future__ import annotations

import asyncio

from ...storage import TooOldResourceVersionError


class Attached:
    """One watch served by a cache: ended when the cache terminates its watchers."""

    __slots__ = ("ended", "generation", "queue")

    def __init__(self, queue: asyncio.Queue, generation: int):
        self.queue, self.generation = queue, generation
        self.ended = False  # terminated: nothing more is sent (no last BOOKMARK either)


class Watches:
    """A version's cacher as its watches see it: the LIST it began with and the watches it serves."""

    def __init__(self) -> None:
        self.stopped = False
        self.list_rv = 0  # the resourceVersion of the LIST that last filled it (`listResourceVersion`)
        self.attached: set[Attached] = set()
        self.generation = 0

    def _end_watches(self) -> None:
        """`terminateAllWatchers`: every watch of this cache ends (its queue closed: no event)."""
        self.generation += 1
        for att in self.attached:
            att.ended = True
            att.queue.put_nowait(None)
        self.attached.clear()

    def _terminate_all(self) -> None:
        self._end_watches()

    async def attach(self, queue: asyncio.Queue) -> Attached:
        """A new watch of this cache, `queue` its storage watch's (None put there ends it)."""
        att = Attached(queue, self.generation)
        self.attached.add(att)
        return att

    def detach(self, att: Attached) -> None:
        self.attached.discard(att)

    def too_old(self, resource_version: str) -> TooOldResourceVersionError | None:
        """`getAllEventsSinceLocked`: a watch from before the cache's LIST (its events were never in the cache's
        window) is `too old resource version: <rv> (<list rv>)`; "", "0" and what does not parse are not."""
        if not (resource_version.isascii() and resource_version.isdigit()):
            return None
        rv = int(resource_version)
        return TooOldResourceVersionError(rv, self.list_rv) if 0 < rv < self.list_rv else None

    def stop(self) -> None:
        self.stopped = True

    def retire(self) -> None:
        """A second after its CRD changed or went (`crdHandler.tearDown`: `DestroyFunc` stops the cacher, whose
        `terminateAllWatchers` ends every watch it serves): its watches end, then the cache."""
        if not self.stopped:
            self._terminate_all()
            self.stop()


class PlainCache(Watches):
    """The cacher of a served version of a CRD converted without a webhook: LISTed at `list_rv` (storage's
    resourceVersion when the request that made it came), ready at once; its watches read storage's events."""

    def __init__(self, list_rv: int):
        super().__init__()
        self.list_rv = list_rv

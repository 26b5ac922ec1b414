"""Custom resources served in every served version of their CRD, converted as kube-apiserver 1.33 converts them
(`staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/conversion/`: converter.go, nop_converter.go,
webhook_converter.go; `pkg/apiserver/customresource_handler.go`, which builds one storage per served version
whose codec encodes to the storage version and decodes to the request's).

- `converter.py`: a CRD's converter. Strategy `None` (nop_converter.go) rewrites `apiVersion` only; strategy
  `Webhook` asks the CRD's conversion webhook, which is network I/O: the registry is synchronous, so a conversion
  it has no answer for raises `ConversionPending` (before any write is made) and the HTTP layer
  (http/crconversion.py) awaits the webhook, remembers the answer for the request (`memo.py`) and runs the
  request again; an answer needed after a write was made is awaited on the way out instead (`Unconverted`).
- `webhook.py`: the webhook's call (registry/webhooktransport.py, the admission webhooks' client) for each
  object; `review.py`: the ConversionReview (v1 or v1beta1, the first of `conversionReviewVersions` this server
  speaks), the checks of the webhook's answer and `restoreObjectMeta`, with upstream's error texts.
- `views.py`: the served versions' stores; `strategy.py`: a version's own strategy (schema, defaults, rules)
  run on its objects, converted to the storage version last; `stored.py`: objects an older storage version
  wrote, converted from it by the storage version's store; `selection.py`: each version's own field labels, its
  LISTs', watches' and DeleteCollections' selectors judging the objects converted to it. The namespace deleter
  converts to each resource's preferred version as upstream's does (controller/crconversion.py).

`registry/versions.py`'s `VersionView` serves the other versions over the storage version's store, as it does
for HPAs; `registry/crd.py` installs one per served version that is not the storage version."""
from __future__ import annotations

from .converter import Converter, Unconverted
from .memo import ConversionPending

__all__ = ["ConversionPending", "Converter", "Unconverted"]

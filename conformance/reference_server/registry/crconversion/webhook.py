"""`webhookConverter.Convert` (webhook_converter.go) of the objects a `ConversionPending` names: one
ConversionReview per object (the storage decodes items one by one), posted by registry/webhooktransport.py (the
admission webhooks' client: a `url` with its `caBundle`, or a service reference resolved as theirs), the answer
checked (review.py) and remembered for the request (memo.py).

A failed conversion is an error that is not an API status where a request meets it (`ErrorToAPIStatus`): 500,
no reason, the converter's message (`conversion webhook for <group>/<version>, Kind=<kind> failed: ...`)."""
from __future__ import annotations

import asyncio
import time
from typing import Any, Callable

from ... import apierrors as E
from ...wire import gomaps
from .. import webhooktransport
from . import memo, review
from .converter import Converter

GetService = Callable[[str, str], "dict[str, Any] | None"]
CALL_FAILURE = "conversion_webhook_call_failure"


def failed(message: str) -> E.StatusError:
    """A non-status error as `ErrorToAPIStatus` answers it."""
    return E.StatusError(E.status_dict(500, None, message))


async def convert(converter: Converter, obj: dict[str, Any], desired: str, get_service: GetService) -> dict[str, Any]:
    """One object converted to `desired` by the CRD's webhook, or a `StatusError`; the call is reported to
    `converter.observe` (metrics/conversion.py) with upstream's failure type."""
    version = review.review_version(converter.review_versions)
    if version is None:
        raise failed("no supported conversion review versions")
    sent = review.request(version, [obj], desired)
    prefix = f"conversion webhook for {review.gvk(str(obj.get('apiVersion') or ''), str(obj.get('kind') or ''))}"
    started, failure = time.perf_counter(), CALL_FAILURE
    try:
        body = await webhooktransport.post(converter.hook(), sent, get_service)
        failure = "conversion_webhook_malformed_response_failure"
        objects = review.converted_objects(sent, body)
        if len(objects) != 1:
            failure = "conversion_webhook_partial_response_failure"
            raise failed(f"{prefix} returned {len(objects)} objects, expected 1")
        failure = "conversion_webhook_invalid_converted_object_failure"
        try:
            out = review.check_converted(obj, objects[0], desired)
        except review.ConversionError as exc:
            raise failed(str(exc)) from None
        failure = ""
        return gomaps.sort_unstructured(out)  # kept as upstream's unstructured object writes it: keys sorted
    except (webhooktransport.PostError, review.ConversionError) as exc:
        raise failed(f"{prefix} failed: {exc}") from None
    finally:
        if converter.observe is not None:
            converter.observe(converter.crd_name, _version(obj.get("apiVersion")), _version(desired),
                              time.perf_counter() - started, failure)


def _version(api_version: Any) -> str:
    return str(api_version or "").rpartition("/")[2]


ATTEMPTS = 8  # a conversion that keeps asking again (a webhook answering differently each time) gives up
UNSETTLED = "conversion did not settle: the conversion webhook answered differently each time"


async def presented(present: Callable[[Any], Any], obj: dict[str, Any], get_service: GetService) -> Any:
    """`present(obj)` (a version's decoding of a stored object) with the webhook's answers it asks for, in a memo
    of its own (one watch event's decoding); a failed conversion is the `StatusError` `failed` makes."""
    token = memo.start()
    try:
        for _ in range(ATTEMPTS):
            try:
                return present(obj)
            except memo.ConversionPending as pending:
                await resolve(pending, get_service)
        raise failed(UNSETTLED)
    finally:
        memo.MEMO.reset(token)


async def resolve(pending: memo.ConversionPending, get_service: GetService) -> None:
    """Ask the webhook for every object `pending` names (at once) and remember the answers for the request."""
    answers = await asyncio.gather(*(convert(pending.converter, o, pending.api_version, get_service)
                                     for o in pending.objects), return_exceptions=True)
    for obj, answer in zip(pending.objects, answers):
        if isinstance(answer, BaseException):
            if not pending.tag.startswith(memo.QUIET):
                raise answer
            answer = {}  # (`UpdateNoErrors`: the field manager's failed conversion is dropped: patched.py)
        memo.remember(obj, pending.api_version, answer, pending.tag)

"""Dynamic admission webhooks (`staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/`): the
MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins over the stored
Mutating/ValidatingWebhookConfigurations (registry/admissionregistration.py).

The registry's admission hooks are synchronous and run inside the store's write; a webhook call is network I/O, so
admission/admitted.py awaits this room around the write instead, for API requests (http/webhookcalls.py) and the
controllers' own writes alike (the event loop never waits on a webhook):

- mutating webhooks, in configuration-name order, one after the other, on the decoded and defaulted object; an
  allowed answer's `JSONPatch` is applied; `reinvocationPolicy: IfNeeded` reinvokes a webhook once when a later
  one changed the object; as upstream (`pkg/kubeapiserver/options/plugins.go`), the built-in mutating plugins
  run first (http/webhookcalls.py runs them on the candidate; the store runs them again on the result, as
  upstream's reinvocation does: they are idempotent);
- validating webhooks, all at once, on the object as it would be stored: the write is first run as a dry run
  (built-in admission, preparation and validation, so a 422 still comes before any webhook), then the
  webhooks judge that object, then the write is made.

An answer `allowed: false` is upstream's `ToStatusErr` (the webhook's status, at least 400, message prefixed with
`admission webhook "<name>" denied the request`); a failed call is skipped under `failurePolicy: Ignore` and is a
500 `InternalError` under `Fail`. `matchConditions` are evaluated (below).
Matching (rules, scope, selectors) is `matching.py`, the review and errors `review.py`, the call
`client.py`. Operations: CREATE, UPDATE (PUT, every PATCH type, server-side apply) and DELETE (each item of a
DELETE collection), on objects and on subresources (`pods/status`, `deployments/scale` with the Scale, ...):
admission/admitted.py builds the attributes. `relevant` is the synchronous upper bound (rules, scope, selectors,
policies' constraints) a controller's write checks before anything is awaited.

A webhook's `matchConditions` (CEL, admission/matchconditions.py) are evaluated just before it would be called
(`generic/webhook.go` `ShouldCallHook`): one false skips it; an evaluation error skips it under `failurePolicy:
Ignore` and refuses the request under `Fail` (403 Forbidden, `<resource> "<name>" is forbidden: expression '<e>'
resulted in error: <err>`). The ValidatingAdmissionPolicy plugin (admission/policy/), when given, runs in
`validate` before the validating webhooks, on the same previewed object.
"""
from __future__ import annotations

import asyncio
import base64
import copy
import dataclasses
import time
from typing import Any, Awaitable, Callable

from ... import apierrors as E
from ...goport import gojsonlazy, gojsonnum, gojsonraw
from ...registry import Registry
from ...registry.crconversion import webhook as crwebhook
from ...registry.crd import CRD_KEY
from ...registry.webhooktransport import service_lookup
from ...wire import gotypes, legacyscheme, patchedgvk
from ...wire.textdecode import loads_json
from .. import chain
from . import client, crversioned, otherkind, patchread, review
from .latency import tracking as webhook_time
from .matching import Attributes, matching, rule_matching, selectors_match

VALIDATING, MUTATING = "validatingwebhookconfigurations", "mutatingwebhookconfigurations"
JsonPatch = Callable[[Any, Any, bytes | None], Any]


class WebhookAdmission:
    """The two webhook plugins; `json_patch(doc, ops)` applies a webhook's patch (RFC 6902)."""

    def __init__(self, registry: Registry, json_patch: JsonPatch, policies: Any = None, authorizer: Any = None):
        self.registry = registry
        self.json_patch = json_patch
        self.policies = policies  # admission/policy/ PolicyAdmission, run first in `validate`
        self.authorizer = authorizer  # what matchConditions' `authorizer` checks ask (None: AlwaysAllow)

    # ---- lookups -----------------------------------------------------------------------------------
    def _configurations(self, plural: str) -> list[dict[str, Any]]:
        return self.registry.store.list(plural, None, shared=True)[0]

    def _namespace_labels(self, name: str) -> dict[str, Any] | None:
        try:
            ns = self.registry.store.get("namespaces", "", name, shared=True)
        except Exception:  # noqa: BLE001 - a missing namespace has no labels (lifecycle refused it already)
            return None
        return (ns.get("metadata") or {}).get("labels") or {}

    def service(self, namespace: str, name: str) -> dict[str, Any] | None:
        """The Service a webhook's `service` reference names (None: none)."""
        return service_lookup(self.registry)(namespace, name)

    def active(self) -> bool:
        """Any configuration stored at all (the fast path of every write skips this room otherwise)."""
        count = self.registry.store.count
        return bool(count(VALIDATING, None) or count(MUTATING, None)
                    or (self.policies is not None and self.policies.active()))

    def relevant(self, a: Attributes, obj: dict[str, Any] | None, old: dict[str, Any] | None) -> bool:
        """Whether any webhook's rules and selectors, or any bound policy's constraints, select the request
        (matchConditions not evaluated): a write none selects is admitted as it is, without awaiting anything."""
        return bool(matching(self._configurations(MUTATING), a, obj, old, self._namespace_labels)
                    or matching(self._configurations(VALIDATING), a, obj, old, self._namespace_labels)
                    or (self.policies is not None and self.policies.active() and self.policies.relevant(a, obj, old)))

    def _selected(self, hook: dict[str, Any], a: Attributes, obj: Any, old: Any) -> bool:
        """`ShouldCallHook`'s namespace and object selectors, on the object as the earlier webhooks patched it."""
        return selectors_match(hook, a, obj, old, self._namespace_labels)

    def _conditions_hold(self, hook: dict[str, Any], a: Attributes, obj: Any, old: Any, user: Any, dry_run: bool,
                         options: dict[str, Any] | None) -> bool:
        """`ShouldCallHook`'s matchConditions step."""
        conditions = hook.get("matchConditions")
        if not conditions:
            return True
        from .. import matchconditions  # CEL loads with the first webhook that has conditions
        request = matchconditions.admission_request(a, user, dry_run, options)
        activation = {"object": obj, "oldObject": old, "namespaceObject": None, "request": request,
                      "authorizer": matchconditions.authorizer(request)}
        with matchconditions.authorizing(self.authorizer):
            result = matchconditions.match(conditions, activation, hook.get("failurePolicy"))
        if result.error:
            raise E.forbidden(a.resource, a.name, result.error, a.group)
        return result.matches

    # ---- the two phases ----------------------------------------------------------------------------
    async def _call(self, hook: dict[str, Any], a: Attributes, obj: Any, old: Any, user: Any, dry_run: bool,
                    options: dict[str, Any] | None, mutating: bool = False) -> dict[str, Any] | None:
        """One call; the response, or None when a failed call is ignored (`failurePolicy: Ignore`)."""
        sent = review.request(a, obj, old, user, dry_run, options)
        name, started = str(hook.get("name")), time.perf_counter()
        observe = getattr(getattr(self.registry, "admission_metrics", None), "observe_webhook", None)
        try:
            resp = review.response(name, sent, await client.call(hook, sent, self.service), mutating=mutating)
        except review.CallError as exc:
            ignore = hook.get("failurePolicy") == "Ignore"
            if observe is not None:  # metrics/admission.py, as the dispatchers record a failed call
                observe(name, mutating, a.operation, time.perf_counter() - started, exc.code,
                        "" if ignore else "calling_webhook_error", ignore)
            if ignore:
                return None
            raise review.internal(exc) from None
        if observe is not None:
            allowed = resp.get("allowed")
            observe(name, mutating, a.operation, time.perf_counter() - started,
                    200 if allowed else review.denied(name, resp.get("status")).code, "" if allowed else "no_error")
        return resp

    async def mutate(self, a: Attributes, obj: dict[str, Any] | None, old: dict[str, Any] | None, user: Any,
                     dry_run: bool, options: dict[str, Any] | None, warnings: list[str],
                     builtin: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any] | None:
        """MutatingAdmissionWebhook, its time and refusal noted for the request's admission metrics."""
        start, refused = time.perf_counter(), True
        try:
            obj = await self._mutate(a, obj, old, user, dry_run, options, warnings, builtin)
            refused = False
            return obj
        finally:
            chain.note("MutatingAdmissionWebhook", chain.ADMIT, time.perf_counter() - start, refused)

    async def _mutate(self, a: Attributes, obj: dict[str, Any] | None, old: dict[str, Any] | None, user: Any,
                      dry_run: bool, options: dict[str, Any] | None, warnings: list[str],
                      builtin: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any] | None:
        """MutatingAdmissionWebhook: `obj` after every matching webhook's patch (the same object when none
        matched). `reinvocationPolicy: IfNeeded` as `reinvocationcontext.go`: when a webhook changes the object,
        every earlier IfNeeded webhook is called once more (a second round, in order); before that round the
        built-in mutating plugins (`builtin`) run again, and a change they make requires the same."""
        configurations = self._configurations(MUTATING)
        if not matching(configurations, a, obj, old, self._namespace_labels):
            return obj
        hooks = rule_matching(configurations, a)  # (each one's selectors judged on the object as patched so far)
        if not crversioned.custom(obj, a):
            return await self._mutate_hooks(hooks, a, obj, old, user, dry_run, options, warnings, builtin)
        original, dirty = obj, [False]  # a custom resource: converted to the webhooks' version and back
        if crversioned.foreign(obj, a):  # (a patched one naming another version or kind)
            obj = crversioned.versioned(obj, a, self._crd(a))  # type: ignore[arg-type]
            try:
                converted = await self._cr_converted(a, original, obj["apiVersion"])  # type: ignore[arg-type]
            except E.StatusError as exc:  # (`VersionedAttribute`'s internal error, the dispatcher's around it)
                raise E.internal(f"Internal error occurred: {exc.status.get('message', '')}") from None
            obj = obj if converted is None else {**converted, "kind": a.kind}
        out = await self._mutate_hooks(hooks, a, obj, old, user, dry_run, options, warnings, builtin, dirty)
        back = crversioned.back(out, original, dirty[0], self._crd(a) if dirty[0] else None)  # type: ignore[arg-type]
        if back is not original and out is not None:  # (the converter's error returned bare)
            converted = await self._cr_converted(a, out, str(original.get("apiVersion")))  # type: ignore[union-attr]
            return back if converted is None else converted
        return back

    async def _cr_converted(self, a: Attributes, obj: dict[str, Any], desired: str) -> dict[str, Any] | None:
        """`obj` converted to `desired` by its CRD's conversion webhook (registry/crconversion/webhook.py, its
        error the converter's); None where the CRD converts by `apiVersion` alone or there is nothing to convert."""
        store = self.registry.custom.lookup(a.group, a.resource.partition("/")[0], a.version)
        converter = getattr(store, "converter", None)
        if converter is None or not converter.webhook or obj.get("apiVersion") == desired:
            return None
        return await crwebhook.convert(converter, obj, desired, self.service)

    def _crd(self, a: Attributes) -> dict[str, Any] | None:
        try:
            return self.registry.store.get(CRD_KEY, "", f"{a.resource.partition('/')[0]}.{a.group}", shared=True)
        except Exception:  # noqa: BLE001 - gone since the request was routed: no version is the CRD's
            return None

    async def _mutate_hooks(self, hooks: list[dict[str, Any]], a: Attributes, obj: dict[str, Any] | None,
                            old: dict[str, Any] | None, user: Any, dry_run: bool, options: dict[str, Any] | None,
                            warnings: list[str], builtin: Callable[[dict[str, Any]], None] | None = None,
                            dirty: list[bool] | None = None) -> dict[str, Any] | None:
        """`_mutate`'s rounds over the matching `hooks`; `dirty[0]` is set when a patch was applied."""
        dirty = dirty if dirty is not None else [False]
        invoked: set[int] = set()    # previously invoked IfNeeded webhooks
        reinvoke: set[int] = set()   # those the second round calls
        should_reinvoke = False
        start = otherkind.kind_of(obj)  # (the kind a webhook's patch may have changed)
        for i, hook in enumerate(hooks):
            if not self._selected(hook, a, obj, old) or not self._conditions_hold(hook, a, obj, old, user, dry_run,
                                                                                   options):
                continue
            obj, changed = await self._mutate_one(hook, a, obj, old, user, dry_run, options, warnings, dirty)
            if changed:
                reinvoke |= invoked
                invoked = set()
                should_reinvoke = True
            if hook.get("reinvocationPolicy") == "IfNeeded":
                invoked.add(i)
        otherkind.refuse_unconverted(obj, start, _versioned_kind(a))  # (`Dispatch`'s end: before reinvocation)
        if not should_reinvoke or obj is None:
            return obj
        if builtin is not None:  # the in-tree plugins' reinvocation (admission/reinvocation.go)
            again = copy.deepcopy(obj)
            builtin(again)
            if again != obj:
                reinvoke |= invoked
                obj = again
        for i, hook in enumerate(hooks):
            if i in reinvoke and self._selected(hook, a, obj, old) \
                    and self._conditions_hold(hook, a, obj, old, user, dry_run, options):
                obj, _ = await self._mutate_one(hook, a, obj, old, user, dry_run, options, warnings, dirty)
        otherkind.refuse_unconverted(obj, start, _versioned_kind(a))
        return obj

    async def _mutate_one(self, hook: dict[str, Any], a: Attributes, obj: dict[str, Any] | None,
                          old: dict[str, Any] | None, user: Any, dry_run: bool, options: dict[str, Any] | None,
                          warnings: list[str], dirty: list[bool] | None = None) -> tuple[dict[str, Any] | None, bool]:
        """One mutating call: (the object after its patch, whether the patch changed it); `dirty[0]` set when a
        patch of at least one operation was applied (`callAttrMutatingHook`'s `attr.Dirty`, changed or not)."""
        resp = await self._call(hook, a, obj, old, user, dry_run, options, mutating=True)
        if resp is None:
            return obj, False
        warnings += [w for w in resp.get("warnings") or [] if isinstance(w, str)]
        if not resp.get("allowed"):
            raise review.denied(str(hook.get("name")), resp.get("status"))
        if not resp.get("patch"):
            return obj, False
        if obj is None:
            raise review.internal(ValueError(f'admission webhook "{hook.get("name")}" attempted to modify the '
                                             "object, which is not supported for this operation"))
        out = self._patched(obj, resp, a.custom, _versioned_kind(a))
        if dirty is not None and not dirty[0]:
            try:
                dirty[0] = bool(loads_json(base64.b64decode(resp["patch"])))  # (`len(patchObj) == 0`: not applied)
            except (ValueError, TypeError, E.StatusError):
                dirty[0] = True
        return out

    def _patched(self, obj: dict[str, Any], resp: dict[str, Any], custom: bool,
                 into: tuple[str, str, str] | None = None) -> tuple[dict[str, Any], bool]:
        """The patch applied to the object's JSON as the review encodes it (the dispatcher's `patchObj.Apply(objJS)`),
        read back as held here, and whether it changed the object (patchread.py). `into`: a built-in kind's
        versioned kind (`attr.VersionedKind`, `_versioned_kind`), whose version and kind the patched JSON's meet."""
        if resp.get("patchType") != "JSONPatch":
            raise review.internal(ValueError(f'unsupported patch type "{resp.get("patchType", "")}"'))
        try:
            text = base64.b64decode(resp["patch"])
            ops = loads_json(text)  # numbers as Go reads the patched bytes
        except (ValueError, TypeError) as exc:
            raise review.internal(exc) from None
        sent = review.encoded(obj, custom)  # (a `RawExtension` as `MarshalJSON` writes it: its bytes, or `null`)
        raws = _raw_state(sent)  # evanphx's bytes of the `RawExtension`s the patch leaves or brings
        base = patchread.go_read(sent) if custom else sent  # (a custom resource's numbers as util/json reads them)
        try:
            patched = gotypes.keep_raw_literals(self.json_patch(copy.deepcopy(base), ops, text))
            if raws:
                gojsonraw.repatched(patched, raws, text.decode("utf-8", "replace"), merge=False)
        except E.StatusError as exc:  # (`Apply`'s error in evanphx's words: http/patch.py `PatchApplyError`)
            raise review.internal(ValueError(getattr(exc, "text", exc.status.get("message", "")))) from None
        if isinstance(patched, dict):  # `jsonSerializer.Decode(patchedJS, ...)`: its version and kind read first
            why = patchedgvk.decode_error(patched, custom, lambda: _patched_bytes(obj, text, custom, patched))
            if why is None and into is not None:  # `Decode(patchedJS, nil, newVersionedObject)`
                found = patchedgvk.read(patched, into)
                why = None if found.unconverted else \
                    patchedgvk.scheme_error(found, lambda: _patched_bytes(obj, text, custom, patched))
            if why is not None:
                raise review.internal(ValueError(why))
        if into is not None and isinstance(patched, dict):  # (decoded into the Go type the patched JSON names)
            patchread.check_decode(patched)
        new = patchread.held(patched, base, obj, custom, raws.fields if raws else ())  # (another kind: otherkind.py)
        changed = patchread.changed(new, sent, custom)  # (the decoded object is kept, changed or not)
        if into is not None and isinstance(new, dict):  # then `o.GetObjectDefaulter().Default(attr.VersionedObject)`
            otherkind.default(new, self.registry)
        return new, changed

    async def validate(self, a: Attributes, obj: dict[str, Any] | None, old: dict[str, Any] | None, user: Any,
                       dry_run: bool, options: dict[str, Any] | None, warnings: list[str],
                       preview: Callable[[], Awaitable[dict[str, Any] | None]] | None = None) -> None:
        """ValidatingAdmissionWebhook: every matching webhook at once; the first refusal (in webhook order)
        wins. `preview()` gives the object as it would be stored (asked only when a webhook matches)."""
        hooks = matching(self._configurations(VALIDATING), a, obj, old, self._namespace_labels)
        policies = self.policies is not None and self.policies.active()
        if not hooks and not policies:
            return
        if preview is not None:
            obj = await preview()
            if not a.name and isinstance(obj, dict):  # `AdmissionToValidateObjectFunc`: "in case the generated
                name = (obj.get("metadata") or {}).get("name")  # name is populated"
                a = dataclasses.replace(a, name=name) if isinstance(name, str) and name else a
        if policies:
            start, refused = time.perf_counter(), True
            try:
                await self.policies.validate_off_loop(a, obj, old, user, dry_run, options, warnings)
                refused = False
            finally:
                chain.note("ValidatingAdmissionPolicy", chain.VALIDATE, time.perf_counter() - start, refused)
        start, refused = time.perf_counter(), True
        try:
            await self._validate_webhooks(hooks, a, obj, old, user, dry_run, options, warnings)
            refused = False
        finally:
            chain.note("ValidatingAdmissionWebhook", chain.VALIDATE, time.perf_counter() - start, refused)

    async def _validate_webhooks(self, hooks: list[dict[str, Any]], a: Attributes, obj: dict[str, Any] | None,
                                 old: dict[str, Any] | None, user: Any, dry_run: bool,
                                 options: dict[str, Any] | None, warnings: list[str]) -> None:
        hooks = [h for h in hooks if self._conditions_hold(h, a, obj, old, user, dry_run, options)]
        if hooks:
            webhook_time()  # the request's webhook time (latency.py), shared with the parallel calls' tasks
        answers = await asyncio.gather(*(self._call(h, a, obj, old, user, dry_run, options) for h in hooks),
                                       return_exceptions=True)
        for hook, resp in zip(hooks, answers):
            if isinstance(resp, BaseException):
                raise resp
            if resp is None:
                continue
            warnings += [w for w in resp.get("warnings") or [] if isinstance(w, str)]
            if not resp.get("allowed"):
                raise review.denied(str(hook.get("name")), resp.get("status"))


def _versioned_kind(a: Attributes) -> tuple[str, str, str] | None:
    """`attr.VersionedKind` of a built-in kind (kube-apiserver's scheme: wire/legacyscheme.py), which the
    dispatcher's `newVersionedObject` is; None for a custom resource, a CRD, an APIService (other schemes)."""
    group, version = a.kind_gv or (a.group, a.version)
    return (group, version, a.kind) if not a.custom and a.kind and legacyscheme.holds(group) else None


def _patched_bytes(obj: dict[str, Any], patch: bytes, custom: bool, patched: dict[str, Any]) -> str:
    """The bytes the dispatcher's `patchObj.Apply(objJS)` returns: the patch applied by evanphx/json-patch v4.12.0
    to `runtime.Encode(jsonSerializer, attr.VersionedObject)`, the object as the review encodes it (a custom
    resource's map sorted at every level, review.py `encoded`); `patched` written where that model stops."""
    try:
        return gojsonlazy.apply_patch(gojsonnum.encode(review.encoded(obj, custom)), patch.decode("utf-8", "replace"))
    except (gojsonlazy.PatchFailed, gojsonlazy.Unfollowed):
        return gojsonnum.encode(patched)


def _raw_state(obj: dict[str, Any]) -> gojsonraw.PatchBase | None:
    """`gojsonraw.before_patch` of an object whose kind has `RawExtension` fields, else None."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    fields = gotypes.raw_fields(api_version, kind)
    return gojsonraw.before_patch(obj, fields) if fields else None


def attributes(operation: str, store: Any, namespace: str, name: str, subresource: str = "",
               kind: tuple[str, str, str] | None = None) -> Attributes:
    """`kind` (group, version, kind): a subresource's own kind (`deployments/scale`: autoscaling/v1 Scale). A
    resource served from a CRD is `custom` unless a subresource names its own (typed) kind: its objects are
    unstructured maps (`crdHandler`), a CR's `/scale` an autoscaling/v1 Scale (`scale.go` `ScaleREST`)."""
    info = store.info
    group, version = getattr(store, "group", ""), getattr(store, "version", "v1")
    kind_group, kind_version, kind_name = kind or (group, version, info.kind)
    return Attributes(operation, group, version, info.plural,
                      subresource, namespace if info.namespaced or info.plural == "namespaces" else "", name,
                      kind_name, (kind_group, kind_version) if kind else None,
                      custom=kind is None and bool(getattr(store, "crd_name", None)))


__all__ = ["Attributes", "WebhookAdmission", "attributes"]

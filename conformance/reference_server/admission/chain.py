"""Upstream's named admission chain, as kube-apiserver 1.33 runs it by default, and the trace of one request's pass
through our plugins that its step and controller metrics are recorded from (metrics/admission_chain.py).

Follows `pkg/kubeapiserver/options/plugins.go` (v1.33: `AllOrderedPlugins` less `DefaultOffAdmissionPlugins`),
`staging/src/k8s.io/apiserver/pkg/admission/chain.go` (a plugin is run, and so recorded, only when it
`Handles(operation)`; the chain stops at the first error) and `admission/metrics/metrics.go`
(`pluginHandlerWithMetrics`: a mutating plugin is recorded as `admit` in the mutating phase, a validating one as
`validate` in the validating phase, a plugin that is both twice). Each plugin's interfaces and handled operations
are its own file's (`admission.NewHandler(...)`, `Admit`/`Validate` methods): e.g. NamespaceLifecycle is a
mutating plugin handling CREATE, UPDATE and DELETE (`plugin/namespace/lifecycle/admission.go`); the feature-gated
PodTopologyLabels and MutatingAdmissionPolicy are in the chain and handle their operations even while their
gates are off (their `Admit` returns at once).

Our plugins are closures inside the store's write, not this chain: each one that has work of upstream's plugin
of the same name runs under `timed(name, type, step)`, which notes its time and a refusal into the request's
`Trace` (a context variable the HTTP layer sets around a write; nothing is noted without one, e.g. for the
controllers' own writes). The webhooks' and policies' phases are noted by admission/webhooks/.
"""
from __future__ import annotations

from contextvars import ContextVar
from time import perf_counter
from typing import Any, Callable, TypeVar

from ..apierrors import StatusError

ADMIT, VALIDATE = "admit", "validate"
CREATE, UPDATE, DELETE, CONNECT = "CREATE", "UPDATE", "DELETE", "CONNECT"
_C, _U, _D, _X = frozenset({CREATE}), frozenset({UPDATE}), frozenset({DELETE}), frozenset({CONNECT})
_CU = _C | _U
_ALL = _C | _U | _D | _X

# (name, mutating?, validating?, operations it Handles), in AllOrderedPlugins' order, default-on plugins only
PLUGINS: tuple[tuple[str, bool, bool, frozenset[str]], ...] = (
    ("NamespaceLifecycle", True, False, _CU | _D),
    ("LimitRanger", True, True, _CU),
    ("ServiceAccount", True, True, _C),
    ("TaintNodesByCondition", True, False, _C),
    ("PodSecurity", False, True, _CU),
    ("Priority", True, True, _CU | _D),
    ("DefaultTolerationSeconds", True, False, _CU),
    ("DefaultStorageClass", True, False, _C),
    ("StorageObjectInUseProtection", True, False, _C),
    ("PersistentVolumeClaimResize", False, True, _U),
    ("RuntimeClass", True, True, _C),
    ("CertificateApproval", False, True, _U),
    ("CertificateSigning", False, True, _U),
    ("ClusterTrustBundleAttest", False, True, _CU),
    ("CertificateSubjectRestriction", False, True, _C),
    ("DefaultIngressClass", True, False, _C),
    ("PodTopologyLabels", True, False, _C),
    ("MutatingAdmissionPolicy", True, False, _ALL),
    ("MutatingAdmissionWebhook", True, False, _ALL),
    ("ValidatingAdmissionPolicy", False, True, _ALL),
    ("ValidatingAdmissionWebhook", False, True, _ALL),
    ("ResourceQuota", False, True, _CU),
)


def phase(operation: str, step_type: str) -> tuple[tuple[str, str], ...]:
    """The (name, type) pairs the `admit` or `validate` phase of an `operation` records, in order."""
    mutating = step_type == ADMIT
    return tuple((name, step_type) for name, mut, val, ops in PLUGINS
                 if operation in ops and (mut if mutating else val))


class Trace:
    """One request's pass through admission: each plugin's measured seconds by (name, type), the plugin that
    refused it (the first refusal noted), and how many items a delete-collection's validation went through."""
    __slots__ = ("seconds", "rejected", "items")

    def __init__(self) -> None:
        self.seconds: dict[tuple[str, str], float] = {}
        self.rejected: tuple[str, str] | None = None
        self.items = -1

    def refused(self, key: tuple[str, str]) -> None:
        if self.rejected is None:
            self.rejected = key


TRACE: ContextVar[Trace | None] = ContextVar("nsconform_admission_trace", default=None)
_current = TRACE.get
F = TypeVar("F", bound=Callable[..., Any])


def timed(name: str, step_type: str, step: F) -> F:
    """`step` (a plugin's work for one write) noting its time, and its refusal, into the request's trace."""
    key = (name, step_type)

    def run(*args: Any) -> Any:
        trace = _current()
        if trace is None:
            return step(*args)
        start = perf_counter()
        try:
            return step(*args)
        except StatusError:
            trace.refused(key)
            raise
        finally:
            trace.seconds[key] = perf_counter() - start
    return run  # type: ignore[return-value]


def note(name: str, step_type: str, seconds: float, refused: bool = False) -> None:
    """A phase measured by its caller (the webhooks' and policies', which are awaited)."""
    trace = _current()
    if trace is None:
        return
    key = (name, step_type)
    trace.seconds[key] = trace.seconds.get(key, 0.0) + seconds
    if refused:
        trace.refused(key)


def note_items(count: int) -> None:
    """A delete-collection's items: each one's deletion is validated (upstream's `DeleteCollection`)."""
    trace = _current()
    if trace is not None:
        trace.items = count


__all__ = ["ADMIT", "PLUGINS", "TRACE", "Trace", "VALIDATE", "note", "note_items", "phase", "timed"]

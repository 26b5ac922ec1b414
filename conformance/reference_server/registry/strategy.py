"""The strategy interface (upstream `rest.RESTCreateStrategy`/`RESTUpdateStrategy`) and the generic one."""
from __future__ import annotations

import base64
import threading
from typing import Any

from ..apierrors import FieldError
from ..goport.gobase64 import canonical_std
from .kinds import ResourceInfo
from .validation import validate_object_meta, validate_object_meta_update


class PerThread:
    """A strategy attribute kept per thread: state between two steps of one write (`prepare_for_update` and
    `canonicalize`), which a write's rehearsal (registry/rehearsed.py) runs in its own thread while the loop may
    write through the same strategy. None until set."""

    def __init__(self) -> None:
        self._local = threading.local()

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        return getattr(self._local, str(id(obj)), None)

    def __set__(self, obj: Any, value: Any) -> None:
        setattr(self._local, str(id(obj)), value)


def apply_v1_defaults(kind: str, obj: dict[str, Any]) -> None:
    """The `pkg/apis/core/v1/defaults.go` defaults of the free-form content kinds that clients rely on (upstream
    applies them when decoding a create/update/patch body): `SetDefaults_Secret` ⇒ an empty `type` is `Opaque`."""
    if kind == "Secret" and not obj.get("type"):
        obj["type"] = "Opaque"
    if kind in ("Secret", "ConfigMap"):
        _canonical_bytes(obj, "data" if kind == "Secret" else "binaryData")
    if kind == "Secret" and isinstance(obj.get("stringData"), dict):
        # `Convert_v1_Secret_To_core_Secret`: write-only stringData is merged into data (and wins), never stored
        data = obj.get("data") if isinstance(obj.get("data"), dict) else {}
        for k, v in obj.pop("stringData").items():
            if isinstance(v, str):
                data[k] = base64.b64encode(v.encode()).decode()
        obj["data"] = data


def _canonical_bytes(obj: dict[str, Any], field: str) -> None:
    """A `map[string][]byte` is decoded into Go bytes and encoded again (`encoding/json`), so what is stored and
    answered is canonical base64 whatever line breaks the client's text had (the decoder already refused any
    value that is not base64)."""
    values = obj.get(field)
    if not isinstance(values, dict):
        return
    for k, v in values.items():
        if isinstance(v, str):
            values[k] = canonical_std(v)


class Strategy:
    """Generic namespaced strategy: metadata validation only; spec/status are free-form."""

    subresource = ""
    kube_finalizers = True  # core's finalizer-name rule (validate_object_meta); False for generic-meta kinds
    # `AllowUnconditionalUpdate`: an update without `metadata.resourceVersion` is made on the stored one (every
    # built-in kind's strategy); False: refused (store.go `Update`: CRDs, custom resources, APIServices)
    allow_unconditional_update = True

    def __init__(self, info: ResourceInfo):
        self.info = info

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        """Decode-time defaulting (`pkg/apis/core/v1/defaults.go`), run first: before admission, preparation
        and validation, so validation judges the defaulted object as kube-apiserver's does."""
        apply_v1_defaults(self.info.kind, obj)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        pass

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_object_meta(obj.get("metadata", {}), namespaced=self.info.namespaced,
                                    name_rule=self.info.name_rule, kube_finalizers=self.kube_finalizers)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        """`WarningsOnCreate`: what a valid create is warned of (`rest.BeforeCreate` adds each to the answer)."""
        return []

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        """`WarningsOnUpdate`, asked once the update is valid and canonical (the generation it moves to is known,
        which the workloads' strategies compare)."""
        return []

    def canonicalize(self, obj: dict[str, Any]) -> None:
        pass

    def canonicalize_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        """An update's `canonicalize`, given its stored object (`old`): what a strategy that compares the two
        after the store restored the stored system metadata (a generation bump) overrides, so that nothing of one
        write is kept on the shared strategy for a later step (the etcd store computes updates in several threads
        at once: storage/offload.py)."""
        self.canonicalize(new)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        pass

    def update_checks(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """The errors of `validate_update` that its update's own checks make (immutable fields), not `ValidateX`:
        asked only of a refused update whose `update_meta_calls` place them (`C`, registry/updatemeta.py)."""
        return []

    def strategy_checks(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """The errors of `validate_update` that the strategy's `ValidateUpdate` adds between its calls of the
        kind's validation (`S`, registry/updatemeta.py: a PersistentVolume's mount-option annotation)."""
        return []

    @property
    def update_meta_calls(self) -> str:
        """The metadata calls this update's `ValidateXUpdate` makes, in order (registry/updatemeta.py): `U` a
        `ValidateObjectMetaUpdate`, `M` a `ValidateObjectMeta` of the new object, `-` none; `C` and `V` where the
        update's own checks and the rest of the kind's come between them. The kind's data
        (`ResourceInfo.update_meta_calls`, else `UM` for a kind marked `update_validates_meta`, `U` otherwise); a
        `/status` write's its status strategy's (`status_meta_calls`, else `UM` where marked
        `status_validates_meta`: most kinds' `ValidateXStatusUpdate` runs `ValidateObjectMetaUpdate` alone)."""
        info = self.info
        if self.subresource == "status":
            return info.status_meta_calls or ("UM" if info.status_validates_meta else "U")
        return info.update_meta_calls or ("UM" if info.update_validates_meta else "U")

    @property
    def update_validates_meta(self) -> bool:
        """Whether this update runs `ValidateObjectMeta` on the new object, its generateName judged by the kind's
        name rule (one of its `update_meta_calls` is `M`)."""
        return "M" in self.update_meta_calls

    def begin_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """The store's `BeginUpdate` hook (apiserver registry/generic/registry/store.go), run before
        `rest.BeforeUpdate`: what it refuses is the 422's only cause (a Service's requested ClusterIP taken)."""
        return []

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errs = validate_object_meta(new.get("metadata", {}), namespaced=self.info.namespaced,
                                    name_rule=self.info.name_rule, check_name=False,
                                    kube_finalizers=self.kube_finalizers,
                                    check_generate_name=self.update_validates_meta)
        return errs + validate_object_meta_update(new.get("metadata", {}), old.get("metadata", {}))

    def should_delete_during_update(self, new: dict[str, Any], old: dict[str, Any]) -> bool:
        """`ShouldDeleteDuringUpdate`: finalizers emptied on an object that is being deleted."""
        om = old.get("metadata", {})
        return (bool(om.get("deletionTimestamp")) and not om.get("deletionGracePeriodSeconds")
                and not new.get("metadata", {}).get("finalizers"))

"""Name, label and finalizer validation with the exact texts of apimachinery `util/validation`."""
from __future__ import annotations

import datetime as _dt
import re
from typing import Any

from ..apierrors import FieldError, GoValue, field_forbidden, field_invalid, field_required
from ..goport.gofmt import sharp_v_strings
from ..wire.gosyntax import sharp_v as go_sharp_v
from ..wire.legacyscheme import parse_group_version
from .meta import parse_time

_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_FMT = _LABEL_FMT + r"(\." + _LABEL_FMT + ")*"
_DNS1035_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_QNAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _QNAME_FMT + ")?"

_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
              "and must start and end with an alphanumeric character")
_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                  "and must start and end with an alphanumeric character")
_DNS1035_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
                "start with an alphabetic character, and end with an alphanumeric character")
_QNAME_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', "
              "and must start and end with an alphanumeric character")
_LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                    "and must start and end with an alphanumeric character")

STANDARD_FINALIZERS = frozenset({"kubernetes", "orphan", "foregroundDeletion"})


def _full(fmt: str) -> re.Pattern:
    return re.compile("^" + fmt + "$")


_LABEL_RE, _SUBDOMAIN_RE, _DNS1035_RE = _full(_LABEL_FMT), _full(_SUBDOMAIN_FMT), _full(_DNS1035_FMT)
_QNAME_RE, _LABEL_VALUE_RE = _full(_QNAME_FMT), _full(_LABEL_VALUE_FMT)


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """`validation.RegexError` (note the double space before each `or`); without examples Go writes no
    `(e.g. ` at all: `<msg> (regex used for validation is '<fmt>')`."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    ex = ",  or ".join(f"'{e}'" for e in examples)
    return f"{msg} (e.g. {ex}, regex used for validation is '{fmt}')"


def max_len_error(n: int) -> str:
    return f"must be no more than {n} characters"


PORT_RANGE = "must be between 1 and 65535, inclusive"
_PORT_NAME_CHARS = re.compile(r"^[-a-z0-9]+$")
_LETTER = re.compile(r"[a-z]")


def go_len(s: str) -> int:
    """Go's `len` of a string: its UTF-8 bytes (what every `must be no more than N characters` rule counts); a
    query's byte that is not UTF-8 (surrogate-escaped, http/goquery.py) is one byte."""
    if s.isascii():
        return len(s)
    try:
        return len(s.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:
        return len(s.encode("utf-8", "surrogatepass"))


def is_valid_port_num(port: Any) -> list[str]:
    """`IsValidPortNum` (a JSON integer in 1..65535)."""
    if isinstance(port, int) and not isinstance(port, bool) and 1 <= port <= 65535:
        return []
    return [PORT_RANGE]


def is_valid_port_name(name: str) -> list[str]:
    """`IsValidPortName` (an IANA_SVC_NAME)."""
    errs: list[str] = []
    if go_len(name) > 15:
        errs.append(max_len_error(15))
    if not _PORT_NAME_CHARS.match(name):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _LETTER.search(name):
        errs.append("must contain at least one letter (a-z)")
    if "--" in name:
        errs.append("must not contain consecutive hyphens")
    if name and (name[0] == "-" or name[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


def is_dns1123_label(v: str) -> list[str]:
    errs = []
    if go_len(v) > 63:
        errs.append(max_len_error(63))
    if not _LABEL_RE.match(v):
        if _SUBDOMAIN_RE.match(v):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_LABEL_MSG, _LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1123_subdomain(v: str) -> list[str]:
    errs = []
    if go_len(v) > 253:
        errs.append(max_len_error(253))
    if not _SUBDOMAIN_RE.match(v):
        errs.append(regex_error(_SUBDOMAIN_MSG, _SUBDOMAIN_FMT, "example.com"))
    return errs


def is_dns1035_label(v: str) -> list[str]:
    errs = []
    if go_len(v) > 63:
        errs.append(max_len_error(63))
    if not _DNS1035_RE.match(v):
        errs.append(regex_error(_DNS1035_MSG, _DNS1035_FMT, "my-name", "abc-123"))
    return errs


def is_qualified_name(v: str) -> list[str]:
    parts = v.split("/")
    errs: list[str] = []
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return ["a qualified name " + regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part must be non-empty")
    elif go_len(name) > 63:
        errs.append("name part " + max_len_error(63))
    if not _QNAME_RE.match(name):
        errs.append("name part " + regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc"))
    return errs


def is_label_value(v: str) -> list[str]:
    errs = []
    if go_len(v) > 63:
        errs.append(max_len_error(63))
    if not _LABEL_VALUE_RE.match(v):
        errs.append(regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def is_path_segment_name(v: str) -> list[str]:
    """apimachinery `path.IsValidPathSegmentName` (custom resources' and embedded resources' names)."""
    if v in (".", ".."):
        return [f"may not be '{v}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in v]


def is_path_segment_prefix(v: str) -> list[str]:
    """apimachinery `path.IsValidPathSegmentPrefix`: a generateName's path-segment rule (the whole name is
    judged once the suffix is added, so `.` and `..` are not refused here)."""
    return [f"may not contain '{c}'" for c in ("/", "%") if c in v]


def mask_trailing_dash(name: str) -> str:
    """apimachinery `maskTrailingDash` (api/validation/generic.go): a prefix's trailing '-' and the character
    before it become one `a` (only when the prefix is longer than one byte), so a DNS name rule judges
    `ab-` as `aa`."""
    if go_len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


NAME_RULES = {"label": is_dns1123_label, "subdomain": is_dns1123_subdomain,
              "label1035": is_dns1035_label, "pathsegment": is_path_segment_name, "path": is_path_segment_name}


def generate_name_errors(prefix: str, rule: str) -> list[str]:
    """A `ValidateNameFunc` called with `prefix` true, as `ValidateObjectMetaAccessor` calls it on a
    generateName: the DNS rules (`NameIsDNSSubdomain`, `NameIsDNSLabel`, `NameIsDNS1035Label`) judge the masked
    prefix; `pathsegment` is `path.ValidatePathSegmentName` (the prefix rule); `path` is RBAC's
    `ValidateRBACName`, `IsValidPathSegmentName` whatever `prefix` says."""
    if rule == "pathsegment":
        return is_path_segment_prefix(prefix)
    if rule == "path":
        return is_path_segment_name(prefix)
    return NAME_RULES[rule](mask_trailing_dash(prefix))


def validate_finalizer_name(value: Any, path: str, *, allow_unqualified: bool = False) -> list[FieldError]:
    """apimachinery `ValidateFinalizerName` + core `validateKubeFinalizerName` (NS-19)."""
    if not isinstance(value, str):
        return [field_invalid(path, value, "must be a string")]
    errs = [field_invalid(path, value, m) for m in is_qualified_name(value)]
    if len(value.split("/")) == 1 and value not in STANDARD_FINALIZERS and not allow_unqualified:
        errs.append(field_invalid(path, value, "name is neither a standard finalizer name nor is it fully qualified"))
    return errs


def validate_name(value: str, rule: str, path: str = "metadata.name") -> list[FieldError]:
    return [field_invalid(path, value, m) for m in NAME_RULES[rule](value)]


def validate_object_meta(meta: dict[str, Any], *, namespaced: bool, name_rule: str,
                         check_name: bool = True, kube_finalizers: bool = True,
                         check_generate_name: bool | None = None) -> list[FieldError]:
    """`ValidateObjectMeta` in its order (apimachinery api/validation/objectmeta.go `ValidateObjectMetaAccessor`):
    name/generateName, namespace, labels, annotations, owner references, then the finalizers as apimachinery's
    `ValidateFinalizers` judges them (a qualified name, at `metadata.finalizers` without an index; orphan and
    foregroundDeletion not both) (NS-18, NS-20). `kube_finalizers`: core's `ValidateObjectMeta`
    (`pkg/apis/core/validation`) then adds `validateKubeFinalizerName` at each finalizer's index (an unqualified
    name only if standard); apimachinery's generic one (CRDs, custom resources, APIServices,
    admissionregistration) does not. `check_generate_name` (default: `check_name`): an update whose kind's
    `ValidateXUpdate` runs `ValidateObjectMeta` on the new object judges its generateName, its unchanged name
    needing no second look."""
    if check_generate_name is None:
        check_generate_name = check_name
    errs: list[FieldError] = []
    name = meta.get("name") or ""
    gen = meta.get("generateName") or ""
    if not name and not gen:
        errs.append(field_required("metadata.name", "name or generateName is required"))
    else:
        if gen and check_generate_name:
            errs += [field_invalid("metadata.generateName", gen, m) for m in generate_name_errors(gen, name_rule)]
        if name and check_name:
            errs += validate_name(name, name_rule)
    if namespaced and not meta.get("namespace"):
        errs.append(field_required("metadata.namespace"))
    errs += meta_content_errors(meta)
    errs += validate_finalizers(meta.get("finalizers"))
    if kube_finalizers:
        errs += kube_finalizer_errors(meta.get("finalizers"))
    return errs


def meta_content_errors(meta: dict[str, Any]) -> list[FieldError]:
    """What both `ValidateObjectMetaAccessor` and `ValidateObjectMetaAccessorUpdate` judge of the new object, in
    their order: `ValidateLabels`, `ValidateAnnotations` (keys, then their total size), then
    `ValidateOwnerReferences`."""
    errs = validate_labels(meta.get("labels") or {}, "metadata.labels")
    errs += validate_annotations(meta.get("annotations") or {}, "metadata.annotations")
    return errs + validate_owner_references(meta.get("ownerReferences"))


TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * (1 << 10)  # objectmeta.go `TotalAnnotationSizeLimitB`


def validate_annotations(annotations: Any, path: str) -> list[FieldError]:
    """apimachinery api/validation/objectmeta.go `ValidateAnnotations`: each key's `IsQualifiedName` of its
    lowercase form, then `ValidateAnnotationsSize` (the keys' and values' bytes summed, more than 256 KiB refused
    with `field.TooLong(fldPath, "", TotalAnnotationSizeLimitB)`: `Too long: may not be more than 262144 bytes`,
    the value never printed)."""
    if not isinstance(annotations, dict):
        return []
    errs: list[FieldError] = []
    total = 0
    for key, value in annotations.items():
        key = str(key)
        errs += [field_invalid(path, key, m) for m in is_qualified_name(key.lower())]
        total += go_len(key) + (go_len(value) if isinstance(value, str) else 0)
    if total > TOTAL_ANNOTATION_SIZE_LIMIT_B:
        errs.append(FieldError("FieldValueTooLong", path,
                               f"Too long: may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT_B} bytes"))
    return errs


def validate_finalizers(finalizers: Any) -> list[FieldError]:
    """apimachinery `ValidateFinalizers`: each name's `IsQualifiedName` errors at `metadata.finalizers` (no index),
    then orphan and foregroundDeletion together refused."""
    finalizers = finalizers if isinstance(finalizers, list) else []
    errs: list[FieldError] = []
    for f in finalizers:
        if not isinstance(f, str):
            errs.append(field_invalid("metadata.finalizers", f, "must be a string"))
            continue
        errs += [field_invalid("metadata.finalizers", f, m) for m in is_qualified_name(f)]
    if "orphan" in finalizers and "foregroundDeletion" in finalizers:
        errs.append(field_invalid("metadata.finalizers", finalizers,
                                  "finalizer orphan and foregroundDeletion cannot be both set"))
    return errs


def kube_finalizer_errors(finalizers: Any) -> list[FieldError]:
    """core `validateKubeFinalizerName` of each finalizer, at its index: an unqualified name must be standard."""
    errs: list[FieldError] = []
    for i, f in enumerate(finalizers if isinstance(finalizers, list) else []):
        if isinstance(f, str) and len(f.split("/")) == 1 and f not in STANDARD_FINALIZERS:
            errs.append(field_invalid(f"metadata.finalizers[{i}]", f,
                                      "name is neither a standard finalizer name nor is it fully qualified"))
    return errs


def validate_owner_references(refs: Any, path: str = "metadata.ownerReferences") -> list[FieldError]:
    """apimachinery `ValidateOwnerReferences` (api/validation/objectmeta.go): apiVersion (with a version), kind,
    name and uid required, no Event owner, at most one `controller: true` (paths without an index, as upstream).
    Upstream does not refuse an object naming itself (its own UID) as owner, nor an owner that does not exist.
    A reference, or the list, as a bad value is Go's `%#v` of the `metav1.OwnerReference` struct(s)."""
    errs: list[FieldError] = []
    if not isinstance(refs, list):
        return errs
    first_controller = ""
    for ref in refs:
        if not isinstance(ref, dict):
            continue
        api_version, kind = str(ref.get("apiVersion") or ""), str(ref.get("kind") or "")
        group, version = parse_group_version(api_version)
        if not version:
            errs.append(field_invalid(f"{path}.apiVersion", api_version, "version must not be empty"))
        if not kind:
            errs.append(field_invalid(f"{path}.kind", kind, "kind must not be empty"))
        if not ref.get("name"):
            errs.append(field_invalid(f"{path}.name", str(ref.get("name") or ""), "name must not be empty"))
        if not ref.get("uid"):
            errs.append(field_invalid(f"{path}.uid", str(ref.get("uid") or ""), "uid must not be empty"))
        if (group, version, kind) == ("", "v1", "Event"):
            errs.append(field_invalid(path, GoValue(go_sharp_v(ref, "v1.OwnerReference")),
                                      "/v1, Kind=Event is disallowed from being an owner"))
        if ref.get("controller") is True:
            current = f"{kind}/{ref.get('name') or ''}"
            if first_controller:
                errs.append(field_invalid(path, GoValue(go_sharp_v(refs, "[]v1.OwnerReference")),
                                          'Only one reference can have Controller set to true. Found '
                                          f'"true" in references for {first_controller} and {current}'))
            else:
                first_controller = current
    return errs


def validate_labels(labels: dict[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for k, v in labels.items():
        errs += [field_invalid(path, k, m) for m in is_qualified_name(k)]
        if not isinstance(v, str):
            errs.append(field_invalid(path, v, "must be a string"))
        else:
            errs += [field_invalid(path, v, m) for m in is_label_value(v)]
    return errs


def validate_object_meta_update(new: dict[str, Any], old: dict[str, Any], *, content: bool = False,
                                kube_finalizers: bool = False) -> list[FieldError]:
    """`ValidateObjectMetaAccessorUpdate` in its order: no new finalizers while deleting, then the immutable
    fields (NS-32, NS-38): the store restores the name, namespace, uid and creationTimestamp from storage
    (`rest.BeforeUpdate`), so of those only a deletionTimestamp set on an object not being deleted and a changed
    deletionGracePeriodSeconds can differ. `content`: then the labels, annotations and owner references it judges
    again (a strategy's single copy leaves them to `validate_object_meta`; registry/updatemeta.py lists every
    repeat); `kube_finalizers`: core's `ValidateObjectMetaUpdate`, which adds `validateKubeFinalizerName`."""
    errs: list[FieldError] = []
    if old.get("deletionTimestamp"):
        old_f = set(old.get("finalizers") or [])
        added = sorted({f for f in (new.get("finalizers") or []) if isinstance(f, str) and f not in old_f})
        if added:
            errs.append(field_forbidden("metadata.finalizers",
                                        "no new finalizers can be added if the object is being deleted, "
                                        f"found new finalizers {sharp_v_strings(added)}"))
    if old.get("deletionTimestamp") is None and new.get("deletionTimestamp") is not None:
        errs.append(field_invalid("metadata.deletionTimestamp", go_time_value(new.get("deletionTimestamp")),
                                  "field is immutable"))
    grace = new.get("deletionGracePeriodSeconds")
    if grace != old.get("deletionGracePeriodSeconds"):
        errs.append(field_invalid("metadata.deletionGracePeriodSeconds", grace, "field is immutable"))
    if content:
        errs += meta_content_errors(new)
    if kube_finalizers:
        errs += kube_finalizer_errors(new.get("finalizers"))
    return errs


def go_time_value(value: Any) -> Any:
    """A `*metav1.Time` as `field.Error` prints it: dereferenced, then its `String()` (`time.Time`'s, in the
    server's zone, UTC: `2026-01-02 03:04:05 +0000 UTC`, a fraction of a second without its trailing zeros)."""
    t = parse_time(value)
    if t is None:
        return value
    t = t.astimezone(_dt.timezone.utc)
    frac = f".{t.microsecond:06d}".rstrip("0") if t.microsecond else ""
    return GoValue(t.strftime("%Y-%m-%d %H:%M:%S") + frac + " +0000 UTC")

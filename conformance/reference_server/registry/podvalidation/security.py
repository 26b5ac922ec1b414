"""Security contexts and OS rules of a pod spec as `pkg/apis/core/validation/validation.go` (1.33) judges them:
`validatePodSpecSecurityContext` (IDs, shareProcessNamespace, `validateSysctls` with `ValidateHostSysctl` of
component-helpers' sysctl namespaces, fsGroupChangePolicy, supplementalGroupsPolicy, seLinuxChangePolicy),
`ValidateSecurityContext` (a container's: IDs, procMount, the privilege-escalation rules), the shared
`validateSeccompProfileField`, `ValidateAppArmorProfileField` and `validateWindowsSecurityContextOptions`, and
`validateOS` / `validateLinux` / `validateWindows`, `validateWindowsHostProcessPod`, `validateHostUsers`.

A v1 pod keeps hostNetwork/hostPID/hostIPC/hostUsers/shareProcessNamespace on the spec (the internal type, which
upstream validates, on its security context); upstream's paths are kept, quirks included (`spec.HostPID`).
1.33's options: every SELinuxChangePolicy allowed (SELinuxChangePolicy beta), privileged containers allowed
(kind's `--allow-privileged`), namespaced sysctls refused beside hostNetwork/hostIPC (a create's options).
A Go struct printed with `%#v` shows a set pointer as `0xc000000000` (its real address is unknowable)."""
from __future__ import annotations

import re
from typing import Any, Iterator

from ...apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ..groupvalidation.storage import too_long
from ..shapes import as_dict, as_list
from ..validation import is_dns1123_subdomain
from .fields import field_duplicate, integer
from .volumes import local_descending_path

MAX_ID = 2147483647
_ID_RANGE = f"must be between 0 and {MAX_ID}, inclusive"
SECCOMP_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")
_SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SYSCTL_FMT = "^(" + _SYSCTL_SEGMENT + "[\\./])*" + _SYSCTL_SEGMENT + "$"
_SYSCTL = re.compile(_SYSCTL_FMT)
_CTRL = re.compile(r"[\x00-\x1f\x7f]+")
_NETBIOS = re.compile(r'^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$')
_DNS_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
_WINDOWS_DOMAIN_DNS = re.compile(f"^{_DNS_LABEL}(?:\\.{_DNS_LABEL})*$")
_USER_CHARS = re.compile(r'["/\\:;|=,+*?<>@\[\]]')
_USER_DOTS_SPACES = re.compile(r"^[. ]+$")
_FORBIDDEN_WINDOWS = "cannot be set for a windows pod"


def ptr(value: Any, go_type: str) -> str:
    """A pointer field inside Go's `%#v` of a struct."""
    return f"({go_type})(nil)" if value is None else f"({go_type})(0xc000000000)"


def visit_containers(spec: dict[str, Any], path: str) -> Iterator[tuple[dict[str, Any], str]]:
    """`podshelper.VisitContainersWithPath`: init containers, containers, then ephemeral containers."""
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for i, c in enumerate(as_list(spec.get(key))):
            yield as_dict(c), f"{path}.{key}[{i}]"


def seccomp_profile(sp: Any, path: str) -> list[FieldError]:
    """`validateSeccompProfileField`."""
    if not isinstance(sp, dict):
        return []
    errs: list[FieldError] = []
    kind = sp.get("type") or ""
    if not kind:
        errs.append(field_required(f"{path}.type", "type is required when seccompProfile is set"))
    elif kind not in SECCOMP_TYPES:
        errs.append(field_not_supported(f"{path}.type", kind, SECCOMP_TYPES))
    local = sp.get("localhostProfile")
    if kind == "Localhost":
        if local is None:
            errs.append(field_required(f"{path}.localhostProfile", "must be set when seccomp type is Localhost"))
        else:
            errs += local_descending_path(str(local), f"{path}.localhostProfile")
    elif local is not None:
        shown = f'core.SeccompProfile{{Type:"{kind}", LocalhostProfile:{ptr(local, "*string")}}}'
        errs.append(FieldError("FieldValueInvalid", f"{path}.localhostProfile",
                               f"Invalid value: {shown}: can only be set when seccomp type is Localhost"))
    return errs


def apparmor_profile(profile: Any, path: str) -> list[FieldError]:
    """`ValidateAppArmorProfileField`."""
    if not isinstance(profile, dict):
        return []
    kind, local = profile.get("type") or "", profile.get("localhostProfile")
    errs: list[FieldError] = []
    if kind == "Localhost":
        if local is None:
            errs.append(field_required(f"{path}.localhostProfile", "must be set when AppArmor type is Localhost"))
        else:
            local = str(local)
            if local.strip() != local:
                errs.append(field_invalid(f"{path}.localhostProfile", local, "must not be padded with whitespace"))
            elif not local:
                errs.append(field_required(f"{path}.localhostProfile", "must be set when AppArmor type is Localhost"))
            if len(local.encode()) > 4095:
                errs.append(too_long(f"{path}.localhostProfile", 4095))
    elif kind in ("RuntimeDefault", "Unconfined"):
        if local is not None:
            errs.append(field_invalid(f"{path}.localhostProfile", local,
                                      "can only be set when AppArmor type is Localhost"))
    elif not kind:
        errs.append(field_required(f"{path}.type", "type is required when appArmorProfile is set"))
    else:
        errs.append(field_not_supported(f"{path}.type", kind, SECCOMP_TYPES))
    return errs


def _run_as_user_name(name: str, path: str) -> list[FieldError]:
    if not name:
        return [field_invalid(path, name, "runAsUserName cannot be an empty string")]
    if _CTRL.search(name):
        return [field_invalid(path, name, "runAsUserName cannot contain control characters")]
    parts = name.split("\\")
    if len(parts) > 2:
        return [field_invalid(path, name, "runAsUserName cannot contain more than one backslash")]
    domain, user = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
    errs: list[FieldError] = []
    if len(domain.encode()) >= 256:
        errs.append(field_invalid(path, name, "runAsUserName's Domain length must be under 256 characters"))
    if len(parts) == 2 and not (_NETBIOS.match(domain) or _WINDOWS_DOMAIN_DNS.match(domain)):
        errs.append(field_invalid(path, name, "runAsUserName's Domain doesn't match the NetBios nor the DNS format"))
    if not user:
        errs.append(field_invalid(path, name, "runAsUserName's User cannot be empty"))
    elif len(user.encode()) > 104:
        errs.append(field_invalid(path, name, "runAsUserName's User length must not be longer than 104 characters"))
    if _USER_DOTS_SPACES.match(user):
        errs.append(field_invalid(path, name, "runAsUserName's User cannot contain only periods or spaces"))
    if _USER_CHARS.search(user):
        errs.append(field_invalid(path, name, "runAsUserName's User cannot contain the following characters: "
                                              "\"/\\:;|=,+*?<>@[]"))
    return errs


def windows_options(wo: Any, path: str) -> list[FieldError]:
    """`validateWindowsSecurityContextOptions`."""
    if not isinstance(wo, dict):
        return []
    errs: list[FieldError] = []
    name = wo.get("gmsaCredentialSpecName")
    if isinstance(name, str):
        errs += [field_invalid(f"{path}.gmsaCredentialSpecName", name, m) for m in is_dns1123_subdomain(name)]
    spec = wo.get("gmsaCredentialSpec")
    if isinstance(spec, str):
        if not spec:
            errs.append(field_invalid(f"{path}.gmsaCredentialSpec", spec,
                                      "gmsaCredentialSpec cannot be an empty string"))
        elif len(spec.encode()) > 64 * 1024:
            errs.append(field_invalid(f"{path}.gmsaCredentialSpec", spec,
                                      "gmsaCredentialSpec size must be under 64 KiB"))
    if isinstance(wo.get("runAsUserName"), str):
        errs += _run_as_user_name(wo["runAsUserName"], f"{path}.runAsUserName")
    return errs


def _ids(sc: dict[str, Any], keys: tuple[str, ...], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for key in keys:
        n = integer(sc.get(key))
        if n is not None and not 0 <= n <= MAX_ID:
            errs.append(field_invalid(f"{path}.{key}", n, _ID_RANGE))
    return errs


def _security_context_struct(sc: dict[str, Any]) -> str:
    """Go's `%#v` of a `core.SecurityContext`."""
    fields = (("Capabilities", "capabilities", "*core.Capabilities"), ("Privileged", "privileged", "*bool"),
              ("SELinuxOptions", "seLinuxOptions", "*core.SELinuxOptions"),
              ("WindowsOptions", "windowsOptions", "*core.WindowsSecurityContextOptions"),
              ("RunAsUser", "runAsUser", "*int64"), ("RunAsGroup", "runAsGroup", "*int64"),
              ("RunAsNonRoot", "runAsNonRoot", "*bool"), ("ReadOnlyRootFilesystem", "readOnlyRootFilesystem", "*bool"),
              ("AllowPrivilegeEscalation", "allowPrivilegeEscalation", "*bool"),
              ("ProcMount", "procMount", "*core.ProcMountType"),
              ("SeccompProfile", "seccompProfile", "*core.SeccompProfile"),
              ("AppArmorProfile", "appArmorProfile", "*core.AppArmorProfile"))
    return "core.SecurityContext{" + ", ".join(f"{go}:{ptr(sc.get(key), t)}" for go, key, t in fields) + "}"


def container_security_context(sc: Any, path: str, *, host_users: bool) -> list[FieldError]:
    """`ValidateSecurityContext`."""
    if not isinstance(sc, dict):
        return []
    errs = _ids(sc, ("runAsUser", "runAsGroup"), path)
    proc = sc.get("procMount")
    if proc is not None:
        if proc not in ("Default", "Unmasked"):
            errs.append(field_not_supported(f"{path}.procMount", proc, ("Default", "Unmasked")))
        if host_users and proc == "Unmasked":
            errs.append(field_invalid(f"{path}.procMount", proc, "`hostUsers` must be false to use `Unmasked`"))
    errs += seccomp_profile(sc.get("seccompProfile"), f"{path}.seccompProfile")
    if sc.get("allowPrivilegeEscalation") is False:
        shown = _security_context_struct(sc)
        if sc.get("privileged") is True:
            errs.append(FieldError("FieldValueInvalid", path, f"Invalid value: {shown}: cannot set "
                                                              "`allowPrivilegeEscalation` to false and `privileged` "
                                                              "to true"))
        for cap in as_list(as_dict(sc.get("capabilities")).get("add")):
            if cap == "CAP_SYS_ADMIN":
                errs.append(FieldError("FieldValueInvalid", path, f"Invalid value: {shown}: cannot set "
                                                                  "`allowPrivilegeEscalation` to false and "
                                                                  "`capabilities.Add` CAP_SYS_ADMIN"))
    errs += windows_options(sc.get("windowsOptions"), f"{path}.windowsOptions")
    return errs + apparmor_profile(sc.get("appArmorProfile"), f"{path}.appArmorProfile")


def _sysctl_namespace(name: str) -> str:
    """component-helpers' `sysctl.GetNamespace` of a normalised name: `net`, `ipc` or ``."""
    dot, slash = name.find("."), name.find("/")
    if slash != -1 and (dot == -1 or slash < dot):
        name = name.replace(".", "\0").replace("/", ".").replace("\0", "/")
    if name == "kernel.sem" or name.startswith(("kernel.shm", "kernel.msg", "fs.mqueue.")):
        return "ipc"
    return "net" if name.startswith("net.") else ""


def _sysctls(spec: dict[str, Any], sysctls: list[Any], path: str) -> list[FieldError]:
    """`validateSysctls` with `ValidateHostSysctl`."""
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, s in enumerate(as_dict(s) for s in sysctls):
        here = f"{path}[{i}].name"
        name = str(s.get("name") or "")
        if not name:
            errs.append(field_required(here))
        elif len(name) > 253 or not _SYSCTL.match(name):
            errs.append(field_invalid(here, name, f"must have at most 253 characters and match regex {_SYSCTL_FMT}"))
        elif name in names:
            errs.append(field_duplicate(here, name))
        ns = _sysctl_namespace(name)
        if spec.get("hostNetwork") is True and ns == "net":
            errs.append(field_invalid(here, name, "may not be specified when 'hostNetwork' is true"))
        elif spec.get("hostIPC") is True and ns == "ipc":
            errs.append(field_invalid(here, name, "may not be specified when 'hostIPC' is true"))
        names.add(name)
    return errs


def _enum_ptr(value: Any, path: str, valid: tuple[str, ...]) -> list[FieldError]:
    return [] if value is None or value in valid else [field_not_supported(path, value, valid)]


def pod_security_context(spec: dict[str, Any], path: str) -> list[FieldError]:
    """`validatePodSpecSecurityContext` (`path` is the spec's)."""
    sc = spec.get("securityContext")
    if not isinstance(sc, dict):
        sc = {}
    here = f"{path}.securityContext"
    errs = _ids(sc, ("fsGroup", "runAsUser", "runAsGroup"), here)
    for i, g in enumerate(as_list(sc.get("supplementalGroups"))):
        n = integer(g)
        if n is not None and not 0 <= n <= MAX_ID:
            errs.append(field_invalid(f"{here}.supplementalGroups[{i}]", n, _ID_RANGE))
    if spec.get("shareProcessNamespace") is True and spec.get("hostPID") is True:
        errs.append(field_invalid(f"{here}.shareProcessNamespace", True,
                                  "ShareProcessNamespace and HostPID cannot both be enabled"))
    if as_list(sc.get("sysctls")):
        errs += _sysctls(spec, as_list(sc["sysctls"]), f"{here}.sysctls")
    errs += _enum_ptr(sc.get("fsGroupChangePolicy"), f"{here}.fsGroupChangePolicy", ("Always", "OnRootMismatch"))
    errs += seccomp_profile(sc.get("seccompProfile"), f"{here}.seccompProfile")
    errs += windows_options(sc.get("windowsOptions"), f"{here}.windowsOptions")
    errs += apparmor_profile(sc.get("appArmorProfile"), f"{here}.appArmorProfile")
    errs += _enum_ptr(sc.get("supplementalGroupsPolicy"), f"{here}.supplementalGroupsPolicy", ("Merge", "Strict"))
    return errs + _enum_ptr(sc.get("seLinuxChangePolicy"), f"{here}.seLinuxChangePolicy",
                            ("MountOption", "Recursive"))


def windows_host_process(spec: dict[str, Any], path: str) -> list[FieldError]:
    """`validateWindowsHostProcessPod` (privileged containers allowed)."""
    pod_hp = as_dict(as_dict(spec.get("securityContext")).get("windowsOptions")).get("hostProcess")
    if pod_hp is None and not any(as_dict(c.get("securityContext")).get("windowsOptions") is not None
                                  for c, _ in visit_containers(spec, path)):
        return []
    errs: list[FieldError] = []
    total = host_process = 0
    for c, cpath in visit_containers(spec, path):
        total += 1
        hp = as_dict(as_dict(c.get("securityContext")).get("windowsOptions")).get("hostProcess")
        if isinstance(pod_hp, bool) and isinstance(hp, bool) and pod_hp != hp:
            errs.append(field_invalid(f"{cpath}.securityContext.windowsOptions.hostProcess", hp,
                                      f"pod hostProcess value must be identical if both are specified, was "
                                      f"{'true' if pod_hp else 'false'}"))
        if hp is True or (hp is None and pod_hp is True):
            host_process += 1
    if host_process:
        if host_process != total:
            errs.append(field_invalid(path, "", "If pod contains any hostProcess containers then all containers "
                                                "must be HostProcess containers"))
        if spec.get("hostNetwork") is not True:
            errs.append(field_invalid(f"{path}.hostNetwork", False,
                                      "hostNetwork must be true if pod contains any hostProcess containers"))
    return errs


def host_users(spec: dict[str, Any], path: str) -> list[FieldError]:
    """`validateHostUsers` (upstream's `HostPID`/`HostIPC` path spellings)."""
    if spec.get("hostUsers") is not False:
        return []
    errs: list[FieldError] = []
    for key, shown in (("hostNetwork", "hostNetwork"), ("hostPID", "HostPID"), ("hostIPC", "HostIPC")):
        if spec.get(key) is True:
            errs.append(field_forbidden(f"{path}.{shown}", "when `pod.Spec.HostUsers` is false"))
    return errs


def _linux(spec: dict[str, Any], path: str) -> list[FieldError]:
    msg = "windows options cannot be set for a linux pod"
    errs = [field_forbidden(f"{path}.securityContext.windowsOptions", msg)] \
        if as_dict(spec.get("securityContext")).get("windowsOptions") is not None else []
    for c, cpath in visit_containers(spec, path):
        if as_dict(c.get("securityContext")).get("windowsOptions") is not None:
            errs.append(field_forbidden(f"{cpath}.securityContext.windowsOptions", msg))
    return errs


_WINDOWS_POD_FIELDS = (("securityContext", "appArmorProfile"), ("securityContext", "seLinuxOptions"),
                       ("", "hostUsers"), ("", "hostPID"), ("", "hostIPC"), ("securityContext", "seccompProfile"),
                       ("securityContext", "fsGroup"), ("securityContext", "fsGroupChangePolicy"),
                       ("securityContext", "sysctls"), ("", "shareProcessNamespace"),
                       ("securityContext", "runAsUser"), ("securityContext", "runAsGroup"),
                       ("securityContext", "supplementalGroups"), ("securityContext", "supplementalGroupsPolicy"),
                       ("securityContext", "seLinuxChangePolicy"))
_WINDOWS_CONTAINER_FIELDS = ("appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities",
                             "readOnlyRootFilesystem", "privileged", "allowPrivilegeEscalation", "procMount",
                             "runAsUser", "runAsGroup")


def _windows_pod_field_set(spec: dict[str, Any], where: str, key: str) -> bool:
    value = as_dict(spec.get("securityContext")).get(key) if where else spec.get(key)
    if key in ("hostPID", "hostIPC"):
        return value is True
    if key == "sysctls":
        return bool(as_list(value))
    return value is not None


def _windows(spec: dict[str, Any], path: str) -> list[FieldError]:
    errs = [field_forbidden(f"{path}.securityContext.{key}" if where else f"{path}.{key}", _FORBIDDEN_WINDOWS)
            for where, key in _WINDOWS_POD_FIELDS if _windows_pod_field_set(spec, where, key)]
    for c, cpath in visit_containers(spec, path):
        sc = c.get("securityContext")
        if isinstance(sc, dict):
            errs += [field_forbidden(f"{cpath}.securityContext.{key}", _FORBIDDEN_WINDOWS)
                     for key in _WINDOWS_CONTAINER_FIELDS if sc.get(key) is not None]
    return errs


def validate_os(spec: dict[str, Any], path: str) -> list[FieldError]:
    """`validateOS`, then `validateLinux` or `validateWindows` when it passes."""
    os_ = spec.get("os")
    if not isinstance(os_, dict):
        return []
    name = os_.get("name") or ""
    if not name:
        return [field_required(f"{path}.os.name", "cannot be empty")]
    if name not in ("linux", "windows"):
        return [field_not_supported(f"{path}.os", name, ("linux", "windows"))]
    return _linux(spec, path) if name == "linux" else _windows(spec, path)

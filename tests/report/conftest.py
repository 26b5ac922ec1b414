"""`pytester` for the end-to-end report tests.

`pytest_plugins = ["pytester"]` is only allowed in the top-level conftest, which this room does not own; until
the lead adds it there (then delete this fixture), build the fixture from pytest's own class.
"""

from __future__ import annotations

import pytest


@pytest.fixture
def pytester(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
             monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    from _pytest.pytester import Pytester

    if not request.config.pluginmanager.has_plugin("pytester"):  # give Pytester the option its plugin would add
        monkeypatch.setattr(request.config.option, "--runpytest", "inprocess", raising=False)
    return Pytester(request, tmp_path_factory, monkeypatch, _ispytest=True)

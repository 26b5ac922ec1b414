"""Write a run directory (conformance.json, .html, .md) and point `<reports>/latest` at it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from .html import render_html
from .markdown import render_markdown

JSON_NAME, HTML_NAME, MD_NAME, JUNIT_NAME = "conformance.json", "conformance.html", "conformance.md", "junit.xml"


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def render(run: dict[str, Any], run_dir: Path) -> list[Path]:
    """(Re-)render the human artefacts of a run document into `run_dir`."""
    html_path, md_path = run_dir / HTML_NAME, run_dir / MD_NAME
    _atomic_write(html_path, render_html(run))
    _atomic_write(md_path, render_markdown(run))
    return [html_path, md_path]


def write_run(run: dict[str, Any], run_dir: Path) -> list[Path]:
    """All artefacts of one run; returns the paths written."""
    run_dir.mkdir(parents=True, exist_ok=True)
    json_path = run_dir / JSON_NAME
    _atomic_write(json_path, json.dumps(run, indent=2, ensure_ascii=False, default=str) + "\n")
    return [json_path, *render(run, run_dir)]


def copy_junit(source: str | os.PathLike[str] | None, run_dir: Path) -> Path | None:
    """Make sure junit.xml ends up in the run dir (the CLI normally writes it there directly)."""
    if not source:
        return None
    src, dest = Path(source), run_dir / JUNIT_NAME
    if not src.is_file():
        return None
    if src.resolve() != dest.resolve() and src.resolve().parent != run_dir.resolve():
        shutil.copyfile(src, dest)
        return dest
    return src


def link_latest(reports_dir: Path, run_dir: Path) -> Path:
    """`reports_dir/latest` → run_dir: a relative symlink, or a copy where symlinks are not available."""
    latest = reports_dir / "latest"
    if latest.is_symlink() or latest.is_file():
        latest.unlink()
    elif latest.is_dir():
        shutil.rmtree(latest)
    try:
        target = os.path.relpath(run_dir, reports_dir) if run_dir.parent.resolve() == reports_dir.resolve() else run_dir
        latest.symlink_to(target, target_is_directory=True)
    except (OSError, NotImplementedError):
        shutil.copytree(run_dir, latest)
    return latest


def resolve_run_dir(path: str | os.PathLike[str]) -> Path:
    """A run dir, a conformance.json file, or a reports dir (meaning its `latest`) → the run dir."""
    p = Path(path)
    if p.is_file():
        return p.parent
    if (p / JSON_NAME).is_file():
        return p
    if (p / "latest" / JSON_NAME).is_file():
        return p / "latest"
    raise FileNotFoundError(f"{p}: no {JSON_NAME} here (nor in {p / 'latest'})")


def load_run(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and check a run document; `ValueError` with one clear line when it is not one."""
    run_dir = resolve_run_dir(path)
    file = run_dir / JSON_NAME
    try:
        run = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{file}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    from conformance.schemas import validate
    try:
        validate(run, "ConformanceRun")
    except AssertionError as exc:
        raise ValueError(f"{file}: not a conformance.json document: {exc}") from None
    return run

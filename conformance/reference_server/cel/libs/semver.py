"""`library.SemverLib` at version 1 (`staging/src/k8s.io/apiserver/pkg/cel/library/semverlib.go`, enabled in 1.33's
base environment): `semver(<string>[, <normalize>])`, `isSemver`, `major`, `minor`, `patch`, `isGreaterThan`,
`isLessThan`, `compareTo`, with `github.com/blang/semver/v4` `Parse`'s rules, errors and precedence (build metadata
ignored in comparisons and equality)."""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .values import SEMVER, LibraryError, go_quote, unwrap, wrap

_NUMBERS = re.compile(r"[0-9]*")
_ALPHANUM = re.compile(r"[0-9A-Za-z-]*")


def _number(text: str, what: str) -> int:
    if not _NUMBERS.fullmatch(text):
        raise LibraryError(f"Invalid character(s) found in {what.lower()} {go_quote(text)}")
    if len(text) > 1 and text[0] == "0":
        raise LibraryError(f"{what} must not contain leading zeroes {go_quote(text)}")
    if not text:
        raise LibraryError('strconv.ParseUint: parsing "": invalid syntax')
    return int(text)


def _prerelease(part: str) -> str:
    if not part:
        raise LibraryError("Prerelease is empty")
    if _NUMBERS.fullmatch(part):
        if len(part) > 1 and part[0] == "0":
            raise LibraryError(f"Numeric PreRelease version must not contain leading zeroes {go_quote(part)}")
    elif not _ALPHANUM.fullmatch(part):
        raise LibraryError(f"Invalid character(s) found in prerelease {go_quote(part)}")
    return part


def parse(text: str) -> tuple[int, int, int, tuple[str, ...]]:
    """blang/semver `Parse`: (major, minor, patch, prerelease identifiers)."""
    if not text:
        raise LibraryError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise LibraryError("No Major.Minor.Patch elements found")
    major, minor = _number(parts[0], "Major number"), _number(parts[1], "Minor number")
    patch, _, build = parts[2].partition("+")
    patch, dash, pre = patch.partition("-")
    prerelease = tuple(_prerelease(p) for p in pre.split(".")) if dash else ()
    number = _number(patch, "Patch number")
    for meta in build.split(".") if "+" in parts[2] else ():
        if not meta:
            raise LibraryError("Build meta data is empty")
        if not _ALPHANUM.fullmatch(meta):
            raise LibraryError(f"Invalid character(s) found in build meta data {go_quote(meta)}")
    return major, minor, number, prerelease


def normalize(text: str) -> str:
    """semverlib.go `normalizeAndParse`'s rewrite: no `v` prefix, no leading zeros, missing parts 0."""
    parts = text.removeprefix("v").split(".", 2)
    for i, p in enumerate(parts):
        if len(p) > 1:
            p = p.lstrip("0")
            parts[i] = p if p and p[0].isdigit() else "0" + p
    if len(parts) < 3:
        if any(c in parts[-1] for c in "+-"):
            raise LibraryError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return ".".join(parts)


def _parsed(text: Any, norm: Any, function: str) -> tuple[int, int, int, tuple[str, ...]]:
    if not isinstance(text, str) or not isinstance(norm, bool):
        raise LibraryError(f"no such overload: {function}")
    return parse(normalize(text) if norm else text)


def semver(text: Any, norm: Any = False) -> dict[str, Any]:
    major, minor, patch, pre = _parsed(text, norm, "semver")
    return wrap(SEMVER, version=f"{major}.{minor}.{patch}" + ("-" + ".".join(pre) if pre else ""))


def is_semver(text: Any, norm: Any = False) -> bool:
    try:
        _parsed(text, norm, "isSemver")
    except LibraryError as exc:
        if str(exc).startswith("no such overload"):
            raise
        return False
    return True


def _key(value: Any, function: str) -> tuple[Any, ...]:
    major, minor, patch, pre = parse(unwrap(value, SEMVER, function)["version"])
    # precedence: a release is above its prereleases; numeric identifiers below alphanumeric ones
    ids = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre)
    return major, minor, patch, (1,) if not pre else (0, ids)


def compare(a: Any, b: Any, function: str = "compareTo") -> int:
    x, y = _key(a, function), _key(b, function)
    return (x > y) - (x < y)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "semver": semver, "isSemver": is_semver,
    "major": lambda v: _key(v, "major")[0], "minor": lambda v: _key(v, "minor")[1],
    "patch": lambda v: _key(v, "patch")[2],
    "isGreaterThan": lambda a, b: compare(a, b, "isGreaterThan") == 1,
    "isLessThan": lambda a, b: compare(a, b, "isLessThan") == -1,
    "compareTo": compare,
}

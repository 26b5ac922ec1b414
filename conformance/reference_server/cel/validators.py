"""cel-go's literal validators that 1.33's base environment installs (`environment/base.go`, 1.29:
`cel.ValidateDurationLiterals()`, `ValidateTimestampLiterals()`, `ValidateRegexLiterals()`; `cel/validator.go`
`formatValidator`): a literal first argument of `duration`, `timestamp` or `matches` that would fail at run time is
refused when the expression is compiled, `invalid <function> argument` at the literal.

As cel-go's, the check is on the call's first argument whatever the call style: `s.matches('[')` checks the
pattern, the global `matches('[', s)` the string matched. Durations follow Go's `time.ParseDuration` (godur.py),
timestamps `time.Parse(time.RFC3339, ...)` within years 1 to 9999 (libs/conversions.py), patterns Go's
`regexp.Compile` (goregexp/)."""
from __future__ import annotations

from ..goport import goregexp
from ..goport.godur import DurationError, parse_duration
from .libs.conversions import go_timestamp
from .libs.values import LibraryError



def valid_duration(text: str) -> bool:
    try:
        parse_duration(text)
    except DurationError:
        return False
    return True


def valid_timestamp(text: str | int) -> bool:
    """`timestamp(<literal>)` evaluates: Go's RFC 3339 reading within years 1 to 9999, or Unix seconds there."""
    try:
        go_timestamp(text)
    except LibraryError:
        return False
    return True


def valid_regex(pattern: str) -> bool:
    return goregexp.error_text(pattern) is None


CHECKS = {"duration": valid_duration, "timestamp": valid_timestamp, "matches": valid_regex}


def literal_issue(function: str, kind: str, value: object) -> str | None:
    """cel-go's message for an invalid literal first argument of `function`, None when it is valid. cel-go's
    validator evaluates the call (`evalCall`): an int literal fails too, as Unix seconds out of range for
    `timestamp`, always for `duration` (`Int.ConvertToType` has no duration case); other literals' conversions
    cannot fail."""
    check = CHECKS.get(function)
    if check is None or isinstance(value, bool):
        return None
    if kind == "int" and isinstance(value, int) and function in ("duration", "timestamp"):
        return None if function == "timestamp" and valid_timestamp(value) else f"invalid {function} argument"
    if kind != "string" or not isinstance(value, str) or check(value):
        return None
    return f"invalid {function} argument"

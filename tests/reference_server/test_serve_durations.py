"""`nsconform serve`'s duration flags (`--request-timeout`, `--leader-elect-*`): Go's `time.ParseDuration`
(godur.py), as kube-apiserver's flags, or plain seconds."""
from __future__ import annotations

import pytest

from conformance.reference_server.serve import _ParseError, build_parser


@pytest.mark.parametrize("value,seconds", [("60", 60.0), ("1m0s", 60.0), (".5s", 0.5), ("1500us", 0.0015),
                                           ("1h2m", 3720.0), ("2.5", 2.5), ("0", 0.0)])
def test_go_durations_and_seconds(value, seconds):
    assert build_parser().parse_args(["--request-timeout", value]).request_timeout == pytest.approx(seconds)


@pytest.mark.parametrize("value,error", [("1d", 'time: unknown unit "d" in duration "1d"'),
                                         ("x", 'time: invalid duration "x"'),
                                         ("5 s", 'time: unknown unit " s" in duration "5 s"')])
def test_a_bad_duration_names_gos_error(value, error):
    with pytest.raises(_ParseError) as exc:  # the serve parser's one-line error
        build_parser().parse_args(["--leader-elect-lease-duration", value])
    assert str(exc.value) == f"argument --leader-elect-lease-duration: {error} (e.g. 60s, 1m0s)"

"""Each priority level's concurrency limits from the server's total (`apf_controller.go`,
`finishQueueSetReconfigsLocked` and `plSpecCommons`, k8s.io/apiserver v0.33).

The server's total is `--max-requests-inflight` + `--max-mutating-requests-inflight` (400 + 200 = 600 seats by
default; `BuildPriorityAndFairness`). A level's nominal limit is `ceil(total × nominalConcurrencyShares / sum of
every level's shares)`, exempt levels' shares included (they are 0 unless an admin sets them); its lendable seats
`round(nominal × lendablePercent / 100)`; the most it may reach by borrowing `nominal + round(nominal ×
borrowingLimitPercent / 100)`, or `nominal` + the server's total when borrowingLimitPercent is unset.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

PRIORITY_LEVEL_MAX_SEATS_PERCENT = 0.15  # priorityLevelMaxSeatsPercent


@dataclass(frozen=True)
class LevelLimits:
    name: str
    exempt: bool
    nominal: int          # NominalCL
    lendable: int         # LendableCL
    borrowing_limit: int  # MaxCL: nominal + what it may borrow
    queues: int = 0       # 0: `limitResponse.type: Reject` (or exempt)
    hand_size: int = 0
    queue_length_limit: int = 0
    max_seats: int = 0    # MaxSeatsTracker's value; 0 when not a queuing level


def _int(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _go_round(x: float) -> int:
    """Go's `math.Round`: halves away from zero (Python's `round` goes to even)."""
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def _commons(spec: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """(exempt?, the `limited` or `exempt` section): `plSpecCommons`."""
    if spec.get("type") == "Exempt":
        return True, spec.get("exempt") or {}
    return False, spec.get("limited") or {}


def concurrency_limits(levels: Iterable[dict[str, Any]], server_limit: int) -> dict[str, LevelLimits]:
    """name → LevelLimits for the stored PriorityLevelConfigurations (already defaulted by the registry)."""
    specs = [(o["metadata"]["name"], o.get("spec") or {}) for o in levels]
    share_sum = sum(_int(_commons(spec)[1].get("nominalConcurrencyShares")) for _, spec in specs)
    out: dict[str, LevelLimits] = {}
    for name, spec in specs:
        exempt, section = _commons(spec)
        shares = _int(section.get("nominalConcurrencyShares"))
        nominal = math.ceil(server_limit * shares / share_sum) if share_sum > 0 else 0
        lendable = _go_round(nominal * _int(section.get("lendablePercent")) / 100)
        borrowing = section.get("borrowingLimitPercent")
        max_cl = nominal + (_go_round(nominal * borrowing / 100) if isinstance(borrowing, int) else server_limit)
        queues = hand = qll = max_seats = 0
        if not exempt:
            response = section.get("limitResponse") or {}
            if response.get("type") == "Queue":
                queuing = response.get("queuing") or {}
                queues, hand, qll = (_int(queuing.get("queues"), 64), _int(queuing.get("handSize"), 8),
                                     _int(queuing.get("queueLengthLimit"), 50))
                hand = max(1, min(hand, queues))
                max_seats = max(1, min(math.ceil(nominal * PRIORITY_LEVEL_MAX_SEATS_PERCENT), nominal // hand))
        out[name] = LevelLimits(name, exempt, nominal, lendable, max_cl, queues, hand, qll, max_seats)
    return out


__all__ = ["LevelLimits", "concurrency_limits"]

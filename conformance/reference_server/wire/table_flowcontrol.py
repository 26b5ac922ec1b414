"""Table printers of the flowcontrol kinds (registry/flowcontrol.py), after upstream's
`pkg/printers/internalversion/printers.go` (`printFlowSchema`, `printPriorityLevelConfiguration`): the same columns
(all of type string, numbers printed as numbers), in the same order, with the same cells: `<none>` for an absent
distinguisher or queuing setting, the `Dangling` condition's status as MissingPL (`?` without one).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

NONE = "<none>"
Col = Callable[..., dict[str, Any]]

_PL_NAME = "`name` is the name of the priority level configuration being referenced Required."
_PRECEDENCE = ("`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen "
               "FlowSchema is among those with the numerically lowest (which we take to be logically highest) "
               "MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the "
               "precedence is not specified, it will be set to 1000 as default.")
_DISTINGUISHER = ("`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this "
                  "schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty "
                  "string.")
_TYPE = ("`type` indicates whether this priority level is subject to limitation on request execution.  A value of "
         "`\"Exempt\"` means that requests of this priority level are not subject to a limit (and thus are never "
         "queued) and do not detract from the capacity made available to other priority levels.  A value of "
         "`\"Limited\"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the "
         "server's limited capacity is made available exclusively to this priority level. Required.")
_SHARES = ("`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) "
           "of this level. This is the number of execution seats available at this priority level. This is used "
           "both for requests dispatched from this priority level as well as requests dispatched from other "
           "priority levels borrowing seats from this level. The server's concurrency limit (ServerCL) is divided "
           "among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL "
           "* NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal "
           "concurrency limit, at the expense of every other priority level.\n\nIf not specified, this field "
           "defaults to a value of 30.\n\nSetting this field to zero supports the construction of a \"jail\" for "
           "this priority level that is used to hold some request(s)")
_QUEUES = ("`queues` is the number of queues for this priority level. The queues exist independently at each "
           "apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus "
           "makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value "
           "of 64.")
_HAND = ("`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When "
         "enqueuing a request at this priority level the request's flow identifier (a string pair) is hashed and the "
         "hash value is used to shuffle the list of queues and deal a hand of the size specified here.  The request "
         "is put into one of the shortest queues in that hand. `handSize` must be no larger than `queues`, and "
         "should be significantly smaller (so that a few heavy flows do not saturate most of the queues).  See the "
         "user-facing documentation for more extensive guidance on setting this field.  This field has a default "
         "value of 8.")
_LENGTH = ("`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this "
           "priority level at a time; excess requests are rejected.  This value must be positive.  If not "
           "specified, it will be defaulted to 50.")


def printers(col: Col, name: dict[str, Any], age_col: dict[str, Any],
             age: Callable[[dict[str, Any], datetime], str]) -> dict[str, tuple[list[dict[str, Any]], Callable]]:
    """kind → (columns, printer), built with `table`'s column helpers."""

    def flowschema(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec = obj.get("spec") or {}
        method = spec.get("distinguisherMethod")
        missing = "?"
        for cond in (obj.get("status") or {}).get("conditions") or []:
            if isinstance(cond, dict) and cond.get("type") == "Dangling":
                missing = cond.get("status", "")
                break
        return [obj["metadata"].get("name", ""), (spec.get("priorityLevelConfiguration") or {}).get("name", ""),
                spec.get("matchingPrecedence", 0), method.get("type", "") if isinstance(method, dict) else NONE,
                age(obj, now), missing]

    def prioritylevel(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec = obj.get("spec") or {}
        shares: Any = NONE
        queues: Any = NONE
        hand: Any = NONE
        length: Any = NONE
        limited = spec.get("limited")
        if isinstance(limited, dict):
            shares = limited.get("nominalConcurrencyShares", 0)
            queuing = (limited.get("limitResponse") or {}).get("queuing")
            if isinstance(queuing, dict):
                queues, hand, length = (queuing.get(k, 0) for k in ("queues", "handSize", "queueLengthLimit"))
        return [obj["metadata"].get("name", ""), spec.get("type", ""), shares, queues, hand, length, age(obj, now)]

    return {
        "FlowSchema": ([name, col("PriorityLevel", _PL_NAME), col("MatchingPrecedence", _PRECEDENCE),
                        col("DistinguisherMethod", _DISTINGUISHER), age_col,
                        col("MissingPL", "indicates if the referenced priority level exists or not")], flowschema),
        "PriorityLevelConfiguration": ([name, col("Type", _TYPE), col("NominalConcurrencyShares", _SHARES),
                                        col("Queues", _QUEUES), col("HandSize", _HAND),
                                        col("QueueLengthLimit", _LENGTH), age_col], prioritylevel),
    }

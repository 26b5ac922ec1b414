"""Scale (opt-in, `--scale N`): per-namespace operations grow logarithmically or better with the number
of namespaces (the 2014 proposal's "log n scale with increasing numbers of scopes").

Namespaces are created in steps (1, 3, 10, … N), each with `--scale-objects` ConfigMaps; at every step
the operations of `conformance.scale.measure` are timed in the first namespace (the same one throughout,
so the only thing that changes is how many others exist). The clause compares the median at N with the
median at the first step; the curves, their fits and every raw point go to conformance.json and the
HTML report. A failed comparison is measured once more before it counts (a shared machine's load comes
and goes; a scanning server is slow every time).
"""

from __future__ import annotations

import secrets
import statistics
import time
from typing import Any

import pytest

from conformance.fixtures.namespaces import LIVE
from conformance.scale.console import progress_for
from conformance.scale.fit import LIMIT, growth
from conformance.scale.measure import JUDGED, REPORTED, control_once, measure_step, relative, settle
from conformance.scale.options import SCALE_DATA_KEY, scale_options
from conformance.scale.plan import JUDGED_RATIO, steps
from conformance.scale.population import Population
from conformance.wait import scaled

LABELS = {"list": "per-namespace LIST", "get": "GET", "watch_start": "watch start",
          "event_delivery": "event delivery", "cross_namespace_list": "cross-namespace LIST",
          "namespace_deletion": "namespace deletion"}


def _untrack(namespaces: Any, names: list[str]) -> None:
    for name in names:
        LIVE.discard(name)
        if name in namespaces.tracked:
            namespaces.tracked.remove(name)


def _medians(samples: dict[str, list[float]]) -> dict[str, float | None]:
    return {op: (statistics.median(v) if v else None) for op, v in samples.items()}


@pytest.mark.scale
@pytest.mark.clause("NS-SCALE-001")
def test_per_namespace_operations_scale_log_n(request: pytest.FixtureRequest, api, paths, namespaces, target) -> None:
    n, objects, rounds = scale_options(request.config)
    assert n is not None
    plan = steps(n)
    prefix = f"nsc-scale-{secrets.token_hex(3)}"
    pop = Population(api, paths, labels=namespaces.labels, objects=objects, name_for=lambda i: f"{prefix}-{i}",
                     progress=progress_for(request.config))
    data: dict[str, Any] = {"n": n, "objects": objects, "rounds": rounds, "steps": [], "growth": {},
                            "judged_ratio": JUDGED_RATIO, "limit": LIMIT, "judged_operations": list(JUDGED),
                            "reported_operations": list(REPORTED)}
    request.node.stash[SCALE_DATA_KEY] = data  # filled in as the run goes: partial on failure
    deletions = [0]

    def delete_one_namespace() -> float:
        name = f"{prefix}-del-{deletions[0]}"
        deletions[0] += 1
        namespaces.track(name)
        pop.create_one(name)
        t0 = time.perf_counter()
        pop.delete_one(name)
        left = pop.wait_gone({name}, time.monotonic() + scaled(60))
        elapsed = time.perf_counter() - t0
        assert not left, f"namespace {name} was not gone {scaled(60):.0f} s after its DELETE"
        _untrack(namespaces, [name])
        return elapsed

    try:
        baseline = min(control_once(pop.session(), api.url) for _ in range(15))
        data["control_baseline_s"] = baseline

        def measure_at(count: int, new: int = 0) -> dict[str, Any]:
            # a batch sets controllers writing into each new namespace: give them time to finish
            quiet = settle(pop, paths, baseline, timeout=scaled(15 + 0.02 * new))
            # the first step is what every other is compared with: three times the rounds, so one quiet or
            # busy moment of the machine does not set the bar
            samples, controls = measure_step(pop, paths, pop.names[0], rounds * (3 if count == plan[0] else 1),
                                             namespaces.selector, delete_one_namespace)
            return {"namespaces": count, "settle": quiet, "samples_s": samples, "median_s": _medians(samples),
                    "control_samples_s": controls, "relative": relative(samples, controls)}

        for count in plan:
            before = len(pop.names)
            created = pop.grow_to(count, namespaces.track)
            if count == plan[0]:  # once through the recorded client: the report's endpoint coverage and,
                _recorded_sample(api, paths, namespaces, pop.names[0])  # on failure, exchanges
                measure_step(pop, paths, pop.names[0], 1, namespaces.selector, None)  # warm-up, not kept:
                # first requests fill the server's caches and open connections
            step = measure_at(count, count - before)
            step["create_s"] = round(created, 3)
            data["steps"].append(step)

        verdict = _judge(data)
        for _ in range(2):  # a failed comparison is measured again before it counts
            if not any(g["ok"] is False for g in verdict.values()):
                break
            again = measure_at(plan[-1])
            last = data["steps"][-1]
            last.setdefault("remeasured", []).append(again)
            for op in JUDGED:
                if again["relative"][op] is not None and again["relative"][op] < last["relative"][op]:
                    last["relative"][op] = again["relative"][op]
                    last["median_s"][op] = again["median_s"][op]
            verdict = _judge(data)
        data["growth"] = verdict | {op: growth(_points(data, op), JUDGED_RATIO, judge=False) for op in REPORTED
                                    if all(s["median_s"].get(op) is not None for s in data["steps"])}
    finally:
        t0 = time.monotonic()
        count = len(pop.names)
        if target.kind == "embedded":  # discarded with its namespaces at the end of the run: no removal to wait for
            left: list[str] = []
            data["removal"] = {"namespaces": count, "seconds": 0.0, "left": [],
                               "skipped": "embedded server: discarded after the run"}
        else:
            left = pop.remove(timeout=scaled(120 + 0.05 * count))
            data["removal"] = {"namespaces": count, "seconds": round(time.monotonic() - t0, 3), "left": left[:20]}
        _untrack(namespaces, [x for x in list(namespaces.tracked) if x.startswith(prefix) and x not in left])
        pop.close()

    failures = [f"{LABELS[op]} costs {g['ratio']:.2f}× at {g['last']:,} namespaces what it cost at {g['first']:,}, "
                f"relative to GET /version timed with it (limit {LIMIT:g}×; median {_ms(_points(data, op)[0][1])} → "
                f"{_ms(_points(data, op)[-1][1])}, raw ratio {g['raw_ratio']:.2f}×; fitted "
                f"{g['fit']['model']}: {g['fit']['formula']})" for op, g in verdict.items() if g["ok"] is False]
    assert not failures, "per-namespace operations grow faster than log n:\n" + "\n".join(failures)
    if not any(g["judged"] for g in verdict.values()):
        pytest.skip(f"reported, not judged: N/first = {plan[-1] // plan[0]} < {JUDGED_RATIO:,} "
                    f"(use --scale {JUDGED_RATIO * plan[0]} or more)")


def _recorded_sample(api, paths, namespaces, ns: str) -> None:
    """One of each request the measurements send (unrecorded, thousands of times), through the recording
    client: the endpoint coverage counts them like any suite's, and a failure report shows them."""
    coll = paths.content(ns, "configmaps")
    for path, params in ((coll, None), (paths.content(ns, "configmaps", "scale-0"), None),
                         (paths.all_namespaces("configmaps"), {"labelSelector": namespaces.selector, "limit": "500"})):
        r = api.get(path, params=params)
        assert r.status_code == 200, f"GET {path}: expected 200, got {r.status_code}: {r.text[:300]}"
    rv = str((r.json().get("metadata") or {}).get("resourceVersion") or "")
    name = "probe-recorded"
    with api.watch(coll, params={"watch": "true", "resourceVersion": rv}, timeout_s=scaled(60)) as w:
        assert w.status_code == 200, f"WATCH {coll}: HTTP {w.status_code}: {w.error_body}"
        body = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": ns, "labels": dict(namespaces.labels)}}
        r = api.post(coll, body)
        assert r.status_code == 201, f"POST {coll}: expected 201, got {r.status_code}: {r.text[:300]}"
        w.until(lambda ev: ev["type"] == "ADDED" and ev["object"]["metadata"]["name"] == name, scaled(60),
                f"the ADDED event of configmap {name}")
    r = api.delete(paths.content(ns, "configmaps", name))
    assert r.status_code in (200, 202), f"DELETE configmap {name}: {r.status_code}: {r.text[:300]}"
    gone = namespaces.create("scale-del")["metadata"]["name"]  # the deletion probe's DELETE (reaped at the end)
    r = api.delete(paths.namespace(gone))
    assert r.status_code in (200, 202), f"DELETE namespace {gone}: {r.status_code}: {r.text[:300]}"


def _points(data: dict[str, Any], op: str) -> list[tuple[int, float]]:
    return [(s["namespaces"], s["median_s"][op]) for s in data["steps"]]


def _judge(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Judged on the relative cost (op/control); the raw ratio and the fit of the raw medians go along."""
    out = {}
    for op in JUDGED:
        raw = growth(_points(data, op), JUDGED_RATIO)
        rel = growth([(s["namespaces"], s["relative"][op]) for s in data["steps"]], JUDGED_RATIO)
        out[op] = rel | {"raw_ratio": raw["ratio"], "fit": raw["fit"], "relative_fit": rel["fit"]}
    return out


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"

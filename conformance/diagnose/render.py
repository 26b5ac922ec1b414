"""Plain-text rendering of a `Diagnosis` (the JSON form is `Diagnosis.to_dict`)."""
from __future__ import annotations

from .model import Diagnosis


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "an unknown time"
    s = int(seconds)
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    parts = [f"{d}d"] if d else []
    parts += [f"{h}h"] if h else []
    parts += [f"{m}m"] if m and not d else []
    parts += [f"{s}s"] if not d and not h else []
    return "".join(parts) or "0s"


def text(d: Diagnosis) -> str:
    lines: list[str] = []
    if d.unavailable_apiservices:
        lines.append("Unavailable aggregated APIs (they keep every terminating namespace):")
        lines += [f"  {a.name} ({a.group_version}): {a.reason}: {a.message}" for a in d.unavailable_apiservices]
        lines.append("")
    for u in d.unreadable:
        lines.append(f"Could not read {u.what}: {u.reason}")
    if d.unreadable:
        lines.append("")
    if not d.namespaces:
        lines.append("No namespace is terminating.")
    for n in d.namespaces:
        if not n.found:
            why = n.unreadable[0].reason if n.unreadable else "not found"
            lines.append(f"Namespace {n.name}: {why}")
            lines.append("")
            continue
        if not n.terminating:
            lines.append(f"Namespace {n.name}: {n.phase or 'Active'}, not terminating: nothing to release.")
            lines.append("")
            continue
        lines.append(f"Namespace {n.name}: Terminating for {duration(n.terminating_for_s)} "
                     f"(deletionTimestamp {n.deletion_timestamp})")
        lines.append(f"  spec.finalizers: {', '.join(n.spec_finalizers) or '(none)'}")
        if n.metadata_finalizers:
            lines.append(f"  metadata.finalizers: {', '.join(n.metadata_finalizers)}")
        failing = [c for c in n.conditions if c.get("status") == "True"]
        if failing:
            lines.append("  Conditions:")
            lines += [f"    {c.get('type')} ({c.get('reason')}): {c.get('message')}" for c in failing]
        if n.remaining:
            lines.append("  Remaining objects:")
            for o in n.remaining:
                extra = f"  finalizers: {', '.join(o.finalizers)}" if o.finalizers else ""
                lines.append(f"    {o.resource}/{o.name}{extra}{'  (being deleted)' if o.deleting else ''}")
        if n.unreadable:
            lines.append("  Could not check:")
            lines += [f"    {u.what}: {u.reason}" for u in n.unreadable]
        lines.append("  What holds it, and what to do (in this order):")
        for i, r in enumerate(n.remedies, 1):
            lines.append(f"   {i}. {r.explanation}")
            lines += [f"        $ {c}" for c in r.commands]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"

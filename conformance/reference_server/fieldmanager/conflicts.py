"""The 409 an apply conflict answers (upstream `managedfields/internal/conflict.go`, `NewApplyConflict`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import apierrors as E
from .fieldpath import Path, path_string

if TYPE_CHECKING:
    from .managed import Entry


def conflict_error(conflicts: list[tuple["Entry", list[Path]]]) -> E.StatusError:
    """`Apply failed with 1 conflict: conflict with "mgr" using v1: .data.key`; several conflicts are listed
    per manager (managers sorted by their identifier), one `FieldManagerConflict` cause each."""
    ordered = sorted(conflicts, key=lambda c: c[0].ident_json())
    flat = [(e, p) for e, paths in ordered for p in paths]
    if len(flat) == 1:
        e, p = flat[0]
        message = f"Apply failed with 1 conflict: conflict with {e.describe()}: {path_string(p)}"
    else:
        lines = []
        for e, paths in ordered:
            lines.append(f"conflicts with {e.describe()}:")
            lines.extend(f"- {path_string(p)}" for p in paths)
        message = f"Apply failed with {len(flat)} conflicts: " + "\n".join(lines)
    causes = [{"reason": "FieldManagerConflict", "message": f"conflict with {e.describe()}", "field": path_string(p)}
              for e, p in flat]
    return E.StatusError(E.status_dict(409, "Conflict", message, {"causes": causes}))

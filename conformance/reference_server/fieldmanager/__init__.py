"""Server-side apply and managedFields (upstream `k8s.io/apimachinery/pkg/util/managedfields` over
`sigs.k8s.io/structured-merge-diff`): field sets, per-kind list types, the apply merge, conflicts and the
managedFields updater. Pure functions over JSON objects: the HTTP handlers run it, the registry calls the
hook it is handed, storage never sees it."""
from .manager import FieldManager, manager_or_user_agent

__all__ = ["FieldManager", "manager_or_user_agent"]

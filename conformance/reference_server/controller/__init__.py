"""The namespace deletion controller."""
from .conditions import CONDITION_TYPES, update_conditions
from .deleter import NamespaceController

__all__ = ["CONDITION_TYPES", "NamespaceController", "update_conditions"]

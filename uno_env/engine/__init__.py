"""The numpy batch engine: struct-of-arrays state, no RL API."""

from .core import Engine, IllegalActionError
from .state import PHASE_NAMES

__all__ = ["Engine", "IllegalActionError", "PHASE_NAMES"]

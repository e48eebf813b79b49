"""The batch interface every agent implements.

An agent acts on a batch of decisions at once: ``act(observations, masks, rng)``
gets the acting players' observations ``float32[B, D]`` and legal-action masks
``bool[B, A]`` and returns one action id per row. The project's agents (subclasses of
:class:`Agent`) also take what each interface hands out as it comes (:func:`as_batch`):
masks of any 0/1 dtype (PettingZoo's ``int8``, RLlib's ``float32``), an observation
dict (PettingZoo's ``{"observation", "action_mask"}``, RLlib's ``{"observations",
"action_mask"}``, whose mask is used when ``masks`` is None), and one decision
unbatched (``float32[D]`` and ``[A]``, answered with one action id). Agents see nothing but their
observation and mask, so a heuristic cannot peek at hidden cards, and random,
rule-based, search and trained agents are interchangeable in envs, experiments
and tournaments.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from uno_env.actions import NUM_ACTIONS
from uno_env.agent_registry import choose_actions, choose_in_parts
from uno_env.checks import describe

#: ``choose_actions`` and ``choose_in_parts`` live in the environment's agent registry
#: (the environment calls them) and are part of this interface too.
__all__ = ["Agent", "BatchAgent", "as_batch", "check_act", "check_batch", "choose_actions",
           "choose_in_parts", "masked_argmax"]

#: The keys of an observation in the interfaces' observation dicts: PettingZoo's, RLlib's.
OBSERVATION_KEYS = ("observation", "observations")

if TYPE_CHECKING:
    from uno_env.engine import Engine


@runtime_checkable
class BatchAgent(Protocol):
    """Anything with the batch ``act`` method (structural type for type checkers)."""

    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray: ...


class Agent(ABC):
    """Base class of the project's agents.

    ``act`` must return ``int64[B]`` legal action ids (any id for a row whose
    mask is all False, e.g. a finished game). Subclasses must not keep per-game
    state between calls unless they document it: envs call ``act`` on varying
    subsets of their games.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every ``act`` a subclass defines checks its arguments first (:func:`check_act`):
        a malformed batch raises ``TypeError``/``ValueError`` naming the argument."""
        super().__init_subclass__(**kwargs)
        act = cls.__dict__.get("act")
        if act is None or getattr(act, "__isabstractmethod__", False) \
                or getattr(act, "checks_arguments", False):
            return

        @functools.wraps(act)
        def checked_act(self: Agent, observations: Any, masks: Any = None,
                        rng: np.random.Generator | None = None) -> Any:
            observations, masks, single = as_batch(observations, masks)
            check_act(observations, masks, rng, getattr(self, "uses_rng", True))
            actions = act(self, observations, masks, rng)
            return np.asarray(actions)[0] if single else actions

        checked_act.checks_arguments = True   # type: ignore[attr-defined]
        cls.act = checked_act   # type: ignore[method-assign]

    #: A short name used by tournaments, logs and :func:`uno_agents.make_agent`.
    name: str = "agent"
    #: False for agents that ignore their observations (envs may then pass zeros
    #: instead of building them, which saves time in large batches).
    uses_observations: bool = True
    #: True for agents that pick uniformly among the legal actions: envs may then
    #: play them inside the engine (:func:`uno_env.engine.playouts.play_random`, compiled
    #: on numba), with their own random stream, the same on both backends.
    plays_uniformly: bool = False
    #: True for agents that also read the public part of the game (search agents
    #: rebuild possible worlds from it): callers that own the engine must use
    #: :meth:`act_in` (or :func:`choose_actions`), ``act`` alone is not enough.
    needs_engine: bool = False
    #: False for agents whose action for a row depends on that row's observation and
    #: mask only (never on ``rng`` nor on the other rows): tournaments may then hand
    #: them the decisions of many random streams in one call.
    uses_rng: bool = True
    #: True for agents whose ``act`` picks exactly what their ``playout_policy`` table picks
    #: in the compiled engine (``greedy``, ``tuned``, ``defender``): tournaments may then
    #: play them inside the engine (:func:`uno_env.engine.playouts.play_policies`). It holds for the
    #: class that sets it, not for a subclass that overrides ``act``, ``act_in``, ``scores``
    #: or ``playout_policy`` (unless that subclass sets it again).
    acts_by_playout_policy: bool = False

    @abstractmethod
    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        """One legal action id per row of ``masks``."""

    def act_in(self, engine: Engine, games: np.ndarray, observations: np.ndarray,
               masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``act`` for the acting players of ``engine``'s games ``games`` (one per row).

        The default ignores the engine. Agents with ``needs_engine`` override it and
        read only the public part of those games (never another player's hand or
        the order of the draw pile): see :func:`uno_env.engine.worlds.public_state`.
        """
        return self.act(observations, masks, rng)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def as_batch(observations: Any, masks: Any = None) -> tuple[Any, Any, bool]:
    """``(observations, masks, single)`` as the batch ``act`` works on, from what an
    interface gives: an observation dict (:data:`OBSERVATION_KEYS`, with its
    ``"action_mask"`` when ``masks`` is None), masks of any numeric dtype holding only
    0 and 1 (read as bool; ``ValueError`` naming ``masks`` for another value), and one
    decision (1-D observation and mask) as a batch of one, ``single`` True. Anything
    else is returned as given, for :func:`check_act` to name what is wrong."""
    if isinstance(observations, dict):
        found = [k for k in OBSERVATION_KEYS if k in observations]
        if not found:
            raise TypeError(f"an observation dict needs one of the keys "
                            f"{', '.join(map(repr, OBSERVATION_KEYS))}, got keys "
                            f"{', '.join(map(repr, observations)) or 'none'}")
        if masks is None:
            masks = observations.get("action_mask")
        observations = observations[found[0]]
    if isinstance(masks, np.ndarray) and masks.dtype != bool and masks.dtype.kind in "iuf":
        if not ((masks == 0) | (masks == 1)).all():
            raise ValueError(f"masks must hold only 0 and 1 (any numeric dtype, or bool), "
                             f"got other values in a {masks.dtype} array")
        masks = masks != 0
    single = (isinstance(masks, np.ndarray) and masks.ndim == 1
              and isinstance(observations, np.ndarray) and observations.ndim == 1)
    if single:
        observations, masks = observations[None], masks[None]
    return observations, masks, single


def check_act(observations: Any, masks: Any, rng: Any, uses_rng: bool = True) -> None:
    """Raise ``TypeError`` (a value of the wrong kind) or ``ValueError`` (the wrong shape),
    naming the argument, unless ``masks`` is ``bool[B, NUM_ACTIONS]`` (after
    :func:`as_batch`), ``observations`` a
    numeric ``[B, D]`` array and (for an agent that ``uses_rng``) ``rng`` a numpy
    Generator."""
    if not isinstance(masks, np.ndarray) or masks.dtype != bool:
        raise TypeError(f"masks must be a numpy array [B, {NUM_ACTIONS}] of 0/1 (bool, int8, "
                        f"float32, ...), got "
                        f"{describe(masks) if not isinstance(masks, np.ndarray) else masks.dtype}")
    if masks.ndim != 2 or masks.shape[1] != NUM_ACTIONS:
        raise ValueError(f"masks must be bool[B, {NUM_ACTIONS}], got shape {masks.shape}")
    if not isinstance(observations, np.ndarray) or observations.dtype.kind not in "fiub":
        shown = (observations.dtype if isinstance(observations, np.ndarray)
                 else describe(observations))
        raise TypeError(f"observations must be a numeric numpy array [B, D], got {shown}")
    if observations.ndim != 2:
        raise ValueError(f"observations must be float32[B, D], got shape {observations.shape}")
    if observations.shape[0] != masks.shape[0]:
        raise ValueError(f"observations and masks must have one row per decision, got "
                         f"{observations.shape[0]} and {masks.shape[0]} rows")
    if uses_rng and not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng), got "
                        f"{describe(rng)}")


def check_batch(observations: np.ndarray, masks: np.ndarray, width: int | None = None) -> None:
    """Raise ``ValueError`` if the observation and mask batches do not line up, or (given
    ``width``, for agents that read their observations) the observations do not have
    ``width`` columns."""
    if masks.ndim != 2:
        raise ValueError(f"masks must be bool[B, A], got shape {masks.shape}")
    if observations.ndim != 2 or observations.shape[0] != masks.shape[0]:
        raise ValueError(f"observations must be float32[B, D] with B={masks.shape[0]}, "
                         f"got shape {observations.shape}")
    if width is not None and observations.shape[1] != width:
        raise ValueError(f"observations must have {width} columns (the engine's observation "
                         f"size), got {observations.shape[1]}")


def masked_argmax(scores: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Index of the best-scoring legal action of each row (0 for rows with none)."""
    return np.where(masks, scores, -np.inf).argmax(axis=1)

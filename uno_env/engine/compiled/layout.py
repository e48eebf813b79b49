"""How the compiled kernels see the engine: the state and the rules as two structs.

The kernels work on the very arrays of :class:`~uno_env.engine.state.State`, so a
game can move between the numpy and the compiled backend at any decision. The
state and the rules each cross into compiled code as one numba ``StructRef`` (a
single pointer: cheap to pass and quick to compile, unlike a tuple of ~50
arrays), so kernel code reads ``s.hands[g, p, k]`` and
``rules.multi_play == MultiPlay.NONE`` (choice options as their codes,
:mod:`uno_env.engine.codes`).
"""

from __future__ import annotations

from dataclasses import fields
from typing import TypeVar

import numpy as np
from numba import njit, types
from numba.experimental import structref

from ...cards import DECKS, NUM_KINDS, POINTS_TABLES
from ...rules import Rules
from ..codes import rule_codes
from ..legal import MATCH, tables
from ..observe import rules_vector
from ..state import State

STATE_FIELDS = tuple(f.name for f in fields(State))
RULE_FIELDS = tuple(f.name for f in fields(Rules))

#: The rules inside compiled code: every option (choices as their index in
#: ``CHOICES``), a few derived flags, and the lookup tables.
RULES_STRUCT_FIELDS = RULE_FIELDS + (
    "can_stack", "has_discard_all", "has_skip_all",
    "matches",      # bool[C, K, K]  MATCH[color, top, kind]
    "compat",       # bool[K, K]     multi-play: may kind b follow kind a
    "respond",      # bool[K, K]     may draw card b answer a chain whose last card is a
    "same_family",  # bool[K+1, K]   stack_no_mixing (row K: no chain yet)
    "group",        # int64[K]       multi-play group of each kind (-1: none)
    "deck_counts",  # int64[K]       cards of each kind in the deck
    "point_values",  # int64[K]      points of each kind under the ``points`` option
    "in_deck",      # bool[K]        the deck holds the kind
    "rules_vec",    # float32[R]     the ``rules`` view of the observation
)


@structref.register
class _StateType(types.StructRef):
    def preprocess_fields(self, members):
        return tuple((name, types.unliteral(t)) for name, t in members)


@structref.register
class _RulesType(types.StructRef):
    def preprocess_fields(self, members):
        return tuple((name, types.unliteral(t)) for name, t in members)


class _TypeInInstance:
    """``_numba_type_`` read from the instance's own ``__dict__``, with no Python code.

    numba's dispatcher asks each argument for ``_numba_type_`` from C, in a way that
    clears any exception raised meanwhile; numba's own property runs Python code, so a
    Ctrl-C arriving in it was raised there and silently dropped (the command played
    on). A non-data descriptor lets the instance's ``__dict__`` answer instead: filled
    when the struct is built here, or else by the first read."""

    def __get__(self, obj: object, owner: type) -> object:
        if obj is None:
            return self
        vars(obj)["_numba_type_"] = obj._type   # type: ignore[attr-defined]
        return obj._type                         # type: ignore[attr-defined]


class StateStruct(structref.StructRefProxy):
    """The fields of State, in order (see ``state.py``)."""

    _numba_type_ = _TypeInInstance()


class RulesStruct(structref.StructRefProxy):
    """The fields of :data:`RULES_STRUCT_FIELDS`."""

    _numba_type_ = _TypeInInstance()


StructT = TypeVar("StructT", StateStruct, RulesStruct)

structref.define_proxy(StateStruct, _StateType, list(STATE_FIELDS))
structref.define_proxy(RulesStruct, _RulesType, list(RULES_STRUCT_FIELDS))


# The structs are built inside cached compiled functions: a proxy's Python constructor
# compiles its builder again in every process (numba does not cache it), seconds a start.
@njit(cache=True)
def _new_state_struct(*values):
    return StateStruct(*values)


@njit(cache=True)
def _new_rules_struct(*values):
    return RulesStruct(*values)


def _typed(struct: StructT) -> StructT:
    """``struct``, its numba type read once into it (see :class:`_TypeInInstance`)."""
    struct._numba_type_   # noqa: B018
    return struct


def rules_struct(rules: Rules) -> RulesStruct:
    """The rules as the struct the kernels take (built once per engine)."""
    codes = rule_codes(rules)
    t = tables(codes)
    options = [int(getattr(codes, name)) for name in RULE_FIELDS]
    same_family = np.ascontiguousarray(t.same_family)
    assert same_family.shape == (NUM_KINDS + 1, NUM_KINDS)
    struct = _new_rules_struct(*options, t.can_stack, t.has_discard_all, t.has_skip_all,
            np.ascontiguousarray(MATCH), np.ascontiguousarray(t.compat),
            np.ascontiguousarray(t.respond), same_family, t.group.astype(np.int64),
            DECKS[rules.deck].astype(np.int64), POINTS_TABLES[rules.points].astype(np.int64),
            np.ascontiguousarray(t.in_deck), rules_vector(rules))
    return _typed(struct)


def state_struct(state: State) -> StateStruct:
    """The state's arrays as the struct the kernels take (the arrays are shared)."""
    return _typed(_new_state_struct(*(getattr(state, name) for name in STATE_FIELDS)))

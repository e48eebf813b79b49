"""Checks of the values users pass in: one wording everywhere, no silent coercion.

Every interface (the :class:`~uno_env.Engine`, the PettingZoo, Gymnasium, SB3 and
RLlib environments, the command line) checks its arguments with these functions
before any state changes, so a bad value fails the same way everywhere:

* ``TypeError`` for a value of the wrong kind: a float, string, bool, None, dict
  or complex number where an integer is needed (``2.0`` included: nothing is
  rounded or parsed);
* ``ValueError`` for a value of the right kind outside its range (a negative
  seed, an action id beyond 64 bits).

Both name the argument and show the value as given. numpy integers (``np.int64(4)``,
``np.uint8``) are accepted wherever Python ints are; ``np.timedelta64``, which numpy
counts among its integers, is a duration and is not.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: Seeds are integers ``0 <= seed < SEED_LIMIT`` (they become int64 game seeds).
SEED_LIMIT = 2**63
_INT64_MAX = np.iinfo(np.int64).max


def describe(value: Any) -> str:
    """``value`` for an error message: its type and (shortened) repr."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def is_integer(value: Any) -> bool:
    """Whether ``value`` is a Python or numpy integer (not a bool, not a numpy duration)."""
    return (isinstance(value, (int, np.integer))
            and not isinstance(value, (bool, np.bool_, np.timedelta64)))


_is_integer = is_integer


def integer(value: Any, name: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int, if it is an integer in ``[low, high]`` (either bound optional)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not _is_integer(value):
        raise TypeError(f"{name} must be an integer, got {describe(value)}")
    number = int(value)
    if (low is not None and number < low) or (high is not None and number > high):
        bounds = (f"between {low} and {high}" if low is not None and high is not None
                  else f"at least {low}" if low is not None else f"at most {high}")
        raise ValueError(f"{name} must be an integer {bounds}, got {number}")
    return number


def real(value: Any, name: str) -> float:
    """``value`` as a float, if it is a finite real number (an int or a float, not a bool)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                       np.floating)):
        raise TypeError(f"{name} must be a real number, got {describe(value)}")
    try:
        number = float(value)
    except OverflowError:   # an int beyond any float
        number = math.inf
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {describe(value)}")
    return number


def seed(value: Any, name: str = "seed", count: int = 1) -> int | None:
    """None, or an integer seed ``0 <= seed`` with ``seed + count - 1 < SEED_LIMIT``
    (an int seed numbers ``count`` games ``seed, seed+1, ...``)."""
    if value is None:
        return None
    return integer(value, name, 0, SEED_LIMIT - count)


def seed_list(values: Any, count: int, name: str = "seed") -> np.ndarray:
    """One seed per game, ``int64[count]``, from a sequence of integer seeds."""
    seeds = _integer_array(values, name)
    if seeds.shape != (count,):
        raise ValueError(f"{name} must be an integer or {count} integers, got {describe(values)}")
    bad = np.flatnonzero([not 0 <= int(s) < SEED_LIMIT for s in seeds.tolist()])
    if bad.size:
        raise ValueError(f"{name}[{bad[0]}] must be an integer between 0 and {SEED_LIMIT - 1}, "
                         f"got {seeds.tolist()[bad[0]]}")
    return seeds.astype(np.int64)


def action(value: Any, name: str = "action") -> int:
    """One action id from an integer (or an integer array holding exactly one)."""
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iu":
        value = value.reshape(())[()]
    return _action_value(integer(value, name), name)


def action_array(values: Any, shape: tuple[int, ...], name: str = "actions",
                 reshape: bool = False) -> np.ndarray:
    """``values`` as ``int64`` action ids of the given shape (with ``reshape``, any
    array of as many values, such as a policy's ``(N, 1)`` column).

    Values that fit 64 bits pass whatever their range (the caller decides what an
    out-of-range id means); larger ones are rejected with their real value.
    """
    array = _integer_array(values, name)
    if reshape and array.size == math.prod(shape):
        array = array.reshape(shape)
    if array.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {array.shape}")
    if array.dtype == object or (array.dtype.kind == "u" and array.size
                                 and array.max() > _INT64_MAX):
        for i, v in enumerate(array.reshape(-1).tolist()):
            _action_value(v, f"{name}[{i}]")
    return array.astype(np.int64)


def _action_value(number: int, name: str) -> int:
    if not -_INT64_MAX - 1 <= number <= _INT64_MAX:
        raise ValueError(f"{name} must be an action id, got {number}")
    return number


def _integer_array(values: Any, name: str) -> np.ndarray:
    """``np.asarray(values)`` if it holds integers only (object arrays of huge ints too).

    The items of a list are checked one by one: numpy would turn ``[True, 2]`` into
    integers.
    """
    if isinstance(values, (list, tuple)):
        odd = [v for v in values if not (_is_integer(v) or isinstance(v, (list, tuple)))]
        if odd:
            raise TypeError(f"{name} must be integers, got {describe(odd[0])} among them")
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as err:  # ragged nesting
        raise TypeError(f"{name} must be integers, got {describe(values)}") from err
    if array.dtype.kind in "iu" or array.size == 0:
        return array
    flat = array.reshape(-1)
    if array.dtype == object and all(_is_integer(v) for v in flat):
        return array
    first = next((v for v in flat.tolist() if not _is_integer(v)), flat[0])
    raise TypeError(f"{name} must be integers, got {array.dtype} values such as "
                    f"{describe(first)}")

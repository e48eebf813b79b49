"""Reading a MaskablePPO ``.zip`` saved by SB3 without unpickling anything.

SB3's own loader unpickles the zip's ``data`` entry, and unpickling runs whatever code
the file asks for. This module reads the same file as data only:

* ``policy.pth``, the policy's tensors, with ``torch.load(weights_only=True)``;
* ``data``, a JSON object whose non-JSON values SB3 stored as base64 pickles. The two
  this needs (``policy_class`` and ``policy_kwargs``) are plain containers, numbers,
  strings and references to classes. :func:`read_plain_pickle` *interprets* such a
  pickle's opcodes itself (a reference to a class becomes a :class:`Global` naming
  it, nothing is imported) and refuses every opcode that would build or call an
  object, so a crafted file can describe code but never run it.

:func:`read_sb3_zip` turns what it read into the JSON config that
:func:`uno_agents.policy.export_policy` stores, and the policy is rebuilt from it as
from a ``.safetensors`` policy file.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import pickletools
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

import torch


class Global(NamedTuple):
    """A reference to ``module.name`` found in a pickle (never imported)."""

    module: str
    name: str


#: Opcodes that push one plain value (their argument, as pickletools decodes it).
_VALUES = {"BININT", "BININT1", "BININT2", "INT", "LONG", "LONG1", "LONG4", "BINFLOAT",
           "FLOAT", "SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE",
           "SHORT_BINSTRING", "BINSTRING", "STRING", "SHORT_BINBYTES", "BINBYTES"}
_CONSTANTS = {"NONE": None, "NEWTRUE": True, "NEWFALSE": False}
_EMPTY = {"EMPTY_DICT": dict, "EMPTY_LIST": list, "EMPTY_TUPLE": tuple}
_TUPLES = {"TUPLE1": 1, "TUPLE2": 2, "TUPLE3": 3}


def read_plain_pickle(data: bytes) -> Any:
    """The value a pickle of plain data describes: dicts, lists, tuples, numbers,
    strings, None and booleans, with references to globals as :class:`Global`.
    Raises ``ValueError`` for any opcode that builds or calls an object (the pickle
    is never executed: its opcodes are interpreted here, one by one)."""
    stack: list[Any] = []
    marks: list[int] = []
    memo: dict[int, Any] = {}

    def since_mark() -> list[Any]:
        start = marks.pop()
        items = stack[start:]
        del stack[start:]
        return items

    arg: Any   # the opcode's argument (None for the opcodes that take none)
    try:
        for op, arg, _ in pickletools.genops(data):
            name = op.name
            if name in ("PROTO", "FRAME"):
                continue
            if name == "STOP":
                return stack.pop()
            if name in _VALUES:
                stack.append(arg)
            elif name in _CONSTANTS:
                stack.append(_CONSTANTS[name])
            elif name in _EMPTY:
                stack.append(_EMPTY[name]())
            elif name == "MARK":
                marks.append(len(stack))
            elif name == "TUPLE":
                stack.append(tuple(since_mark()))
            elif name in _TUPLES:
                members = tuple(stack[-_TUPLES[name]:])
                del stack[-_TUPLES[name]:]
                stack.append(members)
            elif name == "APPEND":
                value = stack.pop()
                stack[-1].append(value)
            elif name == "APPENDS":
                items = since_mark()
                stack[-1].extend(items)
            elif name == "SETITEM":
                value, key = stack.pop(), stack.pop()
                stack[-1][key] = value
            elif name == "SETITEMS":
                items = since_mark()
                stack[-1].update(zip(items[::2], items[1::2], strict=True))
            elif name == "STACK_GLOBAL":
                attribute, module = stack.pop(), stack.pop()
                stack.append(Global(str(module), str(attribute)))
            elif name == "GLOBAL":
                module, _, attribute = str(arg).partition(" ")
                stack.append(Global(module, attribute))
            elif name == "MEMOIZE":
                memo[len(memo)] = stack[-1]
            elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
                memo[int(arg)] = stack[-1]
            elif name in ("GET", "BINGET", "LONG_BINGET"):
                stack.append(memo[int(arg)])
            else:
                raise ValueError(f"it builds or calls objects (opcode {name})")
    except ValueError:
        raise
    except (IndexError, KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"a malformed pickle ({type(e).__name__})") from None
    raise ValueError("a pickle without its end")


def _stored(entry: Any) -> Any:
    """A value of SB3's ``data`` JSON: the value itself, or its pickle read as data."""
    if isinstance(entry, dict) and ":serialized:" in entry:
        try:
            raw = base64.b64decode(entry[":serialized:"], validate=True)
        except (binascii.Error, TypeError, ValueError):
            raise ValueError("a stored value is not base64") from None
        return read_plain_pickle(raw)
    return entry


def _global_name(value: Any, what: str) -> str:
    if not isinstance(value, Global):
        raise ValueError(f"its {what} is not a class reference")
    return value.name


def read_sb3_zip(path: Path) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    """``(config, tensors)`` of a MaskablePPO zip, read as data only (module doc).
    ``config`` is in :func:`uno_agents.policy.policy_config`'s form, the observation
    views are worked out by the caller from ``views`` (None when the file names
    none). Raises ``ValueError`` (without the file's name) for anything else."""
    try:
        with zipfile.ZipFile(path) as z:
            data = json.loads(z.read("data"))
            pth = z.read("policy.pth")
    except (zipfile.BadZipFile, KeyError, OSError, ValueError) as e:
        raise ValueError(f"not an SB3 model zip ({type(e).__name__}: {e})") from None
    try:
        tensors = torch.load(io.BytesIO(pth), map_location="cpu", weights_only=True)
    except Exception as e:  # torch fails in many ways on a bad file
        raise ValueError(f"its policy.pth is not plain tensors ({type(e).__name__})") from None
    if not isinstance(data, dict) or not isinstance(tensors, dict):
        raise ValueError("not an SB3 model zip (its data or tensors are not mappings)")
    policy = _global_name(_stored(data.get("policy_class")), "policy class")
    kwargs = _stored(data.get("policy_kwargs", {})) or {}
    if not isinstance(kwargs, dict):
        raise ValueError("its policy_kwargs are not a mapping")
    first = tensors.get("mlp_extractor.policy_net.0.weight", tensors.get("action_net.weight"))
    if first is None or "action_net.weight" not in tensors:
        raise ValueError("its tensors are not an actor-critic policy's")
    extractor = kwargs.get("features_extractor_class")
    features = kwargs.get("features_extractor_kwargs") or {}
    ours = extractor is not None and _global_name(extractor, "features extractor") \
        == "UnoFeatures"
    if extractor is not None and not ours:
        raise ValueError(f"its features extractor {extractor.name} is not UnoFeatures")
    activation = kwargs.get("activation_fn")
    config = {
        "policy": policy,
        "net_arch": kwargs.get("net_arch", {"pi": [64, 64], "vf": [64, 64]}),
        "activation": "Tanh" if activation is None else _global_name(activation, "activation"),
        "share_features_extractor": kwargs.get("share_features_extractor", True),
        "scale": bool(features.get("scale", True)) if ours else False,
        "views": features.get("views") if ours else None,
        "obs_size": int(first.shape[1]),
        "actions": int(tensors["action_net.weight"].shape[0])}
    for key in ("prior", "prior_scale"):
        if key in kwargs:
            config[key] = kwargs[key]
    return config, tensors

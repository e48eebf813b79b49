"""Standalone network policies: observation and mask in, action out (``net:<model>``).

Needs the ``train`` extra (torch, safetensors). A :class:`PolicyNet` is a perceptron
on the scaled observation with two heads: action logits and a value (the expected
reward of the player to move). :class:`NetAgent` plays its most likely legal action
(or a sample of its masked softmax): no heuristic, search or hand-written score is
involved at decision time, only the network.

**Files that never run code.** A network is saved as a ``.safetensors`` file (plain
tensors; the format has no code path) whose header carries the network's shape and
the observation layout it was trained on as JSON, with a model card
(``<stem>.json``: recipe, command, seeds, budget, results) beside it. Loading reads
tensors and JSON only: a file that is not a valid safetensors file, or whose
tensors do not fit the shape it declares, is refused with a ``ValueError`` naming
the file and what is wrong.

**Observation versions.** The header records the views (name and width) and the
rule options of the ``rules`` view the network read. Loading maps them onto this
version's observation by name, so a network keeps working when later versions add
views or rule options, and a network that needs a view this version lacks is
refused at load time, not at its first move.

``make_agent("net:official-2p")`` loads a shipped network from ``agents/models/``;
``net:path/to/model.safetensors`` (any spec with a path separator or a suffix)
loads a file, never a shipped model of the same name.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import torch

from uno_env.actions import NUM_ACTIONS
from uno_env.engine.observe import OBS_SIZE, VIEW_SLICES, VIEWS
from uno_env.engine.packed import packed_views
from uno_env.engine.packed_rows import observe_packed
from uno_env.files import write_atomic
from uno_env.rules import CHOICES, Rules

from .base import Agent, check_batch
from .files import (
    check_parameters,
    check_widths,
    parse_header,
    read_tensors,
    resolve_model,
    safetensors_header,
)

#: Where shipped networks live: ``net:<stem>`` finds ``MODELS_DIR/<stem>.safetensors``.
MODELS_DIR = Path(__file__).parent / "models"
SUFFIX = ".safetensors"
#: Version of the header layout written by :func:`save_net` for a :class:`PolicyNet`.
FORMAT = 1
#: Version of the header of the learner's other networks: it names their ``encoder``
#: (``packed``: :class:`uno_agents.training.encoder.PackedNet`; ``dense-separate``:
#: :class:`uno_agents.training.nets.DenseActorCritic`). A header without one is format 1.
FORMAT_ENCODERS = 2


def _num_players_column() -> int:
    """The observation column of the ``num_players`` option (the player count / 10)."""
    at = VIEW_SLICES["rules"].start
    for name, width in rule_fields():
        if name == "num_players":
            return at
        at += width
    raise RuntimeError("the rules view has no num_players option")


def rule_fields() -> list[tuple[str, int]]:
    """``(option, width)`` of every rule option in the ``rules`` view, in its order."""
    return [(f.name, len(CHOICES[f.name]) if f.name in CHOICES else 1) for f in fields(Rules)]


def current_layout() -> dict[str, Any]:
    """This version's observation layout as a header records it."""
    return {"views": [[name, size] for name, size, _ in VIEWS],
            "rule_fields": [[name, width] for name, width in rule_fields()]}


def layout_columns(layout: dict[str, Any]) -> np.ndarray | None:
    """Columns of this version's observation that make up a recorded ``layout``, in its
    order (None: the layout is this version's). Raises ``ValueError`` naming the first
    view or rule option the layout needs and this version lacks (or has at another
    width)."""
    views = [(str(n), int(s)) for n, s in layout["views"]]
    rules = [(str(n), int(w)) for n, w in layout["rule_fields"]]
    if views == [(n, s) for n, s, _ in VIEWS] and rules == rule_fields():
        return None
    starts, at = {}, 0
    for name, width in rule_fields():
        starts[name] = (at, width)
        at += width
    rules_start = VIEW_SLICES["rules"].start
    columns = []
    for name, size in views:
        if name == "rules":
            for option, width in rules:
                if starts.get(option, (0, -1))[1] != width:
                    raise ValueError(f"the network reads rule option {option!r} of width "
                                     f"{width}, which this version's rules view lacks")
                lo = rules_start + starts[option][0]
                columns.append(np.arange(lo, lo + width))
            continue
        view = VIEW_SLICES.get(name)
        if view is None or view.stop - view.start != size:
            now = "absent" if view is None else f"of size {view.stop - view.start}"
            raise ValueError(f"the network reads observation view {name!r} of size {size}, "
                             f"which is {now} in this version's observation")
        columns.append(np.arange(view.start, view.stop))
    return np.concatenate(columns) if columns else np.zeros(0, np.int64)


def scale_observation(obs: torch.Tensor) -> torch.Tensor:
    """``sign(x) * log1p(|x|)``: one-hot entries stay near 1, counts of hundreds near 5."""
    return torch.sign(obs) * torch.log1p(torch.abs(obs))


class PolicyNet(torch.nn.Module):
    """Scaled observations ``float[B, inputs]`` -> ``(logits float[B, NUM_ACTIONS],
    value float[B])``: a shared perceptron trunk with a policy and a value head."""

    def __init__(self, hidden: Sequence[int] = (512, 512, 256), inputs: int = OBS_SIZE,
                 actions: int = NUM_ACTIONS) -> None:
        super().__init__()
        self.hidden = tuple(int(h) for h in hidden)
        if not self.hidden or min(self.hidden) < 1:
            raise ValueError(f"hidden must be positive layer widths, got {hidden!r}")
        self.inputs, self.actions = int(inputs), int(actions)
        layers: list[torch.nn.Module] = []
        width = self.inputs
        for h in self.hidden:
            layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
            width = h
        self.trunk = torch.nn.Sequential(*layers)
        self.policy = torch.nn.Linear(width, self.actions)
        self.value = torch.nn.Linear(width, 1)

    #: The engine rows it reads (the learner's interface, :mod:`uno_agents.training.nets`).
    raw_kind = "dense"
    encoder = "dense"

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.evaluate(self.prepare(obs))

    def prepare(self, raw: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """The network's inputs of observations: the scaled observation."""
        return (scale_observation(raw.float()),)

    def evaluate(self, inputs: tuple[torch.Tensor, ...], rules: torch.Tensor | None = None,
                 rules_index: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits, value)`` of prepared inputs (the rule vectors are in them already)."""
        latent = self.trunk(inputs[0])
        return self.policy(latent), self.value(latent).squeeze(-1)

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """The action logits alone (legal or not)."""
        return self.policy(self.trunk(scale_observation(obs)))


def save_net(path: str | Path, net: Any, card: dict[str, Any] | None = None) -> Path:
    """Write ``net`` as a safetensors file (its shape and observation layout in the
    header) and, if given, its model ``card`` as ``<stem>.json`` beside it. Both are
    written to a temporary name first and renamed, so a kill leaves no half file."""
    from safetensors.torch import save

    path = Path(path)
    if path.suffix != SUFFIX:
        raise ValueError(f"a network file must end in {SUFFIX}, got {str(path)!r}")
    if isinstance(net, PolicyNet):
        header = {"format": FORMAT, "hidden": list(net.hidden), "inputs": net.inputs,
                  "actions": net.actions, "layout": current_layout()}
    else:   # a network of the learner (uno_agents.training.nets): its encoder named
        header = {"format": FORMAT_ENCODERS, **net.header(), "layout": current_layout()}
    tensors = {k: v.detach().contiguous().cpu() for k, v in net.state_dict().items()}
    write_atomic(path, save(tensors, metadata={"uno_env": json.dumps(header)}))
    if card is not None:
        write_json(path.with_suffix(".json"), card)
    return path


def write_json(path: str | Path, data: Any) -> None:
    """Write ``data`` as indented JSON, atomically (:func:`write_atomic`)."""
    write_atomic(path, json.dumps(data, indent=2) + "\n")


def load_net(path: str | Path) -> tuple[Any, np.ndarray | None]:
    """``(network, columns)`` from a file written by :func:`save_net`, in eval mode;
    ``columns`` picks the network's inputs out of this version's observation (None: all;
    for a packed encoder, the columns of the ``rules`` view it reads).

    Reads tensors and JSON only. Raises ``ValueError`` naming the file for anything
    else: a missing file or a folder, a file that is not safetensors, a header without
    the network's shape, tensors of another shape, or an observation layout this
    version cannot provide."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"network file {str(path)!r}: "
                         f"{'is a folder' if path.is_dir() else 'does not exist'}")
    meta, numbers = safetensors_header(path, "network")
    try:
        header = parse_header(meta["uno_env"], path, "network", "network header")
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"network file {str(path)!r} has no valid network header "
                         f"({type(e).__name__}: {e})") from None
    if isinstance(header, dict) and "encoder" in header:
        return _load_encoder_net(path, header, numbers)
    try:
        hidden, inputs, actions = header["hidden"], int(header["inputs"]), int(header["actions"])
        layout = header["layout"]
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"network file {str(path)!r} has no valid network header "
                         f"({type(e).__name__}: {e})") from None
    if actions != NUM_ACTIONS:
        raise ValueError(f"network file {str(path)!r} has {actions} actions; this version "
                         f"has {NUM_ACTIONS}")
    columns = _columns(path, layout)
    width = OBS_SIZE if columns is None else columns.size
    if width != inputs:
        raise ValueError(f"network file {str(path)!r} reads {inputs} inputs but its layout "
                         f"gives {width}")
    hidden = check_widths(hidden, path, "network")
    check_parameters([[inputs, *hidden, actions], hidden[-1:] + [1]], numbers, path, "network")
    net = _filled(path, lambda: PolicyNet(hidden, inputs, actions), read_tensors(path, "network"))
    return net, columns


def _columns(path: Path, layout: dict[str, Any], rules_only: bool = False
             ) -> np.ndarray | None:
    """:func:`layout_columns` of a file's layout (with ``rules_only``, of its ``rules``
    view alone), its errors naming the file."""
    try:
        if rules_only:
            layout = {"views": [["rules", 0]], "rule_fields": layout["rule_fields"]}
        return layout_columns(layout)
    except (KeyError, TypeError) as e:
        raise ValueError(f"network file {str(path)!r} has a malformed layout: {e}") from None
    except ValueError as e:
        raise ValueError(f"network file {str(path)!r}: {e}") from None


def _filled(path: Path, build: Any, tensors: dict[str, torch.Tensor]) -> Any:
    """The network ``build()`` makes, holding ``tensors``, in eval mode; a ``ValueError``
    naming the file when they do not fit it."""
    try:
        net = build()
        net.load_state_dict(tensors)
    except (RuntimeError, TypeError, ValueError) as e:
        raise ValueError(f"network file {str(path)!r}: its tensors do not fit the network "
                         f"it declares ({str(e).splitlines()[0]})") from None
    return net.eval()


def _load_encoder_net(path: Path, header: dict[str, Any], numbers: int
                      ) -> tuple[torch.nn.Module, np.ndarray | None]:
    """A network of the learner from its header (format 2): ``(network, columns)``,
    ``columns`` the observation columns of the ``rules`` view the network reads;
    ``numbers``: how many its file holds (the declared network may need no more)."""
    from .training.encoder import PackedLayout
    from .training.nets import ENCODERS, build_net

    name = str(path)
    try:
        encoder, hidden = str(header["encoder"]), check_widths(header["hidden"], path, "network")
        actions, layout = int(header["actions"]), header["layout"]
        packed = PackedLayout.from_json(header["packed_layout"]) if encoder == "packed" \
            else None
    except (KeyError, TypeError) as e:
        raise ValueError(f"network file {name!r} has no valid network header "
                         f"({type(e).__name__}: {e})") from None
    except ValueError as e:
        if name in str(e):
            raise
        raise ValueError(f"network file {name!r} has no valid network header "
                         f"({type(e).__name__}: {e})") from None
    if encoder not in ENCODERS or encoder == "dense":
        raise ValueError(f"network file {name!r} names an unknown encoder {encoder!r}")
    if actions != NUM_ACTIONS:
        raise ValueError(f"network file {name!r} has {actions} actions; this version has "
                         f"{NUM_ACTIONS}")
    # a packed encoder reads the rules view alone of the dense observation
    columns = _columns(path, layout, rules_only=encoder == "packed")
    check_parameters([[*hidden, actions]], numbers, path, "network")
    return _filled(path, lambda: build_net(encoder, hidden, packed),
                   read_tensors(path, "network")), columns


def widen(net: PolicyNet, columns: np.ndarray | None) -> PolicyNet:
    """``net`` as a network of this version's whole observation: the first layer's
    weights move to ``columns`` (as :func:`load_net` returns them) and the columns the
    network never saw get zero weights, so it computes the same function. Fine-tuning
    needs this to train a network saved before the observation grew."""
    if columns is None:
        return net
    wide = PolicyNet(net.hidden, OBS_SIZE, net.actions)
    state = net.state_dict()
    first = state["trunk.0.weight"]
    weight = torch.zeros(first.shape[0], OBS_SIZE, dtype=first.dtype)
    weight[:, torch.as_tensor(columns)] = first
    wide.load_state_dict({**state, "trunk.0.weight": weight})
    return wide.train(net.training)


def resolve_net(spec: str) -> Path:
    """The file of ``net:<spec>``: a path when ``spec`` has a path separator or a suffix
    (``.safetensors``), else the shipped network of that stem (a file or folder of that
    name in the working directory never shadows it; :func:`uno_agents.files.resolve_model`)."""
    return resolve_model(spec, SUFFIX, "network", "net")


NUM_PLAYERS_COLUMN = _num_players_column()


class LogitsAgent(Agent):
    """An agent that plays from a network's action logits: each row's most likely legal
    action or, with ``deterministic`` false, a sample of the masked softmax (Gumbel-max
    with the ``rng`` given to :meth:`act`, so games stay reproducible). Subclasses set
    ``columns`` (the network's inputs within the observation; None: all of it) and
    ``deterministic``, and give :meth:`forward`."""

    columns: np.ndarray | None = None
    deterministic: bool = True
    #: Where the network runs; observations go there and logits come back.
    device: torch.device = torch.device("cpu")

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """``float[B, A]`` logits of a batch of the network's inputs."""
        raise NotImplementedError

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """``float32[B, A]`` action logits (legal or not)."""
        obs = observations if self.columns is None else observations[:, self.columns]
        with torch.inference_mode(), float32(self.device):
            x = torch.as_tensor(np.ascontiguousarray(obs, np.float32)).to(self.device)
            return self.forward(x).float().cpu().numpy()

    def act(self, observations: np.ndarray, masks: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        check_batch(observations, masks)
        if observations.shape[1] != OBS_SIZE:
            raise ValueError(f"observations have {observations.shape[1]} columns, "
                             f"this version's observation has {OBS_SIZE}")
        if not len(masks):
            return np.zeros(0, np.int64)
        return self.pick(self.logits(observations), masks, rng)

    def pick(self, logits: np.ndarray, masks: np.ndarray,
             rng: np.random.Generator) -> np.ndarray:
        """The action of each row of ``logits``: the best legal one, or a sample of the
        masked softmax (Gumbel-max) when not ``deterministic``."""
        scores = logits.astype(np.float64)
        if not self.deterministic:
            scores = scores - np.log(-np.log(rng.random(scores.shape)))
        return np.where(masks, scores, -np.inf).argmax(axis=1)


class NetAgent(LogitsAgent):
    """A :class:`PolicyNet` as a batch agent: the most likely legal action of each row,
    or with ``deterministic=False`` a sample of the masked softmax (Gumbel-max with the
    ``rng`` given to :meth:`act`, so games stay reproducible). It holds the network and
    nothing else.

    A network given in memory plays where it is (``device=None``), live: a learner's
    curve and its self-play see its current weights. Asked to play on another device, the
    agent plays a copy moved there, never moving the caller's network (a learner's on the
    GPU stays there). A network file loads on ``device`` (default: the CPU)."""

    name = "net"

    def __init__(self, model: str | Path | torch.nn.Module, deterministic: bool = True,
                 label: str | None = None, device: str | None = None) -> None:
        from .training.device import resolve_device

        self.columns: np.ndarray | None = None
        self.net: Any
        #: The file the network was read from (``None`` for a network given in memory).
        self.model_file: Path | None = None
        if isinstance(model, str) and "," in model:   # "official-2p,device=cuda"
            model, device = _net_options(model, device)
        if isinstance(model, torch.nn.Module) and hasattr(model, "evaluate"):
            self.net = model.eval()
            label = label or "net"
            if getattr(model, "raw_kind", "dense") == "packed":
                self.columns = np.arange(VIEW_SLICES["rules"].start, VIEW_SLICES["rules"].stop)
        elif isinstance(model, (str, Path)):
            path = resolve_net(str(model)) if isinstance(model, str) else model
            self.net, self.columns = load_net(path)
            self.model_file = Path(path)
            label = label or f"net:{path.stem}"
        else:
            raise TypeError(f"NetAgent needs a network file or a network, got "
                            f"{type(model).__name__}")
        if not isinstance(deterministic, bool):
            raise TypeError(f"deterministic must be true or false, got {deterministic!r}")
        here = next(self.net.parameters()).device
        self.device = here if device is None else resolve_device(device)
        if (self.device.type, self.device.index or 0) != (here.type, here.index or 0):
            self.net = (copy.deepcopy(self.net) if self.model_file is None
                        else self.net).to(self.device)
        self.packed = getattr(self.net, "raw_kind", "dense") == "packed"
        self.deterministic = deterministic
        self.uses_rng = not deterministic
        self.name = label

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """``float32[B, A]`` action logits (legal or not), computed on the agent's device;
        a packed encoder reads the observations as packed rows
        (:func:`uno_agents.training.encoder.packed_from_dense`) and their rule vectors."""
        if not self.packed:
            return super().logits(observations)
        from .training.encoder import packed_from_dense

        players = np.rint(observations[:, NUM_PLAYERS_COLUMN] * 10)
        if (players != self.net.layout.players).any():
            raise ValueError(f"{self.name} reads {self.net.layout.players}-player games (a "
                             f"packed encoder), got observations of "
                             f"{int(players[players != self.net.layout.players][0])} players")
        return self._packed_logits(packed_from_dense(observations, self.net.layout),
                                   observations)

    def act_in(self, engine: Any, games: np.ndarray, observations: np.ndarray,
               masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """:meth:`act`, with a packed encoder reading the engine's packed rows of the acting
        players when its rules have the encoder's layout: the same rows
        :func:`~uno_agents.training.encoder.packed_from_dense` makes of ``observations``,
        without building them again (the same actions, a fifth less time a decision)."""
        games = np.asarray(games)
        if not (self.packed and len(masks) and games.shape == (len(masks),)
                and list(packed_views(engine.rules)) == list(self.net.layout.views())):
            return self.act(observations, masks, rng)
        check_batch(observations, masks)
        packed = observe_packed(engine, games=games)
        return self.pick(self._packed_logits(packed, observations), masks, rng)

    def _packed_logits(self, packed: np.ndarray, observations: np.ndarray) -> np.ndarray:
        """The packed encoder's logits of ``packed`` rows, its rule vectors read from the
        ``observations`` those rows came from."""
        rules, index = distinct_rows(observations[:, self.columns])
        with torch.inference_mode(), float32(self.device):
            inputs = self.net.prepare(torch.from_numpy(packed).to(self.device))
            each = (None if len(rules) == 1   # one rule set: its bias broadcasts
                    else torch.from_numpy(index.reshape(-1).astype(np.int64)).to(self.device))
            logits, _ = self.net.evaluate(
                inputs, torch.from_numpy(np.ascontiguousarray(rules, np.float32)).to(self.device),
                each)
            return logits.float().cpu().numpy()

    def __repr__(self) -> str:
        return f"NetAgent({self.name!r}, deterministic={self.deterministic})"

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net.evaluate(self.net.prepare(obs))[0]


def float32(device: torch.device) -> torch.autocast:
    """A network agent plays in float32 even inside a learner's mixed precision (the
    opponents of a ``--amp`` run play as they do anywhere else)."""
    return torch.autocast(device_type=device.type, enabled=False)


def distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``rows`` and the index of each row's among them, as ``np.unique(rows,
    axis=0, return_inverse=True)``; a batch of one rule set (the usual case) is answered
    without sorting, which costs more than the network's forward pass on small batches."""
    if len(rows) and (rows == rows[0]).all():
        return rows[:1], np.zeros(len(rows), np.int64)
    return np.unique(rows, axis=0, return_inverse=True)


def _net_options(spec: str, device: str | None) -> tuple[str, str | None]:
    """``"<model>,device=<d>"`` as ``(model, device)``; other options are refused."""
    model, *options = spec.split(",")
    for option in options:
        key, _, value = option.partition("=")
        if key != "device" or not value:
            raise ValueError(f"agent 'net:{spec}': unknown option {option!r} (net: takes "
                             f"device=auto|cpu|cuda)")
        device = value
    return model, device

"""The packed encoder: a policy network that reads the packed observation.

The documented observation is 1,516 float32 a row (850 without ``shown_hands``),
mostly zeros, and a dense first layer over it is about 80% of a small perceptron's
arithmetic. The packed row (:func:`uno_env.engine.packed_rows.observe_packed`) holds the same
facts in a few small integers, and this network reads it as such:

* **counts** (own hand, discards, and the partner's hand and the shown hands when
  the rules have them) and small flags go through one linear layer: for the counts,
  a sum of card embeddings weighted by how many of each kind;
* **categories** (the top card, current color, phase, acting seat, the card just
  drawn, the seat that may be caught, and per opponent seat its last card, last
  named color and the colors it drew on) are embedding rows, summed: no arithmetic
  but the sum;
* **numbers** that reach the hundreds (pending draw, hand sizes, draw pile,
  scores) go through a small linear layer on ``sign(x) log1p(|x|)``;
* the **rule vector** of the observation goes through a linear layer too, computed
  once per distinct rule set of a batch.

Their sum, through a ReLU, is the first hidden layer; a perceptron trunk and the
policy and value heads follow, as in :class:`uno_agents.net.PolicyNet`. At two
players under the official rules and widths 128-128 it costs about a fifth of the
multiply-adds of SB3's default 128x128 actor-critic over the dense observation
(:func:`multiply_adds`; ``make bench-learn`` measures the time).

The network is trained on packed rows straight from the engine. As an agent it
receives the documented float32 observation like every other agent:
:func:`packed_from_dense` turns it back into the packed row, exactly (the inverse
of :func:`uno_env.engine.packed.unpack`, tested bit for bit). The layout it reads
(the player count and which views) is recorded in the model file's header.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from uno_env.actions import NUM_ACTIONS
from uno_env.cards import KIND_COLOR, KIND_SYMBOL, NUM_COLORS, NUM_KINDS
from uno_env.engine.observe import NUM_SYMBOLS, OBS_SIZE, RULES_SIZE, VIEW_SLICES
from uno_env.engine.packed import PACKED_DTYPE, SCORE_SHIFT, packed_views
from uno_env.engine.state import NUM_PHASES
from uno_env.rules import Rules

from ..net import scale_observation

#: Views read as plain numbers, through one linear layer over the whole row (the
#: other columns get no weight): counts by kind and small flags.
RAW_VIEWS = ("hand", "discards", "partner_hand", "shown_hands", "direction", "uno_called",
             "seats_present", "wd4_after_draw")
#: Views that can reach the hundreds, read as ``sign(x) log1p(|x|)``.
LOG_VIEWS = ("pending_draw", "own_hand_size", "draw_pile", "hand_sizes", "scores_high",
             "scores_low")


def _categories(players: int) -> dict[str, int]:
    """Values of each category view (a value ``v`` is row ``v + 1``: -1 means none)."""
    return {"top": NUM_KINDS, "color": NUM_COLORS, "phase": NUM_PHASES,
            "acting_seat": players, "drawn": NUM_KINDS, "uno_exposed": players,
            "last_played": NUM_KINDS, "last_named": NUM_COLORS, "drew_on": 1 << NUM_COLORS}


@dataclass(frozen=True)
class PackedLayout:
    """What a packed encoder reads: the player count and whether the rows carry the
    partner's hand (team play) and the shown hands (``zero_open``)."""

    players: int
    partner_hand: bool = False
    shown_hands: bool = False

    @classmethod
    def of(cls, rules: Rules | Sequence[Rules]) -> PackedLayout:
        """The layout covering every rule set of ``rules`` (one player count)."""
        many = [rules] if isinstance(rules, Rules) else list(rules)
        counts = {r.num_players for r in many}
        if len(counts) != 1:
            raise ValueError(f"one packed encoder reads one player count, got {sorted(counts)}")
        return cls(counts.pop(), any(r.teams for r in many), any(r.zero_open for r in many))

    def rules(self) -> Rules:
        """A rule set with exactly this layout's packed views (for :func:`packed_views`)."""
        return Rules(num_players=self.players, teams=self.partner_hand,
                     zero_open=self.shown_hands)

    def views(self) -> dict[str, slice]:
        return _layout_views(self)

    @property
    def size(self) -> int:
        return list(self.views().values())[-1].stop

    def as_json(self) -> dict[str, Any]:
        return {"players": self.players, "partner_hand": self.partner_hand,
                "shown_hands": self.shown_hands}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PackedLayout:
        return cls(int(data["players"]), bool(data["partner_hand"]), bool(data["shown_hands"]))


@functools.cache
def _layout_views(layout: PackedLayout) -> dict[str, slice]:
    return packed_views(layout.rules())


def conform(packed: np.ndarray, rules: Rules, layout: PackedLayout) -> np.ndarray:
    """Packed rows of ``rules`` in ``layout`` (views the rules lack filled with zeros)."""
    have = packed_views(rules)
    want = layout.views()
    if list(have) == list(want):
        return packed
    out = np.zeros((packed.shape[0], layout.size), PACKED_DTYPE)
    for name, view in have.items():
        if name not in want:
            raise ValueError(f"the encoder's layout {layout} has no view {name!r} of these rules")
        out[:, want[name]] = packed[:, view]
    return out


# --- dense observation -> packed row ----------------------------------------------------------

#: The kind of each (symbol, color) pair of the observation's last-played views (color
#: NUM_COLORS: a wild, which has no color).
_KIND_OF = np.full((NUM_SYMBOLS, NUM_COLORS + 1), -1, np.int64)
for _k in range(NUM_KINDS):
    _KIND_OF[KIND_SYMBOL[_k], KIND_COLOR[_k] if KIND_COLOR[_k] >= 0 else NUM_COLORS] = _k


def _index(block: np.ndarray) -> np.ndarray:
    """The marked index of each one-hot row of ``block`` (``[..., n]``), -1 where none."""
    return np.where(block.any(axis=-1), block.argmax(axis=-1), -1)


def packed_from_dense(obs: np.ndarray, layout: PackedLayout) -> np.ndarray:
    """``int16[B, layout.size]``: the packed rows of documented float32 observations.

    The inverse of :func:`uno_env.engine.packed.unpack`: for observations of rules with
    this layout, ``packed_from_dense(engine.observe(p), layout)`` equals
    ``engine.observe_packed(p)`` (the views the rules lack are zeros)."""
    obs = np.asarray(obs, np.float32)
    if obs.ndim != 2 or obs.shape[1] != OBS_SIZE:
        raise ValueError(f"observations must be float rows of {OBS_SIZE}, got {obs.shape}")
    n, p, m = obs.shape[0], layout.players, layout.players - 1
    v, o = layout.views(), VIEW_SLICES
    out = np.zeros((n, layout.size), np.int64)

    def dense(name: str) -> np.ndarray:
        return obs[:, o[name]]

    out[:, v["hand"]] = np.rint(dense("hand"))
    out[:, v["discards"]] = np.rint(dense("discards"))
    for name in ("top", "color", "phase", "acting_seat", "drawn"):
        out[:, v[name].start] = _index(dense(name))
    exposed = _index(dense("uno_exposed"))
    out[:, v["uno_exposed"].start] = np.where(exposed >= 0, exposed + 1, 0)
    for name in ("pending_draw", "direction", "uno_called", "own_hand_size", "draw_pile"):
        out[:, v[name].start] = np.rint(dense(name)[:, 0])
    for name in ("hand_sizes", "seats_present", "wd4_after_draw"):
        out[:, v[name]] = np.rint(dense(name)[:, :m])
    drew = dense("drew_on").reshape(n, -1, NUM_COLORS)[:, :m].astype(np.int64)
    out[:, v["drew_on"]] = (drew << np.arange(NUM_COLORS)).sum(axis=-1)
    symbol = _index(dense("last_played_symbol").reshape(n, -1, NUM_SYMBOLS)[:, :m])
    color = _index(dense("last_played_color").reshape(n, -1, NUM_COLORS)[:, :m])
    kind = _KIND_OF[np.maximum(symbol, 0), np.where(color >= 0, color, NUM_COLORS)]
    out[:, v["last_played"]] = np.where(symbol >= 0, kind, -1)
    out[:, v["last_named"]] = _index(dense("last_named").reshape(n, -1, NUM_COLORS)[:, :m])
    scores = np.rint(dense("scores")[:, :p].astype(np.float64) * 100).astype(np.int64)
    out[:, v["scores_high"]] = scores >> SCORE_SHIFT
    out[:, v["scores_low"]] = scores & ((1 << SCORE_SHIFT) - 1)
    if layout.partner_hand:
        out[:, v["partner_hand"]] = np.rint(dense("partner_hand"))
    if layout.shown_hands:
        out[:, v["shown_hands"]] = np.rint(dense("shown_hands")[:, :m * NUM_KINDS])
    return out.astype(PACKED_DTYPE)


# --- the network ------------------------------------------------------------------------------

class PackedNet(torch.nn.Module):
    """Packed rows ``int16[B, layout.size]`` and rule vectors -> ``(logits float[B, A],
    value float[B])``; see the module doc. ``hidden[0]`` is the width of the summed
    embeddings, the rest the trunk's layers.

    :meth:`features` turns packed rows into the network's inputs once (numbers and
    embedding rows), so a training loop that passes over a batch several times pays
    for it once; :meth:`forward` takes those inputs."""

    encoder = "packed"
    raw_kind = "packed"
    raw_mask: torch.Tensor
    log_cols: torch.Tensor
    category_cols: torch.Tensor
    category_start: torch.Tensor
    category_last: torch.Tensor

    def __init__(self, layout: PackedLayout, hidden: Sequence[int] = (128, 128),
                 actions: int = NUM_ACTIONS) -> None:
        super().__init__()
        self.layout = layout
        self.hidden = tuple(int(h) for h in hidden)
        if not self.hidden or min(self.hidden) < 1:
            raise ValueError(f"hidden must be positive layer widths, got {hidden!r}")
        self.actions = int(actions)
        views = layout.views()
        raw = torch.zeros(layout.size)
        for name in RAW_VIEWS:
            if name in views:
                raw[views[name]] = 1.0
        log_cols = [c for n in LOG_VIEWS for c in range(views[n].start, views[n].stop)]
        category_cols, bases, tops, base = [], [], [], 0
        for name, size in _categories(layout.players).items():
            for col in range(views[name].start, views[name].stop):
                category_cols.append(col)
                bases.append(base)
                tops.append(size)   # value v (-1..size-1) is row base + v + 1
                base += size + 1
        self.register_buffer("raw_mask", raw, persistent=False)
        self.register_buffer("log_cols", torch.as_tensor(log_cols), persistent=False)
        self.register_buffer("category_cols", torch.as_tensor(category_cols), persistent=False)
        self.register_buffer("category_start", torch.as_tensor(bases) + 1, persistent=False)
        self.register_buffer("category_last", torch.as_tensor(tops) - 1, persistent=False)
        width = self.hidden[0]
        self.numbers = torch.nn.Linear(layout.size + len(log_cols), width)
        self.rules = torch.nn.Linear(RULES_SIZE, width, bias=False)
        self.categories = torch.nn.EmbeddingBag(base, width, mode="sum")
        torch.nn.init.normal_(self.categories.weight, std=0.1)
        layers: list[torch.nn.Module] = []
        for h in self.hidden[1:]:
            layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
            width = h
        self.trunk = torch.nn.Sequential(*layers)
        self.policy = torch.nn.Linear(width, self.actions)
        self.value = torch.nn.Linear(width, 1)

    def features(self, packed: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(numbers float[B, size + n], embedding rows long[B, f])`` of packed rows (any
        integer dtype, on the network's device): the row with every column but the counts
        and flags zeroed, then the large numbers log-scaled; the category rows."""
        row = packed.float()
        numbers = torch.cat([row * self.raw_mask, scale_observation(row[:, self.log_cols])], dim=1)
        value = packed[:, self.category_cols].long()
        rows = torch.minimum(value.clamp_(min=-1), self.category_last).add_(self.category_start)
        return numbers, rows

    def forward(self, numbers: torch.Tensor, rows: torch.Tensor, rules: torch.Tensor,
                rules_index: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``rules`` holds rule vectors ``float[U, RULES_SIZE]``: one for the whole batch
        (``U`` = 1) or one per distinct rule set with ``rules_index`` (``long[B]``) naming
        each row's."""
        bias = self.rules(rules)
        if rules_index is not None:
            bias = bias[rules_index]
        first = self.numbers(numbers) + self.categories(rows) + bias
        latent = self.trunk(torch.relu(first))
        return self.policy(latent), self.value(latent).squeeze(-1)

    def prepare(self, raw: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """The learner's name for :meth:`features` (:mod:`uno_agents.training.nets`)."""
        return self.features(raw)

    def evaluate(self, inputs: tuple[torch.Tensor, ...], rules: torch.Tensor | None = None,
                 rules_index: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits, value)`` of :meth:`features` rows and the batch's rule vectors."""
        if rules is None:
            raise ValueError("the packed encoder needs the batch's rule vectors")
        return self(*inputs, rules, rules_index)

    def header(self) -> dict[str, Any]:
        """What a model file's header records of this network."""
        return {"encoder": self.encoder, "hidden": list(self.hidden), "actions": self.actions,
                "packed_layout": self.layout.as_json()}


def multiply_adds(net: Any) -> int:
    """Multiply-adds of one sample's forward pass through the linear layers of ``net``
    (embedding rows are summed, not multiplied, and count nothing)."""
    total = 0
    for module in net.modules():
        if isinstance(module, torch.nn.Linear):
            total += module.in_features * module.out_features
    if isinstance(net, PackedNet):
        total -= RULES_SIZE * net.hidden[0]   # once per distinct rule set, not per sample
        total -= int((net.raw_mask == 0).sum()) * net.hidden[0]   # columns without weight
    return total

"""Trained policies as batch agents (needs the ``train`` extra: torch, sb3-contrib).

:class:`PolicyAgent` turns a saved MaskablePPO policy, an in-memory SB3 policy, or
any plain torch module mapping observations ``float[B, D]`` to action logits
``float[B, A]`` into an agent: one forward pass per batch of decisions, then the
best (or a sampled) legal action of each row. Agents are built by name with
``uno_agents.make_agent("ppo:path/to/policy.safetensors")``; the policies shipped in
``agents/models/`` (``<stem>.ppo.safetensors``) are found by their stem
(``"ppo:official-2p"``).

**Files that never run code.** :func:`export_policy` saves a policy as a
``.safetensors`` file: its tensors, and in the header a JSON config (the policy
class, layer widths, activation, observation scaling, the observation views it
reads, its sizes, and for :class:`HeuristicPriorPolicy` the prior's name and
scale). :func:`read_policy` rebuilds the policy from that JSON and loads the
tensors: no pickle anywhere. An SB3 ``.zip`` loads without unpickling too:
:func:`load_legacy_zip` reads its tensors with ``weights_only=True`` and interprets
the few pickled settings it needs as plain data (:mod:`uno_agents.sb3_zip`), refusing a
file whose settings would build or call objects. ``experiments/train_ppo.py`` writes
the safetensors file (``policy.safetensors``) beside its ``model.zip``.

:class:`UnoFeatures` is the features extractor the training scripts give
MaskablePPO. It scales the raw observation (counts reach the hundreds: hand
sizes, the draw pile, pending draws) with ``sign(x) * log1p(|x|)``, so the
policy needs no VecNormalize statistics, and it records the observation views
(name and size) the policy was trained on. A :class:`PolicyAgent` reads that
record and picks those views out of the current observation, so a model keeps
working when later versions add views to the observation.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.policies import BasePolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.type_aliases import PyTorchObs

from uno_env.actions import NUM_ACTIONS
from uno_env.engine.observe import OBS_SIZE, SEAT_VIEWS, VIEW_SLICES, VIEWS
from uno_env.rules import CHOICES, Rules
from uno_env.tournament_report import write_atomic

from .files import (
    MODELS_DIR,
    check_builtin,
    check_file,
    check_parameters,
    check_widths,
    check_zip,
    parse_header,
    read_tensors,
    resolve_model,
    safetensors_header,
)
from .net import LogitsAgent

#: The observation layout of this version, as ``UnoFeatures`` records it.
CURRENT_VIEWS: tuple[tuple[str, int], ...] = tuple((name, size) for name, size, _ in VIEWS)
#: The layout without the table's public memory (what each opponent drew on, played
#: and named): the snapshot a player who remembers nothing sees.
NO_MEMORY_VIEWS: tuple[tuple[str, int], ...] = tuple(
    (name, size) for name, size in CURRENT_VIEWS if name not in SEAT_VIEWS)


def scale_observation(obs: torch.Tensor) -> torch.Tensor:
    """``sign(x) * log1p(|x|)``: one-hot entries stay near 1, counts of hundreds near 5."""
    return torch.sign(obs) * torch.log1p(torch.abs(obs))


class UnoFeatures(BaseFeaturesExtractor):
    """Scaled observation features (see the module doc); ``scale=False`` passes them raw.

    ``views`` is stored with the policy when given in ``features_extractor_kwargs``
    (SB3 saves them), so a loaded policy knows which observation layout it expects;
    without it, a policy whose input is narrower than today's observation reads the
    leading views (:func:`prefix_views`).
    """

    def __init__(self, observation_space: gym.spaces.Box, scale: bool = True,
                 views: tuple[tuple[str, int], ...] | list = CURRENT_VIEWS) -> None:
        dim = int(np.prod(observation_space.shape))
        super().__init__(observation_space, dim)
        self.scale = bool(scale)
        self.views = tuple((str(n), int(s)) for n, s in views)
        if sum(size for _, size in self.views) != dim:
            self.views = prefix_views(dim)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return scale_observation(observations) if self.scale else observations


#: The history of the ``rules`` view: the rule options each version added, oldest
#: first (version 0 is the original view). A policy trained on version ``v`` reads
#: today's rules view without the columns of the options added after ``v``. Options
#: are only ever added (with their default as the rule the older policies assumed),
#: never reordered or given new values, so every older view is a subset of today's.
RULES_VIEW_VERSIONS: tuple[tuple[str, ...], ...] = (
    (),
    ("uno_to_finish", "roulette_color"),
    ("draw_return_winner", "draw_return_winner_points", "draw_keep_going",
     "single_card_finish", "declare_on_finish", "skip_answers_skip"),
    ("zero_open",),
)
#: The views each version of the observation appended (same versions as above; the
#: public-memory views of v1 predate this record: older policies read them as a prefix).
VIEWS_ADDED: tuple[tuple[str, ...], ...] = ((), (), (), ("shown_hands",))
#: Rule options the ``rules`` view gained after observation layout v0.
RULES_ADDED_AFTER_V0 = tuple(name for added in RULES_VIEW_VERSIONS[1:] for name in added)


def _rules_columns() -> dict[str, np.ndarray]:
    """Each rule option's columns within the ``rules`` view (as ``rules_vector`` lays them)."""
    out, start = {}, 0
    for f in fields(Rules):
        width = len(CHOICES[f.name]) if f.name in CHOICES else 1
        out[f.name] = np.arange(start, start + width)
        start += width
    return out


def rules_view_columns(version: int) -> np.ndarray:
    """Columns of today's ``rules`` view that made up the ``rules`` view of ``version``
    (an index of :data:`RULES_VIEW_VERSIONS`), in order."""
    if not 0 <= version < len(RULES_VIEW_VERSIONS):
        raise ValueError(f"version must be a rules view version from 0 to "
                         f"{len(RULES_VIEW_VERSIONS) - 1}, got {version!r}")
    later = {name for added in RULES_VIEW_VERSIONS[version + 1:] for name in added}
    return np.concatenate([cols for name, cols in _rules_columns().items()
                           if name not in later])


def legacy_rules_columns() -> np.ndarray:
    """Columns of today's ``rules`` view that made up the v0 ``rules`` view, in order."""
    return rules_view_columns(0)


def _rules_version(width: int) -> int | None:
    """The version of the ``rules`` view that has ``width`` columns (None: none has)."""
    for version in range(len(RULES_VIEW_VERSIONS)):
        if rules_view_columns(version).size == width:
            return version
    return None


def _layouts() -> tuple[tuple[tuple[str, int], ...], ...]:
    """Every layout a saved policy may expect: today's views with each version of the
    rules view, newest (today's) first."""
    return tuple(
        tuple((name, rules_view_columns(version).size if name == "rules" else size)
              for name, size in CURRENT_VIEWS
              if name not in {v for added in VIEWS_ADDED[version + 1:] for v in added})
        for version in reversed(range(len(RULES_VIEW_VERSIONS))))


def observation_columns(obs_size: int) -> np.ndarray | None:
    """Columns of today's observation that a model trained on whole observations of
    ``obs_size`` columns reads, in its order (None: all, in order). Raises ``ValueError``
    when no version of the observation had that size."""
    for layout in _layouts():
        if sum(size for _, size in layout) == obs_size:
            return view_index(layout)
    sizes = sorted({sum(size for _, size in layout) for layout in _layouts()})
    raise ValueError(f"a model for {obs_size} observation columns matches no version of the "
                     f"observation (whole observations have {', '.join(map(str, sizes))})")


def prefix_views(dim: int) -> tuple[tuple[str, int], ...]:
    """The leading views of a known layout that fill ``dim`` columns.

    Later observation versions append views, so a model saved without its view
    record (or with a wrong one) was trained on such a prefix.
    """
    ends = []
    for layout in _layouts():   # a whole observation of some version first
        if sum(size for _, size in layout) == dim:
            return layout
    for layout in _layouts():
        sizes = np.cumsum([size for _, size in layout])
        if dim in sizes:
            return layout[: int(np.searchsorted(sizes, dim)) + 1]
        ends += sizes.tolist()
    raise ValueError(f"a policy for {dim} observation columns matches no version of the "
                     f"observation (its views end at {', '.join(map(str, sorted(set(ends))))})")


def view_index(views: tuple[tuple[str, int], ...]) -> np.ndarray | None:
    """Columns of the current observation that make up ``views`` (None: all, in order)."""
    if tuple(views) == CURRENT_VIEWS:
        return None
    columns = []
    for name, size in views:
        view = VIEW_SLICES.get(name)
        version = _rules_version(size) if name == "rules" else None
        if version is not None:
            columns.append(VIEW_SLICES["rules"].start + rules_view_columns(version))
            continue
        if view is None or view.stop - view.start != size:
            now = "absent" if view is None else f"of size {view.stop - view.start}"
            raise ValueError(f"the policy was trained on observation view {name!r} of size "
                             f"{size}, which is {now} in this version's observation")
        columns.append(np.arange(view.start, view.stop))
    return np.concatenate(columns)


def flat_observations(obs: PyTorchObs) -> torch.Tensor:
    """``obs`` as the one tensor of flat observations these policies read (SB3 types a
    policy's input as a tensor or a dict of them; a dict is refused)."""
    if not isinstance(obs, torch.Tensor):
        raise TypeError(f"the policy reads a tensor of observations, got {type(obs).__name__}")
    return obs


def flat_size(space: gym.Space[Any]) -> int:
    """The number of numbers in an element of ``space`` (a space with a shape)."""
    if space.shape is None:
        raise TypeError(f"{type(space).__name__} has no shape")
    return int(np.prod(space.shape))


class _SB3Logits(torch.nn.Module):
    """The action logits of an SB3 actor-critic policy (no value head, no distribution)."""

    def __init__(self, policy: Any) -> None:
        super().__init__()
        self.policy = policy

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        p = self.policy
        if hasattr(p, "action_logits"):   # policies with logits of their own
            return p.action_logits(obs)
        features = p.extract_features(obs, p.pi_features_extractor)
        return p.action_net(p.mlp_extractor.forward_actor(features))


#: Heuristic scores are clipped to this range before they become logits: the fixed
#: scores of the always-right actions (1e4 and up) would otherwise dwarf everything.
PRIOR_CLIP = 300.0


class HeuristicPriorPolicy(MaskableActorCriticPolicy):
    """A MaskablePPO policy that learns a correction to a heuristic (residual learning).

    Its action logits are ``exp(log_prior_scale) * scores + net(obs)``: ``scores`` are
    the heuristic's own action scores (``prior``, an agent with a ``scores(obs)``
    method such as ``tuned``, read from the raw observation) and ``net`` is the usual
    network head, whose last layer starts at zero. So training starts from the
    heuristic's choices (the deterministic policy plays exactly the heuristic's
    action), softened by ``prior_scale`` so that PPO sees the alternatives, and
    learns where to depart from it; the scale is learned too (the policy can grow
    as sure as the heuristic, or less). The value head is a plain network.
    """

    def __init__(self, *args: Any, prior: str = "tuned", prior_scale: float = 0.25,
                 **kwargs: Any) -> None:
        from . import make_agent

        super().__init__(*args, **kwargs)
        heuristic = make_agent(prior)
        if not hasattr(heuristic, "scores"):
            raise ValueError(f"prior {prior!r} has no action scores; use a linear heuristic "
                             f"such as tuned, defender or greedy")
        if not prior_scale > 0:
            raise ValueError(f"prior_scale must be > 0, got {prior_scale!r}")
        self.prior, self.prior_scale, self.heuristic = prior, float(prior_scale), heuristic
        self.log_prior_scale = torch.nn.Parameter(torch.tensor(float(np.log(prior_scale))))
        head = self.action_net
        if not isinstance(head, torch.nn.Linear):
            raise TypeError(f"the action head is a {type(head).__name__}, not a linear layer")
        torch.nn.init.zeros_(head.weight)   # start as the heuristic itself
        torch.nn.init.zeros_(head.bias)
        # the optimizer was built before the scale existed: build it again over all (SB3
        # types the class as a bare Optimizer, whose constructor takes no lr)
        lr = self.optimizer.param_groups[0]["lr"]
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr,  # type: ignore[call-arg]
                                              **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "prior": self.prior,
                "prior_scale": self.prior_scale}

    def prior_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """The heuristic's scores of every action, clipped (no gradient flows into them)."""
        scores = self.heuristic.scores(obs.detach().cpu().numpy())
        return torch.as_tensor(np.clip(scores, -PRIOR_CLIP, PRIOR_CLIP), dtype=obs.dtype,
                               device=obs.device)

    # The three SB3 paths to an action distribution, each with the prior added.

    def forward(self, obs: torch.Tensor, deterministic: bool = False,
                action_masks: np.ndarray | None = None
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        latent_pi, latent_vf = self._latents(obs)
        dist = self._distribution(obs, latent_pi, action_masks)
        actions = dist.get_actions(deterministic=deterministic)
        log_prob = dist.log_prob(actions)
        shape = self.action_space.shape or ()
        return actions.reshape((-1, *shape)), self.value_net(latent_vf), log_prob

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor,
                         action_masks: torch.Tensor | None = None
                         ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        latent_pi, latent_vf = self._latents(obs)
        dist = self._distribution(obs, latent_pi, action_masks)
        return self.value_net(latent_vf), dist.log_prob(actions), dist.entropy()

    def get_distribution(self, obs: PyTorchObs, action_masks: np.ndarray | None = None) -> Any:
        obs = flat_observations(obs)
        return self._distribution(obs, self._actor_latent(obs), action_masks)

    def _actor_latent(self, obs: torch.Tensor) -> torch.Tensor:
        features = BasePolicy.extract_features(self, obs, self.pi_features_extractor)
        return self.mlp_extractor.forward_actor(features)

    def _latents(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return self.mlp_extractor(features)
        return (self.mlp_extractor.forward_actor(features[0]),
                self.mlp_extractor.forward_critic(features[1]))

    def _distribution(self, obs: torch.Tensor, latent_pi: torch.Tensor, masks: Any) -> Any:
        dist = self.action_dist.proba_distribution(action_logits=self._logits(obs, latent_pi))
        if masks is not None:
            dist.apply_masking(masks)
        return dist

    def _logits(self, obs: torch.Tensor, latent_pi: torch.Tensor) -> torch.Tensor:
        return self.action_net(latent_pi) + self.log_prior_scale.exp() * self.prior_logits(obs)

    def action_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """``float[B, A]``: the logits of every action (legal or not)."""
        return self._logits(obs, self._actor_latent(obs))


#: Suffix of the shipped policies: ``ppo:<stem>`` loads ``MODELS_DIR/<stem>.ppo.safetensors``.
SHIPPED_SUFFIX = ".ppo.safetensors"
#: The safetensors header key of a policy written by :func:`export_policy`.
HEADER_KEY = "uno_env_ppo"
#: Version of that header.
FORMAT = 1
#: Activation functions a policy file may name.
ACTIVATIONS: dict[str, type[torch.nn.Module]] = {
    cls.__name__: cls for cls in (torch.nn.Tanh, torch.nn.ReLU, torch.nn.LeakyReLU,
                                  torch.nn.ELU, torch.nn.GELU, torch.nn.SiLU)}
#: Policy classes a policy file may name.
POLICY_CLASSES: dict[str, type[MaskableActorCriticPolicy]] = {
    cls.__name__: cls for cls in (MaskableActorCriticPolicy, HeuristicPriorPolicy)}


def _discrete_size(space: gym.Space[Any]) -> int:
    if not isinstance(space, gym.spaces.Discrete):
        raise TypeError(f"export_policy needs a Discrete action space, got "
                        f"{type(space).__name__}")
    return int(space.n)


def policy_config(policy: Any) -> dict[str, Any]:
    """The JSON config :func:`export_policy` stores: everything that rebuilds ``policy``
    (a MaskablePPO actor-critic policy over :class:`UnoFeatures` or SB3's flatten
    extractor) around its tensors. Raises ``TypeError`` for any other policy."""
    from stable_baselines3.common.torch_layers import FlattenExtractor

    name = type(policy).__name__
    if POLICY_CLASSES.get(name) is not type(policy):
        raise TypeError(f"export_policy needs a MaskableActorCriticPolicy or a "
                        f"HeuristicPriorPolicy, got {name}")
    activation = policy.activation_fn.__name__
    if ACTIVATIONS.get(activation) is not policy.activation_fn:
        raise TypeError(f"export_policy: activation {activation} is not one of "
                        f"{', '.join(ACTIVATIONS)}")
    obs_size = flat_size(policy.observation_space)
    extractor = policy.features_extractor
    if isinstance(extractor, UnoFeatures):
        scale, views = extractor.scale, extractor.views
    elif isinstance(extractor, FlattenExtractor):   # SB3's MlpPolicy: the raw observation
        scale = False
        views = CURRENT_VIEWS if obs_size == OBS_SIZE else prefix_views(obs_size)
    else:
        raise TypeError(f"export_policy needs UnoFeatures or SB3's flatten extractor, got "
                        f"{type(extractor).__name__}")
    config = {"format": FORMAT, "policy": name, "net_arch": policy.net_arch,
              "activation": activation, "share_features_extractor":
              bool(policy.share_features_extractor), "scale": bool(scale),
              "views": [[n, s] for n, s in views], "obs_size": obs_size,
              "actions": _discrete_size(policy.action_space)}
    if isinstance(policy, HeuristicPriorPolicy):
        config.update(prior=policy.prior, prior_scale=policy.prior_scale)
    return config


def export_policy(policy: Any, path: str | Path) -> Path:
    """Write an SB3 MaskablePPO ``policy`` (or a model's ``.policy``) as a safetensors
    file: its tensors, and :func:`policy_config` as JSON in the header. Loading it
    (:func:`load_policy`) reads tensors and JSON only, never code. The file is written
    under a temporary name and renamed, so a kill leaves no half file."""
    from safetensors.torch import save

    policy = getattr(policy, "policy", policy)
    path = Path(path)
    if path.suffix != ".safetensors":
        raise ValueError(f"a policy file must end in .safetensors, got {str(path)!r}")
    config = policy_config(policy)
    if "prior" in config:   # what loading will accept
        check_builtin(config["prior"], "prior", path)
    header = json.dumps(config)
    tensors = {k: v.detach().cpu().contiguous().clone() for k, v in policy.state_dict().items()}
    write_atomic(path, save(tensors, metadata={HEADER_KEY: header}))
    return path


def _read_header(path: Path) -> tuple[dict[str, Any], int]:
    """``(config, numbers)`` of a policy file: its header, and how many numbers its
    tensors hold (:func:`uno_agents.files.safetensors_header`'s checks first);
    ``ValueError`` naming it if it is not one."""
    try:
        meta, numbers = safetensors_header(path, "ppo model")
    except ValueError:
        with path.open("rb") as f:
            if f.read(4) == b"PK\x03\x04":
                raise ValueError(f"ppo model file {str(path)!r} is a zip (an SB3 model? "
                                 f"name it .zip)") from None
        raise
    if HEADER_KEY not in meta:
        hint = " (it is a net: network)" if "uno_env" in meta else ""
        raise ValueError(f"ppo model file {str(path)!r} has no policy header "
                         f"{HEADER_KEY!r}{hint}; policy files are written by "
                         f"uno_agents.policy.export_policy")
    try:
        config = parse_header(meta[HEADER_KEY], path, "ppo model", "policy header")
        if not isinstance(config, dict):
            raise TypeError("the header is not a JSON object")
    except (TypeError, ValueError) as e:
        raise ValueError(f"ppo model file {str(path)!r} has a malformed policy header: "
                         f"{e}") from None
    return config, numbers


def _build_policy(config: dict[str, Any], path: Path, numbers: int) -> Any:
    """The untrained policy ``config`` describes; ``ValueError`` naming ``path`` for a
    config that is malformed, does not fit this version (actions, observation), or
    declares a network beyond the limits or the ``numbers`` its file holds
    (:func:`uno_agents.files.check_parameters`), before building anything."""
    def bad(why: str) -> ValueError:
        return ValueError(f"ppo model file {str(path)!r}: {why}")

    if config.get("format") != FORMAT:
        raise bad(f"policy header format {config.get('format')!r}; this version reads "
                  f"format {FORMAT}")
    try:
        cls = POLICY_CLASSES[config["policy"]]
        activation = ACTIVATIONS[config["activation"]]
        obs_size, actions = int(config["obs_size"]), int(config["actions"])
        views = tuple((str(n), int(s)) for n, s in config["views"])
        net_arch = config["net_arch"]
        kwargs: dict[str, Any] = {
            "net_arch": net_arch, "activation_fn": activation,
            "share_features_extractor": bool(config["share_features_extractor"]),
            "features_extractor_class": UnoFeatures,
            "features_extractor_kwargs": {"scale": bool(config["scale"]), "views": views}}
        if cls is HeuristicPriorPolicy:
            kwargs.update(prior=check_builtin(config["prior"], "prior", path),
                          prior_scale=float(config["prior_scale"]))
    except (KeyError, TypeError) as e:
        raise bad(f"malformed policy header ({type(e).__name__}: {e})") from None
    arch_ok = (isinstance(net_arch, list) and all(type(w) is int and w > 0 for w in net_arch)) \
        or (isinstance(net_arch, dict) and set(net_arch) == {"pi", "vf"}
            and all(isinstance(v, list) and all(type(w) is int and w > 0 for w in v)
                    for v in net_arch.values()))
    if not arch_ok:
        raise bad(f"net_arch must be positive layer widths, got {str(net_arch)[:80]}")
    pi, vf = (net_arch["pi"], net_arch["vf"]) if isinstance(net_arch, dict) \
        else (net_arch, net_arch)
    pi, vf = check_widths(pi, path, "ppo model", "pi"), check_widths(vf, path, "ppo model", "vf")
    check_parameters([[obs_size, *pi, actions], [obs_size, *vf, 1]], numbers, path,
                     "ppo model")
    if actions != NUM_ACTIONS:
        raise bad(f"the policy has {actions} actions; this version has {NUM_ACTIONS}")
    if sum(s for _, s in views) != obs_size:
        raise bad(f"its views add up to {sum(s for _, s in views)} columns, not the "
                  f"{obs_size} it reads")
    try:
        view_index(views)
    except ValueError as e:
        raise bad(str(e)) from None
    space = gym.spaces.Box(-np.inf, np.inf, (obs_size,), np.float32)
    try:
        return cls(space, gym.spaces.Discrete(actions), lambda _: 0.0, **kwargs)
    except (ValueError, TypeError) as e:
        raise bad(str(e)) from None


def read_policy(path: str | Path) -> Any:
    """The policy of a file written by :func:`export_policy`, on the CPU, in eval mode.

    Reads tensors and JSON only (no pickle). Raises ``ValueError`` naming the file for
    anything else: a missing file or a folder, a file that is not safetensors (a zip
    says so), a header that is missing or malformed, a prior that is not a built-in
    heuristic, another number of actions, an observation this version cannot provide,
    or tensors that do not fit the policy the header describes."""
    path = check_file(path, "ppo model")
    config, numbers = _read_header(path)
    policy = _build_policy(config, path, numbers)
    return _filled_policy(policy, read_tensors(path, "ppo model"), path)


def _filled_policy(policy: Any, tensors: dict[str, torch.Tensor], path: Path) -> Any:
    """``policy`` holding ``tensors``, on the CPU, in eval mode; ``ValueError`` naming
    the file when they do not fit it."""
    try:
        policy.load_state_dict(tensors)
    except (RuntimeError, TypeError, ValueError) as e:
        raise ValueError(f"ppo model file {str(path)!r}: its tensors do not fit the policy "
                         f"its header describes ({str(e).splitlines()[0]})") from None
    policy.set_training_mode(False)
    return policy


def load_legacy_zip(path: str | Path) -> Any:
    """The policy of a MaskablePPO ``.zip`` saved by SB3, on the CPU, in eval mode, read
    as data only (:mod:`uno_agents.sb3_zip`: no unpickling, so no code from the file runs).
    Any failure to load raises ``ValueError`` naming the file."""
    from .sb3_zip import read_sb3_zip

    path = check_file(path, "ppo model")
    check_zip(path, "ppo model")
    try:
        config, tensors = read_sb3_zip(path)
    except ValueError as e:
        raise ValueError(f"ppo model file {str(path)!r} is not a MaskablePPO model: "
                         f"{e}") from None
    obs_size = config["obs_size"]
    views = config.pop("views")
    if not views or sum(int(s) for _, s in views) != obs_size:
        try:
            views = prefix_views(obs_size)
        except ValueError as e:
            raise ValueError(f"ppo model file {str(path)!r}: {e}") from None
    numbers = sum(t.numel() for t in tensors.values() if isinstance(t, torch.Tensor))
    policy = _build_policy({**config, "format": FORMAT, "views": views}, path, numbers)
    return _filled_policy(policy, tensors, path)


def load_policy(path: str | Path) -> Any:
    """The policy saved at ``path``: a ``.zip`` through :func:`load_legacy_zip`, anything
    else as a policy file (:func:`read_policy`). Neither runs code from the file."""
    if Path(path).suffix == ".zip":
        return load_legacy_zip(path)
    return read_policy(path)


class PolicyAgent(LogitsAgent):
    """A trained policy as a batch agent.

    ``policy``: a policy file (``.safetensors``, written by :func:`export_policy`), the
    stem of a shipped one (``official-2p``), an SB3 ``.zip`` (read as data,
    :func:`load_legacy_zip`), an SB3 actor-critic policy, or a torch module returning
    logits ``[B, A]``. A string
    with a path separator or a suffix is a path, a bare stem a shipped policy
    (:mod:`uno_agents.files`); the agent's name is ``ppo:`` and the string given.
    ``deterministic=True`` plays each row's most likely legal action; otherwise it
    samples from the masked softmax with the ``rng`` given to :meth:`act`, so games
    stay reproducible. The agent reads only its observation and mask. An SB3 policy
    whose input fits no version of the observation is refused here, not at its first
    move.
    """

    name = "ppo"

    def __init__(self, policy: str | Path | torch.nn.Module | Any,
                 deterministic: bool = True, label: str | None = None) -> None:
        #: The file the policy was read from (``None`` for a policy given in memory).
        self.model_file: Path | None = None
        if isinstance(policy, (str, Path)):
            path = (resolve_model(policy, SHIPPED_SUFFIX, "ppo policy", "ppo")
                    if isinstance(policy, str) else policy)
            label = label or f"ppo:{policy}"
            self.model_file = Path(path)
            policy = load_policy(path)
        if hasattr(policy, "mlp_extractor") and hasattr(policy, "action_net"):
            extractor = getattr(policy, "features_extractor", None)
            self.columns = view_index(getattr(extractor, "views", CURRENT_VIEWS))
            width = OBS_SIZE if self.columns is None else self.columns.size
            sb3: Any = policy   # an SB3 actor-critic policy, by its attributes
            inputs = flat_size(sb3.observation_space)
            if inputs != width:
                raise ValueError(f"the policy reads {inputs} observation columns, but its "
                                 f"views give {width}; no version of the observation fits it")
            self.module: torch.nn.Module = _SB3Logits(policy)
        elif isinstance(policy, torch.nn.Module):
            self.columns = None
            self.module = policy
        else:
            raise TypeError(f"PolicyAgent needs a model path, an SB3 policy or a torch module, "
                            f"got {type(policy).__name__}")
        self.module.eval()
        self.device = next(self.module.parameters(), torch.zeros(0)).device
        self.deterministic = bool(deterministic)
        self.name = label or "ppo"

    def __repr__(self) -> str:
        return f"PolicyAgent({self.name!r}, deterministic={self.deterministic})"

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.module(obs)


__all__ = ["MODELS_DIR", "HeuristicPriorPolicy", "PolicyAgent", "UnoFeatures",
           "export_policy", "load_legacy_zip", "load_policy", "read_policy"]

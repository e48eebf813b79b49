"""The learner core (uno_agents.training): packed rows back from the dense observation,
compiled opponents, rollouts, PPO's and Monte-Carlo's arithmetic, worker processes,
network files of every encoder, and devices."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("safetensors")

from uno_agents import make_agent  # noqa: E402
from uno_agents.net import NetAgent, load_net, save_net  # noqa: E402
from uno_agents.training.device import resolve_device  # noqa: E402
from uno_agents.training.dmc import MonteCarlo  # noqa: E402
from uno_agents.training.encoder import (  # noqa: E402
    PackedLayout,
    conform,
    multiply_adds,
    packed_from_dense,
)
from uno_agents.training.nets import DenseActorCritic, build_net  # noqa: E402
from uno_agents.training.ppo import PPOSettings, advantages, legal_lists, update  # noqa: E402
from uno_agents.training.rollout import (  # noqa: E402
    Games,
    Rollout,
    collect,
    masked_log_probs,
    sample_actions,
)
from uno_agents.training.workers import make_shards  # noqa: E402
from uno_env import PRESETS, Engine, Rules  # noqa: E402
from uno_env.engine.observe import OBS_SIZE  # noqa: E402
from uno_env.engine.packed import packed_views  # noqa: E402
from uno_env.engine.packed_rows import observe_packed  # noqa: E402
from uno_env.engine.playouts import play_opponents  # noqa: E402
from uno_env.envs.learner import LearnerCore  # noqa: E402

pytestmark = pytest.mark.train
CPU = torch.device("cpu")
GPU = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def _played(rules: Rules, games: int, decisions: int, seed: int = 0) -> Engine:
    engine = Engine(rules, games, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(decisions):
        masks = engine.legal_action_mask()
        engine.step(np.where(masks, rng.random(masks.shape), -1).argmax(axis=1))
        ended = np.flatnonzero(engine.state.done)
        if ended.size:
            engine.reset(games=ended)
    return engine


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("players", [2, 4])
def test_packed_rows_come_back_exactly_from_the_dense_observation(preset: str,
                                                                  players: int) -> None:
    rules = Rules.preset(preset, num_players=4 if preset == "teams" else players)
    layout = PackedLayout.of(rules)
    engine = _played(rules, 48, 60)
    for seat in range(rules.num_players):
        seats = np.full(48, seat)
        want = conform(observe_packed(engine, seats), rules, layout)
        assert (packed_from_dense(engine.observe(seats), layout) == want).all()


def test_a_layout_covers_several_rule_sets_and_refuses_mixed_player_counts() -> None:
    official, teams = Rules.preset("official", num_players=4), Rules.preset("teams")
    wide = PackedLayout.of([official, teams])
    assert wide.partner_hand and wide.size == PackedLayout.of(teams).size
    rows = observe_packed(Engine(official, 3, seed=1), np.zeros(3, int))
    padded = conform(rows, official, wide)
    assert (padded[:, wide.views()["partner_hand"]] == 0).all()
    with pytest.raises(ValueError, match="one player count"):
        PackedLayout.of([official, Rules.preset("official", num_players=2)])


def test_the_packed_encoder_costs_under_a_quarter_of_sb3s_network() -> None:
    layout = PackedLayout.of(Rules.preset("official", num_players=2))
    assert multiply_adds(build_net("packed", (128, 128), layout)) < \
        0.25 * multiply_adds(DenseActorCritic((128, 128)))


@pytest.mark.parametrize("opponent", ["greedy", "tuned", "defender"])
def test_compiled_opponents_play_the_games_their_act_plays(opponent: str) -> None:
    pytest.importorskip("numba")
    rules = Rules.preset("official", num_players=3)
    compiled = LearnerCore(rules, 32, opponent, "rotate", seed=5)
    stepped = LearnerCore(rules, 32, opponent, "rotate", seed=5)
    stepped._policy = None                   # the opponents' act, decision by decision
    assert compiled._policy is not None
    rng = np.random.default_rng(0)
    for _ in range(150):
        masks = compiled.action_masks()
        assert (masks == stepped.action_masks()).all()
        assert (compiled.observe() == stepped.observe()).all()
        actions = np.where(masks, rng.random(masks.shape), -1).argmax(axis=1)
        for a, b in zip(compiled.step(actions), stepped.step(actions), strict=True):
            assert (a == b).all()
        ended = np.flatnonzero(compiled.done)
        compiled.reset(games=ended)
        stepped.reset(games=ended)


def test_play_opponents_refuses_random_policies_and_the_numpy_backend() -> None:
    rules = Rules.preset("official", num_players=2)
    random_play = make_agent("random_play").playout_policy(2)
    with pytest.raises(ValueError, match="no random policy"):
        play_opponents(Engine(rules, 2, seed=0), [0], np.array([1]), random_play)
    with pytest.raises(NotImplementedError, match="numba backend only"):
        play_opponents(Engine(rules, 2, seed=0, backend="numpy"), [0], np.array([1]),
                       make_agent("greedy").playout_policy(2))


def test_sampling_follows_the_masked_softmax_and_never_an_illegal_action() -> None:
    logits = torch.tensor([[0.0, 5.0, 1.0, 0.0]]).repeat(40_000, 1)
    masks = torch.tensor([[True, False, True, True]]).repeat(40_000, 1)
    actions = sample_actions(masked_log_probs(logits, masks), masks,
                             torch.Generator().manual_seed(3))
    share = np.bincount(actions.numpy(), minlength=4) / 40_000
    want = torch.softmax(torch.tensor([0.0, 1.0, 0.0]), 0).numpy()
    assert share[1] == 0
    assert np.abs(share[[0, 2, 3]] - want).max() < 0.01


def test_legal_lists_hold_each_rows_legal_actions_and_the_chosen_position() -> None:
    masks = torch.tensor([[False, True, False, True], [True, False, False, False]])
    ids, valid, chosen = legal_lists(masks, torch.tensor([3, 0]))
    assert ids.tolist() == [[1, 3], [0, 0]] and valid.tolist() == [[True, True], [True, False]]
    assert chosen.tolist() == [1, 0]


def _rollout(rewards: list[list[float]], dones: list[list[float]], values: list[list[float]],
             last: list[float]) -> Rollout:
    r = torch.tensor(rewards)
    steps, n = r.shape
    return Rollout(inputs=(torch.arange(steps * n, dtype=torch.float32)[:, None],),
                   masks=torch.ones(steps * n, 2, dtype=torch.bool),
                   actions=torch.zeros(steps * n, dtype=torch.long),
                   log_probs=torch.zeros(steps * n), values=torch.tensor(values).reshape(-1),
                   rewards=r, dones=torch.tensor(dones), last_values=torch.tensor(last),
                   rules_table=torch.zeros(1, 1), rules_index=None,
                   outcomes=np.zeros(0, np.float32))


def test_gae_cuts_at_episode_ends_and_bootstraps_after_the_last_step() -> None:
    ro = _rollout([[0.0], [1.0], [0.0]], [[0.0], [1.0], [0.0]], [[0.5], [0.2], [0.1]], [0.4])
    adv, returns = advantages(ro, gamma=0.9, lam=1.0)
    # step 2 bootstraps from the last value; step 1 ends its episode; step 0 leads to it
    assert returns.tolist() == pytest.approx([0.9 * 1.0, 1.0, 0.9 * 0.4])
    assert adv.tolist() == pytest.approx([0.9 - 0.5, 1.0 - 0.2, 0.36 - 0.1])


def test_monte_carlo_returns_wait_for_episodes_that_run_past_a_rollout() -> None:
    mc = MonteCarlo()
    first = mc.finished(_rollout([[0.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 1.0]],
                                 [[0, 0], [0, 0]], [0, 0]))
    assert first["returns"].tolist() == [1.0, 1.0]          # game 1's two decisions
    assert first["inputs"][0][:, 0].tolist() == [1.0, 3.0]
    second = mc.finished(_rollout([[-1.0, 0.0]], [[1.0, 0.0]], [[0, 0]], [0, 0]))
    # game 0's two waiting decisions and its new one end with -1; game 1's waits on
    assert sorted(second["returns"].tolist()) == [-1.0, -1.0, -1.0]
    assert mc.waiting is not None and mc.waiting["games"].tolist() == [1]


def test_ppo_moves_the_policy_towards_the_rewarded_action() -> None:
    net = DenseActorCritic((8,), inputs=4, actions=3)
    steps, n = 4, 64
    ro = _rollout([[0.0] * n] * steps, [[1.0] * n] * steps, [[0.0] * n] * steps, [0.0] * n)
    ro.inputs = (torch.ones(steps * n, 4),)
    ro.masks = torch.ones(steps * n, 3, dtype=torch.bool)
    ro.actions = torch.arange(steps * n) % 3
    ro.rewards = (ro.actions.reshape(steps, n) == 2).float()
    with torch.no_grad():
        ro.log_probs = masked_log_probs(net.evaluate(ro.inputs)[0], ro.masks).gather(
            1, ro.actions[:, None]).squeeze(1)
    before = torch.softmax(net.evaluate(ro.inputs)[0][0], 0)[2].item()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    for _ in range(5):
        update(net, optimizer, ro, PPOSettings(batch_size=64, n_epochs=2))
    assert torch.softmax(net.evaluate(ro.inputs)[0][0], 0)[2].item() > before + 0.05


@pytest.mark.parametrize("encoder", ["packed", "dense", "dense-separate"])
def test_collect_records_legal_actions_and_the_games_they_came_from(encoder: str) -> None:
    rules = Rules.preset("official", num_players=2)
    net = build_net(encoder, (16, 16), PackedLayout.of(rules))
    games = Games(rules, 16, "greedy", 3, net.raw_kind)
    ro = collect(games, net, 40, CPU, torch.Generator().manual_seed(0))
    assert ro.size == 640 and ro.rewards.shape == (40, 16)
    assert ro.masks[torch.arange(640), ro.actions].all()
    assert ro.outcomes.size == int(ro.dones.sum()) > 0
    assert set(np.round(ro.outcomes, 3)) <= {1.0, -1.0, 0.0}


def test_value_networks_play_the_highest_value_or_a_boltzmann_sample() -> None:
    rules = Rules.preset("official", num_players=2)
    net = build_net("packed", (16, 16), PackedLayout.of(rules))

    def agreement(temperature: float) -> float:
        ro = collect(Games(rules, 32, "greedy", 5, net.raw_kind), net, 20, CPU,
                     torch.Generator().manual_seed(1), epsilon=1e-9, temperature=temperature)
        assert ro.masks[torch.arange(ro.size), ro.actions].all()
        with torch.no_grad():
            values = net.evaluate(ro.inputs, ro.rules_table, ro.rules_index)[0].float()
        best = values.masked_fill(~ro.masks, -torch.inf).argmax(dim=-1)
        return float((ro.actions == best).float().mean())

    assert agreement(0.0) == 1.0
    assert agreement(100.0) < 0.8   # nearly uniform over the legal actions


def test_worker_processes_deal_the_games_an_engine_here_deals() -> None:
    rules = Rules.preset("official", num_players=2)
    layout = PackedLayout.of(rules)
    here = make_shards(rules, 12, "greedy", 7, "packed", layout, 0)
    there = make_shards(rules, 12, "greedy", 7, "packed", layout, 2)
    try:
        rows = np.concatenate([s.rows() for s in there])
        assert (rows == here[0].rows()).all()
        masks = np.concatenate([s.masks() for s in there])
        actions = masks.argmax(axis=1)
        expected = here[0].step(actions)
        for shard, part in zip(there, np.split(actions, [6]), strict=True):
            shard.step_async(part)
        got = [np.concatenate(x) for x in zip(*(s.step_wait() for s in there), strict=True)]
        for a, b in zip(expected, got, strict=True):
            assert (a == b).all()
    finally:
        for shard in there:
            shard.close()


def test_worker_processes_start_side_by_side(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each worker takes seconds to start (imports, kernels): all start before the first
    is waited for, so 15 workers start in the time of one, not of 15."""
    from uno_agents.training import workers

    events: list[str] = []
    start, ready = workers.WorkerGames.__init__, workers.WorkerGames.wait_ready

    def started(self, *args, **kwargs) -> None:
        start(self, *args, **kwargs)
        events.append("start")

    def waited(self) -> None:
        events.append("wait")
        ready(self)

    monkeypatch.setattr(workers.WorkerGames, "__init__", started)
    monkeypatch.setattr(workers.WorkerGames, "wait_ready", waited)
    rules = Rules.preset("official", num_players=2)
    shards = make_shards(rules, 6, "greedy", 0, "packed", PackedLayout.of(rules), 3)
    for shard in shards:
        shard.close()
    assert events == ["start"] * 3 + ["wait"] * 3


def test_a_worker_that_fails_says_why() -> None:
    rules = Rules.preset("official", num_players=2)
    with pytest.raises(RuntimeError, match="worker process failed"):
        make_shards(rules, 4, "greedy", -5, "packed", PackedLayout.of(rules), 1)


@pytest.mark.parametrize("encoder", ["packed", "dense-separate", "dense"])
def test_network_files_of_every_encoder_play_as_they_were_saved(encoder: str,
                                                                tmp_path) -> None:
    rules = Rules.preset("official", num_players=2)
    net = build_net(encoder, (24, 24), PackedLayout.of(rules)).eval()
    path = save_net(tmp_path / "m.safetensors", net, {"recipe": "test"})
    engine = _played(rules, 40, 30)
    obs, masks = engine.observe(engine.current_player), engine.legal_action_mask()
    assert (NetAgent(path).logits(obs) == pytest.approx(NetAgent(net).logits(obs), abs=1e-6))
    assert masks[np.arange(40), make_agent(f"net:{path}").act(obs, masks, None)].all()
    loaded, _ = load_net(path)
    assert type(loaded) is type(net)


def test_a_packed_network_refuses_games_of_another_player_count(tmp_path) -> None:
    net = build_net("packed", (8,), PackedLayout(2))
    engine = Engine(Rules.preset("official", num_players=3), 2, seed=0)
    with pytest.raises(ValueError, match="reads 2-player games"):
        NetAgent(net).act(engine.observe(engine.current_player), engine.legal_action_mask(),
                          None)


def test_a_run_refuses_to_start_from_a_network_of_another_player_count(tmp_path) -> None:
    from uno_agents.training.run import Run, RunSettings

    start = save_net(tmp_path / "two.safetensors", build_net("packed", (8,), PackedLayout(2)))
    cfg = RunSettings(preset="no_mercy", players=4, init_net=str(start),
                      out=str(tmp_path / "run"))
    with pytest.raises(SystemExit, match="reads the packed rows of 2-player games; --preset "
                                         "no_mercy at 4 players deals 4-player games"):
        Run(cfg, "train", 64, "ppo")
    assert not (tmp_path / "run").exists()


def test_the_shipped_networks_still_load_and_play() -> None:
    rules = Rules.preset("official", num_players=2)
    engine = _played(rules, 8, 10)
    agent = make_agent("net:official-2p,device=cpu")
    masks = engine.legal_action_mask()
    assert masks[np.arange(8), agent.act(engine.observe(engine.current_player), masks,
                                         None)].all()


def test_devices_are_named_and_cuda_without_a_gpu_is_refused_in_one_line() -> None:
    assert resolve_device("cpu").type == "cpu"
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        resolve_device("tpu")
    with pytest.raises(ValueError, match="net: takes device"):
        make_agent("net:official-2p,speed=fast")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA GPU"):
            make_agent("net:official-2p,device=cuda")


@GPU
def test_the_core_collects_and_updates_on_a_gpu() -> None:
    cuda = torch.device("cuda")
    rules = Rules.preset("official", num_players=2)
    net = build_net("packed", (64, 64), PackedLayout.of(rules)).to(cuda)
    ro = collect(Games(rules, 64, "tuned", 0, "packed"), net, 16, cuda,
                 torch.Generator(device=cuda).manual_seed(0))
    assert ro.actions.device.type == "cuda" and ro.masks[torch.arange(ro.size, device=cuda),
                                                          ro.actions].all()
    stats = update(net, torch.optim.Adam(net.parameters()), ro, PPOSettings(batch_size=256))
    assert np.isfinite(list(stats.values())).all()


@GPU
def test_a_net_agent_on_a_gpu_plays_what_it_plays_on_the_cpu() -> None:
    rules = Rules.preset("official", num_players=2)
    engine = _played(rules, 64, 20)
    obs = engine.observe(engine.current_player)
    net = build_net("packed", (32, 32), PackedLayout.of(rules))
    cpu, gpu = NetAgent(net, device="cpu"), NetAgent(net, device="cuda")
    assert next(net.parameters()).device.type == "cpu" and cpu.net is net   # not moved
    assert gpu.logits(obs) == pytest.approx(cpu.logits(obs), abs=1e-4)
    on_gpu = net.to("cuda")
    assert NetAgent(on_gpu).device.type == "cuda" and NetAgent(on_gpu).net is on_gpu


def test_a_net_agent_of_a_network_in_memory_plays_its_live_weights_where_it_is() -> None:
    """A learner's curve and self-play read the network it trains: the agent holds that
    very module on its own device, so a weight changed after is a weight played."""
    rules = Rules.preset("official", num_players=2)
    engine = _played(rules, 16, 10)
    obs = engine.observe(engine.current_player)
    net = build_net("packed", (32, 32), PackedLayout.of(rules))
    agent = NetAgent(net)
    before = agent.logits(obs)
    with torch.no_grad():
        net.policy.bias += 1.0
    assert agent.net is net and agent.device.type == "cpu"
    assert agent.logits(obs) == pytest.approx(before + 1.0, abs=1e-4)


def test_automatic_workers_are_one_per_core_but_one_and_never_more_than_the_games(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On a 16-core machine a run of 8 games takes 8 workers, not 15 it could not fill."""
    from uno_agents.training.run import RunSettings

    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(16)), raising=False)
    assert RunSettings(num_games=8).worker_count() == 8
    assert RunSettings(num_games=256).worker_count() == 15
    assert RunSettings(num_games=8, workers=0).worker_count() == 0


def test_observations_of_the_wrong_width_are_refused() -> None:
    layout = PackedLayout(2)
    with pytest.raises(ValueError, match=f"float rows of {OBS_SIZE}"):
        packed_from_dense(np.zeros((2, 5), np.float32), layout)


@pytest.mark.parametrize(("preset", "players"), [
    ("official", 2), ("no_mercy", 4), ("house_dobon", 4), ("teams", 4), ("computer", 3)])
@pytest.mark.parametrize("layout_of", ["rules", "players"])
def test_a_packed_network_in_an_engine_picks_what_it_picks_from_observations(
        preset: str, players: int, layout_of: str, monkeypatch) -> None:
    """``act_in`` reads the engine's packed rows instead of packing the observations
    again (when the rules have the network's layout), and picks the same actions as
    ``act``, sampled ones too."""
    import uno_agents.training.encoder as encoder

    rules = Rules.preset(preset, num_players=players)
    layout = PackedLayout.of(rules) if layout_of == "rules" else PackedLayout(players)
    net = build_net("packed", (24, 24), layout).eval()
    engine = _played(rules, 40, 30)
    games = np.flatnonzero(~engine.state.done)[::2]
    obs, masks = engine.observe(games=games), engine.legal_action_mask(games)
    same_layout = list(packed_views(rules)) == list(layout.views())
    packing = encoder.packed_from_dense
    for deterministic in (True, False):
        agent = NetAgent(net, deterministic=deterministic)
        want = agent.act(obs, masks, np.random.default_rng(1))
        if same_layout:
            monkeypatch.setattr(encoder, "packed_from_dense", None)   # must not be called
        got = agent.act_in(engine, games, obs, masks, np.random.default_rng(1))
        monkeypatch.setattr(encoder, "packed_from_dense", packing)
        assert (got == want).all() and masks[np.arange(games.size), got].all()
    assert same_layout or layout_of == "players"


def test_distinct_rule_rows_are_numpy_unique_rows() -> None:
    from uno_agents.net import distinct_rows

    one = np.tile(np.array([[0.5, 1.0, 0.0]], np.float32), (4, 1))
    rows, index = distinct_rows(one)
    assert rows.tolist() == [[0.5, 1.0, 0.0]] and index.tolist() == [0, 0, 0, 0]
    mixed = np.concatenate([one, one[:2] + 1, one[:1]])
    rows, index = distinct_rows(mixed)
    want_rows, want_index = np.unique(mixed, axis=0, return_inverse=True)
    assert (rows == want_rows).all() and (index.reshape(-1) == want_index.reshape(-1)).all()
    assert (rows[index.reshape(-1)] == mixed).all()


def test_ctrl_c_in_a_step_reaches_the_caller_as_itself(monkeypatch) -> None:
    """A KeyboardInterrupt inside a shard's step ends collecting with that interrupt (not
    with an error about a step never sent, which buried it under a second traceback)."""
    from uno_agents.training.rollout import Games

    rules = Rules.preset("official", num_players=2)
    shard = Games(rules, 4, "greedy", 0, "packed", PackedLayout.of(rules))
    net = build_net("packed", (8,), PackedLayout.of(rules))
    real, calls = shard.step, []

    def interrupted_at_the_third(actions: np.ndarray) -> tuple:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(actions)
    monkeypatch.setattr(shard, "step", interrupted_at_the_third)
    with pytest.raises(KeyboardInterrupt) as caught:
        collect(shard, net, 6, torch.device("cpu"))
    assert caught.value.__context__ is None and len(calls) == 3

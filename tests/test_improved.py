"""The heuristic improved by a learned advantage (uno_agents.improved) and its training script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from scenario import make  # noqa: E402
from test_result_provenance import has_provenance  # noqa: E402

from uno_agents import make_agent  # noqa: E402
from uno_agents.improved import AdvantageNet, ImprovedAgent, save_advisers, save_model  # noqa: E402
from uno_env import PRESETS, Engine, Rules, action_id  # noqa: E402

pytestmark = pytest.mark.train

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))


def zero_net() -> AdvantageNet:
    net = AdvantageNet((8,))
    for p in net.parameters():
        torch.nn.init.zeros_(p)
    return net


def positions(preset: str, players: int, games: int = 256, steps: int = 30) -> tuple:
    """Observations and masks of positions reached by tuned play."""
    eng = Engine(Rules.preset(preset, num_players=players), games, 11)
    tuned, rng = make_agent("tuned"), np.random.default_rng(0)
    for _ in range(steps):
        live = np.flatnonzero(~eng.state.done)
        actions = np.zeros(games, np.int64)
        actions[live] = tuned.act(eng.observe(games=live), eng.legal_action_mask(live), rng)
        eng.step(actions)
    live = np.flatnonzero(~eng.state.done)
    return eng.observe(games=live), eng.legal_action_mask(live)


def test_with_no_advantage_anywhere_it_plays_the_heuristic() -> None:
    obs, masks = positions("official", 2)
    agent = ImprovedAgent(zero_net(), base="tuned", margin=0.0)
    tuned = make_agent("tuned").act(obs, masks, np.random.default_rng(0))
    np.testing.assert_array_equal(agent.act(obs, masks, np.random.default_rng(0)), tuned)


def test_it_departs_only_where_the_advantage_beats_the_margin() -> None:
    obs, masks = positions("official", 2)
    net = zero_net()
    draw = action_id("draw")
    with torch.no_grad():
        net.net[-1].bias[draw] = 0.3     # the network says drawing is worth 0.3 of a game
    tuned = make_agent("tuned").act(obs, masks, np.random.default_rng(0))
    keen = ImprovedAgent(net, base="tuned", margin=0.1).act(obs, masks, None)
    shy = ImprovedAgent(net, base="tuned", margin=0.5).act(obs, masks, None)
    can_draw = masks[:, draw]
    assert can_draw.any() and (~can_draw).any()
    assert (keen[can_draw] == draw).all() and (keen[~can_draw] == tuned[~can_draw]).all()
    np.testing.assert_array_equal(shy, tuned)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_it_plays_only_legal_actions_on_every_preset(preset) -> None:
    torch.manual_seed(0)
    agent = ImprovedAgent(AdvantageNet((16,)), base="tuned", margin=0.0)
    for players in (2, 4):
        obs, masks = positions(preset, 4 if preset == "teams" else players, games=64, steps=20)
        actions = agent.act(obs, masks, np.random.default_rng(0))
        assert masks[np.arange(len(masks)), actions].all()


def test_a_saved_model_loads_by_name_and_a_wrong_one_is_refused(tmp_path) -> None:
    torch.manual_seed(1)
    net = AdvantageNet((16,))
    path = tmp_path / "adv.pt"
    save_model(path, net, "tuned", 0.05, {"command": "test"})
    agent = make_agent(f"improved:{path}")
    assert agent.name == f"improved:{path}" and agent.margin == 0.05
    obs, _ = positions("official", 2, games=32, steps=5)
    np.testing.assert_allclose(agent.advantages(obs), ImprovedAgent(net, margin=0.05)
                               .advantages(obs), rtol=1e-6)
    with pytest.raises(ValueError, match="no shipped advantage model 'nowhere'"):
        make_agent("improved:nowhere")


def test_a_model_of_an_earlier_observation_reads_the_columns_it_had(tmp_path) -> None:
    from uno_agents.policy import _layouts, observation_columns

    torch.manual_seed(2)
    older = sum(size for _, size in _layouts()[1])   # the rules view before the last options
    net = AdvantageNet((16,), obs_size=older)
    path = tmp_path / "older.pt"
    save_model(path, net, "tuned", 0.05, {"command": "test"})
    agent = make_agent(f"improved:{path}")
    obs, masks = positions("official", 2, games=32, steps=5)
    assert obs.shape[1] > older
    with torch.no_grad():
        expected = net(torch.as_tensor(obs[:, observation_columns(older)])).numpy()
    np.testing.assert_allclose(agent.advantages(obs), expected, rtol=1e-6)
    assert masks[np.arange(len(masks)), agent.act(obs, masks, np.random.default_rng(0))].all()
    bad = tmp_path / "bad.pt"
    saved = torch.load(path, weights_only=True)
    torch.save({**saved, "obs_size": older + 1}, bad)
    with pytest.raises(ValueError, match="matches no version of the observation"):
        make_agent(f"improved:{bad}")


def rating(action: str, value: float) -> AdvantageNet:
    """A network that rates one action ``value`` above all others, everywhere."""
    net = zero_net()
    with torch.no_grad():
        net.net[-1].bias[action_id(action)] = value
    return net


def test_with_several_advisers_any_may_propose_and_with_a_veto_any_may_forbid() -> None:
    obs, masks = positions("official", 2)
    draw = action_id("draw")
    tuned = make_agent("tuned").act(obs, masks, np.random.default_rng(0))
    can_draw = masks[:, draw] & (tuned != draw)
    assert can_draw.any()
    keen, against = rating("draw", 0.3), rating("draw", -0.2)
    # the second adviser has nothing to propose: the first one's advice is played
    both = ImprovedAgent([(zero_net(), 0.1), (keen, 0.1)], base="tuned").act(obs, masks, None)
    assert (both[can_draw] == draw).all()
    # an adviser that rates drawing below the base choice forbids it only under a veto
    free = ImprovedAgent([(keen, 0.1), (against, 0.1)], base="tuned").act(obs, masks, None)
    assert (free[can_draw] == draw).all()
    vetoed = ImprovedAgent([(keen, 0.1), (against, 0.1)], base="tuned", veto=0.1)
    np.testing.assert_array_equal(vetoed.act(obs, masks, None), tuned)
    lenient = ImprovedAgent([(keen, 0.1), (against, 0.1)], base="tuned", veto=0.25)
    assert (lenient.act(obs, masks, None)[can_draw] == draw).all()


def test_saved_advisers_load_with_their_margins_and_veto(tmp_path) -> None:
    torch.manual_seed(2)
    nets = [AdvantageNet((16,)), AdvantageNet((8, 8))]
    path = tmp_path / "pair.pt"
    save_advisers(path, [(nets[0], 0.1), (nets[1], 0.05)], "tuned", 0.02, {"command": "t"})
    agent = make_agent(f"improved:{path}")
    assert agent.margins == [0.1, 0.05] and agent.veto == 0.02 and agent.name == f"improved:{path}"
    obs, masks = positions("official", 2, games=32, steps=5)
    direct = ImprovedAgent(list(zip(nets, (0.1, 0.05), strict=True)), veto=0.02)
    np.testing.assert_array_equal(agent.act(obs, masks, None), direct.act(obs, masks, None))
    with pytest.raises(ValueError, match="at least one"):
        ImprovedAgent([])


def test_advantages_are_outcome_differences_against_the_base_choice() -> None:
    from train_improvement import advantages

    # seat 0 can go out at once with R5, or draw; seat 1 holds many cards
    eng = make([["R5"], ["G1", "G2", "G3", "G4", "B6", "B7", "B8"]], top="R1",
               pile=["Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8", "Y9"])
    masks = eng.legal_action_mask()
    draw, win = action_id("draw"), action_id("play R5")
    adv = advantages(eng, np.array([0]), masks, np.array([draw]), make_agent("tuned"),
                     np.random.default_rng(0))
    assert adv[0, draw] == 0 and (adv[0, ~masks[0]] == 0).all()
    assert adv[0, win] in (0.0, 2.0)     # +1 for the win, less the drawing line's +1 or -1
    assert eng.hand(0, 0) == ["R5"]      # the game itself has not moved
    by_hand = make([["R5"], ["G1", "G2", "G3", "G4", "B6", "B7", "B8"]], top="R1",
                   pile=["Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8", "Y9"])
    rewards, _, _ = by_hand.step([draw])
    total = rewards[0, 0]
    tuned = make_agent("tuned")
    while not by_hand.state.done.all():
        a = tuned.act(by_hand.observe(), by_hand.legal_action_mask(), None)
        total += by_hand.step(a)[0][0, 0]
    assert adv[0, win] == pytest.approx(1.0 - total)


def test_searched_advantages_value_each_action_in_the_same_sampled_worlds() -> None:
    from train_improvement import searched_advantages

    from uno_agents.ismcts import IsmctsAgent

    # going out at once wins in every world; drawing lets the opponent play on
    eng = make([["R5"], ["G1", "G2", "G3", "G4", "B6", "B7", "B8"]], top="R1",
               pile=["Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8", "Y9"])
    masks = eng.legal_action_mask()
    draw, win = action_id("draw"), action_id("play R5")
    search = IsmctsAgent(budget=40, horizon=0)
    adv = searched_advantages(search, eng, np.array([0]), masks, np.array([draw]), None,
                              np.random.default_rng(0))
    assert adv[0, draw] == 0 and (adv[0, ~masks[0]] == 0).all()
    assert 0 < adv[0, win] <= 2.0
    values = search.action_values(eng, np.array([0]), masks, np.random.default_rng(0))[0]
    legal = np.flatnonzero(masks[0])
    assert values.shape == (legal.size, 20)
    assert (values[np.searchsorted(legal, win)] == 1.0).all()     # a win in every world
    assert eng.hand(0, 0) == ["R5"]      # the game itself has not moved


def test_train_improvement_runs_end_to_end(tmp_path) -> None:
    out = tmp_path / "imp"
    repo = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, str(repo / "experiments" / "train_improvement.py"), "--states", "400",
         "--games", "64", "--epochs", "1", "--hidden", "16", "--margins", "0,0.1",
         "--select-deals", "4", "--eval-deals", "4", "--no-progress", "--out", str(out)],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(repo)})
    assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads((out / "record.json").read_text())
    assert record["decisions"] == 400 and record["margin"] in (0.0, 0.1)
    assert has_provenance(record) and record["command"].startswith(
        "python experiments/train_improvement.py --states 400")
    assert record["deals"] == {"namespace": "evaluation", "first": 1_000_000,
                               "last": 1_000_003, "count": 4}
    assert [r["margin"] for r in record["margins"]] == [0.0, 0.1]
    assert {r["opponent"] for r in record["results"]} == {"tuned", "random_play"}
    # against anyone but itself, the base's own result on the same deals comes along
    by_opponent = {r["opponent"]: r for r in record["results"]}
    assert "base" not in by_opponent["tuned"]
    assert by_opponent["random_play"]["base"]["games"] == by_opponent["random_play"]["games"]
    diff = by_opponent["random_play"]["difference"]
    assert diff["mean"] == pytest.approx(by_opponent["random_play"]["win_rate"]
                                         - by_opponent["random_play"]["base"]["win_rate"])
    assert diff["low"] <= diff["mean"] <= diff["high"]
    assert make_agent(f"improved:{out / 'model.pt'}").margin == record["margin"]


def test_departure_check_runs_end_to_end(tmp_path) -> None:
    out = tmp_path / "check.json"
    repo = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, str(repo / "experiments" / "departure_check.py"), "--states", "30",
         "--search-budget", "32", "--true-playouts", "2", "--games", "32",
         "--confidences", "0,2", "--no-progress", "--out", str(out)],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(repo)})
    assert done.returncode == 0, done.stderr[-3000:]
    table = json.loads(out.read_text())["summary"]
    overall = [r for r in table if r["phase"] == "all"]
    assert [r["confidence"] for r in overall] == [0.0, 2.0]
    assert all(r["decisions"] == 30 and r["low"] <= r["mean"] <= r["high"] for r in overall)
    # a stricter confidence departs no more often
    assert overall[1]["departs"] <= overall[0]["departs"]


def test_combine_advisers_runs_end_to_end(tmp_path) -> None:
    torch.manual_seed(3)
    paths = []
    for name, margin in (("a", 0.1), ("b", 0.05)):
        paths.append(tmp_path / f"{name}.pt")
        save_model(paths[-1], AdvantageNet((8,)), "tuned", margin, {"command": "test"})
    out = tmp_path / "both"
    repo = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, str(repo / "experiments" / "combine_advisers.py"),
         "--models", ",".join(map(str, paths)), "--vetoes", "none,0.05",
         "--select-deals", "3", "--eval-deals", "3", "--out", str(out)],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(repo)})
    assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads((out / "record.json").read_text())
    assert [t["veto"] for t in record["vetoes"]] == [None, 0.05]
    assert set(record["results"]) == {"tuned", "random_play"}
    agent = make_agent(f"improved:{out / 'model.pt'}")
    assert agent.margins == [0.1, 0.05] and agent.veto == record["veto"]


def test_collected_data_from_several_runs_is_fitted_together(tmp_path) -> None:
    from train_improvement import load_data, main
    small = ["--games", "32", "--epochs", "1", "--hidden", "8", "--margins", "0",
             "--select-deals", "2", "--eval-deals", "2", "--eval-opponents", "random_play",
             "--no-progress"]
    for seed, states in ((0, 60), (1, 40)):
        main(["--states", str(states), "--seed", str(seed), "--collect-only",
              "--out", str(tmp_path / f"s{seed}"), *small])
        assert not (tmp_path / f"s{seed}" / "model.pt").exists()
    files = [str(tmp_path / f"s{seed}" / "data.npz") for seed in (0, 1)]
    obs, masks, adv, _ = load_data(files)
    assert len(obs) == len(masks) == len(adv) == 100
    assert ((adv != 0) <= masks).all()     # advantages only on legal actions
    main(["--data", ",".join(files), "--out", str(tmp_path / "fit"), *small])
    record = json.loads((tmp_path / "fit" / "record.json").read_text())
    assert record["decisions"] == 100
    # the fit's record says how each file of its data was collected
    assert [(d["seed"], d["states"], d["decisions"]) for d in record["data"]] == [
        (0, 60, 60), (1, 40, 40)]


def test_the_margin_is_measured_on_deals_it_was_not_chosen_on(tmp_path, monkeypatch) -> None:
    import train_improvement

    used: dict[str, set[int]] = {"select": set(), "eval": set()}

    def spy(kind, real):
        def played(agent, opponent, rules, deals, seed=10_000, batch=2048):
            used[kind].update(range(seed, seed + deals))
            return real(agent, opponent, rules, deals, seed, batch)
        return played

    monkeypatch.setattr(train_improvement, "head_to_head",
                        spy("select", train_improvement.head_to_head))
    monkeypatch.setattr(train_improvement, "deal_wins",
                        spy("eval", train_improvement.deal_wins))
    train_improvement.main(["--states", "30", "--games", "16", "--epochs", "1", "--hidden", "8",
                            "--margins", "0,0.1", "--select-deals", "5", "--eval-deals", "5",
                            "--eval-opponents", "random_play", "--no-progress",
                            "--out", str(tmp_path / "fit")])
    assert len(used["select"]) == 5 and len(used["eval"]) == 5
    assert not used["select"] & used["eval"]


class SeatRecorder:
    """Plays like ``tuned`` and records the seats it was asked to play (reads the engine)."""

    needs_engine, uses_rng, uses_observations = True, False, True

    def __init__(self) -> None:
        self.tuned, self.seats = make_agent("tuned"), []

    def act_in(self, engine, games, observations, masks, rng):
        self.seats.append(engine.state.current[games].copy())
        return self.tuned.act(observations, masks, rng)


def test_play_outs_against_a_modelled_opponent_give_it_every_other_seat() -> None:
    from uno_agents.ismcts import play_out

    eng = Engine(Rules.preset("official", num_players=3), 24, 5)
    seat = np.arange(24) % 3
    calls: list[tuple[bool, np.ndarray]] = []

    class Checker(SeatRecorder):
        """Records, per call, whether each row asked is the searcher's seat."""

        def __init__(self, mine: bool) -> None:
            super().__init__()
            self.mine = mine

        def act_in(self, engine, games, observations, masks, rng):
            calls.append((self.mine, engine.state.current[games] == seat[games]))
            return super().act_in(engine, games, observations, masks, rng)

    play_out(eng, seat, Checker(True), np.random.default_rng(0), opponent=Checker(False))
    assert eng.state.done.all()
    assert {mine for mine, _ in calls} == {True, False}
    assert all((rows == mine).all() for mine, rows in calls)


def test_data_against_an_opponent_records_only_the_base_decisions(tmp_path, monkeypatch
                                                                  ) -> None:
    import train_improvement as ti

    asked: list[bytes] = []

    class Base(SeatRecorder):
        def act_in(self, engine, games, observations, masks, rng):
            asked.extend(row.tobytes() for row in observations)
            return super().act_in(engine, games, observations, masks, rng)

    real = ti.make_agent
    monkeypatch.setattr(ti, "make_agent", lambda spec: Base() if spec == "tuned" else real(spec))
    cfg = ti.Config(states=60, games=16, opponent="random", record=1.0, progress=False)
    obs, masks, adv = ti.collect(cfg)
    assert len(obs) == 60
    seen = set(asked)
    assert all(row.tobytes() in seen for row in obs)       # none of the opponent's
    assert ((adv != 0) <= masks).all()


@pytest.mark.parametrize("stem", ["official-2p-exit", "official-2p-exit-rp"])
def test_the_shipped_models_load_by_name_play_legally_and_depart_from_tuned_sometimes(
        stem) -> None:
    """The shipped advantage models are the ones docs/results.md measures: each one's
    margin and record ship with it, it plays only legal actions, and it departs from
    ``tuned`` in a small share of positions (it is neither the heuristic nor a different
    player)."""
    agent = make_agent(f"improved:{stem}")
    record = json.loads((Path(__file__).resolve().parents[1] / "agents" / "models"
                         / f"{stem}.json").read_text())
    assert agent.margin == record["margin"] and record["agent"] == f"improved:{stem}"
    obs, masks = positions("official", 2, games=1024, steps=20)
    chosen = agent.act(obs, masks, np.random.default_rng(0))
    assert masks[np.arange(len(masks)), chosen].all()
    tuned = make_agent("tuned").act(obs, masks, np.random.default_rng(0))
    assert 0.0 < (chosen != tuned).mean() < 0.3


# --- model files: no code runs, one clear error, no shadowing, sizes checked at load -------

def test_a_stored_base_may_only_be_a_built_in_heuristic(tmp_path) -> None:
    """A base of ``ppo:evil.zip`` would load (and run) that zip; a base naming the file
    itself would recurse. Both are refused, naming the file and the base."""
    from crafted import code_running_zip

    evil = code_running_zip(tmp_path / "evil.zip", tmp_path / "marker")
    chained, looped = tmp_path / "chained.pt", tmp_path / "looped.pt"
    save_model(chained, zero_net(), f"ppo:{evil}", 0.1, {})
    save_model(looped, zero_net(), f"improved:{looped}", 0.1, {})
    for path, base in ((chained, f"ppo:{evil}"), (looped, f"improved:{looped}")):
        with pytest.raises(ValueError, match=rf"'{path}' names base '{base}'; a model's base "
                                             rf"may only be a built-in heuristic \(greedy,"):
            make_agent(f"improved:{path}")
    assert not (tmp_path / "marker").exists()
    for base in ("greedy", "defender", "random_play"):
        save_model(tmp_path / "ok.pt", zero_net(), base, 0.1, {})
        assert type(make_agent(f"improved:{tmp_path / 'ok.pt'}").base) is type(make_agent(base))


def test_every_bad_advantage_model_file_is_one_value_error_naming_it(tmp_path) -> None:
    from crafted import code_running_pt

    good = tmp_path / "good.pt"
    save_model(good, AdvantageNet((8,)), "tuned", 0.1, {})
    saved = torch.load(good, weights_only=True)
    (tmp_path / "folder.pt").mkdir()
    (tmp_path / "empty.pt").write_bytes(b"")
    (tmp_path / "cut.pt").write_bytes(good.read_bytes()[:2000])
    (tmp_path / "text.pt").write_text("hello")
    code_running_pt(tmp_path / "evil.pt", tmp_path / "marker")
    torch.save({k: v for k, v in saved.items() if k != "obs_size"}, tmp_path / "keys.pt")
    torch.save([1, 2], tmp_path / "list.pt")
    torch.save({**saved, "num_actions": 120}, tmp_path / "actions.pt")
    torch.save({**saved, "advisers": []}, tmp_path / "none.pt")
    narrow = AdvantageNet((8,))   # tensors of one width, obs_size of another
    torch.save({**saved, "state_dict": {k: v[:, :5].clone() if k == "net.0.weight" else v
                                        for k, v in narrow.state_dict().items()}},
               tmp_path / "width.pt")
    cases = {"folder.pt": "is a folder", "missing.pt": "does not exist",
             "empty.pt": "not a model saved by uno_agents.improved",
             "cut.pt": "not a model saved by uno_agents.improved",
             "text.pt": "not a model saved by uno_agents.improved",
             "evil.pt": "objects other than tensors and plain values",
             "keys.pt": "malformed contents .KeyError", "list.pt": "malformed contents",
             "actions.pt": "120 actions", "none.pt": "holds no advantage network",
             "width.pt": "tensors do not fit a network of"}
    for name, why in cases.items():
        path = tmp_path / name
        with pytest.raises(ValueError, match=f"advantage model file '{path}'.*{why}"):
            make_agent(f"improved:{path}")
    assert not (tmp_path / "marker").exists()


def test_a_folder_named_like_a_shipped_model_does_not_shadow_it(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "official-2p-exit-rp").mkdir()
    assert make_agent("improved:official-2p-exit-rp").name == "improved:official-2p-exit-rp"
    with pytest.raises(ValueError, match="advantage model file 'official-2p-exit-rp' is a "
                                         "folder"):
        make_agent("improved:./official-2p-exit-rp")


def test_the_cli_prints_a_bad_model_file_in_one_line(tmp_path, capsys) -> None:
    from uno_env.cli import main

    (tmp_path / "folder.pt").mkdir()
    for spec in (f"improved:{tmp_path / 'folder.pt'}", f"ppo:{tmp_path / 'folder.pt'}"):
        with pytest.raises(SystemExit, match=f"^uno-env: .* file '{tmp_path}/folder.pt' is "
                                             f"a folder$"):
            main(["tournament", "--agents", f"{spec},greedy", "--games", "2", "--no-progress"])

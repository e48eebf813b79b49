"""Standalone network policies (uno_agents.net): safe files, legal play, layout mapping."""

from __future__ import annotations

import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest
from scenario import play_all_seats

torch = pytest.importorskip("torch")
pytest.importorskip("safetensors")

from uno_agents import make_agent  # noqa: E402
from uno_agents.files import shipped_stems  # noqa: E402
from uno_agents.net import (  # noqa: E402
    MODELS_DIR,
    NetAgent,
    PolicyNet,
    current_layout,
    layout_columns,
    load_net,
    save_net,
    widen,
)
from uno_env import PRESETS, Engine, Rules  # noqa: E402
from uno_env.engine.observe import OBS_SIZE, VIEW_SLICES  # noqa: E402

pytestmark = pytest.mark.train

SHIPPED = shipped_stems(".safetensors")   # shipped networks (not the ppo policies)


def small_net(seed: int = 0) -> PolicyNet:
    torch.manual_seed(seed)
    return PolicyNet((16,))


def test_a_saved_network_round_trips_and_plays_the_same(tmp_path: Path) -> None:
    net = small_net()
    path = save_net(tmp_path / "m.safetensors", net, {"recipe": "test"})
    agent = make_agent(f"net:{path}")
    assert agent.name == "net:m"
    eng = Engine(Rules.preset("official", num_players=2), 64, 3)
    obs, masks = eng.observe(), eng.legal_action_mask()
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(agent.act(obs, masks, rng), NetAgent(net).act(obs, masks, rng))
    assert json.loads((tmp_path / "m.json").read_text()) == {"recipe": "test"}


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_network_plays_only_legal_actions_on_every_preset(tmp_path: Path, preset: str) -> None:
    players = 4 if preset == "teams" else 3
    eng = play_all_seats(Rules.preset(preset, num_players=players), NetAgent(small_net()), 8, 1)
    assert eng.done.all()


def test_a_network_agent_holds_no_heuristic_or_search() -> None:
    agent = NetAgent(small_net())
    modules = {type(m).__module__ for m in agent.net.modules()}
    assert all(m.startswith("torch") or m == "uno_agents.net" for m in modules), modules
    assert set(vars(agent)) == {"columns", "net", "deterministic", "uses_rng", "name", "device",
                                "packed", "model_file"}
    assert agent.model_file is None                  # a network given in memory


def test_sampling_follows_the_rng_and_stays_legal() -> None:
    agent = NetAgent(small_net(), deterministic=False)
    eng = Engine(Rules.preset("official", num_players=2), 256, 5)
    obs, masks = eng.observe(), eng.legal_action_mask()
    a = agent.act(obs, masks, np.random.default_rng(1))
    np.testing.assert_array_equal(a, agent.act(obs, masks, np.random.default_rng(1)))
    assert masks[np.arange(len(a)), a].all()
    assert agent.act(obs[:0], masks[:0], np.random.default_rng(1)).shape == (0,)


def test_a_file_that_would_run_code_is_refused(tmp_path: Path) -> None:
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (Path.mkdir, (marker,))

    pickled = tmp_path / "evil.safetensors"
    pickled.write_bytes(pickle.dumps(Evil()))
    zipped = tmp_path / "evil2.safetensors"
    with zipfile.ZipFile(zipped, "w") as z:   # the layout of a torch.save / SB3 file
        z.writestr("data.pkl", pickle.dumps(Evil()))
    for path in (pickled, zipped):
        with pytest.raises(ValueError, match="is not a safetensors file"):
            make_agent(f"net:{path}")
    assert not marker.exists()


def test_bad_files_get_one_clear_error(tmp_path: Path) -> None:
    from safetensors.torch import save_file

    with pytest.raises(ValueError, match="does not exist"):
        make_agent(f"net:{tmp_path}/missing.safetensors")
    (tmp_path / "dir.safetensors").mkdir()
    with pytest.raises(ValueError, match="is a folder"):
        make_agent(f"net:{tmp_path}/dir.safetensors")
    save_file({"x": torch.zeros(2)}, str(tmp_path / "bare.safetensors"))
    with pytest.raises(ValueError, match="no valid network header"):
        make_agent(f"net:{tmp_path}/bare.safetensors")
    path = save_net(tmp_path / "ok.safetensors", small_net())
    tensors = dict(load_net(path)[0].state_dict())
    tensors["policy.weight"] = torch.zeros(3, 3)
    from safetensors import safe_open
    with safe_open(str(path), "pt") as f:
        meta = f.metadata()
    save_file(tensors, str(tmp_path / "wrong.safetensors"), metadata=meta)
    with pytest.raises(ValueError, match="do not fit"):
        make_agent(f"net:{tmp_path}/wrong.safetensors")
    with pytest.raises(ValueError, match="no shipped network 'nope'"):
        make_agent("net:nope")


def test_a_folder_named_like_a_shipped_network_does_not_shadow_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not SHIPPED:
        pytest.skip("no shipped network")
    monkeypatch.chdir(tmp_path)
    (tmp_path / SHIPPED[0]).mkdir()
    assert make_agent(f"net:{SHIPPED[0]}").name == f"net:{SHIPPED[0]}"


def test_a_network_of_another_layout_is_mapped_or_refused_at_load(tmp_path: Path) -> None:
    layout = current_layout()
    assert layout_columns(layout) is None
    older = {"views": [v for v in layout["views"] if v[0] != "drew_on"],
             "rule_fields": layout["rule_fields"][:-1]}
    columns = layout_columns(older)
    drew_on = np.arange(VIEW_SLICES["drew_on"].start, VIEW_SLICES["drew_on"].stop)
    assert not np.isin(drew_on, columns).any()
    assert columns.size == OBS_SIZE - drew_on.size - layout["rule_fields"][-1][1]
    with pytest.raises(ValueError, match="view 'future_view'"):
        layout_columns({"views": [["future_view", 3]], "rule_fields": []})
    with pytest.raises(ValueError, match="rule option 'future_rule'"):
        layout_columns({"views": [["rules", 1]], "rule_fields": [["future_rule", 1]]})


def test_widening_a_network_of_an_older_layout_keeps_its_outputs() -> None:
    net = small_net(3)
    columns = np.sort(np.random.default_rng(0).choice(OBS_SIZE, 700, replace=False))
    narrow = PolicyNet((16,), inputs=columns.size)
    narrow.load_state_dict(net.state_dict() | {"trunk.0.weight": net.trunk[0].weight[:, :700]})
    wide = widen(narrow, columns)
    assert wide.inputs == OBS_SIZE and widen(net, None) is net
    obs = torch.rand(6, OBS_SIZE) * 4
    assert torch.allclose(wide.logits(obs), narrow.logits(obs[:, torch.as_tensor(columns)]),
                          atol=1e-5)
    others = np.setdiff1d(np.arange(OBS_SIZE), columns)
    assert not wide.trunk[0].weight[:, torch.as_tensor(others)].any()


@pytest.mark.parametrize("name", SHIPPED)
@pytest.mark.parametrize("players", [2, 4])
def test_shipped_networks_load_and_play_legally(name: str, players: int) -> None:
    agent = make_agent(f"net:{name}")
    if agent.packed and agent.net.layout.players != players:
        with pytest.raises(ValueError, match=f"reads {agent.net.layout.players}-player"):
            play_all_seats(Rules.preset("official", num_players=players), agent, 1, 1)
        return
    play_all_seats(Rules.preset("official", num_players=players), agent, 16, 2)
    card = json.loads((MODELS_DIR / f"{name}.json").read_text())
    assert {"recipe", "command", "seeds", "results"} <= set(card)


@pytest.mark.parametrize("encoder", ["dense", "packed"])
def test_a_network_agent_plays_in_float32_inside_mixed_precision(encoder: str) -> None:
    """An opponent playing inside a learner's ``--amp`` rollout picks as it does anywhere."""
    from uno_agents.training.encoder import PackedLayout
    from uno_agents.training.nets import build_net

    rules = Rules.preset("official", num_players=2)
    net = small_net() if encoder == "dense" else build_net("packed", (32,), PackedLayout.of(rules))
    agent = NetAgent(net.eval())
    engine = Engine(rules, 64, seed=3)
    obs = engine.observe(engine.current_player)
    plain = agent.logits(obs)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        mixed = agent.logits(obs)
    assert mixed.dtype == np.float32 and (mixed == plain).all()


def test_an_advantage_network_advises_in_float32_inside_mixed_precision() -> None:
    from uno_agents.improved import AdvantageNet

    torch.manual_seed(0)
    net = AdvantageNet((32,)).eval()
    obs = Engine(Rules.preset("official", num_players=2), 32, seed=5).observe(0)
    plain = net.advise(obs)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        mixed = net.advise(obs)
    assert mixed.dtype == np.float32 and (mixed == plain).all()

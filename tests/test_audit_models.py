"""Model files are checked against size and shape limits before any tensor or network
is built; a file beyond them is one ``ValueError`` naming the file and the limit."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("safetensors")

from safetensors.torch import save_file  # noqa: E402

from uno_agents import files, make_agent  # noqa: E402
from uno_agents.files import MODELS_DIR, json_depth  # noqa: E402
from uno_agents.net import current_layout  # noqa: E402
from uno_env import Engine, Rules  # noqa: E402
from uno_env.actions import NUM_ACTIONS  # noqa: E402
from uno_env.engine.observe import OBS_SIZE  # noqa: E402


def net_file(path: Path, header: object, raw: str | None = None) -> Path:
    """A tiny ``net:`` file whose header is ``header`` (or the text ``raw``)."""
    save_file({"x": torch.zeros(2)}, str(path),
              metadata={"uno_env": raw if raw is not None else json.dumps(header)})
    return path


def never_built(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[object]:
    """Replace ``module.name`` (a network class) with one recording every build."""
    built: list[object] = []
    real = getattr(module, name)

    class Recording(real):  # type: ignore[valid-type,misc]
        def __init__(self, *args: object, **kwargs: object) -> None:
            built.append(args)
            super().__init__(*args, **kwargs)
    monkeypatch.setattr(module, name, Recording)
    return built


@pytest.mark.parametrize(("hidden", "message"), [
    ([4096, 4096], r"at least [\d,]+ parameters; its tensors hold 2 numbers"),
    ([16_384] * 16, r"the parameters of the network it declares [\d,]+ exceeds the limit of "),
    ([1_000_000], r"its hidden layer width 1,000,000 exceeds the limit of 16,384"),
    ([8] * 40, r"its hidden layer count 40 exceeds the limit of 16"),
])
def test_a_small_net_file_declaring_a_huge_network_is_refused_unbuilt(
        tmp_path, monkeypatch, hidden, message) -> None:
    import uno_agents.net as net

    built = never_built(monkeypatch, net, "PolicyNet")
    path = net_file(tmp_path / "huge.safetensors",
                    {"hidden": hidden, "inputs": OBS_SIZE, "actions": NUM_ACTIONS,
                     "layout": current_layout()})
    assert path.stat().st_size < 4096
    with pytest.raises(ValueError, match=rf"network file '.*huge\.safetensors'.*{message}"):
        make_agent(f"net:{path}")
    assert built == []


def test_a_small_ppo_file_declaring_a_huge_network_is_refused_unbuilt(tmp_path,
                                                                       monkeypatch) -> None:
    from safetensors import safe_open

    import uno_agents.policy as policy

    source = MODELS_DIR / "official-2p.ppo.safetensors"
    with safe_open(str(source), framework="pt") as f:
        config = json.loads(f.metadata()["uno_env_ppo"])
    config["net_arch"] = {"pi": [4096, 4096, 4096], "vf": [4096]}
    path = tmp_path / "huge.safetensors"
    save_file({"x": torch.zeros(2)}, str(path), metadata={"uno_env_ppo": json.dumps(config)})
    built: list[str] = []
    monkeypatch.setattr(policy, "POLICY_CLASSES", {
        name: (lambda *a, _n=name, **k: built.append(_n)) for name in policy.POLICY_CLASSES})
    with pytest.raises(ValueError, match=r"ppo model file '.*huge\.safetensors': its tensors "
                                         r"do not fit .*at least [\d,]+ parameters"):
        make_agent(f"ppo:{path}")
    assert built == []


@pytest.mark.parametrize("kind", ["net", "ppo"])
def test_a_deeply_nested_header_is_a_value_error_naming_the_file(tmp_path, kind) -> None:
    deep = "[" * 50_000 + "]" * 50_000
    path = tmp_path / "deep.safetensors"
    key = "uno_env" if kind == "net" else "uno_env_ppo"
    save_file({"x": torch.zeros(2)}, str(path), metadata={key: deep})
    with pytest.raises(ValueError, match=r"deep\.safetensors.*nesting depth 50,000 exceeds "
                                         r"the limit of 32"):
        make_agent(f"{kind}:{path}")


def test_a_safetensors_header_beyond_the_limit_is_refused_before_reading(tmp_path) -> None:
    path = net_file(tmp_path / "long.safetensors", None, raw=" " * (files.MAX_HEADER_BYTES + 8))
    with pytest.raises(ValueError, match=r"long\.safetensors.*header length in bytes "
                                         r"[\d,]+ exceeds the limit of 1,048,576"):
        make_agent(f"net:{path}")


def test_a_file_beyond_the_size_limit_is_refused(tmp_path, monkeypatch) -> None:
    path = net_file(tmp_path / "big.safetensors", {"hidden": [8]})
    monkeypatch.setattr(files, "MAX_MODEL_BYTES", 64)
    with pytest.raises(ValueError, match=r"big\.safetensors.*its size in bytes [\d,]+ exceeds "
                                         r"the limit of 64"):
        make_agent(f"net:{path}")


def test_a_zip_whose_entry_inflates_beyond_the_limit_is_refused_uninflated(
        tmp_path, monkeypatch) -> None:
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("data", "{}")
        z.writestr("policy.pth", bytes(4 * 2**20))   # 4 MiB of zeros, a few KB packed
    assert path.stat().st_size < 64 * 1024
    monkeypatch.setattr(files, "MAX_MODEL_BYTES", 2**20)
    read: list[str] = []
    real = zipfile.ZipFile.read
    monkeypatch.setattr(zipfile.ZipFile, "read",
                        lambda self, name, *a: read.append(name) or real(self, name, *a))
    with pytest.raises(ValueError, match=r"bomb\.zip.*inflated size in bytes 4,194,3\d\d "
                                         r"exceeds the limit of 1,048,576"):
        make_agent(f"ppo:{path}")
    assert read == []


def test_an_advantage_file_declaring_a_huge_network_is_refused_unbuilt(tmp_path,
                                                                         monkeypatch) -> None:
    import uno_agents.improved as improved

    built = never_built(monkeypatch, improved, "AdvantageNet")
    path = tmp_path / "huge.pt"
    buffer = io.BytesIO()
    torch.save({"num_actions": NUM_ACTIONS, "obs_size": OBS_SIZE, "base": "greedy",
                "hidden": [2048, 2048], "state_dict": {"w": torch.zeros(2)}, "margin": 0.0},
               buffer)
    path.write_bytes(buffer.getvalue())
    with pytest.raises(ValueError, match=r"advantage model file '.*huge\.pt': its tensors do "
                                         r"not fit .*at least"):
        make_agent(f"improved:{path}")
    assert built == []


def test_json_depth_counts_brackets_outside_strings() -> None:
    assert json_depth('{"a": [1, {"b": "[[[["}]}') == 3
    assert json_depth('"\\"[[["') == 0
    assert json_depth("[" * 10_000 + "]" * 10_000) == 10_000


@pytest.mark.parametrize(("spec", "players"), [
    ("net:official-2p", 2), ("net:official-4p", 4), ("ppo:official-2p", 2),
    ("improved:official-2p-exit", 2)])
def test_the_shipped_models_pass_the_limits(spec, players) -> None:
    """Every shipped model loads under the limits and plays: a legal action in every game."""
    engine = Engine(Rules.preset("official", num_players=players), 16, seed=0)
    masks = engine.legal_action_mask()
    actions = make_agent(spec).act(engine.observe(), masks, np.random.default_rng(0))
    assert actions.shape == (16,) and masks[np.arange(16), actions].all()

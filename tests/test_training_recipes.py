"""The training recipes for standalone networks run end to end on a tiny budget."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest
from inline import run_inline
from scenario import play_all_seats
from test_result_provenance import has_provenance

pytest.importorskip("sb3_contrib")
pytest.importorskip("safetensors")

pytestmark = pytest.mark.train

REPO = Path(__file__).resolve().parents[1]


def run_script(script: str, *args: str, ok: bool = True) -> subprocess.CompletedProcess:
    """Run ``experiments/<script>`` as its own command would (:mod:`inline`)."""
    done = run_inline(script, *args)
    if ok:
        assert done.returncode == 0, done.stderr[-3000:]
    return done


def legal_play(spec: str, players: int = 2) -> None:
    """The agent of ``spec`` plays every seat of a few games with only legal actions."""
    from uno_agents import make_agent
    from uno_env import Rules

    play_all_seats(Rules.preset("official", num_players=players), make_agent(spec), 8, 4)


@pytest.fixture(scope="module")
def distilled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("distill") / "run"
    run_script("distill.py", "--teacher", "tuned", "--opponents", "random_play,greedy",
               "--states", "600", "--rounds", "2", "--num-games", "32", "--hidden", "16",
               "--epochs", "1", "--batch-size", "64", "--curve-deals", "8",
               "--eval-deals", "8", "--out", str(out), "--no-progress")
    return out


def evaluation(record: dict, opponent: str) -> dict:
    """A record's final evaluation against ``opponent``."""
    return next(e for e in record["evaluation"] if e["opponent"] == opponent)


def test_distillation_writes_a_network_its_card_and_its_record(distilled: Path) -> None:
    record = json.loads((distilled / "record.json").read_text())
    assert [r["round"] for r in record["rounds"]] == [0, 1]
    assert [r["states"] for r in record["rounds"]] == [600, 1200]
    assert 0 <= record["rounds"][-1]["agreement"] <= 1
    assert {"greedy", "tuned"} <= set(record["rounds"][-1]["curve"])
    assert evaluation(record, "greedy")["games"] == 16
    assert record["command"].startswith("python experiments/distill.py --teacher tuned")
    card = json.loads((distilled / "model.json").read_text())
    assert card["config"]["teacher"] == "tuned" and card["config"]["encoder"] == "packed"
    import torch

    data = torch.load(distilled / "data-1.pt", weights_only=True)
    assert data["labels"].shape[0] == data["masks"].shape[0] == 600
    assert (data["masks"].sum(dim=1) > 1).all()       # only decisions with a choice
    assert list((distilled / "tb").iterdir())
    legal_play(f"net:{distilled / 'model.safetensors'}")


def test_distillation_resumes_after_its_last_round_and_refuses_to_overwrite(
        distilled: Path) -> None:
    done = run_script("distill.py", "--out", str(distilled), ok=False)
    assert done.returncode != 0 and "--resume" in done.stderr
    run_script("distill.py", "--teacher", "tuned", "--opponents", "random_play,greedy",
               "--states", "600", "--rounds", "3", "--num-games", "32", "--hidden", "16",
               "--epochs", "1", "--batch-size", "64", "--curve-deals", "0",
               "--eval-deals", "0", "--out", str(distilled), "--resume", "--no-progress")
    record = json.loads((distilled / "record.json").read_text())
    assert [r["round"] for r in record["rounds"]] == [0, 1, 2]


def test_ppo_fine_tunes_a_distilled_network_with_an_anchor(distilled: Path,
                                                          tmp_path: Path) -> None:
    out = tmp_path / "ft"
    run_script("train_ppo.py", "--init-net", str(distilled / "model.safetensors"),
               "--anchor", "0.5", "--timesteps", "256", "--num-games", "8", "--n-steps", "32",
               "--batch-size", "64", "--opponents", "self-play", "--snapshot-every", "128",
               "--eval-every", "128", "--curve-deals", "4", "--eval-deals", "4",
               "--out", str(out), "--no-progress")
    card = json.loads((out / "model.json").read_text())
    assert card["config"]["anchor"] == 0.5
    legal_play(f"net:{out / 'model.safetensors'}")
    assert list((out / "tb").rglob("events.*"))
    record = json.loads((out / "record.json").read_text())
    assert record["config"]["hidden"] == "96,96"           # the flag's default, not used:
    assert record["network"]["layers"].endswith(" 16")     # the start's network is trained
    curve = record["curve"]
    assert len(curve) >= 1 and curve[-1]["decisions"] == 256
    assert curve[-1]["tuned"]["games"] == 8 and "greedy" in curve[-1]


def test_dmc_learns_and_saves_a_network_agent(tmp_path: Path) -> None:
    out = tmp_path / "dmc"
    run_script("train_dmc.py", "--decisions", "2000", "--num-games", "16", "--hidden", "16",
               "--eval-every", "1000", "--curve-deals", "4", "--eval-deals", "4",
               "--curve-opponents", "greedy", "--out", str(out), "--no-progress")
    record = json.loads((out / "record.json").read_text())
    assert record["decisions"] >= 2000 and len(record["curve"]) >= 2
    assert evaluation(record, "greedy")["games"] == 8
    assert has_provenance(record) and record["command"].startswith("python ")
    assert record["deals"]["namespace"] == "evaluation" and record["deals"]["count"] == 4
    assert record["time_split"]["update"] > 0
    legal_play(f"net:{out / 'model.safetensors'}")


@pytest.mark.parametrize("script,args,message", [
    ("distill.py", ["--states", "0"], "--states must be at least 1"),
    ("distill.py", ["--teacher", "nobody"], "unknown agent"),
    ("distill.py", ["--init-net", "missing.safetensors"], "does not exist"),
    ("expert_iteration.py", ["--budget", "0"], "--budget must be at least 1"),
    ("expert_iteration.py", [], "--start names the first network"),
    ("clone_finetune.py", ["--seeds", "0"], "--seeds must be at least 1"),
    ("clone_finetune.py", ["--teacher", "nobody"], "unknown agent"),
    ("clone_finetune.py", ["--preset", "nobody"], "nobody"),
    ("clone_finetune.py", ["--init-net", "missing.safetensors"], "--init-net"),
    ("train_dmc.py", ["--epsilon", "2"], "--epsilon"),
    ("train_dmc.py", ["--temperature", "-0.1"], "--temperature must be >= 0"),
    ("train_ppo.py", ["--timesteps", "-5"], "--timesteps must be at least 1"),
    ("train_ppo.py", ["--anchor", "0.1"], "--anchor needs --init-net"),
])
def test_bad_settings_are_refused_before_any_work(tmp_path: Path, script: str,
                                                  args: list[str], message: str) -> None:
    out = tmp_path / "out"
    done = run_script(script, *args, "--out", str(out), ok=False)
    assert done.returncode != 0 and message in done.stderr
    assert not out.exists()


def test_every_training_flag_has_a_description_and_a_default() -> None:
    for script in ("train_ppo.py", "distill.py", "train_dmc.py", "expert_iteration.py",
                   "clone_finetune.py"):
        text = run_script(script, "--help").stdout
        flags = [line.split()[0] for line in text.splitlines()
                 if line.strip().startswith("--") and not line.strip().startswith("--help")]
        assert len(flags) > 10
        body = " ".join(text.split())
        assert body.count("(default:") >= len(flags) - 1, script


def test_seeds_report_measures_every_seed_and_ships_one_with_its_card(
        distilled: Path, tmp_path: Path) -> None:
    ship = tmp_path / "shipped.safetensors"
    run_script("seeds_report.py", "--runs", f"{distilled},{distilled}", "--opponents",
               "greedy", "--deals", "4", "--ship", str(ship), "--out",
               str(tmp_path / "report.json"), "--figure", str(tmp_path / "curves.png"))
    report = json.loads((tmp_path / "report.json").read_text())
    assert list(report["curves"]) == [str(distilled)]
    assert (tmp_path / "curves.png").stat().st_size > 1000
    each = report["results"]["greedy"]["each"]
    assert len(each) == 2 and each[0]["win_rate"] == each[1]["win_rate"]
    assert report["results"]["greedy"]["seeds"]["min"] == each[0]["win_rate"]
    card = json.loads(ship.with_suffix(".json").read_text())
    assert {"recipe", "command", "seeds", "results"} <= set(card)
    assert card["command"].startswith("python experiments/distill.py")
    headline = card["headline"][0]      # the shipped seed's measurement, tied to its file
    assert (headline["opponent"], headline["win_rate"]) == ("greedy", each[0]["win_rate"])
    assert headline["sha256"] == hashlib.sha256(ship.read_bytes()).hexdigest()
    legal_play(f"net:{ship}")


def test_exploit_probe_trains_an_exploiter_per_target_and_measures_its_gain(
        distilled: Path, tmp_path: Path) -> None:
    out = tmp_path / "probe"
    run_script("exploit.py", "--targets", "greedy,random_play", "--init-net",
               str(distilled / "model.safetensors"), "--timesteps", "128", "--deals", "4",
               "--num-envs", "8", "--n-steps", "16", "--batch-size", "64", "--curve-every", "128",
               "--curve-deals", "2", "--out", str(out))
    record = json.loads((out / "exploit.json").read_text())
    assert record["preset"] == "official"
    assert record["deals"] == {"namespace": "evaluation", "first": 1_000_000,
                               "last": 1_000_003, "count": 4}
    assert record["commit"] and record["machine"]["cores"] >= 1 and record["date"]
    assert [r["target"] for r in record["rows"]] == ["greedy", "random_play"]
    for row in record["rows"]:
        assert row["exploiter"]["games"] == 8
        curve = row["curve"]            # the exploiter against its own target, start to end
        assert [p["decisions"] for p in curve] == [0, 128] and curve[0]["games"] == 4
        assert row["gain"]["low"] <= row["gain"]["mean"] <= row["gain"]["high"]
    assert "| `greedy` | PPO exploiter |" in (out / "exploit.md").read_text()


def test_exploit_device_puts_the_exploiter_and_a_network_target_on_it(
        distilled: Path, tmp_path: Path) -> None:
    target = f"net:{distilled / 'model.safetensors'}"
    run_script("exploit.py", "--targets", target, "--init-net",
               str(distilled / "model.safetensors"), "--timesteps", "128", "--deals", "2",
               "--num-envs", "8", "--n-steps", "16", "--batch-size", "64", "--device", "cpu",
               "--out", str(tmp_path / "probe"))
    trained = next((tmp_path / "probe").glob("net-*/record.json"))
    config = json.loads(trained.read_text())["config"]
    assert (config["opponents"], config["device"]) == (f"{target},device=cpu", "cpu")
    record = json.loads((tmp_path / "probe" / "exploit.json").read_text())
    assert record["rows"][0]["target"] == target and record["rows"][0]["target_sha256"]


def test_exploit_probe_measures_a_search_best_response_alone(tmp_path: Path) -> None:
    out = tmp_path / "search"
    run_script("exploit.py", "--targets", "greedy", "--timesteps", "0", "--search-budget", "2",
               "--search-deals", "3", "--preset", "draw_return", "--out", str(out))
    record = json.loads((out / "exploit.json").read_text())
    assert record["preset"] == "draw_return"
    assert record["deals"]["count"] == 3 and record["deals"]["namespace"] == "evaluation"
    row = record["rows"][0]
    assert "exploiter" not in row and row["target_sha256"] is None
    search = row["search"]
    assert search["spec"] == "ismcts:budget=2,opponent=greedy,prior=greedy"
    assert search["games"] == search["start"]["games"] == 6
    assert search["gain"]["low"] <= search["gain"]["mean"] <= search["gain"]["high"]
    assert "| `greedy` | search |" in (out / "exploit.md").read_text()
    done = run_script("exploit.py", "--timesteps", "0", "--out", str(tmp_path / "x"), ok=False)
    assert done.returncode != 0 and "--search-budget" in done.stderr


def test_expert_iteration_improves_a_network_with_a_search_that_uses_it(
        distilled: Path, tmp_path: Path) -> None:
    out = tmp_path / "exit"
    args = ["--start", str(distilled / "model.safetensors"), "--iterations", "2",
            "--budget", "4", "--states", "60", "--games", "8", "--epochs", "1",
            "--deals", "4", "--out", str(out), "--no-progress"]
    run_script("expert_iteration.py", *args)
    record = json.loads((out / "expert_iteration.json").read_text())
    rows = record["iterations"]
    assert [r["iteration"] for r in rows] == [0, 1, 2]
    assert has_provenance(record) and record["command"].startswith(
        "python experiments/expert_iteration.py --start")
    assert record["deals"] == {"namespace": "evaluation", "first": 1_000_000,
                               "last": 1_000_003, "count": 4}
    for r in rows[1:]:
        assert r["versus"]["games"] == 8
        assert r["gain"]["low"] <= r["gain"]["mean"] <= r["gain"]["high"]
        legal_play(f"net:{r['network']}")
    second = json.loads((out / "iter-2" / "record.json").read_text())
    assert f"prior=net:{out / 'iter-1' / 'model.safetensors'}" in second["config"]["teacher"]
    assert second["config"]["init_net"] == str(out / "iter-1" / "model.safetensors")
    assert "| 2 |" in (out / "expert_iteration.md").read_text()
    before = (out / "iter-1" / "model.safetensors").stat().st_mtime_ns
    run_script("expert_iteration.py", *args)      # finished iterations are reused
    assert (out / "iter-1" / "model.safetensors").stat().st_mtime_ns == before


def test_ppo_checkpoints_are_plain_tensors_and_resume_continues_them(tmp_path: Path) -> None:
    import torch

    out = tmp_path / "ppo"
    args = ["--num-games", "8", "--n-steps", "16", "--batch-size", "64", "--checkpoint-every",
            "128", "--eval-every", "128", "--curve-deals", "2", "--eval-deals", "0",
            "--out", str(out), "--no-progress"]
    run_script("train_ppo.py", "--timesteps", "256", *args)
    saved = sorted(out.glob("checkpoints/step_*.pt"))
    assert len(saved) == 1 and torch.load(saved[0], weights_only=True)["decisions"] == 256
    assert not list(out.glob("checkpoints/*.tmp*"))
    first = json.loads((out / "record.json").read_text())
    run_script("train_ppo.py", "--timesteps", "512", "--resume", *args)
    record = json.loads((out / "record.json").read_text())
    assert record["decisions"] == 512
    # the curve of the first 256 decisions is kept, and the clock goes on from it
    assert record["curve"][:len(first["curve"])] == first["curve"]
    assert record["seconds"] >= first["seconds"]


def test_ppo_drops_its_step_size_and_a_resumed_run_takes_the_one_asked_for(
        tmp_path: Path) -> None:
    """``--lr-drop-at N --lr-drop-to X``: Adam steps at X from decision N on; a resumed run
    steps at its own settings' size, not at the one its checkpoint was saved with."""
    import torch

    out = tmp_path / "ppo"
    args = ["--num-games", "8", "--n-steps", "16", "--batch-size", "64", "--eval-every", "0",
            "--curve-deals", "2", "--eval-deals", "0", "--out", str(out), "--no-progress"]

    def saved_step_size() -> float:
        (path,) = out.glob("checkpoints/step_*.pt")
        groups = torch.load(path, weights_only=True)["optimizer"]["param_groups"]
        return float(groups[0]["lr"])

    run_script("train_ppo.py", "--timesteps", "256", "--learning-rate", "3e-4",
               "--lr-drop-at", "128", "--lr-drop-to", "1e-5", *args)
    assert saved_step_size() == pytest.approx(1e-5)
    run_script("train_ppo.py", "--timesteps", "384", "--learning-rate", "5e-4", "--resume",
               *args)
    assert saved_step_size() == pytest.approx(5e-4)


@pytest.mark.slow
def test_clone_then_fine_tune_is_one_command_over_seeds_and_continues(tmp_path: Path) -> None:
    out = tmp_path / "cf"
    args = ["--teacher", "tuned", "--clone-opponents", "random_play", "--hidden", "16",
            "--clone-states", "300", "--clone-rounds", "2", "--clone-epochs", "1",
            "--clone-games", "16", "--timesteps", "256", "--num-envs", "8", "--n-steps", "32",
            "--batch-size", "64", "--curve-every", "256", "--curve-deals", "2", "--seeds", "2",
            "--jobs", "2", "--deals", "4", "--out", str(out), "--no-progress"]
    run_script("clone_finetune.py", *args)
    record = json.loads((out / "clone_finetune.json").read_text())
    assert [r["seed"] for r in record["seeds"]] == ["0", "1"]
    assert has_provenance(record) and record["command"].startswith(
        "python experiments/clone_finetune.py --teacher tuned")
    assert record["deals"] == {"namespace": "evaluation", "first": 1_000_000,
                               "last": 1_000_003, "count": 4}
    for r in record["seeds"]:
        assert r["versus"]["games"] == r["clone_versus"]["games"] == 8
        assert r["gain"]["low"] <= r["gain"]["mean"] <= r["gain"]["high"]
        assert r["finetune_command"].startswith("python experiments/train_ppo.py")
        stage = json.loads((out / f"seed-{r['seed']}" / "clone" / "record.json").read_text())
        assert r["seconds"]["clone"] == stage["seconds"] > 0 and r["seconds"]["finetune"] > 0
        legal_play(f"net:{r['finetune']}")
    tuned = json.loads((out / "seed-1" / "finetune" / "model.json").read_text())
    assert tuned["config"]["init_net"] == str(out / "seed-1" / "clone" / "model.safetensors")
    assert "| 1 |" in (out / "clone_finetune.md").read_text()
    before = (out / "seed-0" / "finetune" / "model.safetensors").stat().st_mtime_ns
    run_script("clone_finetune.py", *args)        # finished stages are reused
    assert (out / "seed-0" / "finetune" / "model.safetensors").stat().st_mtime_ns == before


@pytest.mark.parametrize("kind,args,message", [
    ("ppo", ["--encoder", "conv"], "--encoder must be one of packed, dense"),
    ("ppo", ["--device", "tpu"], "unknown device 'tpu'"),
    ("ppo", ["--opponents", "self-play", "--workers", "2"], "give --workers 0"),
    ("ppo", ["--workers", "9", "--num-games", "4"], "at least as many --num-games"),
    ("ppo", ["--learning-rate", "0"], "--learning-rate must be > 0"),
    ("dmc", ["--opponents", "self,nobody"], "unknown agent"),
    ("dmc", ["--opponents", "self", "--workers", "1"], "give --workers 0"),
    ("distill", ["--workers", "1"], "give --workers 0"),
    ("distill", ["--rounds", "0"], "--rounds must be at least 1"),
])
def test_the_learners_flags_are_checked_before_any_work(kind: str, args: list[str],
                                                         message: str) -> None:
    from uno_agents.training.distill import DistillConfig
    from uno_agents.training.dmc import DMCConfig
    from uno_agents.training.ppo import PPOConfig
    from uno_env.tooling.dataclass_flags import parse_dataclass

    config = {"ppo": PPOConfig, "dmc": DMCConfig, "distill": DistillConfig}[kind]
    with pytest.raises(SystemExit, match=message):
        parse_dataclass(config, "", args).check()


def test_cuda_asked_for_without_a_gpu_is_refused_in_one_line(tmp_path: Path) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    done = run_script("train_ppo.py", "--device", "cuda", "--out", str(tmp_path / "o"),
                      ok=False)
    assert done.returncode != 0 and "no CUDA GPU" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "o").exists()


def test_bench_learn_measures_three_learners_and_ends_with_the_speedup(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    done = run_script("bench_learn.py", "--num-envs", "8", "--n-steps", "8", "--batch-size",
                      "32", "--rollouts", "1", "--rounds", "1", "--warmup", "0",
                      "--threads", "1", "--device", "cpu", "--out", str(out))
    assert done.stdout.strip().splitlines()[-1].startswith("learner speedup over SB3: ")
    record = json.loads(out.read_text())
    assert [line["learner"][:3] for line in record["lines"]] == ["(a)", "(b)", "(c)"]
    assert record["lines"][1]["parameters"] == record["lines"][0]["parameters"]
    assert record["multiply_adds_ratio"] < 0.25
    assert record["commit"] and record["date"] and record["machine"]["cores"] >= 1
    for line in record["lines"][1:]:
        assert line["floor_steps_per_second"] > 0 and line["update_seconds"] > 0


def test_encoder_curves_trains_every_arm_and_seed_and_draws_them(tmp_path: Path) -> None:
    args = ["--arms", "packed:8;dense-separate:8", "--seeds", "0,1", "--timesteps", "256",
            "--eval-every", "128", "--curve-deals", "2", "--eval-deals", "2",
            "--num-games", "8", "--n-steps", "16",
            "--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "c.json"),
            "--figure", str(tmp_path / "c.png")]
    run_script("encoder_curves.py", *args)
    record = json.loads((tmp_path / "c.json").read_text())
    assert set(record["summary"]) == {"packed 8", "dense-separate 8"}
    assert all(len(runs) == 2 for runs in record["runs"].values())
    assert record["summary"]["packed 8"]["decisions"] == [0, 128, 256]
    assert has_provenance(record) and record["command"].startswith(
        "python experiments/encoder_curves.py --arms")
    assert record["deals"] == {"namespace": "evaluation", "first": 1_000_000,
                               "last": 1_000_001, "count": 2}
    assert (tmp_path / "c.png").stat().st_size > 1000


def test_amp_trains_in_bfloat16_on_the_cpu_and_saves_float32(tmp_path: Path) -> None:
    """``--amp`` is mixed precision on the CPU too: the same run ends with other weights
    than in float32 (not a no-op), and the saved network is float32 all the same."""
    import torch
    from safetensors.torch import load_file

    args = ["--timesteps", "256", "--num-games", "8", "--n-steps", "16", "--batch-size", "64",
            "--encoder", "dense-separate", "--hidden", "32", "--eval-every", "0",
            "--curve-deals", "0", "--eval-deals", "0", "--device", "cpu", "--no-progress"]
    weights = {}
    for flag in ("--no-amp", "--amp"):
        out = tmp_path / flag.strip("-")
        run_script("train_ppo.py", *args, flag, "--out", str(out))
        assert json.loads((out / "record.json").read_text())["config"]["amp"] == (flag == "--amp")
        weights[flag] = load_file(out / "model.safetensors")
    assert {t.dtype for t in weights["--amp"].values()} == {torch.float32}
    assert any(not (weights["--amp"][k] == weights["--no-amp"][k]).all() for k in weights["--amp"])


def test_clone_finetune_plays_its_preset_and_starts_its_clone_from_init_net() -> None:
    """Both stages play ``--preset``; the clone starts from ``--init-net``; the
    fine-tuning's curve is drawn against the opponent of the measurement."""
    from experiments.clone_finetune import Config, clone_command, finetune_command

    net = str(REPO / "agents" / "models" / "official-4p.safetensors")
    cfg = Config(preset="house_dobon", players=4, init_net=net,
                 eval_opponent="tuned:preset=house_dobon")
    clone = clone_command(cfg, 0, Path("c"))
    tune = finetune_command(cfg, 0, Path("c/model.safetensors"), Path("f"))
    for command in (clone, tune):
        assert command[command.index("--preset") + 1] == "house_dobon"
        assert command[command.index("--players") + 1] == "4"
    assert clone[clone.index("--init-net") + 1] == net
    assert tune[tune.index("--curve-opponents") + 1] == "tuned:preset=house_dobon"
    assert "--init-net" not in clone_command(Config(), 0, Path("c"))

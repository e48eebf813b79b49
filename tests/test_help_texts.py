"""Help that tells the truth: every flag built from a settings class shows its whole
comment, a boolean flag names the flag that holds by default, and a trained budget is
reported as trained."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re

import pytest

from uno_env.tooling.dataclass_flags import field_help, finite_float, parse_dataclass

pytest.importorskip("torch")


def settings_classes() -> list[type]:
    from uno_agents.training.distill import DistillConfig
    from uno_agents.training.dmc import DMCConfig
    from uno_agents.training.ppo import PPOConfig
    from uno_agents.training.sb3 import Config

    return [PPOConfig, DMCConfig, DistillConfig, Config]


def help_text(cls: type, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        parse_dataclass(cls, "", ["--help"])
    return " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("cls", settings_classes(), ids=lambda c: c.__name__)
def test_every_comment_line_of_a_field_is_in_its_help(cls: type) -> None:
    helps = field_help(cls)
    for klass in cls.__mro__:
        if not dataclasses.is_dataclass(klass):
            continue
        for line in inspect.getsource(klass).splitlines():
            # a continuation line: a comment alone, its text far right of the fields
            more = re.match(r"\s*#\s{8,}(.*)$", line)
            if more:
                assert any(more.group(1).strip() in text for text in helps.values()), line
    for name, text in helps.items():
        assert text.count("(") == text.count(")"), (name, text)


def test_the_help_shows_the_whole_text_and_honest_boolean_defaults(capsys) -> None:
    from uno_agents.training.ppo import PPOConfig
    from uno_agents.training.sb3 import Config

    ppo = help_text(PPOConfig, capsys)
    assert "dense-separate (SB3's) (default: packed)" in ppo
    assert "show a progress bar (default: --progress)" in ppo
    assert "(default: --no-resume)" in ppo and "(default: True)" not in ppo
    sb3 = help_text(Config, capsys)
    assert "loss (0: no anchor; needs --ent-coef > 0)" in sb3
    assert "fine-tune; the result is also saved as model.safetensors" in sb3


def test_a_section_title_does_not_join_the_field_above() -> None:
    from uno_agents.training.sb3 import Config

    helps = field_help(Config)
    assert "self-play" not in helps["resume"] and "evaluation" not in helps["latest_share"]


def test_the_default_runs_deliver_the_evaluation_curve_the_docs_promise() -> None:
    from uno_agents.training.ppo import PPOConfig
    from uno_agents.training.sb3 import Config

    assert PPOConfig().eval_every > 0 and Config().eval_every > 0


def test_a_budget_is_reported_as_the_decisions_trained() -> None:
    from uno_agents.training.sb3 import Config

    # SB3 trains whole rollouts: 20,000 asked of 256 games x 64 steps is two rollouts
    assert Config(timesteps=20_000, num_envs=256, n_steps=64).trained_timesteps() == 32_768
    assert Config(timesteps=4096, num_envs=64, n_steps=64).trained_timesteps() == 4096


def test_a_switch_shows_no_default_and_an_option_its_default(capsys) -> None:
    import argparse

    from uno_env.tooling.dataclass_flags import HelpFormatter

    parser = argparse.ArgumentParser(formatter_class=HelpFormatter)
    parser.add_argument("--no-progress", dest="progress", action="store_false",
                        help="no progress bars")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    with pytest.raises(SystemExit):
        parser.parse_args(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--no-progress no progress bars --jobs" in out and "(default: True)" not in out
    assert "processes (default: 2)" in out


def test_the_api_reference_documents_everything_the_docs_import() -> None:
    import importlib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    pages = [root / "README.md", *(root / "docs").rglob("*.md"),
             *(root / "notebooks").glob("*.ipynb")]
    text = "\n".join(p.read_text(encoding="utf-8") for p in pages)
    api = "\n".join(p.read_text() for p in (root / "docs" / "api").glob("*.md"))
    documented = set(re.findall(r"^::: ([\w.]+)$", api, re.M))
    assert "uno_env.engine.observe" in documented
    lines = re.findall(r"from ((?:uno_env|uno_agents)[\w.]*) import ([\w, ]+)", text)
    assert len(lines) > 10
    missing = set()
    for module, names in lines:
        for name in filter(None, (n.strip() for n in names.split(","))):
            obj = getattr(importlib.import_module(module), name)
            home = getattr(obj, "__module__", None) or next(   # a constant: who holds it
                (d for d in sorted(documented) if d != "uno_env"
                 and getattr(importlib.import_module(d), name, None) is obj), module)
            # documented where it is imported from or in a module (or package) holding
            # where it is defined; ``uno_env`` itself is shown without its members
            pages = documented - {"uno_env"}
            if module not in pages and not any(home == d or home.startswith(d + ".")
                                               for d in pages):
                missing.add(f"{module}.{name} (defined in {home})")
    assert missing == set()


@pytest.mark.parametrize("value", ["inf", "nan", "-inf", "1e999"])
def test_a_number_flag_refuses_what_is_not_finite(value: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="not a finite number"):
        finite_float(value)
    assert finite_float("3e-4") == 3e-4

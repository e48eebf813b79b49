"""PPO on the project's learner core (``uno_agents.training.ppo``).

    python experiments/train_ppo.py --preset official --players 2 --opponents tuned \\
        --timesteps 2000000 --out runs/ppo-2p

``--help`` lists every flag. A run writes to ``--out``: ``model.safetensors`` (a
``net:`` agent) with its model card ``model.json``, ``record.json`` (settings, command,
speed, where the time went, the evaluation curve, the final evaluation), ``tb/``
(TensorBoard) and ``checkpoints/``; Ctrl-C saves a checkpoint and ``--resume``
continues. The SB3 harness is ``experiments/train_sb3.py``.
"""

from __future__ import annotations

from uno_env.launch import guard

guard("train_ppo", __name__)

import shlex
import sys

from uno_env.extras import require

require("train_ppo.py", "train")

from uno_env.cli import run_command


def main(argv: list[str] | None = None) -> None:
    # imported here, under run_command: Ctrl-C during the slow imports ends cleanly too
    from uno_agents.training.ppo import PPOConfig, train
    from uno_env.tooling.dataclass_flags import parse_dataclass

    args = sys.argv[1:] if argv is None else argv
    cfg = parse_dataclass(PPOConfig, __doc__.split("\n\n")[0], args)
    train(cfg, "python experiments/train_ppo.py " + shlex.join(args))


if __name__ == "__main__":
    sys.exit(run_command(main, "train_ppo"))

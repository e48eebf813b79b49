"""Deep Monte-Carlo (as in DouZero) on the project's learner core (``uno_agents.training.dmc``).

    python experiments/train_dmc.py --players 2 --opponents tuned,random_play,greedy \\
        --decisions 20000000 --out runs/dmc-2p

``--help`` lists every flag. A run writes ``model.safetensors`` (a ``net:`` agent) with
its model card ``model.json``, ``record.json``, ``tb/`` and ``checkpoints/``; Ctrl-C
saves a checkpoint and ``--resume`` continues.
"""

from __future__ import annotations

from uno_env.launch import guard

guard("train_dmc", __name__)

import shlex
import sys

from uno_env.extras import require

require("train_dmc.py", "train")

from uno_env.cli import run_command


def main(argv: list[str] | None = None) -> None:
    # imported here, under run_command: Ctrl-C during the slow imports ends cleanly too
    from uno_agents.training.dmc import DMCConfig, train
    from uno_env.tooling.dataclass_flags import parse_dataclass

    args = sys.argv[1:] if argv is None else argv
    cfg = parse_dataclass(DMCConfig, __doc__.split("\n\n")[0], args)
    train(cfg, "python experiments/train_dmc.py " + shlex.join(args))


if __name__ == "__main__":
    sys.exit(run_command(main, "train_dmc"))

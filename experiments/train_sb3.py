"""Train MaskablePPO (sb3-contrib) on the batched UNO VecEnv.

    python experiments/train_sb3.py --preset official --players 2 --opponents greedy \\
        --timesteps 2000000 --out runs/official-2p

Every setting, the environments, the self-play pool, the fine-tuning of a saved
network, the checkpoints and the closing evaluation are in
:mod:`uno_agents.training.sb3` (``--help`` lists the flags); this script runs one.
"""

from __future__ import annotations

from uno_env.launch import guard

guard("train_sb3", __name__)

import shlex
import sys

from uno_env.extras import require

require("train_sb3.py", "train")

from uno_env.cli import run_command


def main(argv: list[str] | None = None) -> None:
    # imported here, under run_command: Ctrl-C during the slow imports ends cleanly too
    from uno_agents.training.sb3 import parse_config, train

    argv = sys.argv[1:] if argv is None else argv
    train(parse_config(argv), "python experiments/train_sb3.py " + shlex.join(argv))


if __name__ == "__main__":
    sys.exit(run_command(main, "train_sb3"))

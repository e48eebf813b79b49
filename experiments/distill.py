"""Distil a strong teacher into a standalone network: behaviour cloning with DAgger, on
the project's learner core (``uno_agents.training.distill``).

    python experiments/distill.py --players 2 --teacher improved:official-2p-exit-rp \\
        --states 600000 --rounds 3 --hidden 512,512,256 --out runs/distill-2p --seed 0

``--help`` lists every flag. A run writes ``model.safetensors`` (a ``net:`` agent) with
its model card ``model.json``, ``record.json`` (settings, command, each round's fit and
curve point, the final evaluation on fresh deals), ``data-<round>.pt`` (each round's
data), ``tb/`` and ``checkpoints/``; Ctrl-C saves the rounds so far and ``--resume``
continues after the last finished round.
"""

from __future__ import annotations

from uno_env.launch import guard

guard("distill", __name__)

import shlex
import sys

from uno_env.extras import require

require("distill.py", "train")

from uno_env.cli import run_command


def main(argv: list[str] | None = None) -> None:
    # imported here, under run_command: Ctrl-C during the slow imports ends cleanly too
    from uno_agents.training.distill import DistillConfig, train
    from uno_env.tooling.dataclass_flags import parse_dataclass

    args = sys.argv[1:] if argv is None else argv
    cfg = parse_dataclass(DistillConfig, __doc__.split("\n\n")[0], args)
    train(cfg, "python experiments/distill.py " + shlex.join(args))


if __name__ == "__main__":
    sys.exit(run_command(main, "distill"))

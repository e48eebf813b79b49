"""Draw the example table picture of the README (docs/table.png).

Plays a few seeded decisions of a 4-player official game through the
PettingZoo environment, then saves its ``rgb_array`` frame. Needs Pillow.

    python docs/render_example.py [--out docs/table.png] [--seed 16] [--steps 6]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from uno_env import env
from uno_env.actions import DRAW

ROOT = Path(__file__).resolve().parent.parent


def example_frame(seed: int = 16, steps: int = 6) -> np.ndarray:
    """The frame after ``steps`` decisions of seeded play (cards played when possible)."""
    aec = env("official", 4, render_mode="rgb_array")
    aec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            break
        legal = np.flatnonzero(obs["action_mask"])
        plays = legal[legal < DRAW]
        aec.step(int(rng.choice(plays if plays.size else legal)))
    return aec.render()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "table.png")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--steps", type=int, default=6)
    args = parser.parse_args()
    from PIL import Image

    args.out.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(example_frame(args.seed, args.steps)).save(args.out, optimize=True)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

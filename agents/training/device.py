"""Where networks run: ``--device auto|cpu|cuda`` and the CPU thread count."""

from __future__ import annotations

import torch

DEVICES = ("auto", "cpu", "cuda")


def resolve_device(name: str) -> torch.device:
    """The torch device of a ``--device`` value: ``auto`` takes CUDA when a GPU is present,
    else the CPU; ``cuda`` without a GPU raises ``ValueError`` saying so."""
    if name not in DEVICES and not name.startswith("cuda:"):
        raise ValueError(f"unknown device {name!r}; devices: {', '.join(DEVICES)}")
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {name!r} asked for, but torch sees no CUDA GPU here "
                         "(use --device cpu or auto)")
    return torch.device(name)


def autocast(device: torch.device, enabled: bool) -> torch.autocast:
    """bfloat16 mixed precision on ``device`` when ``enabled``: on CUDA, and on a CPU
    with bfloat16 arithmetic (AVX512-BF16 or AMX), where a dense network's training step
    takes a quarter of its float32 time; a CPU without it emulates bfloat16, slowly.
    Agents playing inside it (opponents, evaluations) still compute in float32
    (:class:`uno_agents.net.LogitsAgent`)."""
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=enabled)

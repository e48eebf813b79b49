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
    """bfloat16 mixed precision on a CUDA device when ``enabled`` (no-op elsewhere)."""
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16,
                          enabled=enabled and device.type == "cuda")

"""Crafted model files whose loading would run code: each creates the folder ``marker``
when unpickled, so a test asserts the marker is absent after the load was refused."""

from __future__ import annotations

import base64
import json
import os
import pickle
import zipfile
from pathlib import Path


class MakesFolder:
    """Unpickling this calls ``os.mkdir(marker)``: the code a crafted file carries."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self) -> tuple:
        return os.mkdir, (self.marker,)


def code_running_zip(path: Path, marker: Path) -> Path:
    """An SB3-style model zip whose ``data`` entry unpickles :class:`MakesFolder` (SB3
    reads every ``:serialized:`` value of ``data`` with cloudpickle)."""
    payload = base64.b64encode(pickle.dumps(MakesFolder(marker))).decode()
    data = {"policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": payload}}
    import io

    import torch

    weights = io.BytesIO()   # real tensors, so that a loader gets as far as the settings
    torch.save({"action_net.weight": torch.zeros(119, 4)}, weights)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps(data))
        z.writestr("policy.pth", weights.getvalue())
        z.writestr("_stable_baselines3_version", "2.0.0")
    return path


def code_running_pt(path: Path, marker: Path) -> Path:
    """A ``torch.save`` file whose pickle would call :class:`MakesFolder`."""
    import torch

    torch.save({"state_dict": MakesFolder(marker)}, path)
    return path

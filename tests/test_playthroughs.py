"""Golden playthroughs: every backend replays the recorded games step for step.

A failure names the preset, players, seed and first differing step. When a
change alters games on purpose, regenerate the recordings with
``python tests/playthroughs/golden.py [preset ...]`` and name the presets whose
games changed in the commit message.
"""

from __future__ import annotations

import pytest
from conftest import AVAILABLE_BACKENDS
from playthroughs import golden


@pytest.mark.parametrize("backend", AVAILABLE_BACKENDS)
@pytest.mark.parametrize(("preset", "players"), golden.cases())
def test_playthrough_replays(preset, players, backend):
    assert golden.path_of(preset, players).exists(), (
        f"no recording for {preset} at {players} players: run "
        f"python tests/playthroughs/golden.py {preset}")
    difference = golden.replay(golden.load(preset, players), backend)
    assert difference is None, difference


def test_every_preset_is_recorded_at_its_player_counts():
    assert {preset for preset, _ in golden.cases()} == set(golden.PRESETS)
    assert golden.player_counts("official") == (2, 4, 10)
    assert golden.player_counts("teams") == (4,)


def test_replay_names_the_first_difference():
    data = golden.load("official", 2)
    game = data["games"][1]
    game["digests"][5][1] = "0" * golden.DIGEST_CHARS
    assert golden.replay(data, "numpy") == (
        f"preset official, 2 players, seed {game['seed']}: first difference at step 5 "
        f"(mask); next recorded action {game['actions'][5]!r}")


def test_recording_is_reproducible():
    """Regenerating gives the stored file (the action stream is fixed, not numpy's)."""
    assert [golden.SplitMix64(7).below(1000) for _ in range(1)] == [142]
    stream = golden.SplitMix64(7)
    assert [stream.below(1000) for _ in range(4)] == [142, 633, 802, 687]
    assert golden.record("no_mercy", 2) == golden.load("no_mercy", 2)

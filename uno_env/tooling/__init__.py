"""What the experiment scripts, benchmarks and long runs share; no game logic.

* :mod:`.dataclass_flags`: command-line flags from a dataclass of settings;
* :mod:`.parallel`: ``--jobs N``, independent pieces of a run in N processes;
* :mod:`.machine`: what a measurement ran on (provenance of result records);
* :mod:`.stages`: stages of an experiment, reused only under the settings that made them;
* :mod:`.decision_speed`: decisions per second of an agent, for the speed benchmarks;
* :mod:`.rlcard_reference`: RLCard's UNO as a PettingZoo environment, the reference of
  the AEC benchmark (the ``bench`` extra).

These modules import only the base of the package (rules, engine, deals, files), never
the environments or evaluation; the evaluation layer may use them (the leaderboard
records its machine and runs its pieces in parallel).
"""

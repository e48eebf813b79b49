"""The environments: the engine behind the interfaces of the RL libraries.

* :mod:`.pettingzoo_env`: the PettingZoo AEC environment (``uno_env.env``);
* :mod:`.gym_env`: the single-agent Gymnasium environment (``uno_env/Uno-v0``);
* :mod:`.vector`: batched single-learner environments (an SB3 ``VecEnv``, a Gymnasium
  ``VectorEnv``);
* :mod:`.rllib_env`: the Ray RLlib ``MultiAgentEnv`` (the ``rllib`` extra);
* :mod:`.learner`: the learner core under the single-learner environments;
* :mod:`.render`: pictures of a table (``ansi`` text, an RGB image).

Each is imported by name, so using one never loads another's library.
"""

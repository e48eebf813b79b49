"""The project's learner: PPO, Deep Monte-Carlo and distillation on one batched core.

* :mod:`.rollout`: the core. Engine games with a learner seat each, played by a
  network on any device, recorded as tensors (:func:`.rollout.collect`).
* :mod:`.encoder`: the packed encoder, the default network, reading the engine's
  packed observation; :mod:`.nets` the network interface and the dense networks.
* :mod:`.ppo`, :mod:`.dmc`, :mod:`.distill`: the algorithms, each a thin layer
  over rollouts.
* :mod:`.workers`: the games played in other processes, behind the same interface.
* :mod:`.run`: what every trainer shares (settings, progress, TensorBoard, the
  evaluation curve, checkpoints, saving).
* :mod:`.sb3`: the harness of Stable-Baselines3's MaskablePPO on the VecEnv, for
  users who bring SB3's algorithms.

Needs the ``train`` extra (torch, safetensors, tensorboard).
"""

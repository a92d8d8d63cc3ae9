"""The looped LM's configuration and the names its page needs, with no torch import.

The page's first view reads shipped arrays (:mod:`.view`); it needs the config, the task and design
names and the shipped models' folder, but not the model. So they live here, and :mod:`.training`,
:mod:`.tasks` and :mod:`.pretrained` import them from this module.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.common.assets import asset_dir
from core.common.config import Config, choice, param

ASSETS = asset_dir("looped_lm")
TASKS = ("parity", "modular_chain", "variable_binding", "pointer_chasing")
POINTER_NODES = 8
INJECTIONS = ("concat", "additive", "none")
NORMS = ("sandwich", "pre", "post", "loop")
EVAL_LOOPS = (1, 2, 4, 8, 16, 32)
# What the page's "your own causal LM" section reads by default (:mod:`.hf_stages`).
SAMPLE_TEXT = ("The cat sat on the mat. The dog sat on the rug. One plus one is two, and two plus two is four. "
               "Water freezes at zero degrees and boils at one hundred.")
# The two shipped looped designs, both of which learn the default task (accuracy 1.00 at 32 loops):
# Huginn's, and additive injection with pre-norm, which answers right yet never reaches fixed points.
DESIGNS = {"stable": {"injection": "concat", "norm": "sandwich"}, "unstable": {"injection": "additive", "norm": "pre"}}
# Every shipped model (assets/looped_lm/<name>/, made by python -m core.looped_lm.ship checkpoints): the two
# designs, the stable design trained on shuffled targets (the claim tests' control), the feedforward
# model of matching depth, and a one-layer block on pointer chasing with its own feedforward model of
# matching depth (8 layers) for the stages of inference where loops are needed, and that block trained on
# shuffled targets ("pointer_shuffled", the pointer claims' control: the same design, optimiser and steps, no task).
POINTER = {"task": "pointer_chasing", "block": 1, "mean_recurrence": 8, "steps": 4000}
# A block of two layers for the stages (the same depth per mean recurrence, 2 x 4 = 1 x 8, so the same
# feedforward model of 8 layers matches it); and its shuffled-target control.
POINTER_B2 = {**POINTER, "block": 2, "mean_recurrence": 4}
SHIPPED = {**DESIGNS, "shuffled": {"shuffled": True}, "feedforward": {"feedforward": True},
           "pointer": POINTER, "pointer_feedforward": {**POINTER, "feedforward": True},
           "pointer_shuffled": {**POINTER, "shuffled": True},
           "pointer_b2": POINTER_B2, "pointer_b2_shuffled": {**POINTER_B2, "shuffled": True}}


@dataclass(frozen=True)
class LoopedConfig(Config):
    """A looped (or feedforward) model's design, its task and its optimiser; the page's live defaults.

    Examples
    --------
    >>> from core.looped_lm import LoopedConfig
    >>> config = LoopedConfig(block=1, steps=200)
    >>> config.injection, config.norm, config.steps
    ('concat', 'sandwich', 200)
    >>> LoopedConfig(heads=3, d_model=16)
    Traceback (most recent call last):
    ...
    ValueError: heads: 3 does not divide d_model=16; allowed divisors of d_model
    """

    task: str = choice("modular_chain", TASKS, doc="the synthetic task (:mod:`.tasks`)")
    block: int = choice(2, (1, 2, 4), doc="layers in the recurrent block")
    injection: str = choice("concat", INJECTIONS, doc="concat W[s; e] (Huginn), additive s + e, or none")
    norm: str = choice("sandwich", NORMS, doc="where the RMSNorms go (:mod:`.model`)")
    d_model: int = param(64, low=16, high=512, integer=True, doc="model width")
    heads: int = param(4, low=1, high=16, integer=True, doc="attention heads; must divide d_model")
    mean_recurrence: int = param(6, low=1, high=64, integer=True, doc="mean loops per training step")
    backprop_depth: int = param(4, low=1, high=64, integer=True, doc="loops with gradient (truncated BPTT)")
    steps: int = param(800, low=1, high=100_000, integer=True, doc="~35 s on 2 cores with the defaults")
    batch_size: int = param(64, low=1, high=4096, integer=True, doc="samples per step")
    lr: float = param(2e-3, low=0.0, high=1.0, low_open=True, doc="AdamW peak learning rate (one-cycle)")
    feedforward: bool = choice(False, (False, True), doc="train the feedforward model of depth block x mean_recurrence")
    length: int = param(0, low=0, high=64, integer=True, doc="bits, terms or hops; 0 = the task's default")
    nodes: int = param(POINTER_NODES, low=3, high=32, integer=True, doc="pointer chasing: permutation size")
    shuffled: bool = choice(False, (False, True), doc="control: train on the task's targets shuffled across the batch")

    def validate(self) -> None:
        if self.d_model % self.heads:
            raise ValueError(f"heads: {self.heads} does not divide d_model={self.d_model}; allowed divisors of d_model")


# Pointer chasing small enough to learn in a live minute (1000 steps; measured in bench/looped_lm.py):
# a one-layer block still needs a second loop for the last hop, and holds the answer far beyond.
LIVE_POINTER = {"task": "pointer_chasing", "nodes": 5, "length": 3, "block": 1, "steps": 1000, "lr": 3e-3}

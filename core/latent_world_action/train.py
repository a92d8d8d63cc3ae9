"""Training the four variants on expert data, and their checkpoints (safetensors + JSON).

Losses (ours where the abstract is silent):

- ``prior`` (Being-H0.7): L = FM(prior) + FM(posterior) + λ_a · align(z_prior, z_post) + λ_r ·
  [VICReg(z_prior) + VICReg(z_post)]. The posterior branch is also trained to act, so its latents
  must carry action-useful future information (our reading of "jointly aligned");
- ``no_align``: the same with λ_a = 0 (both branches trained to act, never aligned): the ablation
  that removes only the alignment;
- ``direct``: no slots; FM only;
- ``pixel``: no slots; FM plus the mean squared error of the predicted frame at t + H (the
  predict-then-act world-action model, there for cost).

Adam, constant learning rate, mini-batches drawn with a seeded generator; the progress callback
gets the losses every ``log_every`` steps and the closed-loop success rate every ``eval_every``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.common.config import Config, choice, param
from core.common.progress import report
from core.common.seeding import derive_seed, torch_seeded
from core.latent_world_action.sim import Dataset, SimConfig, make_dataset, rollout

VARIANTS = ("prior", "no_align", "direct", "pixel")
VARIANT_LABELS = {"prior": "latent slots + alignment (Being-H0.7 prior)", "no_align": "latent slots, no alignment",
                  "direct": "direct policy (no slots)", "pixel": "pixel rollout, then act"}
ALIGN_MODES = ("stopgrad", "balanced")


@dataclass(frozen=True)
class TrainConfig(Config):
    """One variant's architecture and training run. Defaults: the quick preset (K = 4, d = 64).

    Examples
    --------
    >>> TrainConfig().slots, TrainConfig().width, TrainConfig().variant
    (4, 64, 'prior')
    >>> TrainConfig(width=60)
    Traceback (most recent call last):
    ...
    ValueError: width: 60 is not divisible by heads 8; allowed multiples of heads
    """

    variant: str = choice("prior", VARIANTS, doc="which policy: Being-H0.7's prior branch or a baseline")
    slots: int = param(4, low=1, high=8, integer=True, doc="latent slots K (= future frames the posterior sees)")
    width: int = param(64, low=16, high=256, integer=True, doc="transformer width d")
    layers: int = param(2, low=1, high=6, integer=True, doc="transformer layers")
    heads: int = param(8, low=1, high=16, integer=True, doc="attention heads")
    head_width: int = param(128, low=16, high=512, integer=True, doc="hidden width of the flow-matching head")
    steps: int = param(300, low=1, high=20000, integer=True, doc="Adam steps")
    batch: int = param(64, low=8, high=512, integer=True, doc="mini-batch size")
    lr: float = param(2e-3, low=0.0, high=0.1, low_open=True, doc="Adam learning rate")
    align_weight: float = param(1.0, low=0.0, high=100.0, doc="λ_a, weight of the prior/posterior alignment "
                                "(ignored except by the prior variant)")
    align_mode: str = choice("stopgrad", ALIGN_MODES, doc="stopgrad: only the prior moves; balanced: 0.8 prior, "
                             "0.2 posterior")
    reg_weight: float = param(0.05, low=0.0, high=100.0, doc="λ_r, weight of the anti-collapse (VICReg) term")
    frame_weight: float = param(1.0, low=0.0, high=100.0, doc="weight of the frame loss (pixel variant only)")
    n_episodes: int = param(100, low=2, high=5000, integer=True, doc="expert episodes of training data")
    flow_steps: int = param(10, low=1, high=100, integer=True, doc="Euler steps when acting")
    eval_every: int = param(100, low=10, high=20000, integer=True, doc="steps between closed-loop success checks")
    eval_episodes: int = param(64, low=8, high=2000, integer=True, doc="episodes per success check")

    def validate(self) -> None:
        if self.width % self.heads:
            raise ValueError(f"width: {self.width} is not divisible by heads {self.heads}; allowed multiples of heads")


@dataclass
class TrainedPolicy:
    """A trained variant: its weights (numpy), configs and training curves.

    Attributes
    ----------
    config : TrainConfig
        What was trained.
    sim : SimConfig
        The task it was trained on.
    seed : int
        The training seed (initialisation, data, mini-batches).
    weights : dict of str to ndarray
        The network's state dict.
    steps : ndarray of int
        Steps at which the losses were logged.
    action_loss : ndarray
        Flow-matching loss of the deployable branch at those steps.
    alignment : ndarray
        The prior/posterior gap (stop-gradient form) at those steps; NaN without a posterior branch.
    eval_steps : ndarray of int
        Steps at which the closed-loop success rate was measured.
    success : ndarray
        Success rates on ``eval_episodes`` held-out episodes at those steps.
    seconds : float
        Wall time of training.
    """

    config: TrainConfig
    sim: SimConfig
    seed: int
    weights: dict = field(repr=False)
    steps: np.ndarray
    action_loss: np.ndarray
    alignment: np.ndarray
    eval_steps: np.ndarray
    success: np.ndarray
    seconds: float

    def network(self):
        """The torch module with these weights, in eval mode (imports torch)."""
        import torch

        from core.latent_world_action.model import LatentWorldActionNet

        net = LatentWorldActionNet(self.config, self.sim.horizon)
        net.load_state_dict({k: torch.as_tensor(v) for k, v in self.weights.items()})
        return net.eval()


def to_tensors(data: Dataset, idx=None) -> dict:
    import torch

    idx = slice(None) if idx is None else idx
    return {"context": torch.as_tensor(data.context[idx]), "instruction": torch.as_tensor(data.instruction[idx]),
            "future": torch.as_tensor(data.future[idx]), "actions": torch.as_tensor(data.actions[idx], dtype=torch.float32)}


def make_policy(net, flow_steps: int, seed: int):
    """``policy(context, instruction) -> chunk`` for :func:`~core.latent_world_action.sim.rollout`."""
    import torch

    gen = torch.Generator().manual_seed(derive_seed(seed, "act"))

    def policy(context, instruction):
        with torch.no_grad():
            batch = {"context": torch.as_tensor(context), "instruction": torch.as_tensor(instruction)}
            noise = torch.randn((len(context), 2 * net.horizon), generator=gen)
            return net.act(batch, noise, flow_steps).numpy()

    return policy


def losses(net, batch: dict, config: TrainConfig, gen) -> dict:
    """The variant's loss terms on one batch (torch scalars); ``total`` is what is minimised."""
    import torch

    from core.latent_world_action.model import alignment_loss, anti_collapse, patchify

    z, h, predicted = net.prior(batch)
    out = {"action": net.flow_loss(h, batch["actions"], gen)}
    total = out["action"]
    if config.variant == "pixel":
        true = patchify(batch["future"][:, -1].float() / 255.0)
        out["frame"] = torch.nn.functional.mse_loss(predicted, true)
        total = total + config.frame_weight * out["frame"]
    elif config.variant in ("prior", "no_align"):
        z_post, h_post = net.posterior(batch)
        out["action_post"] = net.flow_loss(h_post, batch["actions"], gen)
        out["align"] = alignment_loss(z, z_post, config.align_mode)
        out["reg"] = anti_collapse(z) + anti_collapse(z_post)
        weight = config.align_weight if config.variant == "prior" else 0.0
        total = total + out["action_post"] + weight * out["align"] + config.reg_weight * out["reg"]
    out["total"] = total
    return out


def train_policy(config: TrainConfig | None = None, sim: SimConfig | None = None, seed: int = 0,
                 data: Dataset | None = None, progress=None) -> TrainedPolicy:
    """Train one variant on expert demonstrations (see the module docstring for the losses).

    Parameters
    ----------
    config : TrainConfig, optional
        Variant, sizes and schedule (the quick preset if None).
    sim : SimConfig, optional
        The task; ``sim.n_future`` is set to ``config.slots`` (one future frame per slot).
    seed : int
        Seeds the data (unless ``data`` is given), the initialisation and the mini-batches.
    data : Dataset, optional
        Training data; by default ``make_dataset(config.n_episodes, sim, seed)``.
    progress : callable, optional
        ``progress(step, total, metrics)`` every 10 steps (losses) and at each success check;
        returning False stops and returns the weights so far.

    Returns
    -------
    TrainedPolicy
        Weights and curves.

    Examples
    --------
    >>> t = train_policy(TrainConfig(steps=20, n_episodes=4, eval_every=10, eval_episodes=8), seed=0)
    >>> t.steps.tolist(), t.eval_steps.tolist(), bool(np.isfinite(t.alignment).all())
    ([10, 20], [10, 20], True)
    """
    import torch

    from core.latent_world_action.model import LatentWorldActionNet

    config = config or TrainConfig()
    sim = sim or SimConfig()
    if sim.n_future != config.slots:
        sim = sim.replace(n_future=config.slots)
    if config.variant in ("prior", "no_align") and data is not None and data.future.shape[1] != config.slots:
        raise ValueError(f"data: {data.future.shape[1]} future frames per sample for {config.slots} slots; "
                         "allowed one future frame per slot")
    data = data if data is not None else make_dataset(config.n_episodes, sim, derive_seed(seed, "data"))
    t0 = time.perf_counter()
    with torch_seeded(derive_seed(seed, "init")):
        net = LatentWorldActionNet(config, sim.horizon)
    opt = torch.optim.Adam(net.parameters(), lr=config.lr)
    gen = torch.Generator().manual_seed(derive_seed(seed, "batches"))
    rng = np.random.default_rng(derive_seed(seed, "order"))
    steps, act_curve, align_curve, eval_steps, success = [], [], [], [], []
    acc = {"action": 0.0, "align": 0.0, "n": 0}
    for step in range(1, config.steps + 1):
        idx = rng.integers(0, len(data), size=config.batch)
        batch = to_tensors(data, idx)
        net.train()
        terms = losses(net, batch, config, gen)
        opt.zero_grad()
        terms["total"].backward()
        opt.step()
        acc["action"] += float(terms["action"].detach())
        acc["n"] += 1
        if "align" in terms:
            acc["align"] += float(terms["align"].detach())
        metrics = None
        if step % 10 == 0 or step == config.steps:
            steps.append(step)
            act_curve.append(acc["action"] / acc["n"])
            align_curve.append(acc["align"] / acc["n"] if "align" in terms else float("nan"))
            acc = {"action": 0.0, "align": 0.0, "n": 0}
            metrics = {"action_loss": act_curve[-1]}
            if "align" in terms:
                metrics["alignment"] = align_curve[-1]
        if step % config.eval_every == 0 or step == config.steps:
            net.eval()
            r = rollout(make_policy(net, config.flow_steps, seed), config.eval_episodes, sim,
                        seed=derive_seed(seed, "eval", step))
            eval_steps.append(step)
            success.append(r.success_rate)
            metrics = dict(metrics or {}, success=r.success_rate)
        if metrics is not None and not report(progress, step, config.steps, metrics):
            break
    weights = {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}
    return TrainedPolicy(config, sim, seed, weights, np.array(steps), np.array(act_curve), np.array(align_curve),
                         np.array(eval_steps), np.array(success), time.perf_counter() - t0)


def save_policy(directory: str | Path, trained: TrainedPolicy) -> Path:
    """Write ``weights.safetensors`` (float16) and ``config.json`` (both configs, seed, curves).

    Parameters
    ----------
    directory : str or Path
        The checkpoint folder (created if missing).
    trained : TrainedPolicy
        What to save.

    Returns
    -------
    Path
        The folder.

    Examples
    --------
    >>> import tempfile
    >>> t = train_policy(TrainConfig(variant="direct", steps=10, n_episodes=2, eval_episodes=8), seed=0)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     back = load_policy(save_policy(tmp, t))
    >>> back.config.variant, back.seed, sorted(back.weights) == sorted(t.weights)
    ('direct', 0, True)
    """
    from safetensors.numpy import save_file

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    # float16 on disk keeps eight shipped models near 2 MB; loading widens them back to float32.
    save_file({k: np.ascontiguousarray(v, dtype=np.float16) for k, v in trained.weights.items()},
              str(directory / "weights.safetensors"))
    doc = {"paperlab_checkpoint": 1, "config_class": "TrainConfig", "config": trained.config.to_dict(),
           "metadata": {"sim": trained.sim.to_dict(), "seed": trained.seed, "seconds": trained.seconds,
                        "steps": trained.steps.tolist(), "action_loss": trained.action_loss.tolist(),
                        "alignment": [None if not np.isfinite(a) else a for a in trained.alignment.tolist()],
                        "eval_steps": trained.eval_steps.tolist(), "success": trained.success.tolist(),
                        "made_by": "python -m core.latent_world_action.ship"}}
    (directory / "config.json").write_text(json.dumps(doc, indent=1, sort_keys=True))
    return directory


def load_policy(directory: str | Path) -> TrainedPolicy:
    """Read a checkpoint of :func:`save_policy` (safetensors' numpy reader: nothing unpickled, no torch).

    Parameters
    ----------
    directory : str or Path
        A folder holding ``weights.safetensors`` and ``config.json``.

    Returns
    -------
    TrainedPolicy
        The policy, its configs re-validated.

    Examples
    --------
    >>> from core.common import asset_dir
    >>> p = load_policy(asset_dir("latent_world_action") / "prior_seed0")
    >>> p.config.variant, p.config.slots, p.sim.n_future
    ('prior', 4, 4)
    """
    from safetensors.numpy import load_file

    directory = Path(directory)
    doc = json.loads((directory / "config.json").read_text())
    meta = doc["metadata"]
    return TrainedPolicy(TrainConfig.from_dict(doc["config"]), SimConfig.from_dict(meta["sim"]), int(meta["seed"]),
                         {k: v.astype(np.float32) for k, v in load_file(str(directory / "weights.safetensors")).items()},
                         np.array(meta["steps"]),
                         np.array(meta["action_loss"], dtype=float),
                         np.array([np.nan if a is None else a for a in meta["alignment"]], dtype=float),
                         np.array(meta["eval_steps"]), np.array(meta["success"], dtype=float), float(meta["seconds"]))

"""A learned base model: a small MLP that predicts the noise of the VP diffusion in :mod:`.sde`.

Training is plain denoising score matching with the epsilon target: x_t = alpha_t x_0 + sigma_t eps,
t ~ U[T_MIN, 1], loss = mean ||eps_hat(x_t, t) - eps||^2, Adam with a cosine learning-rate decay,
fresh noise every step, minibatches drawn with replacement. The score is -eps_hat / sigma_t.

Our choices (none comes from the paper):

- Gaussian preconditioning. The network only corrects the exact noise predictor of the best
  Gaussian fit N(mu, C) of the data, C = U diag(lam) U^T:
      eps_gauss = sigma (alpha^2 C + sigma^2 I)^-1 (x_t - alpha mu)
      eps_hat   = eps_gauss + U (gate * F(z, t)),   z = diag(alpha^2 lam + sigma^2)^-1/2 U^T (x_t - alpha mu)
  with gate_k = alpha sqrt(lam_k) / sqrt(alpha^2 lam_k + sigma^2). The input z has unit variance at
  every t; the gate is how much of direction k is signal rather than noise, which bounds the true
  correction, so the net is silent where the data have no variance. Directions the data never
  leave (a centred, aligned protein has 6 of them) are then handled exactly, with no stiff score to
  learn near t = 0, and at large t the predictor is already the right Gaussian one.
- Time enters as Fourier features of u = log(alpha^2 / sigma^2) / 10 (the log-SNR, which spans
  about [-1, 1] on [T_MIN, 1]): u, sin(pi k u), cos(pi k u) for k = 1..n_freqs.
- Random Fourier features of the input: sin(z B), cos(z B) with B ~ N(0, (2 pi fourier_scale)^2),
  [dim, n_fourier], drawn from the seed. Without them the MLP's spectral bias stalls on two moons
  (measured: 2000 steps left the loss and the samples at the Gaussian fit, mean distance to the
  moons 0.25; with them 0.046, fresh data 0.039). On the protein they were neutral (the shipped
  protein model uses n_fourier = 0).
- F is a SiLU MLP of ``depth`` hidden layers of ``width`` units: the first reads [z, Fourier
  features, time features], each later one reads [h, time features] and is added to h (a residual
  step); the output layer starts at zero (training starts from the Gaussian predictor).

Measured limits: on the 36-D protein the samples under-fold (mean foldedness ~0.36 against the
reference 0.43; see :mod:`.protein`). One-step Tweedie denoising of reference data is accurate, but
reverse-SDE sampling leaves excess noise on contact distances (like 0.15 of isotropic noise per
coordinate). Neither doubling the width, 3x the steps, larger batches, weighting small t, EMA of the
weights, a Gaussian-mixture baseline, nor 10x more sampler steps closed that gap.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.common.checkpoint import load_checkpoint, save_checkpoint
from core.common.config import Config, param
from core.common.progress import report
from core.common.seeding import check_seed, make_torch_generator, torch_seeded
from core.distributional_steering import sde


@dataclass(frozen=True)
class DenoiserConfig(Config):
    """The noise-prediction MLP's architecture and optimiser (see the module docstring)."""

    dim: int = param(2, low=1, high=256, integer=True, doc="data dimension")
    width: int = param(128, low=8, high=1024, integer=True, doc="hidden units per layer")
    depth: int = param(3, low=1, high=8, integer=True, doc="hidden layers")
    n_freqs: int = param(8, low=1, high=64, integer=True, doc="Fourier frequencies of the log-SNR")
    lr: float = param(2e-3, low=0.0, high=1.0, low_open=True, doc="peak Adam learning rate (cosine decay to 0)")
    batch_size: int = param(512, low=1, high=65_536, integer=True, doc="samples per step")
    n_fourier: int = param(64, low=0, high=1024, integer=True, doc="random Fourier features of the whitened input")
    fourier_scale: float = param(0.5, low=0.0, high=100.0, doc="std of the Fourier frequencies (per unit of z)")


def _module(config: DenoiserConfig):
    import torch
    from torch import nn

    class EpsNet(nn.Module):
        def __init__(self):
            super().__init__()
            d, w = config.dim, config.width
            n_time = 1 + 2 * config.n_freqs
            self.inp = nn.Linear(d + 2 * config.n_fourier + n_time, w)
            self.blocks = nn.ModuleList([nn.Linear(w + n_time, w) for _ in range(config.depth - 1)])
            self.out = nn.Linear(w, d)
            nn.init.zeros_(self.out.weight)
            nn.init.zeros_(self.out.bias)
            self.act = nn.SiLU()
            self.register_buffer("mean", torch.zeros(d))
            self.register_buffer("eigvecs", torch.eye(d))
            self.register_buffer("eigvals", torch.ones(d))
            self.register_buffer("freqs", math.pi * torch.arange(1, config.n_freqs + 1, dtype=torch.float32))
            self.register_buffer("fourier", 2 * math.pi * config.fourier_scale * torch.randn(d, config.n_fourier))

        def forward(self, x, alpha, sigma):
            """eps_hat for x [n, d]; alpha, sigma are [n, 1] or [1, 1] tensors."""
            signal = alpha**2 * self.eigvals                                     # [n or 1, d]
            total = signal + sigma**2
            y = (x - alpha * self.mean) @ self.eigvecs                           # eigen-coordinates
            z = y / total.sqrt()
            u = torch.log(alpha**2 / sigma**2).expand(x.shape[0], 1) / 10.0
            time_features = torch.cat([u, torch.sin(u * self.freqs), torch.cos(u * self.freqs)], dim=1)
            zb = z @ self.fourier
            h = self.act(self.inp(torch.cat([z, torch.sin(zb), torch.cos(zb), time_features], dim=1)))
            for block in self.blocks:
                h = h + self.act(block(torch.cat([h, time_features], dim=1)))
            gate = signal.sqrt() / total.sqrt()
            eps_eigen = sigma * y / total + gate * self.out(h)
            return eps_eigen @ self.eigvecs.T

    return EpsNet()


class LearnedBase:
    """A trained denoiser as a base model: ``dim`` and ``score(x, t)`` on numpy arrays.

    score(x, t) = -eps_hat(x, t) / sigma_t, with eps_hat the network's noise prediction.

    Parameters
    ----------
    config : DenoiserConfig
        The network's architecture.
    module : torch.nn.Module
        The trained network (put in eval mode).
    metadata : dict, optional
        What training recorded (seed, steps, loss, wall time).

    Examples
    --------
    >>> import numpy as np
    >>> from core.distributional_steering import load_protein
    >>> base = load_protein().base
    >>> base.dim, base.score(np.zeros((2, 36)), t=0.5).shape
    (36, (2, 36))
    """

    def __init__(self, config: DenoiserConfig, module, metadata: dict | None = None):
        self.config, self.module = config, module.eval()
        self.dim = config.dim
        self.metadata = dict(metadata or {})

    def eps(self, x, t: float, chunk: int = 8192) -> np.ndarray:
        """The predicted noise eps_hat(x, t) [n, dim], float64."""
        import torch

        x = np.asarray(x, dtype=float)
        if x.ndim != 2 or x.shape[1] != self.dim:
            raise ValueError(f"x: shape {x.shape}; allowed [n, {self.dim}]")
        if not sde.T_MIN / 2 <= float(t) <= 1.0:
            raise ValueError(f"t: {t}; allowed [{sde.T_MIN / 2:g}, 1]")
        alpha = torch.full((1, 1), sde.alpha(float(t)), dtype=torch.float32)
        sigma = torch.full((1, 1), math.sqrt(sde.sigma2(float(t))), dtype=torch.float32)
        out = np.empty_like(x)
        with torch.no_grad():
            for start in range(0, len(x), chunk):
                batch = torch.as_tensor(x[start:start + chunk], dtype=torch.float32)
                out[start:start + chunk] = self.module(batch, alpha, sigma).double().numpy()
        return out

    def score(self, x, t: float) -> np.ndarray:
        """grad log p_t(x) estimated as -eps_hat / sigma_t, [n, dim] float64."""
        return -self.eps(x, t) / math.sqrt(sde.sigma2(float(t)))

    def state_dict(self) -> dict:
        return self.module.state_dict()


def train_denoiser(samples: np.ndarray, steps: int, seed: int, progress=None, **hyper) -> LearnedBase:
    """Fit a noise-prediction MLP to ``samples`` by denoising score matching.

    .. math::

        x_t = alpha_t x_0 + sigma_t eps,   t ~ U[T_MIN, 1],   loss = E ||eps_hat(x_t, t) - eps||^2

    with Adam and a cosine learning-rate decay; the network corrects the exact noise predictor of
    the data's best Gaussian fit (see the module docstring).

    Parameters
    ----------
    samples : numpy.ndarray
        [n >= 2, dim] finite training data.
    steps : int
        Optimiser steps, >= 1.
    seed : int
        Seeds the initialisation, the minibatches and the noise.
    progress : callable, optional
        ``progress(step, steps, {"loss"})`` after every step (the loss is an exponential moving
        average); returning False stops and returns the model as trained so far.
    **hyper
        :class:`DenoiserConfig` fields other than ``dim`` (set by the samples).

    Returns
    -------
    LearnedBase
        The trained base; its metadata records the seed, the steps done, the final loss and the wall time.

    Raises
    ------
    ValueError
        For bad samples, steps or hyperparameters (before anything is built).

    References
    ----------
    Ho, Jain and Abbeel, "Denoising diffusion probabilistic models", NeurIPS 2020; Song et al.,
    "Score-based generative modeling through stochastic differential equations", ICLR 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from core.distributional_steering import train_denoiser
    >>> data = np.random.default_rng(0).standard_normal((1000, 2))
    >>> base = train_denoiser(data, steps=2000, seed=0)           # doctest: +SKIP
    >>> train_denoiser(data, steps=0, seed=0)
    Traceback (most recent call last):
    ...
    ValueError: steps: 0; allowed integers >= 1
    """
    import torch

    x0 = np.asarray(samples, dtype=float)
    if x0.ndim != 2 or len(x0) < 2 or not np.isfinite(x0).all():
        raise ValueError(f"samples: shape {x0.shape}; allowed a finite [n, dim] array with n >= 2")
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps: {steps!r}; allowed integers >= 1")
    if "dim" in hyper:
        raise ValueError("dim: set by the samples; allowed only the other DenoiserConfig fields")
    unknown = sorted(set(hyper) - set(DenoiserConfig.__dataclass_fields__))
    if unknown:
        raise ValueError(f"{unknown[0]}: not a DenoiserConfig field; allowed "
                         + ", ".join(f for f in DenoiserConfig.__dataclass_fields__ if f != "dim"))
    seed = check_seed(seed)
    config = DenoiserConfig(dim=x0.shape[1], **hyper)
    with torch_seeded(seed):
        module = _module(config)
    eigvals, eigvecs = np.linalg.eigh(np.atleast_2d(np.cov(x0, rowvar=False)))
    module.mean.copy_(torch.as_tensor(x0.mean(0), dtype=torch.float32))
    module.eigvecs.copy_(torch.as_tensor(eigvecs, dtype=torch.float32))
    module.eigvals.copy_(torch.as_tensor(np.clip(eigvals, 0.0, None), dtype=torch.float32))

    data = torch.as_tensor(x0, dtype=torch.float32)
    gen = make_torch_generator(seed)
    opt = torch.optim.Adam(module.parameters(), lr=config.lr)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: 0.5 * (1 + math.cos(math.pi * min(k, steps) / steps)))
    # alpha(t) = exp(-(B_MIN t + (B_MAX - B_MIN) t^2 / 2) / 2), written in torch for whole batches
    b_min, b_max = sde.B_MIN, sde.B_MAX
    started, ema, done = time.perf_counter(), None, 0
    module.train()
    for step in range(1, steps + 1):
        idx = torch.randint(len(data), (config.batch_size,), generator=gen)
        t = sde.T_MIN + (1 - sde.T_MIN) * torch.rand(config.batch_size, 1, generator=gen)
        alpha = torch.exp(-0.5 * (b_min * t + 0.5 * (b_max - b_min) * t * t))
        sigma = torch.sqrt(1 - alpha**2)
        eps = torch.randn(config.batch_size, config.dim, generator=gen)
        loss = ((module(alpha * data[idx] + sigma * eps, alpha, sigma) - eps) ** 2).sum(1).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        value = loss.item()
        ema = value if ema is None else 0.98 * ema + 0.02 * value
        done = step
        if not report(progress, step, steps, {"loss": ema}):
            break
    metadata = {"seed": seed, "steps": steps, "steps_done": done, "loss": ema,
                "train_seconds": round(time.perf_counter() - started, 2), "n_samples": len(x0)}
    return LearnedBase(config, module, metadata)


def save_denoiser(base: LearnedBase, directory: str | Path, metadata: dict | None = None) -> Path:
    """Write ``base`` as a checkpoint (weights.safetensors + config.json) with its metadata."""
    return save_checkpoint(directory, base.state_dict(), base.config, {**base.metadata, **(metadata or {})})


def load_denoiser(directory: str | Path) -> LearnedBase:
    """Read a denoiser checkpoint written by :func:`save_denoiser` (safetensors + JSON, no unpickling).

    Parameters
    ----------
    directory : str or Path
        The checkpoint's folder.

    Returns
    -------
    LearnedBase
        The denoiser with its config and metadata.

    Examples
    --------
    >>> from core.common.assets import asset_dir
    >>> from core.distributional_steering import load_denoiser
    >>> base = load_denoiser(asset_dir("distributional_steering") / "protein_denoiser")
    >>> base.dim, base.config.n_fourier, base.metadata["made_by"]
    (36, 0, 'python -m core.distributional_steering.ship protein')
    """
    checkpoint = load_checkpoint(directory, DenoiserConfig)
    with torch_seeded(0):
        module = _module(checkpoint.config)
    module.load_state_dict(checkpoint.tensors)
    return LearnedBase(checkpoint.config, module, checkpoint.metadata)

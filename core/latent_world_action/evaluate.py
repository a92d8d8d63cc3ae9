"""Evaluating a trained variant: success in the simulator, latent probes, collapse diagnostics, latency.

- Latent probe: ridge regression (scikit-learn's ``RidgeCV``, standardised features) from the
  flattened prior latents z_prior (K·d numbers) to the target's position at t + H, fitted on the
  first 2/3 of a held-out dataset and scored (R², averaged over x and y) on the rest. The direct
  and pixel variants have no slots; their probe reads the action token's state instead (reported,
  not part of the claim). The displacement probe (future minus current position) isolates what the
  present frame does not show.
- Collapse: per-dimension standard deviation of z_prior over samples, and the effective rank
  exp(H(p)) of the singular values p = s / Σ s of the centred (n, K·d) latent matrix (Roy & Vetterli).
- Latency: median milliseconds per action chunk for one observation (batch 1), flow sampler included.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from core.common.config import check_range
from core.common.seeding import derive_seed
from core.latent_world_action.sim import Dataset, make_dataset, rollout


@dataclass
class Latents:
    """The states a variant computes on a dataset, without any gradient.

    Attributes
    ----------
    prior : ndarray, shape (n, K, d)
        Prior-branch slot latents (K = 0 for variants without slots).
    posterior : ndarray, shape (n, K, d)
        Posterior-branch slot latents (empty for variants without a posterior branch).
    action_state : ndarray, shape (n, d)
        The normed action-token state of the deployable branch.
    """

    prior: np.ndarray
    posterior: np.ndarray
    action_state: np.ndarray


def compute_latents(trained, data: Dataset, batch: int = 256) -> Latents:
    """Run both branches of ``trained`` over ``data`` in batches (torch, no gradient).

    Parameters
    ----------
    trained : TrainedPolicy
        The variant.
    data : Dataset
        Samples (the posterior branch reads ``data.future``).
    batch : int
        Samples per forward pass.

    Returns
    -------
    Latents
        Prior and posterior latents and the action state.

    Examples
    --------
    >>> from core.common import asset_dir
    >>> from core.latent_world_action.train import load_policy
    >>> lat = compute_latents(load_policy(asset_dir("latent_world_action") / "prior_seed0"), make_dataset(2, seed=9))
    >>> lat.prior.shape, lat.posterior.shape, lat.action_state.shape
    ((32, 4, 64), (32, 4, 64), (32, 64))
    """
    import torch

    from core.latent_world_action.train import to_tensors

    batch = check_range("batch", batch, low=1, high=100_000, integer=True)
    net = trained.network()
    prior, post, act = [], [], []
    with torch.no_grad():
        for start in range(0, len(data), batch):
            b = to_tensors(data, slice(start, start + batch))
            z, h, _ = net.prior(b)
            prior.append(z.numpy())
            act.append(h.numpy())
            if net.n_slots:
                post.append(net.posterior(b)[0].numpy())
    d = act[0].shape[1]
    return Latents(np.concatenate(prior) if net.n_slots else np.zeros((len(data), 0, d)),
                   np.concatenate(post) if post else np.zeros((len(data), 0, d)), np.concatenate(act))


def probe_r2(features: np.ndarray, targets: np.ndarray) -> float:
    """Held-out R² of a ridge probe (``RidgeCV`` on standardised features; first 2/3 fit, last 1/3 scored).

    Parameters
    ----------
    features : ndarray, shape (n, ...)
        Flattened per sample.
    targets : ndarray, shape (n, m)
        What to decode; R² is averaged over the m outputs.

    Returns
    -------
    float
        R² on the held-out third (1 is perfect, 0 the mean's score, negative worse).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 5))
    >>> round(probe_r2(X, X[:, :2] * 2 + 0.01 * rng.normal(size=(300, 2))), 2), probe_r2(X, rng.normal(size=(300, 2))) < 0.1
    (1.0, True)
    """
    from sklearn.linear_model import RidgeCV
    from sklearn.metrics import r2_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X = np.asarray(features, dtype=float).reshape(len(features), -1)
    y = np.asarray(targets, dtype=float)
    if len(X) != len(y) or len(X) < 6:
        raise ValueError(f"targets: {len(y)} rows for {len(X)} feature rows; allowed equal counts, at least 6")
    cut = 2 * len(X) // 3
    model = make_pipeline(StandardScaler(), RidgeCV(alphas=np.logspace(-3, 4, 15))).fit(X[:cut], y[:cut])
    return float(r2_score(y[cut:], model.predict(X[cut:]), multioutput="uniform_average"))


@dataclass
class CollapseStats:
    """How spread out a set of latents is.

    Attributes
    ----------
    std : ndarray, shape (D,)
        Per-dimension standard deviation over samples (D = K·d).
    min_std : float
        Its smallest entry.
    mean_std : float
        Its mean.
    effective_rank : float
        exp of the entropy of the normalised singular values of the centred latent matrix (1 to D).
    dims : int
        D.
    """

    std: np.ndarray
    min_std: float
    mean_std: float
    effective_rank: float
    dims: int


def collapse_stats(latents: np.ndarray) -> CollapseStats:
    """Per-dimension spread and effective rank of latents of shape (n, ...), flattened per sample.

    Parameters
    ----------
    latents : ndarray, shape (n, ...)
        At least two samples.

    Returns
    -------
    CollapseStats
        The diagnostics.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> full, flat = collapse_stats(rng.normal(size=(2000, 8))), collapse_stats(np.outer(rng.normal(size=2000), np.ones(8)))
    >>> round(full.effective_rank), round(flat.effective_rank), round(full.min_std, 1)
    (8, 1, 1.0)
    """
    X = np.asarray(latents, dtype=float).reshape(len(latents), -1)
    if len(X) < 2 or X.shape[1] == 0:
        raise ValueError(f"latents: shape {np.shape(latents)}; allowed at least 2 samples of at least 1 number")
    std = X.std(0)
    s = np.linalg.svd(X - X.mean(0), compute_uv=False)
    p = s / s.sum() if s.sum() > 0 else np.ones_like(s) / len(s)
    p = p[p > 0]
    return CollapseStats(std, float(std.min()), float(std.mean()), float(np.exp(-(p * np.log(p)).sum())), X.shape[1])


def ms_per_action(trained, repeats: int = 30, seed: int = 0) -> float:
    """Median milliseconds for one action chunk from one observation (deployable branch, sampler included).

    Parameters
    ----------
    trained : TrainedPolicy
        The variant.
    repeats : int
        Timed calls (after two warm-up calls).
    seed : int
        Seeds the observation.

    Returns
    -------
    float
        The median time.

    Examples
    --------
    >>> from core.common import asset_dir
    >>> from core.latent_world_action.train import load_policy
    >>> ms_per_action(load_policy(asset_dir("latent_world_action") / "direct_seed0"), repeats=3) > 0
    True
    """
    import torch

    from core.latent_world_action.train import make_policy

    repeats = check_range("repeats", repeats, low=1, high=10_000, integer=True)
    data = make_dataset(1, trained.sim, seed)
    policy = make_policy(trained.network(), trained.config.flow_steps, seed)
    ctx, ins = data.context[:1], data.instruction[:1]
    times = []
    with torch.no_grad():
        for i in range(repeats + 2):
            t0 = time.perf_counter()
            policy(ctx, ins)
            if i >= 2:
                times.append(time.perf_counter() - t0)
    return float(np.median(times) * 1000)


@dataclass
class Evaluation:
    """One trained variant measured: success, probes, collapse and latency.

    Attributes
    ----------
    variant : str
        Which variant.
    seed : int
        Its training seed.
    success : ndarray
        Success rates, one per evaluation seed.
    success_rate : float
        Their mean.
    probe_prior : float
        R² of the future target position from the prior latents (action state without slots).
    probe_posterior : float
        The same from the posterior latents (NaN without a posterior branch).
    probe_current : float
        R² of the current target position from the prior latents (what a probe finds without the future).
    probe_displacement : float
        R² of the target's displacement from t to t + H (future minus current position) from the prior
        latents: the part of the future that the present frame alone does not show.
    alignment_gap : float
        Mean squared gap of the layer-normed prior and posterior latents (NaN without slots).
    collapse : CollapseStats or None
        Diagnostics of the prior latents (None without slots).
    ms_per_action : float
        Latency per action chunk.
    """

    variant: str
    seed: int
    success: np.ndarray
    success_rate: float
    probe_prior: float
    probe_posterior: float
    probe_current: float
    probe_displacement: float
    alignment_gap: float
    collapse: CollapseStats | None
    ms_per_action: float


def evaluate_policy(trained, eval_seeds=(0, 1, 2, 3, 4), n_episodes: int = 100, probe_episodes: int = 60,
                    seed: int = 0) -> Evaluation:
    """Measure ``trained``: closed-loop success per evaluation seed, probes, collapse, latency.

    Parameters
    ----------
    trained : TrainedPolicy
        The variant.
    eval_seeds : sequence of int
        Held-out episode seeds (each a fresh set of ``n_episodes`` starts, apart from training's).
    n_episodes : int
        Episodes per evaluation seed.
    probe_episodes : int
        Expert episodes of the held-out probe dataset.
    seed : int
        Seeds the probe dataset and the latency observation.

    Returns
    -------
    Evaluation
        The measurements.

    Examples
    --------
    >>> from core.common import asset_dir
    >>> from core.latent_world_action.train import load_policy
    >>> e = evaluate_policy(load_policy(asset_dir("latent_world_action") / "prior_seed0"), (0,), 8, 4)
    >>> e.variant, e.success.shape, e.collapse.dims
    ('prior', (1,), 256)
    """
    eval_seeds = tuple(int(check_range("eval_seeds", s, low=0, high=2**32 - 1, integer=True)) for s in eval_seeds)
    if not eval_seeds:
        raise ValueError("eval_seeds: empty; allowed at least one seed")
    n_episodes = check_range("n_episodes", n_episodes, low=1, high=100_000, integer=True)
    probe_episodes = check_range("probe_episodes", probe_episodes, low=1, high=10_000, integer=True)
    import torch

    from core.latent_world_action.train import make_policy

    net = trained.network()
    success = []
    for s in eval_seeds:
        policy = make_policy(net, trained.config.flow_steps, derive_seed(seed, "policy", s))
        success.append(rollout(policy, n_episodes, trained.sim, seed=derive_seed(s, "heldout")).success_rate)
    data = make_dataset(probe_episodes, trained.sim, derive_seed(seed, "probe"))
    lat = compute_latents(trained, data)
    has_slots = lat.prior.shape[1] > 0
    feats = lat.prior if has_slots else lat.action_state
    current = current_target(data)
    gap = float("nan")
    if has_slots:
        with torch.no_grad():
            from core.latent_world_action.model import alignment_loss

            gap = float(alignment_loss(torch.as_tensor(lat.prior), torch.as_tensor(lat.posterior)))
    return Evaluation(trained.config.variant, trained.seed, np.array(success), float(np.mean(success)),
                      probe_r2(feats, data.future_target),
                      probe_r2(lat.posterior, data.future_target) if has_slots else float("nan"),
                      probe_r2(feats, current), probe_r2(feats, data.future_target - current), gap, collapse_stats(lat.prior) if has_slots else None,
                      ms_per_action(trained, 20, seed))


def current_target(data: Dataset) -> np.ndarray:
    """The target's position at t, read off the context's last target channel (intensity centroid)."""
    frame = data.context[:, 3].astype(float)
    grid = (np.arange(frame.shape[-1]) + 0.5) / frame.shape[-1]
    mass = frame.sum((1, 2)) + 1e-9
    return np.stack([(frame.sum(1) * grid).sum(1) / mass, (frame.sum(2) * grid).sum(1) / mass], axis=1)

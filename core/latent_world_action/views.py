"""What the page draws: shipped episodes side by side, latents in 2-D, the variants' table, a live run.

:func:`policy_view` computes the first view from the shipped checkpoints (the ship script stores it
in ``assets/latent_world_action/view.npz`` + ``view.json`` so the page needs no torch);
:func:`train_live` trains the quick preset and returns the same kind of latent picture.
The 2-D picture is a PCA (scikit-learn) fitted on the layer-normed prior and posterior latents
together (the quantities the alignment loss compares), so both clouds share axes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from core.common.assets import asset_dir
from core.common.config import check_range
from core.common.seeding import derive_seed
from core.latent_world_action.evaluate import compute_latents, probe_r2
from core.latent_world_action.sim import make_dataset, rollout
from core.latent_world_action.train import VARIANTS, TrainConfig, load_policy, make_policy, train_policy

ASSETS = asset_dir("latent_world_action")
SHIPPED_SEEDS = (0, 1, 2)
VIEW_EPISODES = 6
PCA_EPISODES = 20


def checkpoint_name(variant: str, seed: int) -> str:
    return f"{variant}_seed{seed}"


def layer_normed(z: np.ndarray) -> np.ndarray:
    """Each slot's latent minus its mean over d, over its standard deviation: what the alignment compares."""
    z = np.asarray(z, dtype=float)
    return (z - z.mean(-1, keepdims=True)) / np.sqrt(z.var(-1, keepdims=True) + 1e-5)


@dataclass
class LatentPicture:
    """Prior and posterior latents of one model projected on shared 2-D PCA axes.

    Attributes
    ----------
    prior_xy : ndarray, shape (n, 2)
        The prior latents' coordinates.
    posterior_xy : ndarray, shape (n, 2)
        The posterior latents' coordinates (empty without a posterior branch).
    future_x : ndarray, shape (n,)
        The target's x at t + H (the colour).
    explained : ndarray, shape (2,)
        Variance ratio of the two axes.
    """

    prior_xy: np.ndarray
    posterior_xy: np.ndarray
    future_x: np.ndarray
    explained: np.ndarray


def latent_picture(trained, episodes: int = PCA_EPISODES, seed: int = 0) -> LatentPicture:
    """PCA of the layer-normed prior and posterior latents of ``trained`` on a held-out dataset.

    Parameters
    ----------
    trained : TrainedPolicy
        A slot variant.
    episodes : int
        Expert episodes of the held-out dataset.
    seed : int
        Seeds the dataset.

    Returns
    -------
    LatentPicture
        Shared-axis coordinates.

    Examples
    --------
    >>> p = latent_picture(load_policy(ASSETS / "prior_seed0"), episodes=2)
    >>> p.prior_xy.shape, p.posterior_xy.shape
    ((32, 2), (32, 2))
    """
    from sklearn.decomposition import PCA

    episodes = check_range("episodes", episodes, low=1, high=10_000, integer=True)
    data = make_dataset(episodes, trained.sim, derive_seed(seed, "picture"))
    lat = compute_latents(trained, data)
    if lat.prior.shape[1] == 0:
        raise ValueError(f"trained: variant {trained.config.variant!r} has no latent slots; allowed 'prior', 'no_align'")
    P, Q = layer_normed(lat.prior).reshape(len(data), -1), layer_normed(lat.posterior).reshape(len(data), -1)
    pca = PCA(2, random_state=0).fit(np.concatenate([P, Q]))
    return LatentPicture(pca.transform(P), pca.transform(Q), data.future_target[:, 0], pca.explained_variance_ratio_)


@dataclass
class PolicyView:
    """The page's first view: two policies acting on the same episodes, a latent picture, the variants' table.

    Attributes
    ----------
    prior_agent : ndarray, shape (E, T + 1, 2)
        Agent positions under the prior policy (Being-H0.7).
    direct_agent : ndarray, shape (E, T + 1, 2)
        Agent positions under the direct policy on the same episodes.
    target : ndarray, shape (E, T + 1, 2)
        Target positions (the same for both).
    prior_success : ndarray of bool, shape (E,)
        Which episodes the prior policy solved.
    direct_success : ndarray of bool, shape (E,)
        Which the direct policy solved.
    aligned : LatentPicture
        The prior model's latents.
    unaligned : LatentPicture
        The no-alignment model's latents.
    table : dict
        Per variant (key): mean and per-seed success, probe R², ms per action (from the bench-scale
        evaluation the ship script ran).
    curves : dict
        Per shipped checkpoint name: training steps, action loss, alignment, success.
    seed : int
        The episodes' seed.
    """

    prior_agent: np.ndarray
    direct_agent: np.ndarray
    target: np.ndarray
    prior_success: np.ndarray
    direct_success: np.ndarray
    aligned: LatentPicture
    unaligned: LatentPicture
    table: dict
    curves: dict
    seed: int


def episodes_view(prior, direct, n_episodes: int = VIEW_EPISODES, seed: int = 0):
    """The two policies on the same ``n_episodes`` episodes: (prior Rollout, direct Rollout)."""
    a = rollout(make_policy(prior.network(), prior.config.flow_steps, seed), n_episodes, prior.sim,
                seed=derive_seed(seed, "view"))
    b = rollout(make_policy(direct.network(), direct.config.flow_steps, seed), n_episodes, direct.sim,
                seed=derive_seed(seed, "view"))
    return a, b


def policy_view(table: dict | None = None, seed: int = 0) -> PolicyView:
    """Compute the first view from the shipped checkpoints of training seed 0.

    Parameters
    ----------
    table : dict, optional
        The variants' comparison (the ship script passes its evaluation); empty if None.
    seed : int
        Seeds the episodes and the latent datasets.

    Returns
    -------
    PolicyView
        What the page draws.

    Examples
    --------
    >>> v = policy_view()
    >>> v.prior_agent.shape == v.direct_agent.shape, v.aligned.prior_xy.shape[1]
    (True, 2)
    """
    prior, direct = load_policy(ASSETS / "prior_seed0"), load_policy(ASSETS / "direct_seed0")
    a, b = episodes_view(prior, direct, VIEW_EPISODES, seed)
    curves = {}
    for path in sorted(ASSETS.glob("*_seed*")):
        t = load_policy(path)
        curves[path.name] = {"steps": t.steps.tolist(), "action_loss": t.action_loss.tolist(),
                             "alignment": [None if not np.isfinite(x) else x for x in t.alignment.tolist()],
                             "eval_steps": t.eval_steps.tolist(), "success": t.success.tolist()}
    return PolicyView(a.agent, b.agent, a.target, a.success, b.success, latent_picture(prior, seed=seed),
                      latent_picture(load_policy(ASSETS / "no_align_seed0"), seed=seed), dict(table or {}), curves,
                      seed)


def save_view(view: PolicyView) -> None:
    """Write ``view.npz`` (arrays) and ``view.json`` (table, curves) under the assets folder."""
    arrays = {"prior_agent": view.prior_agent, "direct_agent": view.direct_agent, "target": view.target,
              "prior_success": view.prior_success, "direct_success": view.direct_success}
    for name, pic in (("aligned", view.aligned), ("unaligned", view.unaligned)):
        for f in ("prior_xy", "posterior_xy", "future_x", "explained"):
            arrays[f"{name}.{f}"] = getattr(pic, f).astype(np.float32)
    np.savez_compressed(ASSETS / "view.npz", **{k: np.asarray(v) for k, v in arrays.items()})
    (ASSETS / "view.json").write_text(json.dumps({"table": view.table, "curves": view.curves, "seed": view.seed},
                                                 allow_nan=False) + "\n")


def shipped_view() -> PolicyView | None:
    """The shipped first view, read from ``view.npz`` and ``view.json`` without torch.

    Returns
    -------
    PolicyView or None
        None if ``python -m core.latent_world_action.ship`` has not written it.

    Examples
    --------
    >>> v = shipped_view()
    >>> v.target.shape[0] == v.prior_success.shape[0], sorted(v.table) == sorted(VARIANTS)
    (True, True)
    """
    if not (ASSETS / "view.npz").is_file():
        return None
    z = np.load(ASSETS / "view.npz")
    doc = json.loads((ASSETS / "view.json").read_text())
    pics = {name: LatentPicture(*(z[f"{name}.{f}"] for f in ("prior_xy", "posterior_xy", "future_x", "explained")))
            for name in ("aligned", "unaligned")}
    return PolicyView(z["prior_agent"], z["direct_agent"], z["target"], z["prior_success"], z["direct_success"],
                      pics["aligned"], pics["unaligned"], doc["table"], doc["curves"], doc["seed"])


@dataclass
class LiveRun:
    """A quick-preset model trained live, with its curves and latents measured on held-out data.

    Attributes
    ----------
    variant : str
        What was trained.
    steps : ndarray of int
        Logged steps.
    action_loss : ndarray
        Flow-matching loss of the deployable branch.
    alignment : ndarray
        Prior/posterior gap (NaN without slots).
    eval_steps : ndarray of int
        Steps of the success checks.
    success : ndarray
        Success rates at those steps.
    probe_prior : float
        Held-out R² of the future target position from the prior latents (action state without slots).
    picture : LatentPicture or None
        The latents in 2-D (None without slots, or when stopped before the end).
    seconds : float
        Training time.
    """

    variant: str
    steps: np.ndarray
    action_loss: np.ndarray
    alignment: np.ndarray
    eval_steps: np.ndarray
    success: np.ndarray
    probe_prior: float
    picture: LatentPicture | None
    seconds: float


def train_live(config: TrainConfig | None = None, seed: int = 0, progress=None) -> LiveRun:
    """Train ``config`` (the quick preset by default), then probe and picture its latents.

    Parameters
    ----------
    config : TrainConfig, optional
        What to train.
    seed : int
        Training seed.
    progress : callable, optional
        Passed to :func:`~core.latent_world_action.train.train_policy`; False stops (no probe then).

    Returns
    -------
    LiveRun
        Curves, probe and picture.

    Examples
    --------
    >>> r = train_live(TrainConfig(steps=10, n_episodes=2, eval_episodes=8), seed=0)
    >>> r.steps.tolist(), r.picture.prior_xy.shape[1]
    ([10], 2)
    """
    from core.common.progress import ProgressLog

    log = ProgressLog()

    def relay(step, total, metrics):
        log(step, total, metrics)
        return progress(step, total, metrics) if progress is not None else None

    t = train_policy(config, seed=seed, progress=relay)
    stopped = bool(log.steps) and log.steps[-1] < t.config.steps
    probe, picture = float("nan"), None
    if not stopped:
        data = make_dataset(40, t.sim, derive_seed(seed, "live-probe"))
        lat = compute_latents(t, data)
        has = lat.prior.shape[1] > 0
        probe = probe_r2(lat.prior if has else lat.action_state, data.future_target)
        picture = latent_picture(t, 10, seed) if has else None
    return LiveRun(t.config.variant, t.steps, t.action_loss, t.alignment, t.eval_steps, t.success, probe, picture,
                   t.seconds)


def variant_names() -> tuple:
    """The variants in table order."""
    return VARIANTS

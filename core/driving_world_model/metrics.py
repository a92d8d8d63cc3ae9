"""The three evaluations: fidelity against horizon, steering responsiveness, linear probes of hidden features.

- Fidelity: per-step mean squared error of generated frames (both channels, [0, 1] scale) and IoU of
  the vehicle channel thresholded at 0.5, pooled over episodes (``sum |P and G| / sum |P or G|``).
- Steering: from the same context the ego is commanded to hold each heading command of
  :data:`STEERS` with zero acceleration for :data:`STEER_HORIZON` frames; the generated lateral
  shift is read off the road channel by :func:`~core.driving_world_model.sim.lateral_position` and
  centred per context (its mean over the commanded angles removed, so the context's own drift does
  not count); the score is Spearman's rho of commanded angle against centred shift, pooled.
- Probes: ridge regression (scikit-learn, alpha = 1, standardised features) from the GRU state
  ``h_t`` on clean ground-truth windows of 12 frames to ego speed, lane index and lead gap; R² on
  held-out episodes (half of them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.driving_world_model.sim import STEER_SCALE, lateral_position

STEERS = (-0.04, -0.02, 0.0, 0.02, 0.04)   # heading commands, rad
STEER_HORIZON = 8
PROBE_TARGETS = ("speed", "lane", "gap")


def horizon_errors(pred01: np.ndarray, truth01: np.ndarray, threshold: float = 0.5):
    """Per-step (MSE, vehicle IoU) of frames (B, H, 2, R, R) in [0, 1]: two arrays of length H."""
    pred01, truth01 = np.clip(pred01, 0, 1), np.asarray(truth01)
    mse = ((pred01 - truth01) ** 2).mean(axis=(0, 2, 3, 4))
    p, g = pred01[:, :, 0] > threshold, truth01[:, :, 0] > threshold
    inter = (p & g).sum(axis=(0, 2, 3))
    union = (p | g).sum(axis=(0, 2, 3))
    return mse, inter / np.maximum(union, 1)


def steering_spearman(steers, shifts) -> float:
    """Spearman's rho of commanded steering against lateral shift (contexts x steers), centred per context.

    Parameters
    ----------
    steers : array
        The commanded angles, one per column.
    shifts : numpy.ndarray
        (contexts, steers) lateral shifts.

    Returns
    -------
    float
        rho over all pooled pairs.

    Examples
    --------
    >>> round(steering_spearman([-1, 0, 1], np.array([[0.0, 1.0, 2.0], [5.0, 6.0, 7.5]])), 3)
    0.956
    """
    from scipy.stats import spearmanr

    shifts = np.asarray(shifts, dtype=float)
    centred = shifts - shifts.mean(axis=1, keepdims=True)
    s = np.broadcast_to(np.asarray(steers, dtype=float)[None, :], shifts.shape)
    return float(spearmanr(s.ravel(), centred.ravel()).statistic)


def steering_actions(actions: np.ndarray, start: int, horizon: int, steers) -> np.ndarray:
    """Actions (contexts * steers, start + horizon, 2): the recorded ones up to ``start``, then each steer held."""
    base = np.asarray(actions[:, :start + horizon], dtype=np.float32)
    out = np.repeat(base[:, None], len(steers), axis=1).copy()
    for j, s in enumerate(steers):
        out[:, j, start:, 0] = s / STEER_SCALE
        out[:, j, start:, 1] = 0.0
    return out.reshape(-1, start + horizon, 2)


def lateral_shift(generated01: np.ndarray, last_context01: np.ndarray) -> np.ndarray:
    """Lateral position at the last generated frame minus at the last context frame (m)."""
    return lateral_position(generated01[:, -1]) - lateral_position(last_context01)


@dataclass
class ProbeScores:
    """Held-out R² of ridge probes from hidden features to scene variables.

    Attributes
    ----------
    targets : tuple of str
        The variables probed.
    r2 : numpy.ndarray
        One R² per target.
    r2_shuffled : numpy.ndarray
        The same probes fitted on shuffled targets (the control; near or below 0).
    mean_r2 : float
        The mean of ``r2``.
    """

    targets: tuple
    r2: np.ndarray
    r2_shuffled: np.ndarray
    mean_r2: float


def probe_scores(features: np.ndarray, targets: np.ndarray, episode: np.ndarray, seed: int = 0) -> ProbeScores:
    """Ridge probes (standardised features, alpha = 1) trained on half the episodes, scored on the rest.

    Parameters
    ----------
    features : numpy.ndarray
        (n, d) hidden features.
    targets : numpy.ndarray
        (n, k) scene variables, columns in :data:`PROBE_TARGETS` order.
    episode : numpy.ndarray
        (n,) the episode each row comes from (the split is by episode).
    seed : int
        Seeds the split and the shuffled control.

    Returns
    -------
    ProbeScores
        R² per target, the shuffled-target control, their mean.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(200, 4)); y = np.c_[x[:, 0], x[:, 1] + 0.1 * rng.normal(size=200), x[:, 2]]
    >>> s = probe_scores(x, y, np.arange(200) // 4)
    >>> bool(s.mean_r2 > 0.9), bool(s.r2_shuffled.max() < 0.5)
    (True, True)
    """
    from sklearn.linear_model import Ridge
    from sklearn.metrics import r2_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from core.common.seeding import derive_rng

    rng = derive_rng(seed, "probe")
    eps = np.unique(episode)
    train_eps = rng.permutation(eps)[: len(eps) // 2]
    tr = np.isin(episode, train_eps)
    r2, r2s = [], []
    for j in range(targets.shape[1]):
        y = targets[:, j]
        fit = make_pipeline(StandardScaler(), Ridge(alpha=1.0)).fit(features[tr], y[tr])
        r2.append(r2_score(y[~tr], fit.predict(features[~tr])))
        ys = y.copy()
        ys[tr] = rng.permutation(ys[tr])
        fit = make_pipeline(StandardScaler(), Ridge(alpha=1.0)).fit(features[tr], ys[tr])
        r2s.append(r2_score(y[~tr], fit.predict(features[~tr])))
    return ProbeScores(tuple(PROBE_TARGETS[:targets.shape[1]]), np.array(r2), np.array(r2s), float(np.mean(r2)))


def hidden_features(model, frames, actions, window: int = 12, skip: int = 3):
    """GRU states on clean windows of ``window`` frames: (features (n, d), positions (n, 2) = (episode, frame)).

    ``frames`` (B, L, 2, R, R) in [-1, 1]; states at window positions ``skip..window-1`` are kept.
    """
    import torch

    frames = np.asarray(frames, dtype=np.float32)
    b, length = frames.shape[:2]
    feats, pos = [], []
    with torch.no_grad():
        for s in range(0, length - window + 1, window):
            f = torch.as_tensor(frames[:, s:s + window])
            a = torch.as_tensor(np.asarray(actions[:, s:s + window], dtype=np.float32))
            h = model.encode(f, torch.full((b, window), -1), a).numpy()
            feats.append(h[:, skip:].reshape(-1, h.shape[-1]))
            ep, t = np.meshgrid(np.arange(b), s + np.arange(skip, window), indexing="ij")
            pos.append(np.c_[ep.ravel(), t.ravel()])
    return np.concatenate(feats), np.concatenate(pos)

"""The ordinal geometry of the encoding states: condition means, orthogonal axes, 2-D-ness, CCGP.

For each rank (chunk c, within-chunk position j) the hidden state at the step that item is shown is
averaged over many episodes; the items are novel random vectors, so the mean keeps the rank code
and averages the item code away. On those condition means μ_{c,j} (centred over all ranks):

- the chunk axis u_C is the first principal component of the chunk means (μ averaged over j), the
  position axis u_J that of the position means (averaged over c); the claim is |cos(u_C, u_J)| small;
- 2-D-ness is the share of the variance of the μ grid in its top two principal components;
- cross-condition generalisation performance (CCGP, Bernardi et al. 2020): a scikit-learn logistic
  regression decodes the position from single-episode states of all chunks but one and is tested
  on the held-out chunk (averaged over which chunk is held out), and the chunk likewise across
  positions; chance is 1 / n_chunks or 1 / chunk_size.

Ours: the encoding step as the time of measurement (the abstract does not say), and the decoders'
settings (L2, C = 1, standardised states). In N dimensions random directions have
|cos| ≈ 1/√N, so orthogonality alone is weak evidence; the untrained control shows which metrics
the architecture gives for free.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.seeding import derive_seed
from core.hebbian_memory.tasks import rank_recall_episodes
from core.hebbian_memory.training import TrainedModel


@dataclass
class Geometry:
    """The ordinal geometry of a network's encoding states.

    Attributes
    ----------
    means : ndarray, shape (n_chunks, chunk_size, N)
        Condition means μ_{c,j} of the hidden state.
    coords : ndarray, shape (n_chunks * chunk_size, 3)
        The centred means in their top three principal components (rows in rank order).
    explained : ndarray, shape (3,)
        Variance share of each of those components.
    cos_axes : float
        |cos| between the chunk axis and the position axis.
    top2 : float
        Variance share of the top two principal components of the mean grid.
    ccgp_position : float
        Position decoded across chunks (held-out chunk accuracy, averaged).
    ccgp_chunk : float
        Chunk decoded across positions.
    chance_position, chance_chunk : float
        Chance levels of the two decoders.
    n_episodes : int
        Episodes averaged.
    """

    means: np.ndarray
    coords: np.ndarray
    explained: np.ndarray
    cos_axes: float
    top2: float
    ccgp_position: float
    ccgp_chunk: float
    chance_position: float
    chance_chunk: float
    n_episodes: int

    @property
    def ccgp(self) -> float:
        return min(self.ccgp_position, self.ccgp_chunk)


def encoding_states(trained: TrainedModel, n_episodes: int, seed: int) -> np.ndarray:
    """Hidden states at the presentation steps, shape (n_episodes, length, N), on fresh episodes."""
    import torch

    ep = rank_recall_episodes(trained.task, n_episodes, derive_seed(seed, "geometry"), trained.lexicon,
                              trained.predictor)
    with torch.no_grad():
        hidden = trained.net.forward(torch.from_numpy(ep.inputs)).hidden.numpy()
    return hidden[:, :trained.task.length]


def axes_metrics(means: np.ndarray) -> tuple[float, float, np.ndarray, np.ndarray]:
    """|cos(u_C, u_J)|, top-2 variance share, PC coordinates and explained shares of a mean grid (C, J, N)."""
    C, J, N = means.shape
    centred = means - means.mean(axis=(0, 1), keepdims=True)
    u_c = np.linalg.svd(centred.mean(axis=1), full_matrices=False)[2][0]
    u_j = np.linalg.svd(centred.mean(axis=0), full_matrices=False)[2][0]
    flat = centred.reshape(C * J, N)
    _, s, vt = np.linalg.svd(flat, full_matrices=False)
    var = s ** 2 / max((s ** 2).sum(), 1e-30)
    k = min(3, vt.shape[0])
    coords = np.zeros((C * J, 3))
    coords[:, :k] = flat @ vt[:k].T
    explained = np.zeros(3)
    explained[:k] = var[:k]
    return float(abs(u_c @ u_j)), float(var[:2].sum()), coords, explained


def cross_condition(states: np.ndarray, decode: np.ndarray, across: np.ndarray) -> float:
    """Mean held-out accuracy of decoding ``decode`` labels, training on all values of ``across`` but one."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    scores = []
    for held in np.unique(across):
        train, test = across != held, across == held
        clf = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=500))
        clf.fit(states[train], decode[train])
        scores.append(clf.score(states[test], decode[test]))
    return float(np.mean(scores))


def ordinal_geometry(trained: TrainedModel, n_episodes: int = 200, seed: int = 7) -> Geometry:
    """Condition means, axis orthogonality, top-2 variance and CCGP of a network's encoding states.

    Parameters
    ----------
    trained : TrainedModel
        The network (trained, or an untrained control from :func:`untrained_like`).
    n_episodes : int
        Fresh episodes whose encoding states are measured.
    seed : int
        Seed of those episodes.

    Returns
    -------
    Geometry
        The metrics of the module docstring and the PCA coordinates of the mean grid.

    Examples
    --------
    >>> from core.hebbian_memory.training import TaskConfig, ModelConfig, TrainConfig, meta_train
    >>> run = meta_train(TaskConfig(), ModelConfig(hidden=8), TrainConfig(steps=1, batch=2), seed=0)
    >>> g = ordinal_geometry(run, n_episodes=30)
    >>> g.means.shape, 0.0 <= g.cos_axes <= 1.0
    ((3, 3, 8), True)
    """
    task = trained.task
    states = encoding_states(trained, n_episodes, seed)
    C, J = task.n_chunks, task.chunk_size
    means = states.mean(axis=0).reshape(C, J, -1)
    cos, top2, coords, explained = axes_metrics(means)
    flat = states.reshape(-1, states.shape[-1])
    chunk = np.tile(np.repeat(np.arange(C), J), n_episodes)
    position = np.tile(np.tile(np.arange(J), C), n_episodes)
    return Geometry(means, coords, explained, cos, top2, cross_condition(flat, position, chunk),
                    cross_condition(flat, chunk, position), 1.0 / J, 1.0 / C, int(n_episodes))


def untrained_like(trained: TrainedModel, seed: int | None = None) -> TrainedModel:
    """The control: the same architecture and task at its initial weights (nothing meta-trained).

    Parameters
    ----------
    trained : TrainedModel
        Gives the task, architecture, lexicon and predictor.
    seed : int or None
        Seed of the fresh weights (default: the trained network's seed, i.e. its own initialisation).

    Returns
    -------
    TrainedModel
        A network with ``done = 0``.

    Examples
    --------
    >>> from core.hebbian_memory.training import TaskConfig, ModelConfig, TrainConfig, meta_train
    >>> run = meta_train(TaskConfig(), ModelConfig(hidden=8), TrainConfig(steps=1, batch=2), seed=0)
    >>> untrained_like(run).done
    0
    """
    from core.hebbian_memory.model import RecurrentMemory

    seed = trained.seed if seed is None else seed
    net = RecurrentMemory(trained.model, trained.task.input_dim, trained.task.item_dim, derive_seed(seed, "init"))
    return TrainedModel(net, trained.task, trained.model, trained.train, int(seed), trained.lexicon,
                        trained.predictor)

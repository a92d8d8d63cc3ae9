"""GRACE: one global concept map for a whole embedding set, fitted with a geometry-preserving loss.

Our reading of the abstract (the paper's exact objective is not public; this is our choice): a single
encoder, learned over the whole set rather than per instance, maps a centred embedding z (see
space.py) to nonnegative codes c = ReLU(z W + b) over the named concepts, and the codes decode
through the fixed concept directions D (centred text embeddings of the vocabulary), so every code
keeps its word's meaning. The loss over a batch of samples is

    ‖z − c D‖²  +  α · ‖c‖₁  +  γ · mean_i KL(P_i ‖ Q_i)

with P_i = softmax_j(z_i·z_j / τ) and Q_i = softmax_j(cos(c_i, c_j) / τ) over the other samples j.
The geometry term asks each sample's neighbourhood in concept space to match its neighbourhood in
embedding space. We use SNE-style neighbourhoods rather than matching raw cosines because codes are
nonnegative (their cosines live in [0, 1] while embeddings' live in [−1, 1]) and because what a user
reads off a decomposition — which samples look alike — is a ranking; softmax rows are invariant to
a shift of each row. W starts at Dᵀ (codes start as the clipped concept similarities).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from core.common.config import check_range
from core.common.progress import report
from core.common.seeding import check_seed, make_rng, torch_seeded
from core.grace.space import Decomposition, Space, check_embeddings, check_vocabulary, concept_directions

if TYPE_CHECKING:   # torch is imported inside the functions: the first view never loads it
    import torch


@dataclass
class GraceDecomposition(Decomposition):
    """GRACE's global concept map: codes ReLU(z W + b) that decode through the fixed concept directions.

    Attributes
    ----------
    vocabulary : list of str
        The concepts' names, one per row of ``dictionary``.
    dictionary : numpy.ndarray
        [k, d] centred, unit concept directions D (fixed, never trained).
    space : Space
        The centred space.
    method : str
        ``"GRACE"`` (or a control's name, for maps built the same way).
    weight : numpy.ndarray
        [d, k] encoder W.
    bias : numpy.ndarray
        [k] encoder bias b.
    history : dict
        ``{"step", "reconstruction", "sparsity", "geometry": list}``: the loss terms after each step.
    """

    weight: np.ndarray = None      # [d, k]
    bias: np.ndarray = None        # [k]
    history: dict = None           # step -> loss terms

    def encode(self, embeddings: np.ndarray) -> np.ndarray:
        z = self.space.centre(check_embeddings("embeddings", embeddings, self.dictionary.shape[1]))
        return np.maximum(z @ self.weight + self.bias, 0.0)


def neighbourhood_kl(z: torch.Tensor, c: torch.Tensor, temperature: float) -> torch.Tensor:
    """mean_i KL(P_i ‖ Q_i) between embedding-space and code-space softmax neighbourhoods."""
    import torch

    n = len(z)
    off = ~torch.eye(n, dtype=torch.bool)
    cu = torch.nn.functional.normalize(c, dim=1, eps=1e-8)
    p_logits = (z @ z.T / temperature)[off].view(n, n - 1)
    q_logits = (cu @ cu.T / temperature)[off].view(n, n - 1)
    p = p_logits.softmax(1)
    return (p * (p_logits.log_softmax(1) - q_logits.log_softmax(1))).sum(1).mean()


def fit_grace(image_embeddings, vocabulary, concept_embeddings, sparsity: float = 0.05, geometry: float = 1.0,
              temperature: float = 0.1, steps: int = 300, batch: int = 512, lr: float = 1e-2, seed: int = 0,
              progress=None) -> GraceDecomposition:
    r"""Fit GRACE's global concept map on ``image_embeddings`` with ``concept_embeddings`` for ``vocabulary``.

    One encoder for the whole set maps a centred embedding z to nonnegative codes
    :math:`c = \mathrm{ReLU}(z W + b)` that decode through the fixed concept directions D. Adam
    minimises, over random batches,

    .. math::

        \lVert z - c D \rVert_2^2 + \alpha \lVert c \rVert_1
        + \gamma \, \frac1n \sum_i \mathrm{KL}(P_i \,\Vert\, Q_i),

    with :math:`P_{ij} = \mathrm{softmax}_j(z_i \cdot z_j / \tau)` and
    :math:`Q_{ij} = \mathrm{softmax}_j(\cos(c_i, c_j) / \tau)` over the other samples of the batch.
    W starts at :math:`D^\top`, b at 0. The objective is our reading of the abstract (see the module
    docstring of ``core.grace.grace``).

    Parameters
    ----------
    image_embeddings : array_like of shape (n, d)
        The embeddings to decompose (unit-normalised here), n ≥ 1, finite.
    vocabulary : list of str
        One word per row of ``concept_embeddings``.
    concept_embeddings : array_like of shape (k, d)
        The words' text embeddings; their centred directions are the fixed dictionary D.
    sparsity : float, default 0.05
        α, the L1 weight, in [0, 10].
    geometry : float, default 1.0
        γ, the neighbourhood-KL weight, in [0, 100]; 0 turns the geometry term off.
    temperature : float, default 0.1
        τ of the neighbourhood softmaxes, in (0, 10].
    steps : int, default 300
        Adam steps, 1 to 100,000.
    batch : int, default 512
        Samples per step, 2 to 100,000 (all of them when n is smaller).
    lr : float, default 0.01
        Adam's learning rate, in (0, 10].
    seed : int, default 0
        Seeds the batches (0 to 2**32 - 1).
    progress : callable, optional
        ``progress(step, steps, metrics)`` after every step; returning False stops the fit, which
        then returns the map as it stands (``history`` says how many steps were made).

    Returns
    -------
    GraceDecomposition
        ``encode`` gives nonnegative codes [m, k]; ``history`` holds the loss terms per step.

    Raises
    ------
    ValueError
        ``"<field>: ...; allowed ..."`` before any training, for any argument out of range.

    References
    ----------
    .. [1] "GRACE concept decompositions" (NeurIPS 2026, ``docs/PAPERS.md``),
       "a novel training objective that preserves the geometric relations of different samples in
       the concept space".

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x, c = rng.normal(size=(40, 8)), rng.normal(size=(5, 8))
    >>> fitted = fit_grace(x, ["a", "b", "c", "d", "e"], c, steps=5, batch=16)
    >>> fitted.encode(x).shape, len(fitted.history["step"])
    ((40, 5), 5)
    >>> bool((fitted.encode(x) >= 0).all())
    True
    """
    x = check_embeddings("image_embeddings", image_embeddings)
    c = check_embeddings("concept_embeddings", concept_embeddings, x.shape[1])
    vocabulary = check_vocabulary(vocabulary, len(c))
    sparsity = check_range("sparsity", sparsity, 0.0, 10.0)
    geometry = check_range("geometry", geometry, 0.0, 100.0)
    temperature = check_range("temperature", temperature, 0.0, 10.0, low_open=True)
    steps = check_range("steps", steps, 1, 100_000, integer=True)
    batch = check_range("batch", batch, 2, 100_000, integer=True)
    lr = check_range("lr", lr, 0.0, 10.0, low_open=True)
    seed = check_seed(seed)
    if progress is not None and not callable(progress):
        raise ValueError(f"progress: {progress!r} is not callable; allowed None or progress(step, total, metrics)")
    import torch  # here, not at the top: the page's first view unpacks shipped maps without torch

    space = Space.fit(x)
    d = concept_directions(c)
    z_all = torch.as_tensor(space.centre(x), dtype=torch.float32)
    dict_t = torch.as_tensor(d, dtype=torch.float32)
    with torch_seeded(seed):
        weight = torch.nn.Parameter(dict_t.T.clone())
        bias = torch.nn.Parameter(torch.zeros(len(d)))
    opt = torch.optim.Adam([weight, bias], lr=lr)
    rng = make_rng(seed)
    history = {"step": [], "reconstruction": [], "sparsity": [], "geometry": []}
    for step in range(1, steps + 1):
        idx = rng.choice(len(z_all), size=min(batch, len(z_all)), replace=False)
        z = z_all[idx]
        codes = torch.relu(z @ weight + bias)
        recon = ((z - codes @ dict_t) ** 2).sum(1).mean()
        l1 = codes.sum(1).mean()
        geom = neighbourhood_kl(z, codes, temperature) if geometry > 0 else torch.zeros(())
        loss = recon + sparsity * l1 + geometry * geom
        opt.zero_grad()
        loss.backward()
        opt.step()
        terms = {"reconstruction": float(recon.detach()), "sparsity": float(l1.detach()), "geometry": float(geom.detach())}
        history["step"].append(step)
        for key, value in terms.items():
            history[key].append(value)
        if not report(progress, step, steps, {"loss": float(loss.detach()), **terms}):
            break
    return GraceDecomposition(vocabulary, d, space, "GRACE", weight.detach().numpy().astype(np.float64),
                              bias.detach().numpy().astype(np.float64), history)

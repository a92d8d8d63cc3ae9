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
from core.common.seeding import make_rng, torch_seeded
from core.grace.space import Decomposition, Space, check_embeddings, concept_directions

if TYPE_CHECKING:   # torch is imported inside the functions: the first view never loads it
    import torch


@dataclass
class GraceDecomposition(Decomposition):
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
    """Fit the global map on ``image_embeddings`` [n, d] with ``concept_embeddings`` [k, d] for ``vocabulary``.

    Parameters
    ----------
    image_embeddings : array [n, d]
        The embeddings to decompose (unit-normalised here).
    vocabulary : list of str
        One word per row of ``concept_embeddings``.
    concept_embeddings : array [k, d]
        The words' text embeddings; their centred directions are the fixed dictionary D.
    sparsity, geometry : float
        α and γ in the loss of the module docstring.
    temperature : float
        τ of the neighbourhood softmaxes.
    steps, batch, lr : int, int, float
        Adam steps, samples per step, learning rate.
    seed : int
        Seeds the batches.
    progress : callable, optional
        ``progress(step, steps, metrics)`` after every step; returning False stops the fit, which
        then returns the map as it stands (``history`` says how many steps were made).

    Returns
    -------
    GraceDecomposition
    """
    import torch  # here, not at the top: the page's first view unpacks shipped maps without torch

    x = check_embeddings("image_embeddings", image_embeddings)
    c = check_embeddings("concept_embeddings", concept_embeddings, x.shape[1])
    vocabulary = list(vocabulary)
    if len(vocabulary) != len(c):
        raise ValueError(f"vocabulary: {len(vocabulary)} words for {len(c)} concept embeddings; allowed one word per row")
    check_range("sparsity", sparsity, 0.0, 10.0)
    check_range("geometry", geometry, 0.0, 100.0)
    check_range("temperature", temperature, 0.0, 10.0, low_open=True)
    steps = check_range("steps", steps, 1, 100_000, integer=True)
    batch = check_range("batch", batch, 2, 100_000, integer=True)
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

"""Baselines with GRACE's output form (codes [n, len(vocabulary)]), in the same centred space.

- SpLiCE (per instance): for each sample, min_{w ≥ 0} ‖w D − z‖² + λ‖w‖₁, solved with
  scikit-learn's Lasso(positive=True). sklearn minimises (1/2m)‖y − Xw‖² + α‖w‖₁ over m = d rows,
  so α = λ / (2d).
- TextSpan-style greedy directions (over the whole set): repeatedly pick the concept direction along
  which the remaining data varies most, record each sample's coefficient on it, and remove that
  direction from the data and from the remaining concepts (Gram–Schmidt). Codes are signed.
- A TopK sparse autoencoder with one latent per word; latents are named by matching decoder rows to
  concept directions (Hungarian assignment on cosine), so its codes land on the vocabulary too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.linear_model import Lasso

from core.common.config import check_range
from core.common.seeding import torch_seeded
from core.grace.space import Decomposition, Space, check_embeddings, concept_directions, unit


@dataclass
class SpliceDecomposition(Decomposition):
    l1: float = 0.1

    def encode(self, embeddings: np.ndarray) -> np.ndarray:
        z = self.space.centre(check_embeddings("embeddings", embeddings, self.dictionary.shape[1]))
        d = z.shape[1]
        lasso = Lasso(alpha=self.l1 / (2 * d), fit_intercept=False, positive=True, max_iter=10_000, tol=1e-6)
        lasso.fit(self.dictionary.T, z.T)
        return np.atleast_2d(lasso.coef_)


def fit_splice(image_embeddings, vocabulary, concept_embeddings, l1: float = 0.1) -> SpliceDecomposition:
    x = check_embeddings("image_embeddings", image_embeddings)
    c = check_embeddings("concept_embeddings", concept_embeddings, x.shape[1])
    check_range("l1", l1, 0.0, 100.0)
    return SpliceDecomposition(list(vocabulary), concept_directions(c), Space.fit(x), "SpLiCE", l1)


def splice(image_embeddings, concept_embeddings, l1: float = 0.1) -> np.ndarray:
    """Per-sample nonnegative sparse codes [n, k] (the issue's functional form)."""
    words = [str(i) for i in range(len(concept_embeddings))]
    return fit_splice(image_embeddings, words, concept_embeddings, l1).encode(image_embeddings)


@dataclass
class TextSpanDecomposition(Decomposition):
    chosen: list = None            # vocabulary indices in the order picked

    def encode(self, embeddings: np.ndarray) -> np.ndarray:
        z = self.space.centre(check_embeddings("embeddings", embeddings, self.dictionary.shape[1]))
        codes = np.zeros((len(z), len(self.vocabulary)))
        codes[:, self.chosen] = z @ self.dictionary[self.chosen].T
        return codes


def fit_textspan(image_embeddings, vocabulary, concept_embeddings, n_directions: int = 5) -> TextSpanDecomposition:
    x = check_embeddings("image_embeddings", image_embeddings)
    c = check_embeddings("concept_embeddings", concept_embeddings, x.shape[1])
    n_directions = check_range("n_directions", n_directions, 1, min(len(c), x.shape[1]), integer=True)
    space = Space.fit(x)
    data = space.centre(x)
    data = data - data.mean(0)
    bank = concept_directions(c)
    directions = np.zeros_like(bank)       # orthonormal direction per chosen word
    chosen = []
    for _ in range(n_directions):
        spread = (data @ unit(bank).T).std(0)
        spread[chosen] = -np.inf
        k = int(np.argmax(spread))
        t = unit(bank[k])
        chosen.append(k)
        directions[k] = t
        data = data - np.outer(data @ t, t)
        bank = bank - np.outer(bank @ t, t)
    return TextSpanDecomposition(list(vocabulary), directions, space, "TextSpan", chosen)


@dataclass
class SAEDecomposition(Decomposition):
    encoder: np.ndarray = None     # [d, k], columns already in vocabulary order
    bias: np.ndarray = None
    k_active: int = 5

    def encode(self, embeddings: np.ndarray) -> np.ndarray:
        z = self.space.centre(check_embeddings("embeddings", embeddings, self.dictionary.shape[1]))
        pre = np.maximum(z @ self.encoder + self.bias, 0.0)
        keep = np.argsort(-pre, axis=1)[:, : self.k_active]
        codes = np.zeros_like(pre)
        np.put_along_axis(codes, keep, np.take_along_axis(pre, keep, 1), 1)
        return codes


def fit_sae(image_embeddings, vocabulary, concept_embeddings, k_active: int = 5, steps: int = 600, lr: float = 1e-2,
            seed: int = 0) -> SAEDecomposition:
    """A TopK sparse autoencoder with one latent per word, latents named by a Hungarian match to the words.

    Parameters
    ----------
    image_embeddings : array [n, d]
    vocabulary : list of str
    concept_embeddings : array [k, d]
    k_active : int
        Latents kept per sample (the K of TopK).
    steps, lr : int, float
        Full-batch Adam steps and learning rate.
    seed : int
        Seeds the initial encoder.

    Returns
    -------
    SAEDecomposition
    """
    import torch  # here, not at the top: the page's first view unpacks shipped decompositions without torch

    x = check_embeddings("image_embeddings", image_embeddings)
    c = check_embeddings("concept_embeddings", concept_embeddings, x.shape[1])
    k_active = check_range("k_active", k_active, 1, len(c), integer=True)
    space = Space.fit(x)
    z = torch.as_tensor(space.centre(x), dtype=torch.float32)
    k, d = len(c), x.shape[1]
    with torch_seeded(seed):
        enc = torch.nn.Parameter(torch.randn(d, k) / np.sqrt(d))
        bias = torch.nn.Parameter(torch.zeros(k))
        dec = torch.nn.Parameter(enc.detach().T.clone())
    opt = torch.optim.Adam([enc, bias, dec], lr=lr)
    for _ in range(steps):
        pre = torch.relu(z @ enc + bias)
        top = pre.topk(k_active, dim=1)
        codes = torch.zeros_like(pre).scatter(1, top.indices, top.values)
        loss = ((z - codes @ dec) ** 2).sum(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    dec_np = dec.detach().numpy().astype(np.float64)
    concepts = concept_directions(c)
    rows, cols = linear_sum_assignment(-(unit(dec_np) @ concepts.T))   # latent rows[i] -> word cols[i]
    order = np.empty(k, dtype=int)
    order[cols] = rows
    return SAEDecomposition(list(vocabulary), dec_np[order], space, "SAE",
                            enc.detach().numpy().astype(np.float64)[:, order], bias.detach().numpy()[order], k_active)

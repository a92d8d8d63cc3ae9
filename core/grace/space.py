"""The centred embedding space every decomposition works in, after SpLiCE.

Image embeddings are unit vectors far from the text embeddings (the modality gap), so both sides are
centred first: z = normalise(x − μ_image) and concept directions normalise(c − μ_concepts). A code
vector w maps back through a dictionary D (rows in the centred space) to
x̂ = normalise(ρ · normalise(w D) + μ_image), where ρ is the mean ‖x − μ_image‖ over the fitted set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EPS = 1e-8


def unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True).clip(EPS)


def check_embeddings(name: str, x, dim: int | None = None) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or len(x) == 0 or not np.isfinite(x).all():
        raise ValueError(f"{name}: shape {x.shape} with finite values required; allowed a finite [n, d] array, n ≥ 1")
    if dim is not None and x.shape[1] != dim:
        raise ValueError(f"{name}: width {x.shape[1]}; allowed {dim} (the other embeddings' width)")
    return x


def check_vocabulary(vocabulary, n_concepts: int) -> list:
    """``vocabulary`` as a list of str, one word per concept embedding, else a ValueError naming the field."""
    words = [vocabulary] if isinstance(vocabulary, str) else list(vocabulary)
    if len(words) != n_concepts:
        raise ValueError(f"vocabulary: {len(words)} words for {n_concepts} concept embeddings; "
                         "allowed one word per row")
    return [str(w) for w in words]


@dataclass
class Space:
    """The centred space: the fitted image mean and mean radius (see the module docstring).

    Attributes
    ----------
    image_mean : numpy.ndarray
        [d] mean of the unit image embeddings, μ_image.
    radius : float
        Mean ‖x − μ_image‖ of the fitted embeddings, ρ.
    """

    image_mean: np.ndarray     # [d]
    radius: float              # mean ‖x − μ_image‖ of the fitted embeddings

    @classmethod
    def fit(cls, embeddings: np.ndarray) -> "Space":
        x = unit(embeddings)
        mean = x.mean(0)
        return cls(mean, float(np.linalg.norm(x - mean, axis=1).mean()))

    def centre(self, embeddings: np.ndarray) -> np.ndarray:
        return unit(unit(embeddings) - self.image_mean)

    def uncentre(self, centred: np.ndarray) -> np.ndarray:
        return unit(self.radius * unit(centred) + self.image_mean)


def concept_directions(concept_embeddings: np.ndarray) -> np.ndarray:
    """Centred, unit concept directions [k, d]."""
    c = unit(concept_embeddings)
    return unit(c - c.mean(0))


@dataclass
class Decomposition:
    """Codes over named concepts: ``encode`` maps embeddings to codes [n, k], ``reconstruct`` back.

    Attributes
    ----------
    vocabulary : list of str
        The concepts' names, one per row of ``dictionary``.
    dictionary : numpy.ndarray
        [k, d] rows in the centred space.
    space : Space
        The centred space the codes decode into.
    method : str
        The method's display name.
    """

    vocabulary: list
    dictionary: np.ndarray     # [k, d] rows in the centred space
    space: Space
    method: str

    def encode(self, embeddings: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def reconstruct(self, codes: np.ndarray) -> np.ndarray:
        return self.space.uncentre(codes @ self.dictionary)

    def top_concepts(self, codes_row: np.ndarray, k: int = 5) -> list:
        order = np.argsort(-np.abs(codes_row))[:k]
        return [(self.vocabulary[i], float(codes_row[i])) for i in order if abs(codes_row[i]) > 1e-6]

"""The controls every GRACE comparison carries: what a decomposition with no meaning in its names, or no fitting
at all, scores on the same measures.

- ``no_fitting``: ReLU(z·Dᵀ), GRACE's own initialisation (W = Dᵀ, b = 0): the clipped concept similarities,
  which is CLIP's zero-shot classifier over the vocabulary words. A *reference* for the named measures (a bar
  GRACE's fitted map is compared with), not a null: it reads the words' own text embeddings.
- ``shuffled_labels``: GRACE's fitted map with the vocabulary's names permuted. Every name-free measure equals
  GRACE's; only measures that read the names can tell the two apart. A null for the named measures.
- ``random_dictionary``: GRACE's objective fitted on random unit directions in place of the words' text
  embeddings, each named by a vocabulary word, its L1 weight set by bisection so that its mean number of active
  concepts matches a target (GRACE's). Trained exactly as GRACE is, at the same sparsity, so a named measure it
  passes cannot be credited to the fit; the null the issue asks for beside the shuffled labels.
- ``permuted_scenes``: a permutation of the held-out scenes, for the "preserves performance" null (each scene
  reconstructed from another scene's codes must lose what the model knew).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from core.common.config import check_range
from core.common.seeding import check_seed, derive_rng, derive_seed
from core.grace.grace import GraceDecomposition, fit_grace
from core.grace.metrics import match_sparsity


def no_fitting(image_embeddings, vocabulary, concept_embeddings) -> GraceDecomposition:
    """The no-fitting control ReLU(z·Dᵀ): GRACE's map at its initialisation (W = Dᵀ, b = 0).

    Parameters
    ----------
    image_embeddings : array [n, d]
        Only their mean and radius are used (the centred space).
    vocabulary : list of str
    concept_embeddings : array [k, d]

    Returns
    -------
    GraceDecomposition
        With ``method == "no fitting"``.
    """
    from core.grace.space import Space, check_embeddings, concept_directions

    x = check_embeddings("image_embeddings", image_embeddings)
    d = concept_directions(check_embeddings("concept_embeddings", concept_embeddings, x.shape[1]))
    return GraceDecomposition(list(vocabulary), d, Space.fit(x), "no fitting", d.T.copy(), np.zeros(len(d)), {})


def shuffled_labels(decomposition, seed: int):
    """``decomposition`` with its vocabulary's names permuted (``derive_rng(seed, "shuffle")``).

    Returns
    -------
    Decomposition
        The same maps and dictionary, ``method == "shuffled labels"``.
    """
    order = derive_rng(seed, "shuffle").permutation(len(decomposition.vocabulary))
    names = [decomposition.vocabulary[i] for i in order]
    return dataclasses.replace(decomposition, vocabulary=names, method="shuffled labels")


def random_directions(n: int, dim: int, seed: int) -> np.ndarray:
    """``n`` random Gaussian directions in ``dim`` dimensions (``derive_rng(seed, "random dictionary")``)."""
    return derive_rng(seed, "random dictionary").normal(size=(n, dim))


def random_dictionary(image_embeddings, vocabulary, target_l0: float, seed: int = 0, low: float = 1e-3,
                      high: float = 5.0, iters: int = 8, **grace_kwargs) -> GraceDecomposition:
    """The random-dictionary null: GRACE's objective on random directions named by ``vocabulary``, at matched L0.

    The fixed dictionary D is ``random_directions(len(vocabulary), d, seed)`` (centred and unit-normalised
    as GRACE's concept directions are); GRACE's L1 weight α is found by bisection in log α over
    [``low``, ``high``] so that the mean L0 on ``image_embeddings`` is the closest reached to ``target_l0``.

    Parameters
    ----------
    image_embeddings : array [n, d]
        The embeddings the map is fitted on (GRACE's fit set).
    vocabulary : list of str
        The names given to the random directions, one each.
    target_l0 : float
        The mean number of active concepts to match (GRACE's on the same set), in (0, len(vocabulary)].
    seed : int
        Seeds the directions and the fit.
    low, high : float
        The bisection's bracket for α, 0 < low < high ≤ 10.
    iters : int
        Bisection steps (each one GRACE fit), 1 to 30.
    **grace_kwargs
        Further arguments of :func:`core.grace.grace.fit_grace` (``geometry``, ``steps``, ...), never ``sparsity``.

    Returns
    -------
    GraceDecomposition
        With ``method == "random dictionary"`` and ``history["sparsity_weight"]``, the α chosen.
    """
    x = np.asarray(image_embeddings, float)
    target_l0 = check_range("target_l0", target_l0, 0.0, len(vocabulary), low_open=True)
    seed = check_seed(seed)
    low = check_range("low", low, 0.0, 10.0, low_open=True)
    high = check_range("high", high, low, 10.0, low_open=True)
    iters = check_range("iters", iters, 1, 30, integer=True)
    if "sparsity" in grace_kwargs:
        raise ValueError("sparsity: set by the bisection on L0; allowed target_l0 instead")
    directions = random_directions(len(vocabulary), x.shape[1], seed)
    fit_seed = derive_seed(seed, "random dictionary fit")
    alpha, fitted = match_sparsity(lambda a: fit_grace(x, vocabulary, directions, sparsity=a, seed=fit_seed,
                                                       **grace_kwargs), lambda d: d.encode(x), target_l0, low, high, iters)
    return dataclasses.replace(fitted, method="random dictionary", history={**fitted.history, "sparsity_weight": alpha})


def permuted_scenes(n: int, seed: int) -> np.ndarray:
    """A permutation of ``n`` scenes with no fixed point (``derive_rng(seed, "permuted scenes")``), n ≥ 2."""
    n = check_range("n", n, 2, None, integer=True)
    order = derive_rng(seed, "permuted scenes").permutation(n)
    return np.roll(order, 1)[np.argsort(order)]

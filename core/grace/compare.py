"""GRACE against the baselines on held-out scenes, every method at matched sparsity.

Methods are fitted on one seeded set of scenes and scored on another. GRACE is fitted first; its mean
number of active concepts (L0) on the fitted set sets the others' sparsity: SpLiCE's λ is found by
bisection to give the same L0, TextSpan keeps round(L0) directions and the TopK SAE keeps round(L0)
latents. Concept embeddings are the vocabulary words embedded alone (``embed_texts(model, words)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.common.progress import report
from core.grace.baselines import fit_sae, fit_splice, fit_textspan
from core.grace.grace import fit_grace
from core.grace.metrics import (concept_attribute_agreement, distractor_share, reconstruction_cosine, similarity_spearman, sparsity,
                                triplet_agreement, trustworthiness, zero_shot_accuracy, zero_shot_prompts)
from core.grace.scenes import make_scenes
from core.grace.vocabulary import default_vocabulary

FIT_SEED, TEST_SEED = 101, 202
N_FIT, N_TEST = 2000, 1000


@dataclass
class SceneSet:
    scenes: object
    embeddings: np.ndarray


@dataclass
class Comparison:
    decompositions: dict              # method -> fitted decomposition
    table: list                       # one dict of metrics per method (plus the raw embeddings)
    vocabulary: list
    test: SceneSet
    prompts: dict = field(default_factory=dict)


def scene_set(model, n: int, seed: int, video: bool = False) -> SceneSet:
    """``n`` seeded scenes (or clips) and their embeddings by ``model``."""
    from core.grace.clip import embed_images   # torch: only when something is embedded

    scenes = make_scenes(n, seed, video=video)
    return SceneSet(scenes, embed_images(model, scenes.images))


def match_splice_l1(fit, codes_of, target_l0: float, low: float = 1e-4, high: float = 4.0, iters: int = 18):
    """Bisection (in log λ) for the SpLiCE λ whose mean L0 on the fit set is closest to ``target_l0``."""
    best = None
    for _ in range(iters):
        mid = float(np.sqrt(low * high))
        l0 = sparsity(codes_of(fit(mid)))
        if best is None or abs(l0 - target_l0) < abs(best[1] - target_l0):
            best = (mid, l0)
        if l0 > target_l0:
            low = mid
        else:
            high = mid
    return best[0]


def score(decomposition, test: SceneSet, prompts: dict) -> dict:
    codes = decomposition.encode(test.embeddings)
    recon = decomposition.reconstruct(codes)
    z = decomposition.space.centre(test.embeddings)
    agreement = concept_attribute_agreement(codes, decomposition.vocabulary, test.scenes.attributes)
    zero_shot = zero_shot_accuracy(recon, test.scenes.attributes, prompts)
    return {"method": decomposition.method, "L0": sparsity(codes),
            "reconstruction cosine (centred)": reconstruction_cosine(z, codes @ decomposition.dictionary),
            "reconstruction cosine": reconstruction_cosine(test.embeddings, recon),
            "trustworthiness": trustworthiness(test.embeddings, codes),
            "triplet agreement": triplet_agreement(codes, test.scenes.attributes),
            "similarity Spearman": similarity_spearman(codes, test.scenes.attributes),
            "concept-attribute agreement": float(np.mean(list(agreement.values()))),
            "distractor share": distractor_share(codes, decomposition.vocabulary),
            **{f"agreement/{k}": v for k, v in agreement.items()},
            "zero-shot (mean)": float(np.mean(list(zero_shot.values()))),
            **{f"zero-shot/{k}": v for k, v in zero_shot.items()}}


def compare(model, n_fit: int = N_FIT, n_test: int = N_TEST, video: bool = False, grace_kwargs: dict | None = None,
            seed: int = 0, progress=None) -> Comparison:
    """Fit every method on ``n_fit`` scenes at matched sparsity and score it on ``n_test`` held-out ones.

    Parameters
    ----------
    model : TinyCLIP
        The small CLIP (``load_model()``).
    n_fit, n_test : int
        Scenes fitted on (seed ``FIT_SEED``) and scored on (seed ``TEST_SEED``).
    video : bool
        Clips instead of images.
    grace_kwargs : dict, optional
        Extra arguments of :func:`fit_grace` (e.g. ``{"geometry": 0.0}`` for the ablation).
    seed : int
        Seeds GRACE and the SAE.
    progress : callable, optional
        Called after each stage (4 in all).

    Returns
    -------
    Comparison
    """
    from core.grace.clip import embed_texts

    vocabulary = default_vocabulary(video)
    concepts = embed_texts(model, vocabulary)
    prompts = {k: embed_texts(model, p) for k, p in zero_shot_prompts(video).items()}
    fit = scene_set(model, n_fit, FIT_SEED, video)
    test = scene_set(model, n_test, TEST_SEED, video)
    grace = fit_grace(fit.embeddings, vocabulary, concepts, seed=seed, **(grace_kwargs or {}))
    report(progress, 1, 4, {"fitted": 1})
    target = sparsity(grace.encode(fit.embeddings))
    k = max(1, int(round(target)))
    l1 = match_splice_l1(lambda lam: fit_splice(fit.embeddings, vocabulary, concepts, lam),
                         lambda d: d.encode(fit.embeddings[:300]), target)
    methods = {"GRACE": grace, "SpLiCE": fit_splice(fit.embeddings, vocabulary, concepts, l1)}
    report(progress, 2, 4, {"fitted": 2})
    methods["TextSpan"] = fit_textspan(fit.embeddings, vocabulary, concepts, n_directions=k)
    methods["SAE"] = fit_sae(fit.embeddings, vocabulary, concepts, k_active=k, seed=seed)
    report(progress, 3, 4, {"fitted": 4})
    raw = zero_shot_accuracy(test.embeddings, test.scenes.attributes, prompts)
    table = [{"method": "raw embeddings", "zero-shot (mean)": float(np.mean(list(raw.values()))),
              **{f"zero-shot/{k}": v for k, v in raw.items()}}]
    table += [score(d, test, prompts) for d in methods.values()]
    report(progress, 4, 4, {"scored": len(table)})
    return Comparison(methods, table, vocabulary, test, prompts)

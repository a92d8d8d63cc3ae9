"""GRACE against the baselines on held-out scenes, every method at matched sparsity.

Methods are fitted on one seeded set of scenes and scored on another. GRACE is fitted first; its mean
number of active concepts (L0) on the fitted set sets the others' sparsity: SpLiCE's λ is found by
bisection to give the same L0, TextSpan keeps round(L0) directions and the TopK SAE keeps round(L0)
latents. Concept embeddings are the vocabulary words embedded alone (``embed_texts(model, words)``).

The controls of ``core.grace.controls`` are rows of every comparison (issue 24), so that a measure
they pass as well as GRACE does is not read as evidence for GRACE: "no fitting" (ReLU(z·Dᵀ), GRACE's
initialisation, the zero-shot classifier over the words: a reference), "shuffled labels" (GRACE's map
with its names permuted: a null) and, when asked for, "random dictionary" (GRACE fitted on random
directions named by the words, at GRACE's L0: a null). Every row also scores zero-shot accuracy from
reconstructions of *another* scene's codes ("zero-shot (scenes permuted)", the performance null).

``compare_seeds`` repeats the whole comparison on fresh fit and test scenes and fresh method seeds,
all derived from one base seed, and summarises every metric across replicates.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.common.config import check_range
from core.common.progress import report
from core.common.seeding import derive_seed
from core.grace.baselines import fit_sae, fit_splice, fit_textspan
from core.grace.controls import no_fitting, permuted_scenes, random_dictionary, shuffled_labels
from core.grace.grace import fit_grace
from core.grace.metrics import (attribute_hits, concept_attribute_agreement, concept_retrieval, distractor_share,
                                match_sparsity,
                                neighbour_label_agreement, object_concept_recall, reconstruction_cosine,
                                similarity_spearman, sparsity, triplet_agreement, trustworthiness, zero_shot_accuracy,
                                zero_shot_prompts)
from core.grace.scenes import make_scenes
from core.grace.vocabulary import default_vocabulary

FIT_SEED, TEST_SEED = 101, 202
N_FIT, N_TEST = 2000, 1000
METHODS = ("GRACE", "SpLiCE", "TextSpan", "SAE", "no fitting", "shuffled labels", "random dictionary")
NULLS = ("shuffled labels", "random dictionary")     # no meaning in the names: must fail the named measures
REFERENCE = "no fitting"                             # the zero-shot classifier over the words: a bar, not a null
NAMED = ("concept-attribute agreement", "object recall (main)", "object recall (clutter)", "top-K precision",
         "retrieval P@50")           # the measures that read the concepts' names
PER_SCENE = ("concept-attribute agreement", "object recall (main)", "top-K precision", "texture neighbours")


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
    outcomes: dict = field(default_factory=dict)   # method -> {metric in PER_SCENE: per-scene values [n_test]}
    seeds: dict = field(default_factory=dict)      # {"fit", "test", "method"}: the seeds of this comparison


def scene_set(model, n: int, seed: int, video: bool = False) -> SceneSet:
    """``n`` seeded scenes (or clips) and their embeddings by ``model``."""
    from core.grace.clip import embed_images   # torch: only when something is embedded

    scenes = make_scenes(n, seed, video=video)
    return SceneSet(scenes, embed_images(model, scenes.images))


def textures(scenes) -> np.ndarray:
    return np.array([h["texture"] for h in scenes.hidden])


def per_scene(decomposition, test: SceneSet) -> dict:
    """{metric in PER_SCENE: per-scene values} of one decomposition on the held-out scenes."""
    codes = decomposition.encode(test.embeddings)
    vocab, attrs = decomposition.vocabulary, test.scenes.attributes
    recall = object_concept_recall(codes, vocab, attrs, test.scenes.clutter)
    return {"concept-attribute agreement": attribute_hits(codes, vocab, attrs), "object recall (main)": recall["main"],
            "top-K precision": recall["precision"], "texture neighbours": neighbour_label_agreement(
                codes, textures(test.scenes)), "_clutter": recall["clutter"]}


def score(decomposition, test: SceneSet, prompts: dict, outcomes: dict | None = None, permutation=None) -> dict:
    """Every metric of one decomposition on the held-out scenes; ``permutation`` (default: a derangement seeded by
    the number of scenes) pairs each scene with another's codes for "zero-shot (scenes permuted)"."""
    codes = decomposition.encode(test.embeddings)
    recon = decomposition.reconstruct(codes)
    z = decomposition.space.centre(test.embeddings)
    vocab, attrs = decomposition.vocabulary, test.scenes.attributes
    agreement = concept_attribute_agreement(codes, vocab, attrs)
    zero_shot = zero_shot_accuracy(recon, attrs, prompts)
    perm = permuted_scenes(len(codes), len(codes)) if permutation is None else np.asarray(permutation)
    permuted = zero_shot_accuracy(recon[perm], attrs, prompts)
    scenes = per_scene(decomposition, test)
    if outcomes is not None:
        outcomes[decomposition.method] = {k: v for k, v in scenes.items() if k in PER_SCENE}
    retrieval = concept_retrieval(codes, vocab, attrs)
    return {"method": decomposition.method, "L0": sparsity(codes),
            "reconstruction cosine (centred)": reconstruction_cosine(z, codes @ decomposition.dictionary),
            "reconstruction cosine": reconstruction_cosine(test.embeddings, recon),
            "trustworthiness": trustworthiness(test.embeddings, codes),
            "triplet agreement": triplet_agreement(codes, test.scenes.attributes),
            "similarity Spearman": similarity_spearman(codes, test.scenes.attributes),
            "concept-attribute agreement": float(np.mean(list(agreement.values()))),
            "distractor share": distractor_share(codes, decomposition.vocabulary),
            "object recall (main)": float(np.mean(scenes["object recall (main)"])),
            "object recall (clutter)": float(np.nanmean(scenes["_clutter"])),
            "top-K precision": float(np.mean(scenes["top-K precision"])),
            "retrieval P@50": float(np.mean(list(retrieval.values()))),
            "texture neighbours": float(np.mean(scenes["texture neighbours"])),
            **{f"agreement/{k}": v for k, v in agreement.items()},
            "zero-shot (mean)": float(np.mean(list(zero_shot.values()))),
            "zero-shot (scenes permuted)": float(np.mean(list(permuted.values()))),
            **{f"zero-shot/{k}": v for k, v in zero_shot.items()}}


def fit_methods(embeddings, vocabulary, concepts, seed: int = 0, grace_kwargs: dict | None = None,
                random_control: bool = False, progress=None) -> dict:
    """Every method and control fitted on ``embeddings`` at GRACE's sparsity, as :func:`compare` fits them.

    Parameters
    ----------
    embeddings : array [n, d]
        The fit set's image (or clip) embeddings.
    vocabulary : list of str
        The concept words.
    concepts : array [k, d]
        Their text embeddings.
    seed : int
        Seeds GRACE, the SAE and the controls.
    grace_kwargs : dict, optional
        Extra arguments of :func:`fit_grace`.
    random_control : bool, default False
        Also the random-dictionary null.
    progress : callable, optional
        Called after each of the first three of :func:`compare`'s four stages.

    Returns
    -------
    dict
        ``{method: Decomposition}`` in ``METHODS`` order.
    """
    grace = fit_grace(embeddings, vocabulary, concepts, seed=seed, **(grace_kwargs or {}))
    report(progress, 1, 4, {"fitted": 1})
    target = sparsity(grace.encode(embeddings))
    k = max(1, int(round(target)))
    _, splice = match_sparsity(lambda lam: fit_splice(embeddings, vocabulary, concepts, lam),
                               lambda d: d.encode(embeddings[:300]), target, low=1e-4, high=4.0, iters=18)
    methods = {"GRACE": grace, "SpLiCE": splice}
    report(progress, 2, 4, {"fitted": 2})
    methods["TextSpan"] = fit_textspan(embeddings, vocabulary, concepts, n_directions=k)
    methods["SAE"] = fit_sae(embeddings, vocabulary, concepts, k_active=k, seed=seed)
    methods["no fitting"] = no_fitting(embeddings, vocabulary, concepts)
    methods["shuffled labels"] = shuffled_labels(grace, seed)
    if random_control:
        methods["random dictionary"] = random_dictionary(embeddings, vocabulary, target, seed=seed,
                                                         **(grace_kwargs or {}))
    report(progress, 3, 4, {"fitted": len(methods)})
    return methods


def compare(model, n_fit: int = N_FIT, n_test: int = N_TEST, video: bool = False, grace_kwargs: dict | None = None,
            seed: int = 0, fit_seed: int = FIT_SEED, test_seed: int = TEST_SEED, random_control: bool = False,
            progress=None) -> Comparison:
    """Fit every method on ``n_fit`` scenes at matched sparsity and score it on ``n_test`` held-out ones.

    Parameters
    ----------
    model : TinyCLIP
        The small CLIP (``load_model()``).
    n_fit, n_test : int
        Scenes fitted on (seed ``fit_seed``) and scored on (seed ``test_seed``).
    video : bool
        Clips instead of images.
    grace_kwargs : dict, optional
        Extra arguments of :func:`fit_grace` (e.g. ``{"geometry": 0.0}`` for the ablation).
    seed : int
        Seeds GRACE, the SAE and the shuffled-label control.
    fit_seed, test_seed : int
        The scenes' seeds.
    random_control : bool, default False
        Also fit the random-dictionary null (:func:`core.grace.controls.random_dictionary`, about eight
        GRACE fits more).
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
    fit = scene_set(model, n_fit, fit_seed, video)
    test = scene_set(model, n_test, test_seed, video)
    methods = fit_methods(fit.embeddings, vocabulary, concepts, seed, grace_kwargs, random_control, progress)
    raw = zero_shot_accuracy(test.embeddings, test.scenes.attributes, prompts)
    table = [{"method": "raw embeddings", "zero-shot (mean)": float(np.mean(list(raw.values()))),
              "texture neighbours": float(np.mean(neighbour_label_agreement(test.embeddings, textures(test.scenes)))),
              **{f"zero-shot/{k}": v for k, v in raw.items()}}]
    outcomes = {}
    perm = permuted_scenes(len(test.embeddings), derive_seed(test_seed, "permuted scenes"))
    table += [score(d, test, prompts, outcomes, perm) for d in methods.values()]
    report(progress, 4, 4, {"scored": len(table)})
    return Comparison(methods, table, vocabulary, test, prompts, outcomes,
                      {"fit": int(fit_seed), "test": int(test_seed), "method": int(seed)})


def t_interval(values) -> list:
    """Student-t 95% interval [low, high] of the mean of ``values`` (one value: the value twice)."""
    from scipy.stats import t

    v = np.asarray(values, float)
    if len(v) < 2:
        return [float(v.mean()), float(v.mean())]
    half = t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v))
    return [float(v.mean() - half), float(v.mean() + half)]


def replicate_seeds(base_seed: int, replicates: int) -> list:
    """Per replicate, {"fit", "test", "method"} seeds derived from ``base_seed`` (never arithmetic on it)."""
    return [{part: derive_seed(base_seed, part, r) for part in ("fit", "test", "method")} for r in range(replicates)]


@dataclass
class SeedComparison:
    """The same comparison on several replicates (fresh scenes and method seeds each)."""

    runs: list                      # one Comparison per replicate
    base_seed: int

    def values(self, method: str, metric: str) -> np.ndarray:
        """The metric of ``method`` in each replicate."""
        return np.array([{r["method"]: r for r in run.table}[method].get(metric, np.nan) for run in self.runs], float)

    def difference(self, metric: str, other: str, method: str = "GRACE") -> np.ndarray:
        """``method`` minus ``other`` on ``metric``, per replicate."""
        return self.values(method, metric) - self.values(other, metric)

    def summary(self, metrics, methods=METHODS) -> dict:
        """{method: {metric: {"mean", "sd", "values"}}} over replicates."""
        out = {}
        for method in methods:
            out[method] = {}
            for metric in metrics:
                v = self.values(method, metric)
                out[method][metric] = {"mean": float(np.mean(v)), "sd": float(np.std(v, ddof=1)) if len(v) > 1
                                       else 0.0, "values": v.tolist()}
        return out


def compare_seeds(model, replicates: int = 3, base_seed: int = 2026, n_fit: int = N_FIT, n_test: int = N_TEST,
                  video: bool = False, grace_kwargs: dict | None = None, random_control: bool = False,
                  progress=None) -> SeedComparison:
    """:func:`compare` on ``replicates`` independent replicates, seeds from :func:`replicate_seeds`.

    Parameters
    ----------
    model : TinyCLIP
    replicates : int
        Independent replicates (fit scenes, test scenes, method seeds), at least 1.
    base_seed : int
        Every replicate's seeds derive from it.
    n_fit, n_test, video, grace_kwargs, random_control
        As for :func:`compare`.
    progress : callable, optional
        ``progress(r, replicates, {})`` after each replicate; returning False stops after it.

    Returns
    -------
    SeedComparison
    """
    replicates = check_range("replicates", replicates, 1, 100, integer=True)
    runs = []
    for r, seeds in enumerate(replicate_seeds(base_seed, replicates), 1):
        runs.append(compare(model, n_fit, n_test, video, grace_kwargs, seed=seeds["method"], fit_seed=seeds["fit"],
                            test_seed=seeds["test"], random_control=random_control))
        if not report(progress, r, replicates, {"replicates": r}):
            break
    return SeedComparison(runs, base_seed)

"""A live refit: GRACE at a chosen geometry weight across sparsity weights, scored on held-out scenes.

By default the refit works on the shipped embeddings (the 2,000 fit and 1,000 held-out scenes every
shipped method saw, and the vocabulary's text embeddings), so it needs torch for the fits but never
loads the small CLIP; other sizes, or a given model, embed afresh.

Stop: each fit reports every ``REPORT_EVERY`` of its steps, and once more when it has been scored.
A Stop ends the fit in progress at its next report; that fit is not scored and the remaining fits
are not started. The result says ``stopped`` and holds the fits that finished before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.common.config import check_choice, check_range
from core.common.progress import report
from core.common.seeding import check_seed
from core.grace.compare import FIT_SEED, N_FIT, N_TEST, TEST_SEED
from core.grace.grace import fit_grace
from core.grace.metrics import reconstruction_cosine, sparsity, trustworthiness
from core.grace.vocabulary import default_vocabulary

CURVE_SPARSITY = (0.01, 0.05, 0.2, 0.5, 1.0, 3.0)
LIGHT = (0.05, 0.5, 3.0)
REPORT_EVERY = 10
LOSS_NAMES = {"reconstruction": "reconstruction error", "sparsity": "code L1", "geometry": "neighbourhood KL"}


@dataclass
class RefitCurve:
    """GRACE's trade-off at one geometry weight: one entry per finished fit."""

    geometry: float
    sparsity: np.ndarray          # α of each finished fit
    l0: np.ndarray                # mean active concepts per held-out scene
    reconstruction: np.ndarray    # reconstruction cosine in the centred space
    trustworthiness: np.ndarray
    planned: int                  # fits asked for
    stopped: bool                 # a Stop ended the run before every planned fit was scored

    def rows(self) -> list:
        """The points as the shipped curves' rows (``comparison.json``'s ``curves``)."""
        return [{"method": "GRACE", "knob": float(a), "geometry": self.geometry, "L0": float(l0),
                 "reconstruction cosine (centred)": float(r), "trustworthiness": float(t)}
                for a, l0, r, t in zip(self.sparsity, self.l0, self.reconstruction, self.trustworthiness)]


def curve_point(method: str, knob: float, geometry, fitted, test_embeddings) -> dict:
    """One trade-off row: a fitted decomposition's L0, centred reconstruction and trustworthiness."""
    codes = fitted.encode(test_embeddings)
    z = fitted.space.centre(test_embeddings)
    return {"method": method, "knob": float(knob), "geometry": geometry, "L0": sparsity(codes),
            "reconstruction cosine (centred)": reconstruction_cosine(z, codes @ fitted.dictionary),
            "trustworthiness": trustworthiness(test_embeddings, codes)}


def fit_tradeoff(fit_embeddings, test_embeddings, vocabulary, concepts, geometry: float = 1.0,
                 sparsities=CURVE_SPARSITY, seed: int = 0, steps: int = 300, progress=None) -> RefitCurve:
    """GRACE fitted at each sparsity weight α (one geometry weight γ), each fit scored on held-out embeddings.

    Parameters
    ----------
    fit_embeddings, test_embeddings : array [n, d]
        What each fit learns from, and what it is scored on.
    vocabulary : list of str
    concepts : array [k, d]
        The words' text embeddings.
    geometry : float
        γ, the neighbourhood term's weight.
    sparsities : sequence of float
        The α of each fit, in order.
    seed, steps : int
        As for :func:`fit_grace`.
    progress : callable, optional
        ``progress(step, total, metrics)`` every ``REPORT_EVERY`` fit steps (the loss terms) and after
        each fit is scored (its L0, reconstruction and trustworthiness); ``total`` counts both kinds.
        Returning False stops: the fit in progress is dropped, unscored, and no further fit starts.

    Returns
    -------
    RefitCurve
    """
    check_range("geometry", geometry, 0.0, 100.0)
    steps = check_range("steps", steps, 1, 100_000, integer=True)
    seed = check_seed(seed)
    sparsities = tuple(sparsities)
    if not sparsities:
        raise ValueError("sparsities: empty; allowed one or more α in [0, 10]")
    sparsities = tuple(check_range("sparsities", a, 0.0, 10.0) for a in sparsities)
    chunks = math.ceil(steps / REPORT_EVERY) + 1          # loss reports, then the scored one
    total = len(sparsities) * chunks
    rows, stopped = [], False
    for i, alpha in enumerate(sparsities):
        def inner(step, _, metrics, base=i * chunks):
            nonlocal stopped
            if step % REPORT_EVERY and step != steps:
                return True
            keep = report(progress, base + math.ceil(step / REPORT_EVERY), total,
                          {LOSS_NAMES[k]: metrics[k] for k in LOSS_NAMES})
            stopped = stopped or not keep
            return keep

        fitted = fit_grace(fit_embeddings, vocabulary, concepts, sparsity=alpha, geometry=geometry, seed=seed,
                           steps=steps, progress=inner)
        if stopped:
            break
        rows.append(curve_point("GRACE", alpha, geometry, fitted, test_embeddings))
        if not report(progress, (i + 1) * chunks, total,
                      {"L0": rows[-1]["L0"], "trustworthiness": rows[-1]["trustworthiness"]}):
            stopped = i + 1 < len(sparsities)
            break
    column = lambda name: np.array([r[name] for r in rows], float)  # noqa: E731
    return RefitCurve(float(geometry), column("knob"), column("L0"), column("reconstruction cosine (centred)"),
                      column("trustworthiness"), len(sparsities), stopped)


def refit_curve(geometry: float = 1.0, full: bool = False, n_fit: int = N_FIT, n_test: int = N_TEST, seed: int = 0,
                steps: int = 300, model=None, progress=None) -> RefitCurve:
    """GRACE's trade-off at geometry weight ``geometry``: the light (3 α) or full (6 α) sweep.

    Parameters
    ----------
    geometry : float
        γ, in [0, 100].
    full : bool
        Every α of the shipped curves (``CURVE_SPARSITY``) instead of ``LIGHT``.
    n_fit, n_test : int
        Scenes fitted on (seed ``FIT_SEED``, 2 to 100,000) and scored on (seed ``TEST_SEED``, 21 to
        100,000); every argument is checked before any model is loaded. At the defaults, and
        with no ``model``, the shipped embeddings of exactly those scenes are used.
    seed, steps : int
        As for :func:`fit_grace`.
    model : TinyCLIP, optional
        Embed the scenes with this model instead of reading the shipped embeddings.
    progress : callable, optional
        As for :func:`fit_tradeoff`.

    Returns
    -------
    RefitCurve
    """
    check_range("geometry", geometry, 0.0, 100.0)
    check_choice("full", full, (False, True))
    n_fit = check_range("n_fit", n_fit, 2, 100_000, integer=True)
    n_test = check_range("n_test", n_test, 21, 100_000, integer=True)    # trustworthiness: 10 neighbours < n/2
    steps = check_range("steps", steps, 1, 100_000, integer=True)
    seed = check_seed(seed)
    sparsities = CURVE_SPARSITY if full else LIGHT
    if model is None and (n_fit, n_test) == (N_FIT, N_TEST):
        from core.grace.shipped import load_embeddings, load_shipped

        shipped = load_embeddings()
        fit, concepts = shipped.fit, shipped.concepts
        test = load_shipped()[0]["image"]["test_embeddings"]
    else:
        from core.grace.clip import embed_texts, load_model
        from core.grace.compare import scene_set

        model = model or load_model()
        fit, test = scene_set(model, n_fit, FIT_SEED).embeddings, scene_set(model, n_test, TEST_SEED).embeddings
        concepts = embed_texts(model, default_vocabulary())
    return fit_tradeoff(fit, test, default_vocabulary(), concepts, geometry=geometry, sparsities=sparsities, seed=seed,
                        steps=steps, progress=progress)


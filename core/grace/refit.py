"""A live refit: GRACE at a chosen geometry weight across sparsity weights, scored on held-out scenes."""

from __future__ import annotations

from core.common.config import check_range
from core.common.progress import report
from core.grace.clip import default_vocabulary, embed_texts, load_model
from core.grace.compare import FIT_SEED, TEST_SEED, scene_set
from core.grace.ship import CURVE_SPARSITY, tradeoff_curves

LIGHT = (0.05, 0.5, 3.0)


def refit_curve(geometry: float = 1.0, full: bool = False, n_fit: int = 2000, n_test: int = 1000, seed: int = 0,
                model=None, progress=None) -> list:
    """Trade-off points (L0, reconstruction, trustworthiness) for GRACE with geometry weight ``geometry``."""
    check_range("geometry", geometry, 0.0, 100.0)
    model = model or load_model()
    sparsities = CURVE_SPARSITY if full else LIGHT
    total = len(sparsities) + 1
    fit = scene_set(model, n_fit, FIT_SEED)
    test = scene_set(model, n_test, TEST_SEED)
    vocabulary = default_vocabulary()
    if not report(progress, 1, total, {"embedded": n_fit + n_test}):
        return []
    return tradeoff_curves(fit.embeddings, test.embeddings, vocabulary, embed_texts(model, vocabulary),
                           geometry=geometry, seed=seed, sparsities=sparsities,
                           progress=lambda step, _, metrics: report(progress, step + 1, total, metrics))

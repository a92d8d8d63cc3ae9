"""The grace asset builder: the small CLIP, then decompositions, measurements and embeddings.

    python -m core.grace.ship clip [STEPS]  # train the small CLIP (default 3000 steps; shipped: 1200,
                                            # about 30 minutes on one busy core); writes assets/grace/clip
    python -m core.grace.ship               # after `ship clip`; a few minutes
    python -m core.grace.ship embeddings    # only assets/grace/embeddings.npz; under a minute

The shipped decompositions and measurements let the page's first view need no fitting and no CLIP.

Writes assets/grace/decompositions.npz (every fitted method, for images and for clips, with the
held-out embeddings they were scored on), assets/grace/comparison.json (the metric tables and the
sparsity trade-off curves) and assets/grace/embeddings.npz (the composer's grid of scenes and clips,
the fit scenes, the vocabulary's text embeddings and the held-out scenes' attributes; see
``shipped.py``). ``shipped.py`` reads them back without torch.
"""

from __future__ import annotations

import json
import time

import numpy as np

from core.grace.compare import FIT_SEED, N_FIT, N_TEST, TEST_SEED, compare, scene_set
from core.grace.composer import CLIP_SEED, COMPOSER_SEED, grid_embeddings
from core.grace.refit import CURVE_SPARSITY, curve_point, fit_tradeoff
from core.grace.scenes import make_scenes
from core.grace.shipped import COMPARISON, DECOMPOSITIONS, EMBEDDINGS, attribute_labels, load_shipped, pack  # noqa: F401
from core.grace.vocabulary import ASSETS, default_vocabulary

CURVE_L1 = (0.01, 0.03, 0.1, 0.2, 0.4, 0.8)


def tradeoff_curves(fit_embeddings, test_embeddings, vocabulary, concepts, geometry: float = 1.0, seed: int = 0,
                    sparsities=CURVE_SPARSITY, progress=None) -> list:
    """GRACE at several sparsity weights (one geometry weight): rows of L0, reconstruction, trustworthiness."""
    return fit_tradeoff(fit_embeddings, test_embeddings, vocabulary, concepts, geometry=geometry,
                        sparsities=sparsities, seed=seed, progress=progress).rows()


def ship(model=None) -> dict:
    """Fit and score every method on images and clips; write the three shipped files.

    Returns
    -------
    dict
        The comparison document written to ``comparison.json``.
    """
    from core.grace.baselines import fit_splice
    from core.grace.clip import embed_texts, load_model

    model = model or load_model()
    arrays, report_doc = {}, {"made_by": "python -m core.grace.ship", "tables": {}, "curves": {}}
    for kind, video in (("image", False), ("video", True)):
        result = compare(model, video=video)
        for name, decomposition in result.decompositions.items():
            arrays.update(pack(f"{kind}/{name}", decomposition))
        arrays[f"{kind}/test_embeddings"] = result.test.embeddings.astype(np.float32)
        report_doc["tables"][kind] = result.table
        if not video:
            fit = result.decompositions["GRACE"]
            concepts = embed_texts(model, result.vocabulary)
            fit_set = scene_set(model, N_FIT, FIT_SEED)
            curves = []
            for geometry in (0.0, 1.0):
                curves += tradeoff_curves(fit_set.embeddings, result.test.embeddings, result.vocabulary, concepts,
                                          geometry=geometry)
            for l1 in CURVE_L1:
                fitted = fit_splice(fit_set.embeddings, result.vocabulary, concepts, l1)
                curves.append(curve_point("SpLiCE", l1, None, fitted, result.test.embeddings))
            report_doc["curves"]["image"] = curves
            report_doc["grace_history"] = {k: list(map(float, v)) for k, v in fit.history.items()}
    np.savez_compressed(DECOMPOSITIONS, **arrays)
    COMPARISON.write_text(json.dumps(report_doc, indent=1))
    ship_embeddings(model)
    return report_doc


def ship_embeddings(model=None) -> dict:
    """Write ``embeddings.npz``: what the first view and the live refit would otherwise embed with the CLIP.

    Parameters
    ----------
    model : TinyCLIP, optional
        Default: the shipped small CLIP.

    Returns
    -------
    dict
        ``{name: shape}`` of the arrays written.
    """
    from core.grace.clip import embed_texts, load_model

    model = model or load_model()
    arrays = {"composer/image": grid_embeddings(model), "composer/video": grid_embeddings(model, video=True),
              "composer/seeds": np.array([COMPOSER_SEED, CLIP_SEED]),
              "fit/image": scene_set(model, N_FIT, FIT_SEED).embeddings.astype(np.float32),
              "concepts/image": embed_texts(model, default_vocabulary()).astype(np.float32),
              "test/image/labels": attribute_labels(make_scenes(N_TEST, TEST_SEED).attributes)}
    np.savez_compressed(EMBEDDINGS, **arrays)
    return {name: value.shape for name, value in arrays.items()}


def ship_clip(steps: int = 3000) -> dict:
    """Train the small CLIP (``train_clip.py``), score it zero-shot on held-out scenes, write ``assets/grace/clip``.

    Parameters
    ----------
    steps : int
        Training steps, 1 to 1,000,000 (the shipped checkpoint used 1,200).

    Returns
    -------
    dict
        The checkpoint's metadata (seed, steps, seconds, held-out zero-shot accuracy per attribute).
    """
    from core.common.checkpoint import save_checkpoint
    from core.common.config import check_range
    from core.common.progress import TqdmProgress
    from core.grace.train_clip import SEED, evaluate, train_clip

    steps = check_range("steps", steps, 1, 1_000_000, integer=True)
    start = time.perf_counter()
    model = train_clip(steps, progress=TqdmProgress(desc="train small CLIP"))
    accuracy = evaluate(model)
    meta = {"seed": SEED, "steps": steps, "train_seconds": round(time.perf_counter() - start, 1),
            "zero_shot_accuracy": accuracy, "made_by": "python -m core.grace.ship clip"}
    save_checkpoint(ASSETS / "clip", model.state_dict(), {"projection_dim": 32, "steps": steps}, meta)
    return meta


def main(argv: list) -> None:
    """``ship [clip [STEPS] | embeddings]``: the command line of the module docstring."""
    if argv[:1] == ["clip"] and len(argv) <= 2:
        if len(argv) == 2 and not argv[1].isdigit():
            raise SystemExit(f"steps: {argv[1]!r} is not an integer; allowed integers in [1, 1000000]")
        print(json.dumps(ship_clip(int(argv[1]) if len(argv) > 1 else 3000), indent=2))
    elif argv == ["embeddings"]:
        print(ship_embeddings())
    elif argv:
        raise SystemExit(f"usage: python -m core.grace.ship [clip [STEPS] | embeddings]; got {' '.join(argv)}")
    else:
        doc = ship()
        for kind, table in doc["tables"].items():
            print(kind)
            for row in table:
                print("  ", {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()})


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])

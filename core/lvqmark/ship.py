"""Build ``assets/lvqmark/``: for every dataset, a local (L-VQVAE) and a global-encoder system (tokenizer,
prior, robust encoder; safetensors float16 + JSON), and the page's first view (``view_<dataset>.npz``,
``quality.json``) computed from the *reloaded* checkpoints, so the page and the tests see what ships.

    python -m core.lvqmark.ship              # every dataset (a few minutes on 2 cores)
    python -m core.lvqmark.ship energy       # one
    python -m core.lvqmark.ship --views      # the first views only, recomputed from the shipped checkpoints
"""

from __future__ import annotations

import json
import sys
from dataclasses import fields

import numpy as np

from core.common.seeding import derive_seed
from core.lvqmark.attacks import ATTACKS
from core.lvqmark.data import DATASETS, WINDOW, load_series, make_windows
from core.lvqmark.views import ASSETS, VIEW_STRENGTHS, view_path

SEED = 0
VIEW_CONFIG = {"n_windows": 2000, "chunk": 100, "delta": 4.0, "key": 12345}


def train_system(dataset: str, encoder: str, seed: int = SEED, progress=None, window: int = WINDOW,
                 steps: int | None = None):
    """Tokenizer, prior and robust encoder trained on ``dataset``'s windows of ``window`` steps (``steps``: every
    stage's optimisation steps; None: each config's default)."""
    from core.lvqmark.detection import Watermarker
    from core.lvqmark.training import PriorConfig, RobustConfig, TokenizerConfig, train_prior, train_robust, train_tokenizer

    split = make_windows(load_series(dataset), window=window)
    more = {} if steps is None else {"steps": steps}
    tok = train_tokenizer(split.train, TokenizerConfig(encoder=encoder, **more), seed=derive_seed(seed, dataset, "tok"))
    prior = train_prior(tok.encode(split.train), tok.config.codebook_size, PriorConfig(**more),
                        seed=derive_seed(seed, dataset, "prior"))
    robust = train_robust(tok, split.train, RobustConfig(**more), seed=derive_seed(seed, dataset, "robust"))
    return Watermarker(tok, prior, robust, dataset)


def view_arrays(dataset: str, seed: int = SEED) -> dict:
    from core.lvqmark.detection import DetectConfig, Detection, detect, locality_map
    from core.lvqmark.quality import quality_scores
    from core.lvqmark.store import load_watermarker

    split = make_windows(load_series(dataset))
    arrays, quality = {}, {}
    for encoder in ("local", "global"):
        system = load_watermarker(dataset, encoder)
        d = detect(system, DetectConfig(**VIEW_CONFIG), ATTACKS[1:], VIEW_STRENGTHS, seed=derive_seed(seed, "view"))
        for f in fields(Detection):
            if f.name not in ("attacks", "strengths", "config"):
                arrays[f"{encoder}_{f.name}"] = np.asarray(getattr(d, f.name), np.float32)
        arrays["row_attacks"], arrays["row_strengths"] = np.array(d.attacks), d.strengths
        m = locality_map(system.tokenizer, split.test[0])
        arrays[f"{encoder}_locality_changed"], arrays[f"{encoder}_locality_shift"] = m.changed, m.shift.astype(np.float32)
        arrays["locality_window"] = m.window
        wm = system.generate(500, VIEW_CONFIG["delta"], VIEW_CONFIG["key"], derive_seed(seed, "quality", "wm"))
        clean = system.generate(500, 0.0, VIEW_CONFIG["key"], derive_seed(seed, "quality", "clean"))
        arrays[f"{encoder}_example_wm"], arrays[f"{encoder}_example_clean"] = wm.series[0], clean.series[0]
        quality[encoder] = {name: vars(quality_scores(split.test, g.series, seed=derive_seed(seed, "q", name)))
                            for name, g in (("watermarked", wm), ("clean", clean))}
    arrays["example_real"] = split.test[0]
    return {"arrays": arrays, "quality": quality}


def write_views(datasets=DATASETS, seed: int = SEED) -> list:
    """Recompute the first views (detection rows, locality maps, examples) from the shipped checkpoints, training
    nothing; ``quality.json`` is left as shipped."""
    written = []
    for dataset in datasets:
        np.savez_compressed(view_path(dataset), **view_arrays(dataset, seed)["arrays"])
        written.append(view_path(dataset))
    return written


def write_assets(datasets=DATASETS, seed: int = SEED) -> list:
    from core.lvqmark.store import save_watermarker, system_dir

    ASSETS.mkdir(parents=True, exist_ok=True)
    qpath = ASSETS / "quality.json"
    qual = json.loads(qpath.read_text()) if qpath.is_file() else {}
    written = []
    for dataset in datasets:
        for encoder in ("local", "global"):
            save_watermarker(train_system(dataset, encoder, seed), system_dir(dataset, encoder))
            print("trained", dataset, encoder, flush=True)
        v = view_arrays(dataset, seed)
        np.savez_compressed(view_path(dataset), **v["arrays"])
        qual[dataset] = v["quality"]
        qpath.write_text(json.dumps(qual, indent=1, sort_keys=True) + "\n")
        written.append(view_path(dataset))
    return written


if __name__ == "__main__":
    names = tuple(a for a in sys.argv[1:] if a != "--views") or DATASETS
    print("wrote", *(write_views(names) if "--views" in sys.argv[1:] else write_assets(names)))

"""Reading what ``python -m core.grace.ship`` wrote, with numpy alone (no torch, no CLIP).

- ``decompositions.npz``: every fitted method, for images and for clips, with the held-out
  embeddings they were scored on;
- ``comparison.json``: the metric tables and the sparsity trade-off curves;
- ``embeddings.npz``: the composer's grid of scene and clip embeddings (see ``composer.py``), the
  2,000 scenes every method was fitted on, the vocabulary's text embeddings and the held-out scenes'
  true attributes, so the first view and the live refit never load the small CLIP.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

import numpy as np

from core.grace.baselines import SAEDecomposition, SpliceDecomposition, TextSpanDecomposition
from core.grace.composer import SceneGrid
from core.grace.grace import GraceDecomposition
from core.grace.scenes import ATTRIBUTES
from core.grace.space import Space
from core.grace.vocabulary import ASSETS

KINDS = {"GRACE": GraceDecomposition, "SpLiCE": SpliceDecomposition, "TextSpan": TextSpanDecomposition,
         "SAE": SAEDecomposition, "no fitting": GraceDecomposition, "shuffled labels": GraceDecomposition}
DECOMPOSITIONS, COMPARISON, EMBEDDINGS = (ASSETS / "decompositions.npz", ASSETS / "comparison.json",
                                          ASSETS / "embeddings.npz")


def pack(prefix: str, decomposition) -> dict:
    """A decomposition's fields as ``{prefix/field: array}`` (its training history left out)."""
    out = {}
    for f in dataclasses.fields(decomposition):
        value = getattr(decomposition, f.name)
        if f.name == "space":
            out[f"{prefix}/space/image_mean"] = value.image_mean
            out[f"{prefix}/space/radius"] = np.array(value.radius)
        elif f.name != "history" and value is not None:
            out[f"{prefix}/{f.name}"] = np.array(value)
    return out


def unpack(prefix: str, arrays) -> object:
    """The decomposition :func:`pack` wrote under ``prefix``."""
    kind = KINDS[str(arrays[f"{prefix}/method"])]
    values = {}
    for f in dataclasses.fields(kind):
        if f.name == "space":
            values["space"] = Space(arrays[f"{prefix}/space/image_mean"], float(arrays[f"{prefix}/space/radius"]))
        elif f"{prefix}/{f.name}" in arrays:
            value = arrays[f"{prefix}/{f.name}"]
            values[f.name] = value.tolist() if value.dtype.kind in "UO" or value.ndim == 0 else value
    if "chosen" in values:
        values["chosen"] = [int(i) for i in values["chosen"]]
    return kind(**values)


def load_shipped() -> tuple[dict, dict]:
    """The shipped decompositions and the comparison document.

    Returns
    -------
    tuple
        ``({"image"|"video": {method: decomposition, "test_embeddings": array}}, comparison)``.
    """
    arrays = dict(np.load(DECOMPOSITIONS))
    out = {}
    for kind in ("image", "video"):
        out[kind] = {name: unpack(f"{kind}/{name}", arrays) for name in KINDS}
        out[kind]["test_embeddings"] = arrays[f"{kind}/test_embeddings"].astype(np.float64)
    return out, json.loads(COMPARISON.read_text())


def attribute_labels(attributes: list) -> np.ndarray:
    """int8 [n, 4]: each scene's value index per attribute of ``ATTRIBUTES`` (images only)."""
    return np.array([[ATTRIBUTES[name].index(a[name]) for name in ATTRIBUTES] for a in attributes], np.int8)


def attributes_of(labels: np.ndarray) -> list:
    """The attribute dicts :func:`attribute_labels` encoded."""
    return [{name: ATTRIBUTES[name][int(i)] for name, i in zip(ATTRIBUTES, row)} for row in labels]


@dataclass
class ShippedEmbeddings:
    """The contents of ``embeddings.npz``."""

    scenes: SceneGrid             # the composer's grid
    fit: np.ndarray               # [2000, d]: the scenes (seed FIT_SEED) every shipped method was fitted on
    concepts: np.ndarray          # [k, d]: default_vocabulary() embedded word by word
    test_attributes: list         # the held-out scenes' (seed TEST_SEED) true attributes, in shipped order


def load_embeddings() -> ShippedEmbeddings:
    """Read ``assets/grace/embeddings.npz``.

    Returns
    -------
    ShippedEmbeddings
        Embeddings as float64.
    """
    with np.load(EMBEDDINGS) as arrays:
        seeds = arrays["composer/seeds"]
        grid = SceneGrid(arrays["composer/image"], arrays["composer/video"], int(seeds[0]), int(seeds[1]))
        return ShippedEmbeddings(grid, arrays["fit/image"].astype(np.float64),
                                 arrays["concepts/image"].astype(np.float64),
                                 attributes_of(arrays["test/image/labels"]))

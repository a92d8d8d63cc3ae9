"""The page's shipped first view, read with numpy only (no torch): one ``view_<dataset>.npz`` per dataset."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from core.common.assets import asset_dir
from core.common.config import check_choice
from core.lvqmark.data import DATASETS

ASSETS = asset_dir("lvqmark")
VIEW_STRENGTHS = (0.05, 0.1, 0.2, 0.3, 0.5)


@dataclass
class ShippedView:
    """What the page draws first for one dataset, for both encoders.

    Attributes
    ----------
    dataset : str
        The dataset key.
    arrays : dict
        The npz arrays by name: ``<encoder>_<Detection field>``, ``<encoder>_locality_*``, ``examples_*``.
    rows : list of tuple
        (attack, strength) of each detection row.
    quality : dict
        Quality scores with and without the watermark, per encoder (from ``quality.json``).
    """

    dataset: str
    arrays: dict
    rows: list
    quality: dict

    def get(self, encoder: str, name: str) -> np.ndarray:
        return self.arrays[f"{encoder}_{name}"]


def view_path(dataset: str):
    return ASSETS / f"view_{check_choice('dataset', dataset, DATASETS)}.npz"


def load_view(dataset: str = "energy") -> ShippedView | None:
    """The shipped view of ``dataset``, or None if the assets were not built.

    Parameters
    ----------
    dataset : str
        One of ``DATASETS``.

    Returns
    -------
    ShippedView or None
        The arrays, the detection rows and the quality table.

    Examples
    --------
    >>> v = load_view("finance")
    >>> v.rows[0], v.get("local", "z_wm").shape[0] == len(v.rows)
    (('none', 0.0), True)
    """
    path = view_path(dataset)
    if not path.is_file():
        return None
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    rows = list(zip([str(a) for a in arrays.pop("row_attacks")], [float(s) for s in arrays.pop("row_strengths")]))
    quality = json.loads((ASSETS / "quality.json").read_text()).get(dataset, {}) if (ASSETS / "quality.json").is_file() else {}
    return ShippedView(dataset, arrays, rows, quality)

"""The page's four kinds of problems as plain data: their inputs, labels, grid spacing and defaults.

One place builds the histograms a view solves, so the page and the ship script
(:mod:`.ship`) meet the same problem for the same settings. ``DEFAULTS`` is each kind's first view.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import check_choice
from core.common.seeding import derive_seed

KINDS = ("digits", "shapes", "palettes", "volumes")
SEEDED = ("palettes", "volumes")      # kinds whose inputs depend on the seed
IMAGE_SIZE = 64                       # side of the generated scene images behind a palette
DEFAULTS = {"digits": ((0, 3), 12), "shapes": (("disk", "cross"), 12), "palettes": (("sunset", "sea"), 8),
            "volumes": ((0, 1), 8)}   # kind -> (items, grid size)


@dataclass
class Problem:
    """The inputs of one view, ready for :func:`barycenter`.

    Attributes
    ----------
    histograms : numpy.ndarray
        ``(M, *grid)``, each of mass 1.
    labels : list of str
        How the page names each input.
    spacing : float
        The grid step: 1 for pixels and voxels, ``1 / bins`` for palettes (RGB units).
    """

    histograms: np.ndarray    # (M, *grid)
    labels: list
    spacing: float


def input_labels(kind: str, items) -> list:
    """How the page names each input.

    Parameters
    ----------
    kind : {"digits", "shapes", "palettes", "volumes"}
        The kind of problem.
    items : sequence
        Digits 0-9, shape names, scene names or patient numbers.

    Returns
    -------
    list of str
        One label per item.

    Examples
    --------
    >>> input_labels("digits", (0, 3)), input_labels("shapes", ("two_blobs",))
    (['digit 0', 'digit 3'], ['two blobs'])
    """
    check_choice("inputs", kind, KINDS)
    if kind == "digits":
        return [f"digit {d}" for d in items]
    if kind == "shapes":
        return [str(s).replace("_", " ") for s in items]
    if kind == "palettes":
        return [str(s) for s in items]
    return [f"patient {p}" for p in items]


def scene(name: str, seed: int) -> np.ndarray:
    """The scene image behind a palette (``IMAGE_SIZE`` square, RGB in [0, 1])."""
    from core.geto_lp.palettes import scene_image

    return scene_image(name, IMAGE_SIZE, seed)


def problem_inputs(kind: str, items, size: int, seed: int = 0) -> Problem:
    """The histograms of one view.

    Parameters
    ----------
    kind : {"digits", "shapes", "palettes", "volumes"}
    items : sequence
        Digits 0-9, shape names, scene names or patient numbers.
    size : int
        Grid side: pixels (2-D), bins per colour channel (palettes) or voxels (volumes).
    seed : int
        Scene layouts and patients (``derive_seed(seed, "patient", p)``); digits and shapes ignore it.

    Returns
    -------
    Problem
        The histograms (mass 1 each), their labels and the grid spacing.

    Raises
    ------
    ValueError
        ``"<field>: ...; allowed ..."`` for an unknown kind, item or a size out of the kind's range.

    Examples
    --------
    >>> problem = problem_inputs("shapes", ("disk", "cross"), 8)
    >>> problem.histograms.shape, problem.labels, problem.spacing
    ((2, 8, 8), ['disk', 'cross'], 1.0)
    """
    from core.geto_lp.images import digit_image, shape_image
    from core.geto_lp.palettes import colour_histogram
    from core.geto_lp.volumes import organ_volume

    labels = input_labels(kind, items)
    if kind == "digits":
        return Problem(np.stack([digit_image(int(d), size) for d in items]), labels, 1.0)
    if kind == "shapes":
        return Problem(np.stack([shape_image(s, size) for s in items]), labels, 1.0)
    if kind == "palettes":
        return Problem(np.stack([colour_histogram(scene(s, seed), size) for s in items]), labels, 1.0 / size)
    volumes = np.stack([organ_volume(size, seed=derive_seed(seed, "patient", int(p))) for p in items])
    return Problem(volumes, labels, 1.0)

"""2-D inputs: scikit-learn's handwritten digits, upsampled, and synthetic shapes.

Digits are the 8 x 8 images shipped with scikit-learn (``load_digits``; nothing is downloaded),
upsampled to ``n x n`` by bilinear interpolation (``scipy.ndimage.zoom``, order 1) and clipped at
zero. Shapes are drawn at 4x resolution and box-averaged down, so edges are anti-aliased and a
shape moves mass smoothly as ``n`` changes. Both are returned with mass 1, ready for
:func:`core.geto_lp.barycenter`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from core.common.config import check_choice, check_range

SHAPES = ("disk", "ring", "square", "cross", "triangle", "two_blobs")
MIN_SIZE, MAX_SIZE = 4, 128


@lru_cache(maxsize=1)
def _digits():
    from sklearn.datasets import load_digits

    data = load_digits()
    return data.images, data.target


def digit_image(digit: int, n: int = 16, index: int = 0) -> np.ndarray:
    """The ``index``-th example of ``digit`` in scikit-learn's set, upsampled to ``n x n``, mass 1.

    Parameters
    ----------
    digit : int
        The digit, 0 to 9.
    n : int
        The side of the output grid, 4 to 128 (bilinear upsampling of the 8 x 8 image).
    index : int
        Which example of that digit, from 0 to the number of examples less one (about 180).

    Returns
    -------
    numpy.ndarray
        ``(n, n)``, nonnegative, mass 1.

    Examples
    --------
    >>> image = digit_image(3, n=12)
    >>> image.shape, round(float(image.sum()), 6), bool(image.min() >= 0)
    ((12, 12), 1.0, True)
    """
    from scipy.ndimage import zoom

    digit = check_range("digit", digit, 0, 9, integer=True)
    n = check_range("n", n, MIN_SIZE, MAX_SIZE, integer=True)
    images, target = _digits()
    examples = np.flatnonzero(target == digit)
    index = check_range("index", index, 0, len(examples) - 1, integer=True)
    image = images[examples[index]].astype(float)
    big = np.clip(zoom(image, n / image.shape[0], order=1, grid_mode=True, mode="nearest"), 0.0, None)
    return big / big.sum()


def shape_image(name: str, n: int = 16) -> np.ndarray:
    """A filled shape on an ``n x n`` grid (anti-aliased by 4x supersampling), mass 1.

    Parameters
    ----------
    name : str
        One of ``SHAPES``: "disk", "ring", "square", "cross", "triangle", "two_blobs".
    n : int
        The side of the grid, 4 to 128.

    Returns
    -------
    numpy.ndarray
        ``(n, n)``, nonnegative, mass 1.

    Examples
    --------
    >>> image = shape_image("disk", 8)
    >>> image.shape, round(float(image.sum()), 6), float(image[0, 0])
    ((8, 8), 1.0, 0.0)
    """
    check_choice("shape", name, SHAPES)
    n = check_range("n", n, MIN_SIZE, MAX_SIZE, integer=True)
    s = 4 * n
    y, x = (np.mgrid[0:s, 0:s] + 0.5) / s * 2 - 1  # [-1, 1]^2, y downwards as in an image
    r = np.hypot(x, y)
    if name == "disk":
        mask = r < 0.6
    elif name == "ring":
        mask = (r < 0.75) & (r > 0.45)
    elif name == "square":
        mask = (np.abs(x) < 0.55) & (np.abs(y) < 0.55)
    elif name == "cross":
        mask = ((np.abs(x) < 0.2) | (np.abs(y) < 0.2)) & (np.abs(x) < 0.75) & (np.abs(y) < 0.75)
    elif name == "triangle":
        mask = (y < 0.6) & (y > 1.9 * np.abs(x) - 0.9)
    else:  # two_blobs
        mask = (np.hypot(x + 0.45, y + 0.35) < 0.3) | (np.hypot(x - 0.45, y - 0.35) < 0.3)
    image = mask.reshape(n, 4, n, 4).mean(axis=(1, 3))
    return image / image.sum()

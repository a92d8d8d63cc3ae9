"""Colour palettes: RGB histograms on a 3-D grid, their barycenter, and a transfer onto an image.

The images are generated from a seed (nothing is downloaded; scikit-learn's sample photos would
need pillow): a smooth random field, Gaussian-filtered white noise, is mapped through a scene's
colour ramp, so each scene has a recognisable palette (a sunset, a forest, the sea, a meadow of
flowers, a desert) and every seed a different layout.

A palette is the image's colour histogram on a ``bins^3`` grid over the RGB cube, with grid
coordinates ``(index + 1/2) / bins`` (``spacing = 1 / bins``), so costs are in RGB units.

Transfer (ours, the usual barycentric projection): the plan ``P`` from an image's palette ``a`` to
the barycentric palette sends bin ``i`` to the colour ``T(i) = sum_j P_ij y_j / a_i``; each pixel is
moved by ``T(i) - y_i`` for its bin ``i``, which keeps the detail within a bin, and clipped to the
cube.
"""

from __future__ import annotations

import numpy as np

from core.common.config import check_choice, check_range
from core.common.seeding import make_rng

SCENES = {
    "sunset": ((0.10, 0.05, 0.25), (0.55, 0.10, 0.35), (0.95, 0.40, 0.15), (1.00, 0.80, 0.35)),
    "forest": ((0.05, 0.15, 0.05), (0.15, 0.40, 0.10), (0.45, 0.55, 0.15), (0.40, 0.25, 0.10)),
    "sea": ((0.02, 0.10, 0.30), (0.05, 0.35, 0.60), (0.35, 0.70, 0.85), (0.90, 0.85, 0.65)),
    "flowers": ((0.20, 0.45, 0.15), (0.95, 0.85, 0.20), (0.85, 0.20, 0.45), (0.60, 0.35, 0.85)),
    "desert": ((0.55, 0.30, 0.15), (0.85, 0.55, 0.30), (0.95, 0.80, 0.55), (0.45, 0.65, 0.90)),
}
MIN_BINS, MAX_BINS = 2, 32


def scene_image(scene: str, size: int = 64, seed: int = 0) -> np.ndarray:
    """A ``size x size x 3`` RGB image in [0, 1]: a smooth random field through ``scene``'s ramp.

    Parameters
    ----------
    scene : str
        One of ``SCENES``: "sunset", "forest", "sea", "flowers", "desert".
    size : int
        The image's side in pixels, 8 to 512.
    seed : int
        The layout's seed (the same seed gives the same image).

    Returns
    -------
    numpy.ndarray
        ``(size, size, 3)`` RGB values in [0, 1].

    Examples
    --------
    >>> image = scene_image("sea", 16, seed=0)
    >>> image.shape, bool(image.min() >= 0 and image.max() <= 1)
    ((16, 16, 3), True)
    """
    from scipy.ndimage import gaussian_filter

    ramp = np.array(SCENES[check_choice("scene", scene, tuple(SCENES))])
    size = check_range("size", size, 8, 512, integer=True)
    rng = make_rng(seed)
    field = gaussian_filter(rng.standard_normal((size, size)), sigma=size / 10, mode="wrap")
    detail = gaussian_filter(rng.standard_normal((size, size)), sigma=size / 40, mode="wrap")
    gradient = np.linspace(-1.0, 1.0, size)[:, None]  # a horizon: scenes change from top to bottom
    t = field / (field.std() + 1e-12) * 0.6 + detail / (detail.std() + 1e-12) * 0.25 + gradient
    t = (t - t.min()) / (t.max() - t.min() + 1e-12) * (len(ramp) - 1)
    low = np.clip(np.floor(t).astype(int), 0, len(ramp) - 2)
    frac = (t - low)[..., None]
    image = ramp[low] * (1 - frac) + ramp[low + 1] * frac
    return np.clip(image + 0.03 * rng.standard_normal(image.shape), 0.0, 1.0)


def bin_centres(bins: int) -> np.ndarray:
    """``(bins^3, 3)`` RGB centres of the palette grid's bins, in C order.

    Parameters
    ----------
    bins : int
        Bins per colour channel, 2 to 32.

    Returns
    -------
    numpy.ndarray
        ``(bins^3, 3)``, the centre ``(index + 1/2) / bins`` of every bin.

    Examples
    --------
    >>> bin_centres(2)[[0, 7]]
    array([[0.25, 0.25, 0.25],
           [0.75, 0.75, 0.75]])
    """
    bins = check_range("bins", bins, MIN_BINS, MAX_BINS, integer=True)
    axis = (np.arange(bins) + 0.5) / bins
    return np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), axis=-1).reshape(-1, 3)


def pixel_bins(image: np.ndarray, bins: int) -> np.ndarray:
    """The flat palette-bin index of every pixel, shape ``(H, W)``."""
    idx = np.clip((np.asarray(image, dtype=float) * bins).astype(int), 0, bins - 1)
    return np.ravel_multi_index((idx[..., 0], idx[..., 1], idx[..., 2]), (bins, bins, bins))


def colour_histogram(image: np.ndarray, bins: int = 8) -> np.ndarray:
    """The image's palette: a ``(bins, bins, bins)`` histogram over RGB with mass 1.

    Parameters
    ----------
    image : numpy.ndarray
        ``(H, W, 3)`` RGB values in [0, 1].
    bins : int
        Bins per colour channel, 2 to 32.

    Returns
    -------
    numpy.ndarray
        ``(bins, bins, bins)``, the share of pixels in each colour bin.

    Examples
    --------
    >>> palette = colour_histogram(np.array([[[0.1, 0.1, 0.1], [0.9, 0.9, 0.9]]]), bins=2)
    >>> palette.shape, float(palette[0, 0, 0]), float(palette[1, 1, 1])
    ((2, 2, 2), 0.5, 0.5)
    """
    bins = check_range("bins", bins, MIN_BINS, MAX_BINS, integer=True)
    image = np.asarray(image, dtype=float)
    if image.ndim != 3 or image.shape[2] != 3 or image.min() < 0 or image.max() > 1:
        raise ValueError(f"image: shape {image.shape} with values in [{image.min():.3g}, {image.max():.3g}]; "
                         "allowed an H x W x 3 RGB array with values in [0, 1]")
    counts = np.bincount(pixel_bins(image, bins).reshape(-1), minlength=bins**3).astype(float)
    return (counts / counts.sum()).reshape(bins, bins, bins)


def transfer_palette(image: np.ndarray, plan, bins: int) -> np.ndarray:
    """``image`` recoloured through ``plan`` (sparse ``bins^3 x bins^3``, rows = the image's palette).

    Parameters
    ----------
    image : numpy.ndarray
        ``(H, W, 3)`` RGB values in [0, 1].
    plan : scipy.sparse matrix or numpy.ndarray
        ``bins^3 x bins^3`` transport plan from the image's palette (rows) to a target palette.
    bins : int
        Bins per colour channel, 2 to 32.

    Returns
    -------
    numpy.ndarray
        ``(H, W, 3)``: each pixel of bin ``i`` moved by :math:`T(i) - y_i`, where
        :math:`T(i) = \\sum_j P_{ij} y_j / \\sum_j P_{ij}` (the barycentric projection), clipped to [0, 1].

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> plan = sp.csr_matrix(([1.0], ([0], [7])), shape=(8, 8))   # send the darkest bin to the lightest
    >>> transfer_palette(np.full((1, 1, 3), 0.2), plan, bins=2)[0, 0]
    array([0.7, 0.7, 0.7])
    """
    import scipy.sparse as sp

    bins = check_range("bins", bins, MIN_BINS, MAX_BINS, integer=True)
    plan = sp.csr_matrix(plan)
    if plan.shape != (bins**3, bins**3):
        raise ValueError(f"plan: shape {plan.shape}; allowed {bins**3} x {bins**3} for {bins} bins per channel")
    centres = bin_centres(bins)
    mass = np.asarray(plan.sum(axis=1)).ravel()
    target = np.divide(plan @ centres, mass[:, None], out=centres.copy(), where=mass[:, None] > 0)
    which = pixel_bins(image, bins)
    return np.clip(np.asarray(image, dtype=float) + (target - centres)[which], 0.0, 1.0)

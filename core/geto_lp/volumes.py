"""'Medical' volumes: seeded organ-like 3-D densities, and their isosurfaces through PyVista.

An organ (ours, a stand-in for segmented scans that we cannot ship) is a kidney-like bean: an
ellipsoid with semi-axes about (0.75, 0.45, 0.38) of the half-box, bent along its long axis and
indented on the inner side, then randomly scaled (+-15 %), rotated (up to 30 degrees about each axis)
and shifted (up to 0.1), with a smooth edge (a logistic of the signed ellipsoid distance) and a
mild smooth texture. Each seed is one "patient"; the barycenter is their average anatomy.

The isosurface is PyVista's contour filter (marching cubes on a ``pyvista.ImageData``), used for
the geometry only and never to render: pages draw the triangles with plotly's ``Mesh3d``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import check_range
from core.common.seeding import make_rng

MIN_SIZE, MAX_SIZE = 6, 48


@dataclass
class Surface:
    """A triangulated isosurface in grid-index coordinates.

    Attributes
    ----------
    vertices : numpy.ndarray
        ``(V, 3)`` vertex positions, in grid-index coordinates.
    faces : numpy.ndarray
        ``(F, 3)`` integer vertex indices of the triangles.
    level : float
        The density level of the surface (:func:`mass_level`).
    """

    vertices: np.ndarray  # (V, 3) in grid-index coordinates
    faces: np.ndarray  # (F, 3) vertex indices of triangles
    level: float


def _rotation(rng: np.random.Generator, max_degrees: float) -> np.ndarray:
    a, b, c = np.deg2rad(rng.uniform(-max_degrees, max_degrees, 3))
    rx = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    ry = np.array([[np.cos(b), 0, np.sin(b)], [0, 1, 0], [-np.sin(b), 0, np.cos(b)]])
    rz = np.array([[np.cos(c), -np.sin(c), 0], [np.sin(c), np.cos(c), 0], [0, 0, 1]])
    return rz @ ry @ rx


def organ_volume(n: int = 12, seed: int = 0) -> np.ndarray:
    """A seeded organ-like density on an ``n x n x n`` grid, mass 1.

    Parameters
    ----------
    n : int
        Voxels per side, 6 to 48.
    seed : int
        The "patient": its scale, rotation, shift and texture.

    Returns
    -------
    numpy.ndarray
        ``(n, n, n)``, nonnegative, mass 1.

    Examples
    --------
    >>> volume = organ_volume(8, seed=1)
    >>> volume.shape, round(float(volume.sum()), 6)
    ((8, 8, 8), 1.0)
    """
    from scipy.ndimage import gaussian_filter

    n = check_range("n", n, MIN_SIZE, MAX_SIZE, integer=True)
    rng = make_rng(seed)
    axis = (np.arange(n) + 0.5) / n * 2 - 1
    points = np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), axis=-1)
    local = (points - rng.uniform(-0.1, 0.1, 3)) @ _rotation(rng, 30.0)  # rotate into the organ's frame
    semi = np.array([0.75, 0.45, 0.38]) * rng.uniform(0.85, 1.15, 3)
    x, y, z = local[..., 0], local[..., 1], local[..., 2]
    y = y - 0.35 * (x / semi[0]) ** 2 * semi[1]  # bend along the long axis
    radius = np.sqrt((x / semi[0]) ** 2 + (y / semi[1]) ** 2 + (z / semi[2]) ** 2)
    hilum = np.exp(-((x / 0.25) ** 2 + ((y - semi[1]) / 0.3) ** 2 + (z / 0.3) ** 2))  # the inner dent
    inside = 1.0 / (1.0 + np.exp((radius + 0.6 * hilum - 1.0) / 0.06))
    texture = gaussian_filter(rng.standard_normal((n, n, n)), sigma=max(n / 8, 1.0))
    density = inside * (1.0 + 0.25 * texture / (texture.std() + 1e-12))
    density = np.clip(density, 0.0, None)
    return density / density.sum()


def mass_level(volume: np.ndarray, mass: float) -> float:
    """The density level whose super-level set holds ``mass`` of the total (highest voxels first).

    Ours: a level by enclosed mass rather than by a fraction of the maximum, because an exact LP
    barycenter is a vertex of its polytope and can be spiky, so its maximum says little.

    Parameters
    ----------
    volume : numpy.ndarray
        A finite, nonnegative density with positive mass (any shape).
    mass : float
        The share of the total mass to enclose, in (0, 1).

    Returns
    -------
    float
        The largest level :math:`t` with :math:`\\sum_{v \\ge t} v \\ge` ``mass`` of the total.

    Examples
    --------
    >>> mass_level(np.array([0.5, 0.3, 0.2]), 0.6)
    0.3
    """
    mass = check_range("mass", mass, 0.0, 1.0, low_open=True, high_open=True)
    volume = np.asarray(volume, dtype=float)
    if volume.size == 0 or not np.all(np.isfinite(volume)) or volume.min() < 0 or volume.sum() <= 0:
        raise ValueError(f"volume: shape {volume.shape}; allowed a finite nonnegative array with positive mass")
    values = np.sort(volume.reshape(-1))[::-1]
    cumulative = np.cumsum(values) / values.sum()
    return float(values[min(np.searchsorted(cumulative, mass), values.size - 1)])


def isosurface(volume: np.ndarray, mass: float = 0.6) -> Surface:
    """The surface enclosing the densest ``mass`` of ``volume`` (PyVista's contour filter).

    Parameters
    ----------
    volume : numpy.ndarray
        ``(n_1, n_2, n_3)`` finite, nonnegative density with positive mass.
    mass : float
        The share of the total mass inside the surface, in (0, 1).

    Returns
    -------
    Surface
        Its vertices (grid-index coordinates), triangles and level.

    Examples
    --------
    >>> surface = isosurface(organ_volume(8, seed=0), mass=0.6)
    >>> surface.vertices.shape[1], surface.faces.shape[1], len(surface.faces) > 0
    (3, 3, True)
    """
    volume = np.asarray(volume, dtype=float)
    if volume.ndim != 3:
        raise ValueError(f"volume: shape {volume.shape}; allowed a finite nonnegative 3-D array with mass")
    level = mass_level(volume, mass)   # validates before PyVista is imported
    import pyvista as pv

    grid = pv.ImageData(dimensions=volume.shape)
    grid.point_data["density"] = volume.ravel(order="F")  # ImageData points run x fastest
    surface = grid.contour([level], scalars="density").triangulate()
    faces = np.asarray(surface.faces).reshape(-1, 4)[:, 1:] if surface.n_cells else np.zeros((0, 3), int)
    return Surface(np.asarray(surface.points, dtype=float), faces.astype(np.int64), level)

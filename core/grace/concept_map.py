"""Two axes on which to draw samples and concept directions together (a biplot of the centred space).

"pca": the top two principal components. "lda": the directions that best separate one attribute's
values (scikit-learn's LinearDiscriminantAnalysis), orthonormalised, padded with the top principal
component of what they leave out when the attribute has only two values.
"""

from __future__ import annotations

import numpy as np
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from core.common.config import check_choice


def projection_axes(z: np.ndarray, labels=None, method: str = "pca") -> np.ndarray:
    """Orthonormal axes [2, d] for the rows of ``z``."""
    check_choice("method", method, ("pca", "lda"))
    centred = z - z.mean(0)
    axes = np.zeros((0, z.shape[1]))
    if method == "lda":
        if labels is None:
            raise ValueError("labels: required for method 'lda'; allowed one label per row of z")
        k = min(2, len(set(labels)) - 1)
        lda = LinearDiscriminantAnalysis(n_components=k).fit(centred, labels)
        axes = np.linalg.qr(lda.scalings_[:, :k])[0].T
    if len(axes) < 2:
        residual = centred - centred @ axes.T @ axes
        _, _, vt = np.linalg.svd(residual, full_matrices=False)
        axes = np.vstack([axes, vt[: 2 - len(axes)]])
    return axes


def biplot(z: np.ndarray, directions: np.ndarray, axes: np.ndarray):
    """(sample coordinates [n, 2], direction arrow ends [k, 2]) with one common scale for the arrows,
    chosen so the longest reaches 95 % of the samples' extent."""
    xy = (z - z.mean(0)) @ axes.T
    ends = directions @ axes.T
    ends = ends * 0.95 * np.abs(xy).max() / max(np.linalg.norm(ends, axis=1).max(), 1e-12)
    return xy, ends

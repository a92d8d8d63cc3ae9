"""Concepts learned in one domain, applied in another: a map fitted on images, read on clips.

The abstract's "global structure" is what a decomposition learned over the feature space carries to
other inputs, tasks and domains. Here every method is fitted on images only (its centred space, its
map, and for SpLiCE its λ) and encodes held-out *clips* embedded by the same CLIP: a change of domain
(eight moving frames instead of one still) and of task (motion replaces position). The measure reads
the concept names on the attributes both worlds name: within the words of each shared attribute
(shape, colour, size), the largest code is the clip's true value (``metrics.attribute_hits``). A map
fitted on the clips themselves is the in-domain reference.
"""

from __future__ import annotations

import numpy as np

from core.grace.metrics import attribute_hits
from core.grace.scenes import ATTRIBUTES, VIDEO_ATTRIBUTES

SHARED = tuple(name for name in ATTRIBUTES if name in VIDEO_ATTRIBUTES)   # shape, colour, size


def shared_attributes(attributes: list) -> list:
    """Each scene's ``{attribute: value}`` restricted to the attributes images and clips both name."""
    return [{name: a[name] for name in SHARED} for a in attributes]


def transfer_hits(decompositions: dict, embeddings: np.ndarray, attributes: list) -> dict:
    """Per method, per target scene, the share of shared attributes its largest code gets right.

    Parameters
    ----------
    decompositions : dict
        ``{method: Decomposition}``, each fitted on the source domain.
    embeddings : array [n, d]
        The target domain's embeddings (by the same model).
    attributes : list of dict
        The target scenes' main-object attributes (any extra attributes are ignored).

    Returns
    -------
    dict
        ``{method: array [n]}``, each value in [0, 1] in steps of 1/len(SHARED).
    """
    shared = shared_attributes(attributes)
    return {method: attribute_hits(d.encode(embeddings), d.vocabulary, shared) for method, d in decompositions.items()}

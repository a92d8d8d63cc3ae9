"""Concepts learned in one domain, applied in another: images to clips, and one family of scenes to another.

The abstract's "global structure" is what a decomposition learned over the feature space carries to
other inputs, tasks and domains. Two transfers, each method fitted on the source only (its centred
space, its map, and for SpLiCE its λ) and read on held-out target scenes embedded by the same CLIP:

- images to clips: a change of domain (eight moving frames instead of one still) and of task (motion
  replaces position), scored on the attributes both name (shape, colour and size);
- one scene family to another: images whose main object is a circle, square or triangle to images whose
  main object is a cross, diamond or ring (``FAMILIES``). Each shape's typical colour travels with it, so
  the target's colours shift too; scored on every attribute (the target's shapes were only ever clutter
  in the source).

The measure reads the concept names: within the words of each scored attribute, the largest code is
the scene's true value (``metrics.attribute_hits``). GRACE fitted on the target itself is the in-domain
reference.
"""

from __future__ import annotations

import numpy as np

from core.common.config import check_range
from core.common.seeding import derive_seed
from core.grace.compare import SceneSet, fit_methods
from core.grace.grace import fit_grace
from core.grace.metrics import attribute_hits
from core.grace.scenes import ATTRIBUTES, VIDEO_ATTRIBUTES, Scenes, make_scenes
from core.grace.vocabulary import default_vocabulary

SHARED = tuple(name for name in ATTRIBUTES if name in VIDEO_ATTRIBUTES)   # shape, colour, size
FAMILIES = (ATTRIBUTES["shape"][:3], ATTRIBUTES["shape"][3:])            # source, target main-object shapes
IN_DOMAIN = "GRACE in domain"                                              # GRACE fitted on the target itself


def shared_attributes(attributes: list, names=SHARED) -> list:
    """Each scene's ``{attribute: value}`` restricted to ``names`` (default: the attributes images and clips both
    name)."""
    return [{name: a[name] for name in names} for a in attributes]


def transfer_hits(decompositions: dict, embeddings: np.ndarray, attributes: list, names=SHARED) -> dict:
    """Per method, per target scene, the share of shared attributes its largest code gets right.

    Parameters
    ----------
    decompositions : dict
        ``{method: Decomposition}``, each fitted on the source domain.
    embeddings : array [n, d]
        The target domain's embeddings (by the same model).
    attributes : list of dict
        The target scenes' main-object attributes (any not in ``names`` are ignored).
    names : tuple of str, default SHARED
        The attributes scored.

    Returns
    -------
    dict
        ``{method: array [n]}``, each value in [0, 1] in steps of 1/len(names).
    """
    shared = shared_attributes(attributes, names)
    return {method: attribute_hits(d.encode(embeddings), d.vocabulary, shared) for method, d in decompositions.items()}


def family_scenes(n: int, seed: int, shapes) -> Scenes:
    """The first ``n`` images of the seeded stream ``make_scenes(·, seed)`` whose main object's shape is in ``shapes``.

    Parameters
    ----------
    n : int
        Scenes wanted, 1 to 100,000.
    seed : int
        The stream's seed.
    shapes : tuple of str
        Main-object shapes kept (a nonempty subset of the world's six).

    Returns
    -------
    Scenes
        ``n`` images, in stream order.
    """
    n = check_range("n", n, 1, 100_000, integer=True)
    if not shapes or not set(shapes) <= set(ATTRIBUTES["shape"]):
        raise ValueError(f"shapes: {shapes!r}; allowed a nonempty subset of {ATTRIBUTES['shape']}")
    drawn = 2 * n * len(ATTRIBUTES["shape"]) // len(shapes) + 100
    while True:
        scenes = make_scenes(drawn, seed)
        keep = [i for i, a in enumerate(scenes.attributes) if a["shape"] in shapes][:n]
        if len(keep) == n:
            return Scenes(scenes.images[keep], *([getattr(scenes, f)[i] for i in keep]
                                                 for f in ("captions", "attributes", "clutter", "hidden")))
        drawn *= 2


def family_transfer(model, n_fit: int, n_test: int, seeds: dict, random_control: bool = True) -> dict:
    """Every method fitted on source-family images, read on held-out target-family images, with GRACE fitted on
    target-family images as the in-domain reference.

    Parameters
    ----------
    model : TinyCLIP
        The small CLIP.
    n_fit, n_test : int
        Fit scenes (each family) and held-out target scenes.
    seeds : dict
        ``{"fit", "test", "method"}`` as :func:`core.grace.compare.replicate_seeds` gives.
    random_control : bool, default True
        Also the random-dictionary null.

    Returns
    -------
    dict
        ``{method: per-scene hits [n_test]}`` over every image attribute, ``IN_DOMAIN`` included.
    """
    from core.grace.clip import embed_images, embed_texts

    def embedded(n, seed, shapes):
        scenes = family_scenes(n, seed, shapes)
        return SceneSet(scenes, embed_images(model, scenes.images))

    source, target = FAMILIES
    vocabulary = default_vocabulary()
    concepts = embed_texts(model, vocabulary)
    fit = embedded(n_fit, seeds["fit"], source)
    own = embedded(n_fit, derive_seed(seeds["fit"], "target family"), target)
    test = embedded(n_test, seeds["test"], target)
    methods = fit_methods(fit.embeddings, vocabulary, concepts, seeds["method"], random_control=random_control)
    methods[IN_DOMAIN] = fit_grace(own.embeddings, vocabulary, concepts, seed=seeds["method"])
    return transfer_hits(methods, test.embeddings, test.scenes.attributes, tuple(ATTRIBUTES))

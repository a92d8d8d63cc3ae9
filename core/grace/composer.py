"""Every scene the page's composer draws at its default seed, and every clip of its clip section.

A composed scene's concepts come from its embedding, and embedding needs the small CLIP (torch and
transformers, seconds to import). So ``python -m core.grace.ship`` embeds each composition once and
ships the grid: main object (shape × colour × size × position, 6 × 6 × 3 × 4 = 432) × tiny second
object (none, or one of 6 shapes × 6 colours, 37) = 15,984 images at seed ``COMPOSER_SEED``, and
shape × colour × size × motion = 432 clips at seed ``CLIP_SEED`` (no clutter, as the page draws
them). Composed objects are solid (the striped texture is the world's unnamed concept, drawn only in
the seeded sets). A scene off the grid (another seed) is embedded live by :func:`embed_scene`, which
loads the CLIP.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from core.grace.scenes import ATTRIBUTES, VIDEO_ATTRIBUTES, make_scene

COMPOSER_SEED, CLIP_SEED = 0, 1
SECONDS = (None,) + tuple({"shape": s, "colour": c} for s in ATTRIBUTES["shape"] for c in ATTRIBUTES["colour"])


def _names(video: bool) -> dict:
    return VIDEO_ATTRIBUTES if video else ATTRIBUTES


def compositions(video: bool = False) -> list:
    """The grid in shipped order: ``[(attributes, second), ...]`` (second is None for every clip)."""
    names = _names(video)
    mains = [dict(zip(names, values)) for values in itertools.product(*names.values())]
    return [(main, None) for main in mains] if video else [(main, s) for main in mains for s in SECONDS]


def _key(attributes: dict, second: dict | None, video: bool) -> tuple:
    main = tuple(attributes.get(name) for name in _names(video))
    return main, None if second is None else (second.get("shape"), second.get("colour"))


def grid_embeddings(model, video: bool = False, batch: int = 512) -> np.ndarray:
    """Embeddings [len(compositions(video)), d] of the grid, rendered as :func:`make_scene` renders them.

    Parameters
    ----------
    model : TinyCLIP
        The small CLIP.
    video : bool
        The clips (at ``CLIP_SEED``) instead of the images (at ``COMPOSER_SEED``).
    batch : int
        Images embedded at a time.

    Returns
    -------
    ndarray, float32
    """
    from core.grace.clip import embed_images

    seed = CLIP_SEED if video else COMPOSER_SEED
    images = np.concatenate([make_scene(a, s, seed=seed, video=video).images for a, s in compositions(video)])
    return embed_images(model, images, batch=batch)


def embed_scene(attributes: dict, second: dict | None = None, seed: int = 0, video: bool = False,
                model=None) -> np.ndarray:
    """The embedding [1, d] of one composed scene, by the small CLIP (loaded here if not given).

    Parameters
    ----------
    attributes, second, seed, video
        As for :func:`core.grace.scenes.make_scene`.
    model : TinyCLIP, optional
        Default: ``load_model()`` (imports torch and transformers).

    Returns
    -------
    ndarray [1, d], float64
    """
    from core.grace.clip import embed_images, load_model

    scene = make_scene(attributes, second, seed=seed, video=video)
    return embed_images(model or load_model(), scene.images).astype(np.float64)


@dataclass
class SceneGrid:
    """The shipped grid's embeddings, looked up by composition."""

    images: np.ndarray        # [15984, d] at image_seed, in compositions() order
    clips: np.ndarray         # [432, d] at clip_seed, in compositions(video=True) order
    image_seed: int = COMPOSER_SEED
    clip_seed: int = CLIP_SEED

    def __post_init__(self):
        self._rows = {video: {_key(a, s, video): i for i, (a, s) in enumerate(compositions(video))}
                      for video in (False, True)}

    def lookup(self, attributes: dict, second: dict | None = None, seed: int = COMPOSER_SEED,
               video: bool = False) -> np.ndarray | None:
        """The shipped embedding [1, d] of this scene, or None when it is off the grid (another seed).

        Parameters
        ----------
        attributes, second, seed, video
            As for :func:`core.grace.scenes.make_scene`.

        Returns
        -------
        ndarray [1, d] (float64) or None
        """
        if seed != (self.clip_seed if video else self.image_seed):
            return None
        row = self._rows[video].get(_key(attributes, second, video))
        if row is None:
            return None
        return (self.clips if video else self.images)[row][None].astype(np.float64)

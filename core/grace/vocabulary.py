"""The small CLIP's word list and the concept vocabulary, with no torch in sight.

Kept apart from ``clip.py`` so that the page's first view, which reads shipped arrays only, can name
the concepts without importing torch or transformers. ``ASSETS`` is where every grace file is shipped.
"""

from __future__ import annotations

from core.common.assets import asset_dir
from core.grace.scenes import ATTRIBUTES, HIDDEN, MOTIONS, VIDEO_ATTRIBUTES

ASSETS = asset_dir("grace")
PAD, BOS, UNK, EOS = 0, 1, 2, 3
GLUE = ("a", "an", "object", "on", "the", "moving", "and", "tiny", "with")
DISTRACTORS = ("pink", "brown", "star", "hexagon", "oval", "dotted", "centre", "spinning", "dog", "tree")
UNNAMED = tuple(v for values in HIDDEN.values() for v in values)     # "solid", "striped": never in the vocabulary
WORDS = GLUE + tuple(v for values in ATTRIBUTES.values() for v in values) + MOTIONS + UNNAMED + DISTRACTORS
TOKEN = {w: i + 4 for i, w in enumerate(WORDS)}
MAX_LEN = 28


def default_vocabulary(video: bool = False) -> list[str]:
    """The concept words: every attribute value as make_scenes names it, then distractor words.

    Positions for images, motions for clips, then distractor words the captions never use ("pink",
    "dog"). The texture words ("striped") are left out on purpose: the unnamed concept of the world
    (see ``scenes.py``).

    Parameters
    ----------
    video : bool, default False
        Clips' vocabulary (motions instead of positions).

    Returns
    -------
    list of str
        29 words: 6 shapes, 6 colours, 3 sizes, 4 positions or motions, 10 distractors.

    References
    ----------
    .. [1] "GRACE concept decompositions" (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> words = default_vocabulary()
    >>> len(words), words[:3], "striped" in words
    (29, ['circle', 'square', 'triangle'], False)
    >>> default_vocabulary(video=True)[15:19]
    ['leftward', 'rightward', 'upward', 'downward']
    """
    names = VIDEO_ATTRIBUTES if video else ATTRIBUTES
    return [v for values in names.values() for v in values] + list(DISTRACTORS)

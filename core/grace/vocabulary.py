"""The small CLIP's word list and the concept vocabulary, with no torch in sight.

Kept apart from ``clip.py`` so that the page's first view, which reads shipped arrays only, can name
the concepts without importing torch or transformers. ``ASSETS`` is where every grace file is shipped.
"""

from __future__ import annotations

from pathlib import Path

from core.grace.scenes import ATTRIBUTES, HIDDEN, MOTIONS, VIDEO_ATTRIBUTES

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "grace"
PAD, BOS, UNK, EOS = 0, 1, 2, 3
GLUE = ("a", "an", "object", "on", "the", "moving", "and", "tiny", "with")
DISTRACTORS = ("pink", "brown", "star", "hexagon", "oval", "dotted", "centre", "spinning", "dog", "tree")
UNNAMED = tuple(v for values in HIDDEN.values() for v in values)     # "solid", "striped": never in the vocabulary
WORDS = GLUE + tuple(v for values in ATTRIBUTES.values() for v in values) + MOTIONS + UNNAMED + DISTRACTORS
TOKEN = {w: i + 4 for i, w in enumerate(WORDS)}
MAX_LEN = 28


def default_vocabulary(video: bool = False) -> list:
    """Concept words: every attribute value as make_scenes names it (motions for clips, positions
    for images), then distractor words the captions never use. The texture words ("striped") are
    left out on purpose: the unnamed concept of the world (see ``scenes.py``).

    Parameters
    ----------
    video : bool
        Clips' vocabulary (motions instead of positions).

    Returns
    -------
    list of str
    """
    names = VIDEO_ATTRIBUTES if video else ATTRIBUTES
    return [v for values in names.values() for v in values] + list(DISTRACTORS)

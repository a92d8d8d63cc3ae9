"""Seeded synthetic scenes whose true concepts are known: images, 8-frame clips and their captions.

The world is built so that the easy measures saturate less and the methods can be told apart
(issue 24; every choice here is ours):

- a *main* object with four named attributes, more values each: shape (6), colour (6), size (3) and,
  for images, position (4); for clips a motion direction (4) visible only across frames;
- correlated attributes: the main object's colour is its shape's typical colour (``TYPICAL``) with
  probability ``P_TYPICAL`` = 0.7, otherwise one of the other five, so "red" and "circle" travel
  together and a decomposition has to tell them apart;
- clutter and occlusion: one to three small *clutter* objects (2 to 4 objects in all) of any shape
  and colour anywhere in the image; each is painted over the main object with probability 0.3;
- a concept the vocabulary does not name: the main object is *striped* half of the time. Training
  captions say "striped", but ``default_vocabulary`` leaves the word out, so no decomposition has a
  code for it; whether its codes still keep striped scenes together is the "global structure" test;
- compositional captions: "a large striped red circle on the left with a tiny blue square and a tiny
  green ring" (the main object first, then each clutter object).

``attributes`` holds the main object's named values, exactly as the concept vocabulary names them;
``hidden`` holds the unnamed ones ({"texture": "solid" | "striped"}); ``clutter`` the clutter objects.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import check_range
from core.common.seeding import check_seed, make_rng

SIZE, FRAMES = 32, 8
ATTRIBUTES = {
    "shape": ("circle", "square", "triangle", "cross", "diamond", "ring"),
    "colour": ("red", "green", "blue", "yellow", "purple", "orange"),
    "size": ("small", "medium", "large"),
    "position": ("left", "right", "top", "bottom"),
}
MOTIONS = ("leftward", "rightward", "upward", "downward")
VIDEO_ATTRIBUTES = {**{k: v for k, v in ATTRIBUTES.items() if k != "position"}, "motion": MOTIONS}
ALL_ATTRIBUTES = {**ATTRIBUTES, **VIDEO_ATTRIBUTES}          # every attribute, images' and clips' alike
HIDDEN = {"texture": ("solid", "striped")}                   # rendered and captioned, never in the vocabulary
TYPICAL = dict(zip(ATTRIBUTES["shape"], ATTRIBUTES["colour"]))   # circle -> red, square -> green, ...
P_TYPICAL, P_STRIPED, P_OCCLUDE = 0.7, 0.5, 0.3
MAX_CLUTTER = 3
RGB = {"red": (220, 40, 40), "green": (40, 190, 60), "blue": (50, 80, 230), "yellow": (235, 215, 40),
       "purple": (150, 60, 200), "orange": (245, 140, 30)}
RADIUS = {"small": 4.0, "medium": 5.5, "large": 7.0, "tiny": 2.8}
CENTRE = {"left": (16, 8), "right": (16, 24), "top": (8, 16), "bottom": (24, 16)}   # (row, col)
STEP = {"leftward": (0, -1), "rightward": (0, 1), "upward": (-1, 0), "downward": (1, 0)}
_ROWS, _COLS = np.mgrid[0:SIZE, 0:SIZE] + 0.5


@dataclass
class Scenes:
    """Seeded scenes with their captions and true concepts (what :func:`make_scenes` returns).

    Attributes
    ----------
    images : numpy.ndarray
        uint8 [n, 32, 32, 3], or [n, 8, 32, 32, 3] for clips.
    captions : list of str
        The full template caption of each scene.
    attributes : list of dict
        The main object's ``{attribute: value}``, named as the concept vocabulary names them.
    clutter : list of list of dict
        Per scene, its clutter objects' ``{"shape", "colour"}``.
    hidden : list of dict
        Per scene, the main object's unnamed attributes (``{"texture": "solid" | "striped"}``).
    """

    images: np.ndarray            # uint8 [n, 32, 32, 3], or [n, 8, 32, 32, 3] for clips
    captions: list
    attributes: list              # the main object's {attribute: value}
    clutter: list                 # per scene, a list of {"shape", "colour"} of its clutter objects
    hidden: list                  # per scene, the main object's unnamed attributes ({"texture": ...})

    def __len__(self):
        return len(self.captions)

    @property
    def second(self) -> list:
        """The first clutter object of each scene, or None (the page's composer draws at most one)."""
        return [c[0] if c else None for c in self.clutter]


def shape_mask(shape: str, row: float, col: float, radius: float) -> np.ndarray:
    dr, dc = _ROWS - row, _COLS - col
    if shape == "circle":
        return dr**2 + dc**2 <= radius**2
    if shape == "ring":
        r2 = dr**2 + dc**2
        return (r2 <= radius**2) & (r2 >= (0.55 * radius) ** 2)
    if shape == "square":
        r = radius * 0.85
        return (np.abs(dr) <= r) & (np.abs(dc) <= r)
    if shape == "diamond":
        return np.abs(dr) + np.abs(dc) <= radius * 1.1
    if shape == "triangle":   # apex up, base at row + radius
        return (dr <= radius * 0.8) & (dr >= -radius) & (np.abs(dc) <= (dr + radius) * 0.55)
    arm = max(radius * 0.35, 1.0)   # cross
    return ((np.abs(dr) <= arm) & (np.abs(dc) <= radius)) | ((np.abs(dc) <= arm) & (np.abs(dr) <= radius))


def caption(attributes: dict, clutter=None, mention=None, texture: str = "solid") -> str:
    """Template caption; ``mention`` (a set of attribute names, "texture", "clutter") keeps only those words."""
    clutter = _as_clutter(clutter)
    keep = set(attributes) | {"texture", "clutter"} if mention is None else set(mention)
    words = [attributes["size"]] if "size" in keep and "size" in attributes else []
    if "texture" in keep and texture == "striped":
        words.append("striped")
    if "colour" in keep and "colour" in attributes:
        words.append(attributes["colour"])
    words.append(attributes["shape"] if "shape" in keep and "shape" in attributes else "object")
    if "position" in keep and "position" in attributes:
        words += ["on", "the", attributes["position"]]
    if "motion" in keep and "motion" in attributes:
        words += ["moving", attributes["motion"]]
    text = ("an " if words[0][0] in "aeiou" else "a ") + " ".join(words)
    if clutter and "clutter" in keep:
        text += " with " + " and ".join(f"a tiny {c['colour']} {c['shape']}" for c in clutter)
    return text


def _as_clutter(clutter) -> list:
    if clutter is None:
        return []
    return [clutter] if isinstance(clutter, dict) else list(clutter)


def _tint(colour: str, rng) -> np.ndarray:
    return np.clip(np.array(RGB[colour]) + rng.normal(0, 12, 3), 0, 255)


def _paint(canvas, mask, value, striped: bool = False, phase: float = 0.0):
    if striped:   # horizontal bands two pixels wide, darkened, fixed to the object
        dark = ((np.floor(_ROWS - phase) // 2) % 2 == 0) & mask
        canvas[mask & ~dark] = value
        canvas[dark] = value * 0.35
    else:
        canvas[mask] = value


def _background(rng, shape):
    return np.clip(rng.normal(30, 6, shape), 0, 255)


def _draw(rng, video: bool):
    names = VIDEO_ATTRIBUTES if video else ATTRIBUTES
    attrs = {name: str(values[rng.integers(len(values))]) for name, values in names.items()}
    typical = TYPICAL[attrs["shape"]]
    attrs["colour"] = typical if rng.random() < P_TYPICAL else \
        str(rng.choice([c for c in ATTRIBUTES["colour"] if c != typical]))
    attrs = {name: attrs[name] for name in names}
    texture = "striped" if rng.random() < P_STRIPED else "solid"
    clutter = [{"shape": str(rng.choice(ATTRIBUTES["shape"])), "colour": str(rng.choice(ATTRIBUTES["colour"]))}
               for _ in range(int(rng.integers(1, MAX_CLUTTER + 1)))]
    return attrs, clutter, texture


def _clutter_layers(clutter, rng, video: bool):
    """(mask, colour, painted over the main object?) for each clutter object."""
    out = []
    for c in clutter:
        row, col = rng.uniform(3, SIZE - 3, 2)
        out.append((shape_mask(c["shape"], row, col, RADIUS["tiny"]), c["colour"],
                    bool(rng.random() < P_OCCLUDE)))
    return out


def render_image(attrs: dict, clutter, rng, texture: str = "solid") -> np.ndarray:
    canvas = _background(rng, (SIZE, SIZE, 3))
    layers = _clutter_layers(_as_clutter(clutter), rng, False)
    for mask, colour, over in layers:
        if not over:
            _paint(canvas, mask, _tint(colour, rng))
    row, col = CENTRE[attrs["position"]]
    row, col = row + rng.uniform(-2, 2), col + rng.uniform(-2, 2)
    _paint(canvas, shape_mask(attrs["shape"], row, col, RADIUS[attrs["size"]]), _tint(attrs["colour"], rng),
           striped=texture == "striped", phase=row)
    for mask, colour, over in layers:
        if over:
            _paint(canvas, mask, _tint(colour, rng))
    return canvas.astype(np.uint8)


def render_clip(attrs: dict, clutter, rng, texture: str = "solid") -> np.ndarray:
    """8 frames of the main object moving 2 px a frame; clutter stands still (some of it in front)."""
    radius = RADIUS[attrs["size"]]
    d_row, d_col = STEP[attrs["motion"]]
    travel = 2.0 * (FRAMES - 1)
    lo, hi = radius + 1, SIZE - radius - 1
    start = [rng.uniform(lo, hi), rng.uniform(lo, hi)]
    for axis, d in ((0, d_row), (1, d_col)):
        if d:
            start[axis] = rng.uniform(lo, hi - travel) if d > 0 else rng.uniform(lo + travel, hi)
    base = _background(rng, (SIZE, SIZE, 3))
    layers = _clutter_layers(_as_clutter(clutter), rng, True)
    front = np.zeros_like(base)
    front_mask = np.zeros((SIZE, SIZE), bool)
    for mask, colour, over in layers:
        _paint(front if over else base, mask, _tint(colour, rng))
        if over:
            front_mask |= mask
    value = _tint(attrs["colour"], rng)          # one colour for every frame
    frames = np.empty((FRAMES, SIZE, SIZE, 3), np.uint8)
    for t in range(FRAMES):
        frame = base.copy()
        row = start[0] + 2 * t * d_row
        _paint(frame, shape_mask(attrs["shape"], row, start[1] + 2 * t * d_col, radius), value,
               striped=texture == "striped", phase=row)
        frame[front_mask] = front[front_mask]
        frames[t] = frame
    return frames


def make_scene(attributes: dict, second=None, seed: int = 0, video: bool = False, texture: str = "solid") -> Scenes:
    """One scene with chosen attributes (the page's composer); jitter and noise come from ``seed``.

    Parameters
    ----------
    attributes : dict
        The main object's value for every attribute: shape, colour, size and position (images) or
        motion (clips), each one of ``ATTRIBUTES`` / ``VIDEO_ATTRIBUTES``; extra keys are ignored.
    second : dict or list of dict, optional
        Clutter: one tiny object ``{"shape", "colour"}``, a list of them, or None for none.
    seed : int, default 0
        Seeds the position jitter, colour noise and background (0 to 2**32 - 1).
    video : bool, default False
        Render an 8-frame clip of the object moving instead of one image.
    texture : {"solid", "striped"}, default "solid"
        The main object's texture, the concept no vocabulary word names.

    Returns
    -------
    Scenes
        A set of one scene: ``images`` of shape (1, 32, 32, 3) or (1, 8, 32, 32, 3) and its caption.

    Raises
    ------
    ValueError
        ``"<attribute>: ... is not allowed; allowed ..."`` for a value outside the world's.

    References
    ----------
    .. [1] "GRACE concept decompositions" (NeurIPS 2026, ``docs/PAPERS.md``); this
       synthetic world (ours) stands in for its image and video benchmarks.

    Examples
    --------
    >>> one = make_scene({"shape": "circle", "colour": "red", "size": "large", "position": "left"},
    ...                  {"shape": "square", "colour": "blue"})
    >>> one.images.shape, one.captions[0]
    ((1, 32, 32, 3), 'a large red circle on the left with a tiny blue square')
    """
    seed = check_seed(seed)
    names = VIDEO_ATTRIBUTES if video else ATTRIBUTES
    for name, values in names.items():
        if attributes.get(name) not in values:
            raise ValueError(f"{name}: {attributes.get(name)!r} is not allowed; allowed {', '.join(values)}")
    if texture not in HIDDEN["texture"]:
        raise ValueError(f"texture: {texture!r} is not allowed; allowed {', '.join(HIDDEN['texture'])}")
    clutter = _as_clutter(second)
    for c in clutter:
        for name in ("shape", "colour"):
            if c.get(name) not in ATTRIBUTES[name]:
                raise ValueError(f"second: {name} {c.get(name)!r} is not allowed; allowed "
                                 f"{', '.join(ATTRIBUTES[name])}")
    rng = make_rng(seed)
    attrs = {k: attributes[k] for k in names}
    image = (render_clip if video else render_image)(attrs, clutter, rng, texture)
    return Scenes(image[None], [caption(attrs, clutter, texture=texture)], [attrs], [clutter], [{"texture": texture}])


def make_scenes(n: int, seed: int, video: bool = False) -> Scenes:
    """``n`` seeded random scenes (images, or 8-frame clips when ``video``) with captions and true attributes.

    Each scene's main object draws every attribute uniformly, except its colour, which is its shape's
    typical colour with probability 0.7; it is striped with probability 0.5; one to three tiny clutter
    objects are added, each painted over the main object with probability 0.3 (see the module docstring).

    Parameters
    ----------
    n : int
        Number of scenes, 1 to 1,000,000.
    seed : int
        Seeds everything drawn (0 to 2**32 - 1); the same seed gives the same scenes.
    video : bool, default False
        Clips (motion instead of position) instead of images.

    Returns
    -------
    Scenes
        ``images`` of shape (n, 32, 32, 3), or (n, 8, 32, 32, 3) for clips, and per-scene truths.

    References
    ----------
    .. [1] "GRACE concept decompositions" (NeurIPS 2026, ``docs/PAPERS.md``); this
       synthetic world (ours) stands in for its image and video benchmarks.

    Examples
    --------
    >>> scenes = make_scenes(3, seed=0)
    >>> scenes.images.shape, len(scenes.captions), sorted(scenes.attributes[0])
    ((3, 32, 32, 3), 3, ['colour', 'position', 'shape', 'size'])
    >>> make_scenes(2, seed=1, video=True).images.shape
    (2, 8, 32, 32, 3)
    """
    seed = check_seed(seed)
    n = check_range("n", n, 1, 1_000_000, integer=True)
    rng = make_rng(seed)
    images, captions, attributes, clutters, hidden = [], [], [], [], []
    for _ in range(n):
        attrs, clutter, texture = _draw(rng, video)
        images.append((render_clip if video else render_image)(attrs, clutter, rng, texture))
        captions.append(caption(attrs, clutter, texture=texture))
        attributes.append(attrs)
        clutters.append(clutter)
        hidden.append({"texture": texture})
    return Scenes(np.stack(images), captions, attributes, clutters, hidden)

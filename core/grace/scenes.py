"""Seeded synthetic scenes whose true concepts are known: images, 8-frame clips and their captions.

A scene has a *main* object (shape, colour, size and, for images, position; for clips, a motion
direction visible only across frames) and, half of the time, a *tiny* second object of another
shape and colour in the opposite part of the image. Captions are template text that always
describes the main object first: "a large red circle on the left and a tiny blue square".
``attributes`` holds the main object's values, named exactly as the concept vocabulary names them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import check_range
from core.common.seeding import make_rng

SIZE, FRAMES = 32, 8
ATTRIBUTES = {
    "shape": ("circle", "square", "triangle", "cross"),
    "colour": ("red", "green", "blue", "yellow"),
    "size": ("small", "large"),
    "position": ("left", "right", "top", "bottom"),
}
MOTIONS = ("leftward", "rightward", "upward", "downward")
VIDEO_ATTRIBUTES = {**{k: v for k, v in ATTRIBUTES.items() if k != "position"}, "motion": MOTIONS}
ALL_ATTRIBUTES = {**ATTRIBUTES, **VIDEO_ATTRIBUTES}          # every attribute, images' and clips' alike
RGB = {"red": (220, 40, 40), "green": (40, 190, 60), "blue": (50, 80, 230), "yellow": (235, 215, 40)}
RADIUS = {"small": 4.0, "large": 7.0, "tiny": 2.5}
CENTRE = {"left": (16, 8), "right": (16, 24), "top": (8, 16), "bottom": (24, 16)}   # (row, col)
OPPOSITE = {"left": "right", "right": "left", "top": "bottom", "bottom": "top"}
STEP = {"leftward": (0, -1), "rightward": (0, 1), "upward": (-1, 0), "downward": (1, 0)}
_ROWS, _COLS = np.mgrid[0:SIZE, 0:SIZE] + 0.5


@dataclass
class Scenes:
    images: np.ndarray            # uint8 [n, 32, 32, 3], or [n, 8, 32, 32, 3] for clips
    captions: list
    attributes: list              # the main object's {attribute: value}
    second: list                  # {"shape", "colour"} of the tiny second object, or None

    def __len__(self):
        return len(self.captions)


def shape_mask(shape: str, row: float, col: float, radius: float) -> np.ndarray:
    dr, dc = _ROWS - row, _COLS - col
    if shape == "circle":
        return dr**2 + dc**2 <= radius**2
    if shape == "square":
        r = radius * 0.85
        return (np.abs(dr) <= r) & (np.abs(dc) <= r)
    if shape == "triangle":   # apex up, base at row + radius
        return (dr <= radius * 0.8) & (dr >= -radius) & (np.abs(dc) <= (dr + radius) * 0.55)
    arm = max(radius * 0.35, 1.0)   # cross
    return ((np.abs(dr) <= arm) & (np.abs(dc) <= radius)) | ((np.abs(dc) <= arm) & (np.abs(dr) <= radius))


def caption(attributes: dict, second: dict | None = None, mention=None) -> str:
    """Template caption; ``mention`` (a set of attribute names) keeps only those words."""
    keep = set(attributes) if mention is None else set(mention)
    words = [attributes[k] for k in ("size", "colour") if k in keep and k in attributes]
    words.append(attributes["shape"] if "shape" in keep else "object")
    if "position" in keep and "position" in attributes:
        words += ["on", "the", attributes["position"]]
    if "motion" in keep and "motion" in attributes:
        words += ["moving", attributes["motion"]]
    text = ("an " if words[0][0] in "aeiou" else "a ") + " ".join(words)
    if second is not None and (mention is None or "second" in keep):
        text += f" and a tiny {second['colour']} {second['shape']}"
    return text


def _paint(canvas, shape, colour, row, col, radius, rng):
    jitter = rng.normal(0, 12, 3)
    canvas[shape_mask(shape, row, col, radius)] = np.clip(np.array(RGB[colour]) + jitter, 0, 255)


def _background(rng, shape):
    return np.clip(rng.normal(30, 6, shape), 0, 255)


def _draw(rng, choose, video: bool):
    attrs = {name: str(values[choose(len(values))]) for name, values in
             (VIDEO_ATTRIBUTES if video else ATTRIBUTES).items()}
    second = None
    if rng.random() < 0.5:
        second = {"shape": str(rng.choice([s for s in ATTRIBUTES["shape"] if s != attrs["shape"]])),
                  "colour": str(rng.choice([c for c in ATTRIBUTES["colour"] if c != attrs["colour"]]))}
    return attrs, second


def render_image(attrs: dict, second: dict | None, rng) -> np.ndarray:
    canvas = _background(rng, (SIZE, SIZE, 3))
    if second is not None:
        row, col = CENTRE[OPPOSITE[attrs["position"]]]
        _paint(canvas, second["shape"], second["colour"], row + rng.uniform(-3, 3), col + rng.uniform(-3, 3),
               RADIUS["tiny"], rng)
    row, col = CENTRE[attrs["position"]]
    _paint(canvas, attrs["shape"], attrs["colour"], row + rng.uniform(-2, 2), col + rng.uniform(-2, 2),
           RADIUS[attrs["size"]], rng)
    return canvas.astype(np.uint8)


def render_clip(attrs: dict, second: dict | None, rng) -> np.ndarray:
    """8 frames of the main object moving 2 px a frame; the second object, if any, stands still."""
    radius = RADIUS[attrs["size"]]
    d_row, d_col = STEP[attrs["motion"]]
    travel = 2.0 * (FRAMES - 1)
    lo, hi = radius + 1, SIZE - radius - 1
    start = [rng.uniform(lo, hi), rng.uniform(lo, hi)]
    for axis, d in ((0, d_row), (1, d_col)):
        if d:
            start[axis] = rng.uniform(lo, hi - travel) if d > 0 else rng.uniform(lo + travel, hi)
    base = _background(rng, (SIZE, SIZE, 3))
    if second is not None:
        _paint(base, second["shape"], second["colour"], rng.uniform(4, 28), rng.uniform(4, 28), RADIUS["tiny"], rng)
    colour = np.clip(np.array(RGB[attrs["colour"]]) + rng.normal(0, 12, 3), 0, 255)
    frames = np.empty((FRAMES, SIZE, SIZE, 3), np.uint8)
    for t in range(FRAMES):
        frame = base.copy()
        frame[shape_mask(attrs["shape"], start[0] + 2 * t * d_row, start[1] + 2 * t * d_col, radius)] = colour
        frames[t] = frame
    return frames


def make_scene(attributes: dict, second: dict | None = None, seed: int = 0, video: bool = False) -> Scenes:
    """One scene with chosen attributes (the page's composer); jitter and noise come from ``seed``."""
    names = VIDEO_ATTRIBUTES if video else ATTRIBUTES
    for name, values in names.items():
        if attributes.get(name) not in values:
            raise ValueError(f"{name}: {attributes.get(name)!r} is not allowed; allowed {', '.join(values)}")
    rng = make_rng(seed)
    attrs = {k: attributes[k] for k in names}
    image = (render_clip if video else render_image)(attrs, second, rng)
    return Scenes(image[None], [caption(attrs, second)], [attrs], [second])


def make_scenes(n: int, seed: int, video: bool = False) -> Scenes:
    """``n`` seeded scenes (images, or 8-frame clips when ``video``) with captions and true attributes."""
    n = check_range("n", n, 1, 1_000_000, integer=True)
    rng = make_rng(seed)
    images, captions, attributes, seconds = [], [], [], []
    for _ in range(n):
        attrs, second = _draw(rng, lambda k: rng.integers(k), video)
        images.append((render_clip if video else render_image)(attrs, second, rng))
        captions.append(caption(attrs, second))
        attributes.append(attrs)
        seconds.append(second)
    return Scenes(np.stack(images), captions, attributes, seconds)

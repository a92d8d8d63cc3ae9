"""Seeding: every random function takes ``seed`` and draws from a generator of its own.

Nothing here touches global random state except :func:`torch_seeded`, which exists because
``torch.nn`` initialises parameters from torch's global generator; it forks that state and
restores it on exit, so building a model under a seed never disturbs the caller's randomness.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

import numpy as np

MAX_SEED = 2**32 - 1


def check_seed(seed: object, field: str = "seed") -> int:
    """Return ``seed`` as an int, or raise ``ValueError`` naming the field and the allowed range."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"{field}: expected an integer, got {seed!r}; allowed 0..{MAX_SEED}")
    if not 0 <= int(seed) <= MAX_SEED:
        raise ValueError(f"{field}: {seed} is out of range; allowed 0..{MAX_SEED}")
    return int(seed)


def make_rng(seed: int) -> np.random.Generator:
    """A fresh NumPy generator (PCG64) for this call alone."""
    return np.random.default_rng(check_seed(seed))


def make_torch_generator(seed: int, device: str = "cpu"):
    """A fresh ``torch.Generator`` on ``device`` seeded with ``seed``."""
    import torch

    gen = torch.Generator(device=device)
    gen.manual_seed(check_seed(seed))
    return gen


@contextlib.contextmanager
def torch_seeded(seed: int) -> Iterator[None]:
    """Run a block (typically model construction) under ``seed`` without leaking global state."""
    import torch

    seed = check_seed(seed)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield

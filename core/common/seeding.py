"""Seeding: every random function takes ``seed`` and draws from a generator of its own.

Child seeds come from :func:`derive_seed` (a SeedSequence keyed by the parent seed and a path),
never from arithmetic on seeds: ``seed + 1000 * i`` overflows the allowed range at its top and
collides (seed s at i = 1 equals seed s + 1000 at i = 0).

Nothing here touches global random state except :func:`torch_seeded`, which exists because
``torch.nn`` initialises parameters from torch's global generator; it forks that state and
restores it on exit, so building a model under a seed never disturbs the caller's randomness.
"""

from __future__ import annotations

import contextlib
import zlib
from typing import TYPE_CHECKING, Iterator

import numpy as np

if TYPE_CHECKING:
    import torch

MAX_SEED = 2**32 - 1


def check_seed(seed: object, field: str = "seed") -> int:
    """Return ``seed`` as an int, or raise ``ValueError`` naming the field and the allowed range.

    Parameters
    ----------
    seed : object
        The value to check: an integer (Python or NumPy) in ``0..MAX_SEED``; booleans are refused.
    field : str
        The name the error message gives the value (a config field, a widget).

    Returns
    -------
    int
        ``seed`` as a Python int.

    Raises
    ------
    ValueError
        ``"<field>: ...; allowed 0..4294967295"`` for a non-integer or an out-of-range value.

    Examples
    --------
    >>> check_seed(np.int64(7))
    7
    >>> check_seed(-1, field="fold seed")
    Traceback (most recent call last):
    ...
    ValueError: fold seed: -1 is out of range; allowed 0..4294967295
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"{field}: expected an integer, got {seed!r}; allowed 0..{MAX_SEED}")
    if not 0 <= int(seed) <= MAX_SEED:
        raise ValueError(f"{field}: {seed} is out of range; allowed 0..{MAX_SEED}")
    return int(seed)


def _path_entropy(part: object) -> int:
    if isinstance(part, bool):
        raise ValueError(f"path: {part!r} is not a seed path entry; allowed non-negative integers and strings")
    if isinstance(part, (int, np.integer)) and int(part) >= 0:
        return int(part)
    if isinstance(part, str):   # a stable hash (not Python's salted hash()), offset past small integers
        return 2**32 + zlib.crc32(part.encode("utf-8"))
    raise ValueError(f"path: {part!r} is not a seed path entry; allowed non-negative integers and strings")


def derive_seed(seed: int, *path: int | str) -> int:
    """A child seed for ``path`` (e.g. ``derive_seed(seed, "fold", 3)``), valid for every allowed seed.

    Parameters
    ----------
    seed : int
        The parent seed, in ``0..MAX_SEED``.
    *path : int or str
        What the child is for: non-negative integers (an index) and strings (a name).

    Returns
    -------
    int
        ``SeedSequence(seed, spawn_key=path).generate_state(1)[0]``: a seed in ``0..MAX_SEED``, the
        same for the same arguments in every process, and independent across distinct paths
        (``(1,)`` and ``(1, 0)`` differ; ``derive_seed(s, i)`` is the seed of ``SeedSequence(s).spawn(i + 1)[i]``).

    Examples
    --------
    >>> derive_seed(0, "fold", 3) == derive_seed(0, "fold", 3)
    True
    >>> len({derive_seed(MAX_SEED, i) for i in range(100)})
    100
    """
    key = tuple(_path_entropy(p) for p in path)
    return int(np.random.SeedSequence(check_seed(seed), spawn_key=key).generate_state(1)[0])


def derive_rng(seed: int, *path: int | str) -> np.random.Generator:
    """A NumPy generator seeded with :func:`derive_seed` ``(seed, *path)``.

    Parameters
    ----------
    seed : int
        The parent seed, in ``0..MAX_SEED``.
    *path : int or str
        What the generator is for (see :func:`derive_seed`).

    Returns
    -------
    numpy.random.Generator
        A PCG64 generator of its own: the same draws for the same arguments.

    Examples
    --------
    >>> a, b = derive_rng(5, "noise").random(3), derive_rng(5, "noise").random(3)
    >>> bool(np.array_equal(a, b)), bool(np.array_equal(a, derive_rng(5, "init").random(3)))
    (True, False)
    """
    return np.random.default_rng(derive_seed(seed, *path))


def make_rng(seed: int) -> np.random.Generator:
    """A fresh NumPy generator (PCG64) for this call alone.

    Parameters
    ----------
    seed : int
        In ``0..MAX_SEED`` (checked by :func:`check_seed`).

    Returns
    -------
    numpy.random.Generator
        ``np.random.default_rng(seed)``; global NumPy state is never touched.

    Examples
    --------
    >>> bool(make_rng(3).random() == make_rng(3).random())
    True
    """
    return np.random.default_rng(check_seed(seed))


def make_torch_generator(seed: int, device: str = "cpu") -> torch.Generator:
    """A fresh ``torch.Generator`` on ``device`` seeded with ``seed``.

    Parameters
    ----------
    seed : int
        In ``0..MAX_SEED``.
    device : str
        The torch device the generator draws on (``"cpu"`` for CPU tensors).

    Returns
    -------
    torch.Generator
        Pass it as ``generator=`` to ``torch.randn`` and friends.

    Examples
    --------
    >>> import torch
    >>> bool(torch.equal(torch.rand(2, generator=make_torch_generator(1)), torch.rand(2, generator=make_torch_generator(1))))
    True
    """
    import torch

    gen = torch.Generator(device=device)
    gen.manual_seed(check_seed(seed))
    return gen


@contextlib.contextmanager
def torch_seeded(seed: int) -> Iterator[None]:
    """Run a block (typically model construction) under ``seed`` without leaking global state.

    Parameters
    ----------
    seed : int
        In ``0..MAX_SEED``: torch's global generator is set to it inside the block.

    Yields
    ------
    None
        On exit torch's global random state is what it was before the block.

    Examples
    --------
    >>> import torch
    >>> with torch_seeded(0):
    ...     a = torch.nn.Linear(2, 1).weight.detach().clone()
    >>> with torch_seeded(0):
    ...     b = torch.nn.Linear(2, 1).weight.detach().clone()
    >>> bool(torch.equal(a, b))
    True
    """
    import torch

    seed = check_seed(seed)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield

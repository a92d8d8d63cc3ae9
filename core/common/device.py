"""Device choice: the CPU unless CUDA is present and was asked for.

The request comes from the caller, else from the ``PAPERLAB_DEVICE`` environment variable, else
"cpu". "auto" takes CUDA when torch sees it. Asking for "cuda" where there is none is an error
rather than a silent fallback, so a benchmark never reports CPU numbers under a GPU label.
"""

from __future__ import annotations

import os

from core.common.config import check_choice

DEVICES = ("cpu", "cuda", "auto")


def choose_device(requested: str | None = None) -> str:
    """The torch device a run uses: ``"cpu"`` unless CUDA is present and was asked for.

    Parameters
    ----------
    requested : {"cpu", "cuda", "auto"} or None
        None reads ``PAPERLAB_DEVICE`` (default ``"cpu"``); ``"auto"`` takes CUDA when torch sees it.

    Returns
    -------
    str
        ``"cpu"`` or ``"cuda"``. torch is imported only when CUDA might be used.

    Raises
    ------
    ValueError
        For an unknown name, or ``"cuda"`` where torch sees no CUDA device (never a silent fallback).

    Examples
    --------
    >>> choose_device("cpu")
    'cpu'
    >>> choose_device("tpu")
    Traceback (most recent call last):
    ...
    ValueError: device: 'tpu' is not an option; allowed 'cpu', 'cuda', 'auto'
    """
    requested = requested if requested is not None else os.environ.get("PAPERLAB_DEVICE", "cpu")
    requested = check_choice("device", str(requested).lower(), DEVICES)
    if requested == "cpu":
        return "cpu"
    import torch

    available = torch.cuda.is_available()
    if requested == "auto":
        return "cuda" if available else "cpu"
    if not available:
        raise ValueError("device: 'cuda' was asked for but torch sees no CUDA device; allowed 'cpu', 'auto'")
    return "cuda"

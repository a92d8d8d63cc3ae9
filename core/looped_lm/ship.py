"""The looped_lm page's first view as shipped arrays, so opening the page runs no model.

    python -m core.looped_lm.ship      # after python -m core.looped_lm.pretrained; a few seconds

Writes ``assets/looped_lm/views.npz``: for each shipped design ("stable", "unstable") its
:class:`~core.looped_lm.view.LoopView` at ``MAX_LOOPS`` loops (entries ``<design>/loop/<field>``) and
its :class:`~core.looped_lm.view.StageView` against the shipped feedforward model
(``<design>/stage/<field>``), from the shipped checkpoints and the probe batches of :mod:`.view`.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from core.looped_lm.config import DESIGNS
from core.looped_lm.pretrained import load_pretrained
from core.looped_lm.view import VIEWS, loop_view, stage_view


def ship_views() -> dict:
    """Every array of ``views.npz``, keyed as the file keys them."""
    feedforward, _ = load_pretrained("feedforward")
    arrays = {}
    for name in DESIGNS:
        model, task = load_pretrained(name)
        for part, record in (("loop", loop_view(model, task)), ("stage", stage_view(model, feedforward, task))):
            for field in dataclasses.fields(record):
                value = np.asarray(getattr(record, field.name))
                arrays[f"{name}/{part}/{field.name}"] = value.astype(np.float32) if value.dtype.kind == "f" else value
    return arrays


def main() -> None:
    arrays = ship_views()
    np.savez_compressed(VIEWS, **arrays)
    print(f"wrote {VIEWS} ({VIEWS.stat().st_size / 1e3:.0f} kB, {len(arrays)} arrays)")


if __name__ == "__main__":
    main()

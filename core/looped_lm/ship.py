"""The looped_lm asset builder: the shipped checkpoints, and the page's first view as shipped arrays.

    python -m core.looped_lm.ship checkpoints [names]   # retrain shipped models (all seven by default)
    python -m core.looped_lm.ship                       # then the first view from them; about a minute

``checkpoints`` trains each named model of :data:`~core.looped_lm.config.SHIPPED` (seed 0) and writes
``assets/looped_lm/<name>/`` (safetensors + JSON; :mod:`.pretrained` defines and loads them).
Without a subcommand (or with ``views``), it reads those checkpoints so that opening the page runs no model.

Writes ``assets/looped_lm/views.npz``: for each shipped design ("stable", "unstable") its
:class:`~core.looped_lm.view.LoopView` at ``MAX_LOOPS`` loops (entries ``<design>/loop/<field>``) and
its :class:`~core.looped_lm.view.StageView` against the shipped feedforward model
(``<design>/stage/<field>``) and its cycle's spectral radius (``<design>/radius``); the pointer model's
:class:`~core.looped_lm.view.HopStages` against the pointer feedforward model (``pointer/hops/<field>``)
and the same for an untrained block of its design (``untrained/hops/<field>``); all from the shipped
checkpoints and the probe batches of :mod:`.view`.
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np

from core.common.config import check_choice
from core.looped_lm.config import DESIGNS, SHIPPED
from core.looped_lm.pretrained import load_pretrained
from core.looped_lm.view import MAX_LOOPS, VIEWS, loop_view, stage_view

HOP_LOOPS = 12   # the pointer model's stages, loop by loop: all 8 hops are read by loop 4


def _put(arrays: dict, prefix: str, record) -> None:
    for field in dataclasses.fields(record):
        value = np.asarray(getattr(record, field.name))
        arrays[f"{prefix}/{field.name}"] = value.astype(np.float32) if value.dtype.kind == "f" else value


def cycle_radius(model, task) -> float:
    """Spectral radius of the cycle map at the state after ``MAX_LOOPS`` loops (two probe samples)."""
    from core.looped_lm.cache import run_with_cache
    from core.looped_lm.metrics import spectral_radius
    from core.looped_lm.view import PROBE_SEED

    ids, _ = task.sample(2, PROBE_SEED)
    cache = run_with_cache(model, ids, MAX_LOOPS)
    return spectral_radius(lambda s: model.step(s, cache.prelude), cache.states[-1])


def ship_views() -> dict:
    """Every array of ``views.npz``, keyed as the file keys them."""
    from core.looped_lm.evidence import untrained_like
    from core.looped_lm.stages import hop_stages

    feedforward = load_pretrained("feedforward").model
    arrays = {}
    for name in DESIGNS:
        shipped = load_pretrained(name)
        model, task = shipped.model, shipped.task
        _put(arrays, f"{name}/loop", loop_view(model, task))
        _put(arrays, f"{name}/stage", stage_view(model, feedforward, task))
        arrays[f"{name}/radius"] = np.float64(cycle_radius(model, task))
    shipped = load_pretrained("pointer")
    pointer, task = shipped.model, shipped.task
    pointer_ff = load_pretrained("pointer_feedforward").model
    _put(arrays, "pointer/hops", hop_stages(pointer, pointer_ff, task, loops=HOP_LOOPS))
    _put(arrays, "untrained/hops", hop_stages(untrained_like(pointer), pointer_ff, task, loops=HOP_LOOPS))
    return arrays


def ship_checkpoints(names=None) -> list:
    """Train and write the shipped models ``names`` (default: every name of ``SHIPPED``); their folders."""
    from core.looped_lm.pretrained import ship

    names = list(names or SHIPPED)
    for name in names:
        check_choice("name", name, tuple(SHIPPED))
    return [ship(name) for name in names]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m core.looped_lm.ship", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command")
    checkpoints = commands.add_parser("checkpoints", help="retrain shipped models and write their checkpoints")
    checkpoints.add_argument("names", nargs="*", metavar="name",
                             help=f"any of {', '.join(SHIPPED)} (default: all)")
    commands.add_parser("views", help="write views.npz from the shipped checkpoints (the default)")
    args = parser.parse_args(argv)
    if args.command == "checkpoints":
        for folder in ship_checkpoints(args.names):
            print(f"wrote {folder}")
        return
    arrays = ship_views()
    np.savez_compressed(VIEWS, **arrays)
    print(f"wrote {VIEWS} ({VIEWS.stat().st_size / 1e3:.0f} kB, {len(arrays)} arrays)")


if __name__ == "__main__":
    main()

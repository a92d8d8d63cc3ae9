"""The distributional_steering asset builder.

    python -m core.distributional_steering.ship protein     # about 4 min on 2 cores
    python -m core.distributional_steering.ship view        # about a second

``protein`` (also what runs without a subcommand) samples 30000 Langevin conformations of the toy
protein, trains the denoiser on them and writes ``assets/distributional_steering/``: the checkpoint
(``protein_denoiser/``), 4000 of the conformations (``protein_reference.npy``) and a JSON of the
numbers (``protein_reference.json``). :mod:`.protein` defines the protein, does the work
(:func:`~core.distributional_steering.protein.ship`) and reads it back
(:func:`~core.distributional_steering.protein.load_protein`). ``view`` writes the page's first view,
the default scenario's run (``run_seed0.npz``, :mod:`.views`).
"""

from __future__ import annotations

import argparse
import json


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m core.distributional_steering.ship",
                                     description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("protein", help="the protein's reference sample and denoiser (the default)")
    commands.add_parser("view", help="the page's first view: the default scenario's run, seed 0")
    args = parser.parse_args(argv)
    if args.command == "view":
        from core.distributional_steering.views import write_view

        print(json.dumps(write_view(), indent=2))
        return
    from core.common.progress import TqdmProgress
    from core.distributional_steering.protein import ship

    with TqdmProgress(desc="langevin") as sampling, TqdmProgress(desc="denoiser") as training:
        print(json.dumps(ship(sample_progress=sampling, train_progress=training), indent=2))


if __name__ == "__main__":
    main()

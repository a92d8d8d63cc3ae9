"""geto_lp's applications, measured: averaged organ volumes and blended colour palettes (3-D grids).

Each cell is one cohort of M = 3 inputs on an n x n x n grid:

- ``volumes``: three "patients" (``core.geto_lp.volumes.organ_volume``, seeded kidney-like densities),
  voxel spacing 1;
- ``palettes``: the colour histograms (n bins per channel, spacing 1/n) of three different scenes
  (``core.geto_lp.palettes``), the scenes and their layouts drawn from the cohort's seed.

Every candidate average is scored the same way, exactly (``exact_objective``: the barycenter objective
at it, each term by ``ot.emd2``): GETO-LP's barycenter; the classical LP's (``M N^2 + N`` variables)
solved by the same scaled, tightened HiGHS call as GETO-LP (the reference: the optimum); POT's
classical LP barycenter (``ot.lp.barycenter``, scipy's HiGHS at its default tolerances, reported: it
lands up to 7e-6 above the optimum on the volumes, so it cannot judge 1e-6); the Euclidean average of
the inputs (the null: an average that is not a Wasserstein barycenter); POT's entropic barycenter
(``ot.bregman.barycenter``, reg 0.01). Gaps are relative to the reference's rescored objective.
For palettes, the transfer (the page's recolouring through GETO-LP's plan to the barycenter) is
scored too: the recoloured image's palette against the original's, each by its W2² to the barycenter.

    python bench/geto_lp.py --applications   # this section only; the rest of geto_lp.json is kept
"""

from __future__ import annotations

import time

import numpy as np

APPLICATIONS = ("volumes", "palettes")
SIZES = (6, 7, 8)
COHORTS = 5
SEED = 2026
M = 3


def cohort_problem(application: str, n: int, cohort: int):
    """The cohort's inputs: a :class:`core.geto_lp.problems.Problem` and, for palettes, the scenes and seed."""
    from core.common.seeding import derive_seed, make_rng
    from core.geto_lp.palettes import SCENES
    from core.geto_lp.problems import problem_inputs

    seed = derive_seed(SEED, application, n, cohort)
    if application == "volumes":
        return problem_inputs("volumes", tuple(range(M)), n, seed=seed), None, seed
    if application != "palettes":
        raise ValueError(f"application: {application!r}; allowed {', '.join(APPLICATIONS)}")
    scenes = tuple(make_rng(seed).choice(sorted(SCENES), size=M, replace=False))
    return problem_inputs("palettes", scenes, n, seed=seed), scenes, seed


def classical_lp_barycenter(histograms: np.ndarray, C: np.ndarray) -> tuple[np.ndarray, float, float]:
    """The classical LP (``M N^2 + N`` variables, uniform weights), solved by our scaled, tightened HiGHS call.

    POT's ``ot.lp.barycenter`` builds the same LP but runs scipy's HiGHS at its default tolerances, which leave
    its barycenter about 1e-6 above the optimum on 3-D volumes (``core/geto_lp/solve.py``'s notes); this is the
    tight reference. Rows: each plan's row sums are its input, its column sums the barycenter (one column row
    dropped per input after the first, as it is implied). Returns the barycenter, the LP's objective and seconds.
    """
    import scipy.sparse as sp

    from core.geto_lp.solve import solve_lp

    m, n = histograms.shape[0], histograms[0].size
    keep = [n] + [n - 1] * (m - 1)                     # column rows kept per input
    row_sums = sp.block_diag([sp.kron(sp.eye(n), np.ones((1, n)))] * m)
    col_sums = sp.block_diag([sp.kron(np.ones((1, n)), sp.eye(n)).tocsr()[:k] for k in keep])
    barycenter_cols = sp.vstack([sp.eye(n).tocsr()[:k] for k in keep])
    A = sp.vstack([sp.hstack([row_sums, sp.csr_matrix((m * n, n))]),
                   sp.hstack([col_sums, -barycenter_cols])]).tocsc()
    rhs = [histograms.reshape(m, n).reshape(-1), np.zeros(sum(keep))]
    c = np.concatenate([np.tile(C.reshape(-1) / m, m), np.zeros(n)])
    solution = solve_lp(c, A, np.concatenate(rhs))
    if solution.x is None:
        raise RuntimeError(f"the classical LP ended {solution.status}")
    return solution.x[-n:], float(c @ solution.x), solution.seconds


def relative(value: float, reference: float) -> float:
    return (value - reference) / reference


def run_cell(application: str, n: int, cohort: int) -> dict:
    """One cohort: every candidate average scored exactly, and GETO-LP's and POT's seconds."""
    import ot

    from core.geto_lp import barycenter, exact_objective, run_method
    from core.geto_lp.grid import cost_matrix

    problem, scenes, seed = cohort_problem(application, n, cohort)
    hist, spacing = problem.histograms, problem.spacing
    C = cost_matrix(hist.shape[1:], "sqeuclidean", spacing)
    t0 = time.perf_counter()
    geto = barycenter(hist, spacing=spacing, return_plans=application == "palettes")
    geto_seconds = time.perf_counter() - t0
    pot = run_method("pot_lp", hist, spacing=spacing, C=C, pot_max_variables=10**7)
    sinkhorn = run_method("sinkhorn", hist, spacing=spacing, C=C, reg=0.01)
    rescored = exact_objective(hist, geto.barycenter, C=C)
    classical, classical_lp_objective, classical_seconds = classical_lp_barycenter(hist, C)
    optimum = exact_objective(hist, classical, C=C)
    euclidean = exact_objective(hist, hist.mean(axis=0), C=C)
    out = {"application": application, "n": n, "cohort": cohort, "seed": seed, "N": int(hist[0].size),
           "geto_objective": geto.objective, "geto_rescored": rescored, "geto_variables": geto.n_variables,
           "geto_seconds": geto_seconds, "pot_status": pot.status, "pot_objective": pot.objective,
           "pot_variables": pot.n_variables, "pot_seconds": pot.seconds, "euclidean_objective": euclidean,
           "classical_objective": optimum, "classical_lp_objective": classical_lp_objective,
           "classical_seconds": classical_seconds, "sinkhorn_objective": sinkhorn.objective,
           "geto_optimum_gap": max(abs(relative(rescored, optimum)), abs(relative(geto.objective, rescored))),
           "geto_gap": max(abs(relative(rescored, pot.objective)), abs(relative(geto.objective, rescored))),
           "geto_signed_gap_to_pot": relative(rescored, pot.objective), "pot_gap": relative(pot.objective, optimum),
           "euclidean_gap": relative(euclidean, optimum), "sinkhorn_gap": relative(sinkhorn.objective, optimum)}
    if application == "palettes":
        from core.geto_lp.palettes import colour_histogram, transfer_palette
        from core.geto_lp.problems import scene

        image = scene(scenes[0], seed)
        moved = transfer_palette(image, geto.plans[0], n)
        b = np.ascontiguousarray(geto.barycenter.reshape(-1) / geto.barycenter.sum())
        before, after = (ot.emd2(np.ascontiguousarray(colour_histogram(x, n).reshape(-1)), b, C)
                         for x in (image, moved))
        out.update(scenes=list(scenes), transfer_w2_before=float(before), transfer_w2_after=float(after))
    return out


def applications(sizes=SIZES, cohorts: int = COHORTS, progress=print) -> dict:
    """Every application x size x cohort (one cell each), and per application its largest gaps."""
    cells = []
    for application in APPLICATIONS:
        for n in sizes:
            for cohort in range(cohorts):
                cells.append(run_cell(application, n, cohort))
                if progress:
                    c = cells[-1]
                    progress(f"{application} {n}^3 cohort {cohort}: GETO gap {c['geto_optimum_gap']:.1e} (to POT's LP "
                             f"{c['geto_signed_gap_to_pot']:+.1e}), Euclidean "
                             f"{c['euclidean_gap']:+.1%}, {c['geto_seconds']:.2f} s vs POT {c['pot_seconds']:.2f} s")
    return {"sizes": list(sizes), "cohorts": cohorts, "seed": SEED, "cells": cells}


def table(result: dict) -> str:
    """The section's markdown: one row per application and size (cohorts pooled)."""
    lines = ["| application | grid | cohorts | largest GETO gap to the optimum | POT's LP above it | Euclidean average's gap (min-max) | "
             "entropic gap (min-max) | GETO s (median) | POT LP s (median) | transfer W2² after/before (median) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for application in APPLICATIONS:
        for n in result["sizes"]:
            cells = [c for c in result["cells"] if c["application"] == application and c["n"] == n]
            if not cells:
                continue
            eu, sk = [c["euclidean_gap"] for c in cells], [c["sinkhorn_gap"] for c in cells]
            moved = [c["transfer_w2_after"] / c["transfer_w2_before"] for c in cells if "transfer_w2_after" in c]
            lines.append(f"| {application} | {n}³ | {len(cells)} | {max(c['geto_optimum_gap'] for c in cells):.1e} | "
                         f"{min(c['pot_gap'] for c in cells):.1e} to {max(c['pot_gap'] for c in cells):.1e} | "
                         f"{min(eu):+.1%} to {max(eu):+.1%} | {min(sk):+.1%} to {max(sk):+.1%} | "
                         f"{np.median([c['geto_seconds'] for c in cells]):.2f} | "
                         f"{np.median([c['pot_seconds'] for c in cells]):.2f} | "
                         f"{f'{np.median(moved):.3f}' if moved else '—'} |")
    return "\n".join(lines) + "\n"

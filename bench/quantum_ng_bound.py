"""Does our finite-shot bound hold at its confidence, and can its test fail? Sections ``bound`` and ``bound_grid``
of ``bench/quantum_ng.py`` (rule: ``RULES["concentration_bound"]`` in core/quantum_ng/claims.py).

At one parameter point, for each truncation weight k and shadow size T, ``seeds`` independent shadows: how many of
their surrogates lie farther than the bound's radius from the truncated metric g^(k) (the bound's target: failures,
to set against delta with a binomial interval), and how many lie farther from the exact metric g (the misspecified
target, off by the truncation bias ||g^(k) - g||: once the radius shrinks below that bias the bound must fail
against it, which is the null that shows the test can fail).
"""

from __future__ import annotations

import numpy as np

from core.common.seeding import derive_seed
from core.quantum_ng.ansatz import Ansatz
from core.quantum_ng.claims import BOUND_DELTA
from core.quantum_ng.estimation import concentration_bound
from core.quantum_ng.metric import exact_metric, metric_from_generators
from core.quantum_ng.propagation import propagate_generators
from core.quantum_ng.shadows import acquire_shadow, shadow_metric
from core.quantum_ng.simulate import final_state

BOUND_KS = (1, 2)                 # k = 3 needs T near 10^6 before its radius falls under its bias (8 qubits)
BOUND_SHOTS = (500, 2_000, 8_000)
BOUND_SEEDS = 200


def bound_setting(ansatz: Ansatz, params, exact: np.ndarray, k: int, snapshots: int, seeds, delta: float,
                  seed_of=None) -> dict:
    """One (k, T): the radius, the failures against g^(k) and against g over ``seeds`` shadows (shadow seed
    ``seed_of(s)``, default ``s``), the empirical 1 - delta quantile of the deviation and the truncation bias."""
    gens = propagate_generators(ansatz, params, k)
    truncated = metric_from_generators(gens, final_state(ansatz, params), mask=True)
    bound = concentration_bound(gens, snapshots, delta, mask=True)
    seeds = list(seeds)
    estimates = [shadow_metric(gens, acquire_shadow(ansatz, params, snapshots, seed=s if seed_of is None else seed_of(s)),
                               mask=True) for s in seeds]
    deviation = np.array([np.linalg.norm(e - truncated) for e in estimates])
    to_exact = np.array([np.linalg.norm(e - exact) for e in estimates])
    q = float(np.quantile(deviation, 1 - delta))
    return {"n_qubits": ansatz.n_qubits, "k": k, "snapshots": snapshots, "seeds": len(seeds), "delta": delta,
            "radius": bound.radius, "failures": int(np.sum(deviation > bound.radius)),
            "share_within": float(np.mean(deviation <= bound.radius)), "quantile_deviation": q,
            "looseness": bound.radius / q, "failures_against_exact": int(np.sum(to_exact > bound.radius)),
            "share_within_against_exact": float(np.mean(to_exact <= bound.radius)),
            "bias": float(np.linalg.norm(truncated - exact)), "metric_norm": float(np.linalg.norm(exact))}


def bound_grid(n: int, layers: int, entangler: str, ks=BOUND_KS, shots=BOUND_SHOTS, seeds: int = BOUND_SEEDS,
               delta: float = BOUND_DELTA, log=print) -> dict:
    """Section ``bound_grid``: every (k, T) at parameter point 0, fresh shadow seeds per setting."""
    ansatz = Ansatz(n, layers, ("RY", "RZ"), entangler)
    params = ansatz.random_params(0)
    exact = exact_metric(ansatz, params)
    out = {}
    for k in ks:
        for t in shots:
            key = f"k{k} T{t}"
            out[key] = bound_setting(ansatz, params, exact, k, t, range(seeds), delta,
                                     seed_of=lambda s, key=key: derive_seed(s, f"bound grid {key}"))
            log(f"bound {n}q {key}: radius {out[key]['radius']:.3f}, bias {out[key]['bias']:.3f}, failures "
                f"{out[key]['failures']}/{seeds}, against the exact metric {out[key]['failures_against_exact']}/{seeds}")
    return out


def _rate(failures: int, seeds: int) -> str:
    """"f/n [low, high]": the failures and the exact 95 % interval of their rate, as the rule's Binomial reads it."""
    from core.common.decisions import Binomial

    out = Binomial(BOUND_DELTA, "below").decide((failures, seeds))
    return f"{failures}/{seeds} [{out.low:.3f}, {out.high:.3f}]"


def bound_text(result: dict) -> tuple[str, str]:
    """concentration_bound's figure and detail from sections bound and bound_grid."""
    b = result["bound"]
    figure = f"fails on {_rate(b['failures'], b['seeds'])} of estimates at delta = {b['delta']}"
    detail = ("The abstract gives no formula, so the bound is ours (core/quantum_ng/estimation.py: per-string shadow "
              "variance ≤ 3^|R|, Hoeffding's U-statistic variance, Markov on ‖ĝ − g^(k)‖²_F). At "
              f"{b['n_qubits']} qubits, k = {b['k']}, T = {b['snapshots']}: failures {_rate(b['failures'], b['seeds'])} "
              f"(95 % exact interval of the rate), radius {b['radius']:.2f} = {b['radius'] / b['metric_norm']:.1f}× "
              f"‖g‖ and {b['looseness']:.1f}× the empirical {1 - b['delta']:.0%} quantile; against the exact metric "
              f"{_rate(b['failures_against_exact'], b['seeds'])}.")
    grid = result.get("bound_grid")
    if grid:
        rows = [f"{key}: radius {x['radius']:.2f}, truncation bias {x['bias']:.2f}, failures "
                f"{_rate(x['failures'], x['seeds'])}, {x['looseness']:.1f}× loose; against the exact metric "
                f"{_rate(x['failures_against_exact'], x['seeds'])}" + (" (bias over radius: the null)"
                                                                       if x["bias"] > x["radius"] else "")
                for key, x in grid.items()]
        wrong = [f"{key} {_rate(x['failures_against_exact'], x['seeds'])}" for key, x in grid.items()
                 if x["bias"] > x["radius"]]
        figure += "; against the exact metric where its bias exceeds the radius: " + (", ".join(wrong) or "no such setting")
        detail += " Every setting (fresh shadow seeds each): " + "; ".join(rows) + "."
    return figure, detail

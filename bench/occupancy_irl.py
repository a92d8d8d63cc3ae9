"""occupancy_irl benchmark: identities, convergence over random MDPs (exact and sampled demonstrations), mirror view.

    python bench/occupancy_irl.py              # measure (a few minutes on 2 busy cores)
    python bench/occupancy_irl.py --verdicts   # re-derive the verdicts from the stored numbers
    python bench/occupancy_irl.py --mirror     # re-run the mirror part only (both sets of MDPs), keeping the rest

Writes bench/results/occupancy_irl.json and .md. Speed: one interpolation update (and its policy
search) and one explicit Fisher-preconditioned step against one dual-gradient step (the anchor), as
ratios of median times in one run.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import RESULTS, judged, write_results  # noqa: E402

KEY = "occupancy_irl"
COMMAND = "python bench/occupancy_irl.py"
ETAS = (0.3, 0.5, 0.6, 0.8, 1.0)
N_NODES = 32          # Gauss-Legendre nodes on the reward line (12 leave 5e-7 on the 4x4 gridworld)


def _mdps():
    from core.common.seeding import derive_seed
    from core.occupancy_irl import gridworld, random_mdp

    out = [("random S=8 A=3 #%d" % i, random_mdp(8, 3, 0.9, seed=derive_seed(0, "bench", "identity", i)))
           for i in range(5)]
    return out + [("gridworld 4x4", gridworld(4, 0.9, 0.1, seed=0))]


def identities() -> dict:
    from core.occupancy_irl import (fisher, interpolation_step, make_problem, path_fisher, preconditioned_step,
                                    shaping_basis, soft_occupancy)

    rows = []
    for name, mdp in _mdps():
        prob = make_problem(mdp, beta=1.0 if "random" in name else 3.0)
        rho_e, r_e = prob.rho_expert, prob.r_target
        r = 0.3 * mdp.r_true
        J = fisher(mdp, r)
        SA, eps = J.shape[0], 1e-6
        fd = np.zeros_like(J)
        for i in range(SA):
            e = np.zeros(SA)
            e[i] = eps
            e = e.reshape(r.shape)
            fd[:, i] = (soft_occupancy(mdp, r + e) - soft_occupancy(mdp, r - e)).ravel() / (2 * eps)
        eig = np.linalg.eigvalsh(J)
        rhs = (rho_e - soft_occupancy(mdp, r)).ravel()
        mv = np.abs(path_fisher(mdp, r, r_e, N_NODES) @ (r_e - r).ravel() - rhs).max()
        first = np.abs(J @ (r_e - r).ravel() - rhs).max()
        B = shaping_basis(mdp)
        occ_diff, shaping_res, local_diff = [], [], []
        for eta in (0.3, 0.6, 1.0):
            explicit = preconditioned_step(mdp, r, rho_e, r_e, eta, n_nodes=N_NODES)
            convex = interpolation_step(r, r_e, eta)
            occ_diff.append(float(np.abs(soft_occupancy(mdp, explicit) - soft_occupancy(mdp, convex)).max()))
            d = (explicit - convex).ravel()
            shaping_res.append(float(np.abs(d - B @ np.linalg.lstsq(B, d, rcond=None)[0]).max()))
            local = r - eta * (np.linalg.pinv(J, rcond=1e-10, hermitian=True) @ (-rhs)).reshape(r.shape)
            local_diff.append(float(np.abs(soft_occupancy(mdp, local) - soft_occupancy(mdp, convex)).sum()))
        rows.append({"mdp": name, "fisher_vs_fd": float(np.abs(J - fd).max()), "fd_asymmetry": float(np.abs(fd - fd.T).max()),
                     "min_eigenvalue": float(eig.min()), "rank": int(np.sum(eig > 1e-10 * eig.max())),
                     "rank_expected": mdp.n_states * (mdp.n_actions - 1), "mean_value_error": float(mv),
                     "first_order_control_error": float(first), "step_occupancy_diff": occ_diff,
                     "step_shaping_residual": shaping_res, "local_fisher_control_l1": local_diff,
                     "eta1_one_step_gap": float(np.abs(soft_occupancy(mdp, interpolation_step(r, r_e, 1.0))
                                                       - rho_e).sum())})
    return {"rows": rows, "monte_carlo": count_covariance()}


def count_covariance(n: int = 200_000, horizon: int = 80) -> dict:
    """J against a Monte Carlo estimate of (1 - gamma) Cov(N, G) (counts with the trajectory score), and
    against the plain count covariance (1 - gamma) Cov(N, N), on a random MDP with S = 3, A = 2, gamma = 0.7."""
    from core.occupancy_irl import fisher, random_mdp, sample_demonstrations, soft_solve

    m = random_mdp(3, 2, 0.7, seed=5)
    r, SA, eps = m.r_true, 6, 1e-6
    J = fisher(m, r)
    dlog = np.zeros((3, 2, SA))
    for i in range(SA):
        e = np.zeros(SA)
        e[i] = eps
        dlog[:, :, i] = (soft_solve(m, r + e.reshape(3, 2)).log_policy
                         - soft_solve(m, r - e.reshape(3, 2)).log_policy) / (2 * eps)
    d = sample_demonstrations(m, soft_solve(m, r).policy, n, horizon, seed=2)
    score, cross, counts = np.zeros((n, SA)), np.zeros((SA, SA)), np.zeros((n, SA))
    for t in range(horizon):
        score += dlog[d.states[:, t], d.actions[:, t]]
        visit = np.zeros((n, SA))
        visit[np.arange(n), d.states[:, t] * 2 + d.actions[:, t]] = m.gamma ** t
        cross += visit.T @ score
        counts += visit
    est = (1 - m.gamma) * cross / n
    naive = (1 - m.gamma) * np.cov(counts.T)
    scale = float(np.abs(J).max())
    return {"n_trajectories": n, "horizon": horizon, "fisher_max_abs": scale,
            "score_covariance_rel_error": float(np.abs(est - J).max() / scale),
            "count_covariance_rel_error": float(np.abs(naive - J).max() / scale)}


def _summary(a) -> dict:
    a = np.asarray(a, float)
    finite = a[np.isfinite(a)]
    if len(finite) < 2:
        return {"median": float(np.median(a)) if len(a) else None, "mean": None, "ci95": None,
                "finite_share": float(len(finite) / max(1, len(a)))}
    from scipy import stats

    sem = stats.sem(finite)
    lo, hi = stats.t.interval(0.95, len(finite) - 1, loc=finite.mean(), scale=sem) if sem > 0 else (finite[0],) * 2
    return {"median": float(np.median(a)), "mean": float(finite.mean()), "ci95": [float(lo), float(hi)],
            "finite_share": float(len(finite) / len(a))}


def convergence(name: str, **kw) -> dict:
    from core.common.progress import TqdmProgress
    from core.occupancy_irl import StudyConfig, convergence_study

    cfg = StudyConfig(etas=ETAS, **kw)
    s = convergence_study(cfg, seed=0, progress=TqdmProgress(desc=name))
    best = s.iters_dual_best
    out = {"config": cfg.to_dict(), "n_mdps": s.done, "etas": list(ETAS),
           "iters_interp": {f"{e:g}": _summary(s.iters_interp[:, j]) for j, e in enumerate(ETAS)},
           "iters_dual_best": _summary(best), "best_step": {"values": s.best_step.tolist()},
           "wins_vs_best_dual": {f"{e:g}": float(np.mean(s.iters_interp[:, j] < best)) for j, e in enumerate(ETAS)},
           "rate_interp": {f"{e:g}": _summary(s.rate_interp[:, j]) for j, e in enumerate(ETAS)},
           "rate_dual_best": _summary(s.rate_dual_best),
           "first_ratio_interp": {f"{e:g}": _summary(s.first_ratio_interp[:, j]) for j, e in enumerate(ETAS)},
           "final_gap_interp": {f"{e:g}": _summary(s.final_gap_interp[:, j]) for j, e in enumerate(ETAS)},
           "final_gap_dual_best": _summary(s.final_gap_dual_best),
           "control_final_gap": _summary(s.control_final_gap), "control_min_gap": float(np.min(s.control_final_gap)),
           "control_target_gap": _summary(s.control_target_gap), "sampling_error": _summary(s.sampling_error),
           "dual_reached_share": float(np.mean(np.isfinite(best))),
           "iters_near_floor_interp": {f"{e:g}": _summary(s.iters_near_floor_interp[:, j]) for j, e in enumerate(ETAS)},
           "iters_near_floor_dual": _summary(s.iters_near_floor_dual)}
    return out


# Section features (registered with the rule before it ran): a linear reward class that cannot represent log pi_E
FEATURE_CASES = {"features S=8 A=3": dict(n_mdps=50, n_states=8, n_actions=3, d=8),
                 "features S=25 A=4": dict(n_mdps=10, n_states=25, n_actions=4, d=25)}


def features() -> dict:
    from core.occupancy_irl import DUAL_STEPS
    from core.occupancy_irl.features import feature_study

    out = {}
    for name, kw in FEATURE_CASES.items():
        t0 = time.process_time()
        out[name] = {**feature_study(etas=(0.3, 0.5, 0.8, 1.0), steps=DUAL_STEPS, **kw),
                     "cpu_seconds": time.process_time() - t0}
        print(f"{name}: {out[name]['cpu_seconds']:.0f} CPU s", flush=True)
    return out


MIRROR_MDPS = tuple(range(20))               # the earlier absolute rule's MDPs (section mirror)
MIRROR_CONFIRM_MDPS = tuple(range(20, 40))   # registered with the relative rule before they ran: they decide


def mirror(mdps=MIRROR_MDPS) -> dict:
    """Per random MDP (S = 8, A = 3, γ = 0.9), η = 0.3: the interpolated reward's policy against the exact mirror step
    π^(1−η) π_E^η, as KL over the step's own KL (first step, median over 15 steps); the control, a dual-gradient step
    (α = 16) against its best-matching mirror step (η on a grid, so not a strawman); and the null, interpolation
    towards a random target reward against the mirror step towards π_E (median over 15 steps). Each row's per-MDP
    values are kept for the paired rule."""
    from core.common.seeding import derive_rng, derive_seed
    from core.occupancy_irl import (interpolation_step, make_problem, mirror_step, occupancy, policy_kl, random_mdp,
                                    soft_solve)

    rows = {"interp_first": [], "interp_median_ratio": [], "dual_ratio": [], "interp_first_kl": [],
            "random_target_ratio": []}
    for i in mdps:
        mdp = random_mdp(8, 3, 0.9, seed=derive_seed(0, "bench", "mirror", i))
        prob = make_problem(mdp)
        d_e, lp_e = prob.rho_expert.sum(-1), prob.r_target
        r_random = np.log(derive_rng(0, "bench", "mirror", "random target", i).dirichlet(np.ones(3), 8))
        for target, name in ((prob.r_target, "interp_median_ratio"), (r_random, "random_target_ratio")):
            r = np.zeros((8, 3))
            lp = soft_solve(mdp, r).log_policy
            ratios = []
            for k in range(15):
                r_new = interpolation_step(r, target, 0.3)
                lp_new = soft_solve(mdp, r_new).log_policy
                mk, sk = policy_kl(lp_new, mirror_step(lp, lp_e, 0.3), d_e), policy_kl(lp_new, lp, d_e)
                if k == 0 and name == "interp_median_ratio":
                    rows["interp_first"].append(mk / sk)
                    rows["interp_first_kl"].append(mk)
                ratios.append(mk / sk)
                r, lp = r_new, lp_new
            rows[name].append(float(np.median(ratios)))
        # Control: a dual-gradient step (alpha = 16) against the mirror step from the same policy.
        r0 = np.zeros((8, 3))
        lp0 = soft_solve(mdp, r0).log_policy
        r1 = r0 - 16.0 * (occupancy(mdp, np.exp(lp0)) - prob.rho_expert)
        lp1 = soft_solve(mdp, r1).log_policy
        # The mirror step whose size matches the dual step best (grid over eta), so the control is not a strawman.
        best = min(policy_kl(lp1, mirror_step(lp0, lp_e, e), d_e) for e in np.linspace(0.01, 1, 100))
        rows["dual_ratio"].append(best / policy_kl(lp1, lp0, d_e))
    return {k: {**_summary(v), "values": [float(x) for x in v]} for k, v in rows.items()} | {
        "eta": 0.3, "n_mdps": len(mdps), "mdps": [int(i) for i in mdps]}


def mirror_text(result: dict) -> tuple[str, str]:
    """The mirror claim's figure and detail: the judged MDPs' paired log10 ratios to the control, and the earlier."""
    from bench.report import interval_text

    def paired(m, field):
        return interval_text([np.log10(a / b) for a, b in zip(m[field]["values"], m["dual_ratio"]["values"])])

    m, early = result.get("mirror_confirm"), result["mirror"]
    if m is None or "values" not in m["dual_ratio"]:
        return ("", "The mirror part has no per-MDP values: rerun python bench/occupancy_irl.py --mirror.")
    first, med, dual = m["interp_first"]["median"], m["interp_median_ratio"]["median"], m["dual_ratio"]["median"]
    return (f"log10(interpolation / dual-gradient control) {paired(m, 'interp_median_ratio')} per MDP",
            f"At η = 0.3 on the random MDPs {m['mdps'][0]}-{m['mdps'][-1]} (registered with the rule), the interpolated "
            f"reward's policy is {first:.2%} (first step) and {med:.1e} (median over 15 steps) of the step size away "
            f"from the exact mirror step π^(1−η)π_E^η (KL, d_E-weighted, median first-step KL "
            f"{m['interp_first_kl']['median']:.1e}); a dual-gradient step (α = 16) is {dual:.1%} of its size away from "
            f"its best-matching mirror step. Paired by MDP, log10 of the interpolation's ratio over the control's: "
            f"{paired(m, 'interp_median_ratio')} over 15 steps, {paired(m, 'interp_first')} at the first step; the "
            f"null, interpolation towards a random target reward, {paired(m, 'random_target_ratio')} (median ratio "
            f"{m['random_target_ratio']['median']:.2f}). MDPs {early['mdps'][0]}-{early['mdps'][-1]}, which the "
            f"earlier absolute rule (under 10 %, met by the control too) judged: {paired(early, 'interp_median_ratio')}"
            f" over 15 steps. 'Approximate' is not quantified in the abstract: the rule asks for an order of "
            "magnitude closer than a dual-gradient step.")


def speed() -> dict:
    from core.occupancy_irl import (gridworld, interpolation_step, make_problem, preconditioned_step, soft_occupancy,
                                    soft_solve)

    mdp = gridworld(5, 0.9, 0.1, seed=0)
    prob = make_problem(mdp, beta=3.0)
    r = 0.2 * mdp.r_true
    fns = {"dual_gradient": lambda: r - 32.0 * (soft_occupancy(mdp, r) - prob.rho_demo),
           "interpolation": lambda: soft_solve(mdp, interpolation_step(r, prob.r_target, 0.3)),
           "explicit_preconditioned": lambda: preconditioned_step(mdp, r, prob.rho_demo, prob.r_target, 0.3)}
    times = {}
    for name, fn in fns.items():
        runs = []
        for _ in range(7 if name != "explicit_preconditioned" else 3):
            t = time.perf_counter()
            for _ in range(20 if name != "explicit_preconditioned" else 1):
                fn()
            runs.append((time.perf_counter() - t) / (20 if name != "explicit_preconditioned" else 1))
        times[name] = float(np.median(runs))
    return {"seconds_per_update_gridworld_5x5": times,
            "ratio_interpolation_over_dual": times["interpolation"] / times["dual_gradient"],
            "ratio_explicit_over_dual": times["explicit_preconditioned"] / times["dual_gradient"]}


FIRST_VIEW = """
import json, sys, time, threading
t0 = time.perf_counter()
sys.path.insert(0, sys.argv[1])
import app.ui.warmup as warmup
warmup.warm_up = lambda modules, delay=0.0: threading.Thread()
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1] + "/app/shell.py", default_timeout=120).run()
t1 = time.perf_counter()
at.switch_page("../pages/occupancy_irl.py").run()
t2 = time.perf_counter()
at.run()
t3 = time.perf_counter()
print(json.dumps({"cold_s": t2 - t1, "warm_s": t3 - t2, "charts": len(at.get("plotly_chart")),
                  "exceptions": [e.message for e in at.exception]}))
"""


def first_view(repeats: int = 3) -> dict:
    """The page's first view through AppTest in a fresh process (home page first, as a visitor arrives):
    cold = the first render of the page (its imports included), warm = a rerun. Not a browser: bench/app.py
    times browsers against a bare page."""
    import subprocess

    runs = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", FIRST_VIEW, str(ROOT)], cwd=ROOT, capture_output=True, text=True,
                             check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {"cold_s_median": float(np.median([r["cold_s"] for r in runs])),
            "warm_s_median": float(np.median([r["warm_s"] for r in runs])), "runs": runs}


def _fmt(s: dict, digits: str = ".3g") -> str:
    if s.get("ci95") is None:
        return f"median {s['median']}" if s.get("median") is not None else "–"
    return f"{s['median']:{digits}} (mean {s['mean']:{digits}}, 95% CI [{s['ci95'][0]:{digits}}, {s['ci95'][1]:{digits}}])"


def table(result: dict) -> str:
    lines = ["| setting | method | iterations to 1e-6 (median; mean, 95% CI over MDPs) | share reached | per-step rate "
             "| first-step ratio | wins vs best dual |", "|---|---|---|---|---|---|---|"]
    for key, c in result["convergence"].items():
        for e in c["etas"]:
            k = f"{e:g}"
            lines.append(f"| {key} | interpolation η = {k} | {_fmt(c['iters_interp'][k])} | "
                         f"{c['iters_interp'][k]['finite_share']:.2f} | {_fmt(c['rate_interp'][k])} | "
                         f"{_fmt(c['first_ratio_interp'][k])} | {c['wins_vs_best_dual'][k]:.2f} |")
        lines.append(f"| {key} | dual gradient, best of grid | {_fmt(c['iters_dual_best'])} | {c['dual_reached_share']:.2f} "
                     f"| {_fmt(c['rate_dual_best'])} | – | – |")
    lines += ["", "| setting | final gap interpolation η = 0.5 | final gap dual (best) | sampling error | control final gap |",
              "|---|---|---|---|---|"]
    for key, c in result["convergence"].items():
        lines.append(f"| {key} | {_fmt(c['final_gap_interp']['0.5'])} | {_fmt(c['final_gap_dual_best'])} | "
                     f"{_fmt(c['sampling_error'])} | {_fmt(c['control_final_gap'])} |")
    lines += ["", "| MDP | Fisher vs FD | rank (expected) | mean-value error | first-order control | step occupancy diff "
              "| shaping residual | local-Fisher control (L1) | η = 1 gap |", "|---|---|---|---|---|---|---|---|---|"]
    for r in result["identities"]["rows"]:
        lines.append(f"| {r['mdp']} | {r['fisher_vs_fd']:.1e} | {r['rank']} ({r['rank_expected']}) | "
                     f"{r['mean_value_error']:.1e} | {r['first_order_control_error']:.1e} | "
                     f"{max(r['step_occupancy_diff']):.1e} | {max(r['step_shaping_residual']):.1e} | "
                     f"{min(r['local_fisher_control_l1']):.1e} | {r['eta1_one_step_gap']:.1e} |")
    m, sp = result["mirror"], result["speed"]
    lines += ["", f"Mirror view (η = 0.3, 20 MDPs): KL to the exact mirror step / KL of the step: first step "
              f"{_fmt(m['interp_first'])}, median over 15 steps {_fmt(m['interp_median_ratio'])}; dual-gradient control "
              f"(best-matching η) {_fmt(m['dual_ratio'])}.",
              "", f"Speed (5x5 gridworld, per update): interpolation / dual gradient = {sp['ratio_interpolation_over_dual']:.2f}, "
              f"explicit J̄⁺ step / dual gradient = {sp['ratio_explicit_over_dual']:.1f}."]
    if "first_view" in result:
        fv = result["first_view"]
        lines += ["", f"First view (AppTest, fresh process, median of {len(fv['runs'])}): cold {fv['cold_s_median']:.2f} s, "
                  f"warm {fv['warm_s_median']:.2f} s."]
    return "\n".join(lines) + "\n"


def describe(result: dict) -> dict:
    """Each claim's figure and detail in words, from the numbers in ``result`` alone; its rule in
    ``core.occupancy_irl.claims`` decides its status."""
    rows = result["identities"]["rows"]
    mc = result["identities"].get("monte_carlo")
    fd = max(r["fisher_vs_fd"] for r in rows)
    mv = max(r["mean_value_error"] for r in rows)
    ctrl = min(r["first_order_control_error"] for r in rows)
    out = {"geodesic_fisher_identity": (
        f"mean-value error {mv:.1e}",
        f"On {len(rows)} MDPs: Fisher vs finite differences {fd:.1e}; rank against S(A−1) "
        + ", ".join(f"{r['rank']}/{r['rank_expected']}" for r in rows)
        + f", smallest eigenvalue {min(r['min_eigenvalue'] for r in rows):.1e}; "
        + (f"as (1 − γ) Cov(counts, score) by Monte Carlo ({mc['n_trajectories']} trajectories) to "
           f"{mc['score_covariance_rel_error']:.1%} of its largest entry, while the plain count covariance "
           f"misses by {mc['count_covariance_rel_error']:.0%}; " if mc else "")
        + f"J̄(r_E − r) = ρ_E − ρ_r to {mv:.1e}; the start point's Fisher alone misses by at least {ctrl:.1e}. "
        "The path is the straight line in reward coordinates (our reading of the e-geodesic), and the "
        "identity holds exactly by the mean-value theorem, so this checks our implementation, not a "
        "surprise of the paper.")}
    occ = max(max(r["step_occupancy_diff"]) for r in rows)
    sh = max(max(r["step_shaping_residual"]) for r in rows)
    one = max(r["eta1_one_step_gap"] for r in rows)
    loc = min(min(r["local_fisher_control_l1"]) for r in rows)
    sp = result["speed"]
    out["preconditioned_is_interpolation"] = (
        f"occupancy difference {occ:.1e}",
        f"Explicit J̄⁺ step vs (1 − η) r + η r_E at η = 0.3, 0.6, 1: occupancies agree to {occ:.1e}, the "
        f"reward difference is potential shaping to {sh:.1e} (the issue's 'constant shift' is one "
        f"direction of this S-dimensional null space); η = 1 gives ρ_E in one step ({one:.1e}); the "
        f"start-point preconditioner lands at least {loc:.1e} (L1) away. Cost per update: interpolation "
        f"{sp['ratio_interpolation_over_dual']:.2f}× a dual-gradient step, the explicit J̄⁺ step "
        f"{sp['ratio_explicit_over_dual']:.0f}×.")
    out["approximate_mirror_descent"] = mirror_text(result)
    c = result["convergence"]["exact S=8 A=3"]
    wins = c["wins_vs_best_dual"]
    big = result["convergence"].get("exact S=25 A=4")
    samp = result["convergence"]["sampled S=8 A=3"]
    out["faster_convergence"] = (
        f"{c['iters_interp']['0.5']['median']:g} vs {c['iters_dual_best']['median']:g} iterations (η = 0.5)",
        f"On {c['n_mdps']} MDPs (S = 8): iterations to 1e-6, median, interpolation η = 0.3/0.5/0.8: "
        + "/".join(f"{c['iters_interp'][k]['median']:g}" for k in ('0.3', '0.5', '0.8'))
        + f"; best-tuned dual gradient {c['iters_dual_best']['median']:g} (reached on "
        f"{c['dual_reached_share']:.0%}). The interpolation wins on "
        + ", ".join(f"{wins[k]:.0%} at η = {k}" for k in ('0.3', '0.5', '0.8'))
        + (f"; at S = 25, A = 4 on {big['wins_vs_best_dual']['0.5']:.0%} at η = 0.5" if big else "")
        + ". Per-step contraction (median) "
        + ", ".join(f"{c['rate_interp'][k]['median']:.3f} at η = {k}" for k in ('0.3', '0.5', '0.8'))
        + " against 1 − η = " + ", ".join(f"{1 - float(k):.1f}" for k in ('0.3', '0.5', '0.8'))
        + f". Control (target from another expert) ends at ≥ {c['control_min_gap']:.2f} "
        f"from ρ_E. Sampled demonstrations (same samples for both, {samp['n_mdps']} MDPs): final gap to "
        f"the true ρ_E, interpolation {samp['final_gap_interp']['0.5']['median']:.3f}, best dual "
        f"{samp['final_gap_dual_best']['median']:.3f}, sampling error ‖ρ̂_E − ρ_E‖₁ "
        f"{samp['sampling_error']['median']:.3f}; within 10% of the better floor after "
        f"{samp['iters_near_floor_interp']['0.5']['median']:g} (η = 0.5) vs "
        f"{samp['iters_near_floor_dual']['median']:g} iterations (medians). Caveat: with a tabular reward "
        "and exact ρ_E the target r_E already solves the problem (η = 1 converges in one step), so "
        "η < 1 is a choice, not a need; the paper's own convergence theorem is not available to check.")
    if "features" in result:
        figure, detail = features_text(result["features"])
        out["faster_convergence"] = (figure, detail + " The tabular study (a reference, by construction): "
                                     + out["faster_convergence"][1])
    return out


def features_text(sections: dict) -> tuple[str, str]:
    """faster_convergence's figure and detail from section features (the linear reward class)."""
    from bench.report import interval_text
    from core.common.decisions import Binomial

    def wins(rows, key="iters_natural"):
        mine = [x[key]["0.5"] if key == "iters_natural" else x[key] for x in rows]
        k = sum(m < x["iters_gradient_best"] for m, x in zip(mine, rows))
        out = Binomial(0.5, "above").decide((k, len(rows)))
        return f"{k}/{len(rows)} [{out.low:.2f}, {out.high:.2f}]"

    parts, figure = [], []
    for name, c in sections.items():
        rows = c["rows"]
        med = {e: float(np.median([x["iters_natural"][e] for x in rows])) for e in ("0.3", "0.5", "0.8", "1")}
        grad = float(np.median([x["iters_gradient_best"] for x in rows]))
        figure.append(f"{name.split(' ', 1)[1]}: {med['0.5']:g} vs {grad:g} iterations (η = 0.5), wins {wins(rows)}")
        parts.append(
            f"{name} ({len(rows)} MDPs, d = {c['d']} features; log π_E outside the class by a relative residual of "
            f"{np.median([x['residual'] for x in rows]):.2f} median): iterations to a feature gap of {c['tol']:g}, "
            f"median, geometry-aware step η = 0.3/0.5/0.8/1: {med['0.3']:g}/{med['0.5']:g}/{med['0.8']:g}/"
            f"{med['1']:g}; best-tuned dual gradient {grad:g} (reached on "
            f"{np.mean([np.isfinite(x['iters_gradient_best']) for x in rows]):.0%}); wins at η = 0.5 {wins(rows)} "
            f"(95 % exact interval of the share); per-step contraction "
            + ", ".join(f"{interval_text([x['rate_natural'][e] for x in rows], 3)} at η = {e}"
                        for e in ("0.3", "0.5", "0.8"))
            + f"; control (matching another expert's features) wins {wins(rows, 'control_iters')}, its gap to this "
            f"expert's at least {min(x['control_min_gap'] for x in rows):.3f}; "
            f"{c['cpu_seconds']:.0f} CPU s")
    return ("; ".join(figure), "A linear reward class r = Φw that cannot represent log π_E (registered before it "
            "ran), exact demonstrations, the dual gradient's step the best of 21 per MDP. " + ". ".join(parts) + ".")


verdicts = judged(KEY, describe, COMMAND)

def main() -> int:
    if {"--verdicts", "--first-view", "--mirror", "--features"} & set(sys.argv[1:]):
        stored = json.loads((RESULTS / f"{KEY}.json").read_text())
        if "--features" in sys.argv[1:]:        # re-run the linear-class part only, keeping the rest
            stored["features"] = features()
        if "--mirror" in sys.argv[1:]:          # re-run the mirror part only (both sets of MDPs), keeping the rest
            stored["mirror"], stored["mirror_confirm"] = mirror(), mirror(MIRROR_CONFIRM_MDPS)
        if "--first-view" in sys.argv[1:]:      # re-time the page only, keeping the stored numbers
            stored["first_view"] = first_view()
            stored.setdefault("checks", {})["first_view_under_2s"] = stored["first_view"]["warm_s_median"] < 2.0
        return write_results(KEY, stored, table(stored), verdicts=verdicts)
    t0 = time.perf_counter()
    result = {"identities": identities(),
              "convergence": {"exact S=8 A=3": convergence("exact S=8 A=3", n_mdps=50),
                              "exact S=25 A=4": convergence("exact S=25 A=4", n_mdps=10, n_states=25, n_actions=4),
                              "sampled S=8 A=3": convergence("sampled S=8 A=3", n_mdps=20, demos="sampled",
                                                             max_iters=400)},
              "features": features(), "mirror": mirror(), "mirror_confirm": mirror(MIRROR_CONFIRM_MDPS), "speed": speed(),
              "first_view": first_view()}
    result["checks"] = {"identities_hold": max(r["mean_value_error"] for r in result["identities"]["rows"]) < 1e-9,
                        "first_view_under_2s": result["first_view"]["warm_s_median"] < 2.0}
    result["wall_s"] = time.perf_counter() - t0
    return write_results(KEY, result, table(result), verdicts=verdicts)


if __name__ == "__main__":
    sys.exit(main())

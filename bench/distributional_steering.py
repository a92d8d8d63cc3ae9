"""distributional_steering against closed forms over seeds, the baselines, and the toy protein.

1. Closed-form tasks (exact mixture scores, 4000 particles, 10 seeds each): pointwise tilt, mean
   calibration and entropy tempering in 1-D, a pointwise tilt and the hard mean constraint in 2-D;
   errors of the mean, of the mode mass and W1 of each marginal, against the issue's tolerances;
   beside the mean's and the mode mass's counts, how many seeds an exact sampler of the same ESS
   keeps within them (normal Monte Carlo errors).
2. The whole tilted target (issue 20): every reward family on a 2-D mixture drawn from a seed, seeds 0-15,
   the statistics the reward leaves free (mean and sd of the free coordinates) against the exact
   grid target in standard errors over seeds, and the binned 2-D W1 (POT) against its Monte Carlo
   floor; the pre-issue hard-constraint scheme (tilt solved on the Tweedie predictions) as the control.
2a. Its replication (pre-registered on 2026-12-02, after seeds 0-15 left one of 16 free statistics at
   +3.3 SE): the same families and settings on 32 fresh seeds (16-47), never run before; this block
   decided the claim's whole-target part until 2c, the first block's misses reported beside it. With
   16 free statistics per block, a sampler that is exactly right still misses the per-statistic 2 SE
   rule somewhere in a block with probability of about 1 - 0.954^16 = 0.53 (less, as a family's
   statistics correlate): a miss is a result to read, not proof of a bias.
2b. The repulsion family against the particle count (issue 20): over seeds at N = 500 to 4000, the
   free statistics' bias, the same particles reweighted with the exact mean-field potential (a
   paired check that separates the scheme's error from its samples' Monte Carlo error), and that
   exact-potential estimator on the base sampler's own draws over 192 seeds (blocks of 16).
2c. The decision block (fixed on 2026-12-03, with its rule, before it ran): seeds 48-175, never run
   before. Blocks 0-15 and 16-47 each missed the per-statistic 2 SE rule once, on different
   statistics (+3.3 and +2.4 SE), as an exact sampler does in about half of such blocks, so that
   rule cannot decide. The rule that decides: every free statistic within z* = Phi^-1(1 - 0.05/32)
   = 2.96 SE (Bonferroni over the 16 statistics: an exact sampler passes with probability at least
   0.95 however its statistics correlate) and every family's median W1 under 1.5 floors; and the
   pre-issue hard-constraint scheme, run on the same seeds, must fail it (the rule's control). 128
   seeds, four times block 2a, so that a bias the size of 2a's miss (0.43 of one seed's sd) would
   stand at about 4.8 SE; the rule catches a bias of 0.41 of one seed's sd with probability 0.95.
   The per-statistic 2 SE count is reported beside it, as the issue's literal reading.
2d. Post hoc (after 2c): pooled over all 176 seeds of the three blocks, soft calibration's free mean
   stands at +3.3 SE (+1.9, +0.9, +2.8 by block). On fresh seeds (1000-1255, never used by a block)
   the same family at 200 and 800 steps: the scheme's free statistics, the same particles reweighted
   with the exact tilt (the paired difference is the scheme's own error), and the base sampler's
   own draws against the exact base moments (its time discretisation, which every weighting of
   those draws inherits).
3. Particle guidance as the framework's unweighted proposal for kernel repulsion, and the weighted
   scheme against the exact repulsion target.
4. The page's default scenario and every reward against the baselines (one seed).
5. The toy protein: calibrate mean foldedness to a target with the hard moment constraint through
   the shipped learned denoiser, against maximum-entropy reweighting of the reference sample.
6. Timing: the page's default run against an unguided run of the same size (anchor), and the page.

    python bench/distributional_steering.py   # writes bench/results/distributional_steering.json/.md
    python bench/distributional_steering.py --quick --whole-seeds 16   # a loaded machine (see main)
    python bench/distributional_steering.py --sections whole_target,repulsion_against_n   # rerun those only
    python bench/distributional_steering.py --sections whole_target_decision   # the block that decides (2c)
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import norm, wasserstein_distance

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import judged, write_results  # noqa: E402
from core.common.results import result_to_dict  # noqa: E402
from bench.timing import page_timings  # noqa: E402
from core.distributional_steering import (EntropyReward, GaussianMixtureBase, MeanCalibration,  # noqa: E402
                                          MomentConstraint, PointwiseReward, exponential_tilt, mean_calibration_tilt,
                                          steer, tempered_grid, unguided)
from core.distributional_steering.scenarios import (REWARDS, ScenarioConfig, batch_level, compare, run,  # noqa: E402
                                                    steer_foldedness)
from core.distributional_steering.oracles import histogram_distance, monte_carlo_floor  # noqa: E402
from bench.distributional_steering_guidance import STRENGTHS, guidance_seeds, guidance_words  # noqa: E402
from core.distributional_steering.claims import CLOSED_FORM_ALPHA, familywise_bound  # noqa: E402
from bench.distributional_steering_nulls import identity_nulls  # noqa: E402
from core.distributional_steering.closed_forms import linear_tilt_grid, repulsion_potential  # noqa: E402
from scipy.special import softmax  # noqa: E402

WHOLE_SEEDS = range(16)   # --whole-seeds N; the issue asks for >= 8
REPLICATION_SEEDS = range(16, 48)   # fresh seeds, fixed before they were run (section 2a)
DECISION_SEEDS = range(48, 176)   # fresh seeds, fixed with the rule before they were run (section 2c)
FAMILYWISE_ALPHA = 0.05   # section 2c's rule: Bonferroni over a block's free statistics
REPULSION_N = ((500, 16), (1000, 16), (2000, 16), (4000, 8))   # (particles, seeds): 14 s a run at 4000, one core
NULL_SEEDS, BLOCK = 192, 16
STEPS_SEEDS, STEPS = range(1000, 1256), (200, 800)   # section 2d: fresh seeds, the default and 4x the steps
STATS = ("mean x1", "mean x2", "sd x1", "sd x2")

SEEDS = range(10)
TOLERANCES = {"mean": 0.03, "mode_mass": 0.02, "w1": 0.05}   # the closed-form tasks' tolerances (section 1)
N = 4000
B1 = GaussianMixtureBase([0.7, 0.3], [-1.0, 1.0], [0.35, 0.35])
B2 = GaussianMixtureBase([0.5, 0.3, 0.2], [[-1.0, 0.0], [1.0, 0.5], [0.0, -1.0]], [0.3, 0.3, 0.4])
GRID = np.linspace(-4, 4, 4001)


def grid_sample(q, n=200_000, seed=99):
    return np.random.default_rng(seed).choice(GRID, size=n, p=q)[:, None]


def closed_form_tasks():
    return {
        "1-D pointwise tilt (lam 1.5)": (B1, PointwiseReward(lambda z: z[:, 0], 1.5), exponential_tilt(B1, [1.5]).sample(200_000, 99), {}),
        "1-D mean calibration (kappa 4, target 0.6)": (B1, MeanCalibration(0.6, 4.0), mean_calibration_tilt(B1, [0.6], 4.0).tilted.sample(200_000, 99), {}),
        "1-D entropy tempering (gamma 1)": (B1, EntropyReward(1.0, base=B1), grid_sample(tempered_grid(B1, 1.0, [GRID])), {"every": 10}),
        "2-D pointwise tilt (a = (1, -0.5))": (B2, PointwiseReward(lambda z: z @ np.array([1.0, -0.5]), 1.0), exponential_tilt(B2, [1.0, -0.5]).sample(200_000, 99), {}),
        "2-D hard mean constraint (0.3, 0.1)": (B2, MomentConstraint([0.3, 0.1]), mean_calibration_tilt(B2, [0.3, 0.1]).tilted.sample(200_000, 99), {}),
    }


def errors(result, exact, tolerances=None):
    """Each statistic's largest error over the coordinates; ``signed``, per coordinate the signed error of the
    mean and of the mode mass, with ``var`` the variance of an exact sampler of the same (Kish) ESS and
    ``ref_var`` that of the reference sample's own estimate (for :func:`pooled_z`); with ``tolerances``
    ({statistic: tol}), also ``p_exact``: the chance that an exact sampler of the same ESS stays within tol on
    every coordinate (normal Monte Carlo errors, sd / sqrt(ESS) for the mean and sqrt(p (1 - p) / ESS) for the
    mode mass)."""
    out, se = {"mean": [], "mode_mass": [], "w1": []}, {"mean": [], "mode_mass": []}
    signed, var, ref_var = ({"mean": [], "mode_mass": []} for _ in range(3))
    w = result.weights
    ess = 1 / (w @ w)
    for k in range(exact.shape[1]):
        x, y = result.positions[:, k], exact[:, k]
        p = (y > 0).mean()
        for name, estimate, reference, spread in (("mean", w @ x, y.mean(), y.var()),
                                                  ("mode_mass", w @ (x > 0), p, p * (1 - p))):
            out[name].append(abs(estimate - reference))
            signed[name].append(float(estimate - reference))
            var[name].append(float(spread / ess))
            ref_var[name].append(float(spread / len(y)))
            se[name].append(np.sqrt(spread / ess))
        out["w1"].append(wasserstein_distance(x, y, u_weights=w))
    row = {k: float(max(v)) for k, v in out.items()}
    row.update(signed=signed, var=var, ref_var=ref_var)
    if tolerances:
        row["p_exact"] = {m: float(np.prod([2 * norm.cdf(tolerances[m] / e) - 1 for e in se[m]])) for m in se}
    return row


def pooled_z(per_seed: list, metric: str) -> list:
    """Per coordinate, the mean signed error over seeds over its standard error: the seeds' independent errors
    and the reference sample's, which every seed shares, ``sqrt(mean(var) / seeds + ref_var)``."""
    d, v = (np.array([e[key][metric] for e in per_seed]) for key in ("signed", "var"))
    ref = np.array(per_seed[0]["ref_var"][metric])
    return (d.mean(axis=0) / np.sqrt(v.mean(axis=0) / len(per_seed) + ref)).tolist()


def closed_forms() -> dict:
    rows = {}
    for name, (base, reward, exact, kw) in closed_form_tasks().items():
        per_seed = [errors(steer(base, reward, N, seed=s, **kw), exact, TOLERANCES) for s in SEEDS]
        summary = {}
        for metric, tol in TOLERANCES.items():
            values = np.array([e[metric] for e in per_seed])
            summary[metric] = {"median": float(np.median(values)), "max": float(values.max()),
                               "within_tolerance": int((values < tol).sum()), "tolerance": tol}
            if metric in per_seed[0]["p_exact"]:   # seeds an exact sampler of the same ESS keeps within tol
                summary[metric]["exact_sampler_expected"] = float(sum(e["p_exact"][metric] for e in per_seed))
                summary[metric]["signed_errors"] = [e["signed"][metric] for e in per_seed]   # seeds x coordinates
                summary[metric]["pooled_z"] = pooled_z(per_seed, metric)
        rows[name] = summary
        print(name, {m: round(v["median"], 4) for m, v in summary.items()}, flush=True)
    return rows


def whole_target(seeds=None) -> dict:
    """Free statistics and the whole measure against the exact target, per reward family, over ``seeds``
    (default ``WHOLE_SEEDS``)."""
    sys.path.insert(0, str(ROOT / "tests" / "core" / "distributional_steering"))
    from test_whole_target import AXES, FAMILIES, MESH, family, moments, random_mixture  # the tests' families

    out = {}
    for name in FAMILIES + ["hard constraint, pre-issue scheme"]:
        base = random_mixture(FAMILIES.index(name.split(",")[0]))
        reward, density, free, kw = family(name.split(",")[0], base)
        if "pre-issue" in name:
            reward.lookahead = False
        n = kw.pop("n_particles", 2000)
        q = density.ravel()
        exact_mean, exact_sd = moments(MESH, q)
        per = {"mean": [], "sd": [], "ratio": [], "ess": []}
        for seed in WHOLE_SEEDS if seeds is None else seeds:
            r = steer(base, reward, n, seed=seed, **kw)
            mean, sd = moments(r.positions, r.weights)
            ess = float(1 / (r.weights @ r.weights))
            per["mean"].append(mean[free].tolist())
            per["sd"].append(sd[free].tolist())
            per["ess"].append(ess)
            per["ratio"].append(histogram_distance(r.positions, r.weights, density, AXES)
                                / monte_carlo_floor(density, AXES, ess, seed=seed))
        row = {"free": [f"x{k + 1}" for k in free], "n_particles": n, "ratio_median": float(np.median(per["ratio"])),
               "ratio_max": float(np.max(per["ratio"])), "ess_median": float(np.median(per["ess"]))}
        for stat, exact in (("mean", exact_mean[free]), ("sd", exact_sd[free])):
            values = np.array(per[stat])
            avg, se = values.mean(0), values.std(0, ddof=1) / np.sqrt(len(values))
            row[stat] = {"estimate": avg.tolist(), "exact": exact.tolist(), "se": se.tolist(),
                         "z": ((avg - exact) / se).tolist()}
        out[name] = row
        print(name, {k: (np.round(row[k]["z"], 2).tolist()) for k in ("mean", "sd")}, round(row["ratio_median"], 2),
              flush=True)
    return out


def whole_target_replication() -> dict:
    """Section 2a: the whole-target check on ``REPLICATION_SEEDS``, with the first and last seed."""
    return {"seeds": [REPLICATION_SEEDS.start, REPLICATION_SEEDS.stop - 1], "families": whole_target(REPLICATION_SEEDS)}


def whole_target_decision() -> dict:
    """Section 2c: the whole-target check on ``DECISION_SEEDS``, with its family-wise rule's alpha."""
    return {"seeds": [DECISION_SEEDS.start, DECISION_SEEDS.stop - 1], "alpha": FAMILYWISE_ALPHA,
            "families": whole_target(DECISION_SEEDS)}




def _z(values) -> dict:
    values = np.asarray(values, dtype=float)
    avg, se = values.mean(0), values.std(0, ddof=1) / np.sqrt(len(values))
    return {"bias": avg.tolist(), "se": se.tolist(), "z": (avg / se).tolist()}


def repulsion_against_n() -> dict:
    """The repulsion family's free statistics against N; paired with the exact potential on the same particles."""
    sys.path.insert(0, str(ROOT / "tests" / "core" / "distributional_steering"))
    from test_whole_target import AXES, FAMILIES, MESH, family, moments, random_mixture

    base = random_mixture(FAMILIES.index("repulsion"))
    reward, density, _, kw = family("repulsion", base)
    kw.pop("n_particles", None)
    gamma, h = reward.gamma, reward.bandwidth
    exact = np.concatenate(moments(MESH, density.ravel()))
    star = lambda x, b: softmax(b + repulsion_potential(density, AXES, gamma, h, x))  # noqa: E731
    rows = []
    for n, seeds in REPULSION_N:
        own, exact_pot, resamplings = [], [], 0
        for seed in range(seeds):
            r = steer(base, reward, n, seed=seed, **kw)
            own.append(np.concatenate(moments(r.positions, r.weights)) - exact)
            exact_pot.append(np.concatenate(moments(r.positions, star(r.positions, r.base_logw))) - exact)
            resamplings += len(r.resample_times)
        own, exact_pot = np.array(own), np.array(exact_pot)
        rows.append({"n_particles": n, "seeds": seeds, "resamplings": resamplings, "shipped": _z(own),
                     "exact_potential": _z(exact_pot), "paired": _z(own - exact_pot)})
        print("repulsion N", n, {k: np.round(rows[-1][k]["z"], 2).tolist() for k in ("shipped", "exact_potential", "paired")},
              flush=True)
    null = []
    for seed in range(NULL_SEEDS):   # the base sampler's own draws (what steer moves when it never resamples)
        x = unguided(base, 1000, seed=seed).positions
        null.append(np.concatenate(moments(x, star(x, np.zeros(len(x))))) - exact)
    null = np.array(null)
    blocks = [_z(null[i:i + BLOCK])["z"] for i in range(0, NULL_SEEDS, BLOCK)]
    return {"stats": list(STATS), "gamma": gamma, "bandwidth": h, "exact": exact.tolist(), "rows": rows,
            "null": {"n_particles": 1000, "seeds": NULL_SEEDS, **_z(null), "block": BLOCK, "block_z": blocks}}


def soft_calibration_against_steps() -> dict:
    """Section 2d: soft calibration's free statistics against the step count, paired with the exact tilt on
    the same particles, and the base sampler's own moments (uniform weights) against the exact base's."""
    sys.path.insert(0, str(ROOT / "tests" / "core" / "distributional_steering"))
    from test_whole_target import AXES, FAMILIES, MESH, family, moments, random_mixture, x1

    base = random_mixture(FAMILIES.index("soft calibration"))
    reward, density, _, kw = family("soft calibration", base)
    n = kw.pop("n_particles", 2000)
    q0 = np.exp(base.log_prob(MESH))
    q0 /= q0.sum()
    a = float(np.ravel(linear_tilt_grid(base, AXES, x1, reward.target, reward.kappa).a)[0])
    exact, exact_base = np.concatenate(moments(MESH, density.ravel())), np.concatenate(moments(MESH, q0))
    rows = []
    for steps in STEPS:
        own, tilt, draws, resamplings = [], [], [], 0
        for seed in STEPS_SEEDS:
            r = steer(base, reward, n, seed=seed, n_steps=steps, **kw)
            own.append(np.concatenate(moments(r.positions, r.weights)) - exact)
            tilt.append(np.concatenate(moments(r.positions, softmax(r.base_logw + a * r.positions[:, 0]))) - exact)
            draws.append(np.concatenate(moments(r.positions, np.full(n, 1 / n))) - exact_base)
            resamplings += len(r.resample_times)
        own, tilt = np.array(own), np.array(tilt)
        rows.append({"n_steps": steps, "seeds": len(STEPS_SEEDS), "resamplings": resamplings, "scheme": _z(own),
                     "exact_tilt": _z(tilt), "paired": _z(own - tilt), "base_draws": _z(draws)})
        print("soft calibration steps", steps, {k: np.round(rows[-1][k]["z"], 2).tolist()
                                                 for k in ("scheme", "exact_tilt", "paired", "base_draws")}, flush=True)
    return {"stats": list(STATS), "n_particles": n, "tilt": a, "seeds": [STEPS_SEEDS.start, STEPS_SEEDS.stop - 1],
            "rows": rows}


def batch() -> dict:
    return result_to_dict(batch_level(ScenarioConfig(reward="repulsion", strength=10.0), seed=0))


def baselines(n_particles: int = 1000) -> dict:
    out = {}
    for reward in REWARDS:
        strength = STRENGTHS.get(reward, 0.0)
        out[reward] = compare(ScenarioConfig(reward=reward, strength=strength, n_particles=n_particles), seed=0).rows
    return out


def bootstrap_interval(values, seed: int, repeats: int = 2000, level: float = 0.95) -> list:
    """The percentile bootstrap interval of the mean of ``values`` (i.i.d. resampling)."""
    rng = np.random.default_rng(seed)
    values = np.asarray(values, dtype=float)
    means = values[rng.integers(0, len(values), (repeats, len(values)))].mean(1)
    return [float(v) for v in np.quantile(means, [(1 - level) / 2, (1 + level) / 2])]


def protein(target: float = 0.5, n: int = 2000) -> dict:
    t = time.perf_counter()
    out = steer_foldedness(target, n_particles=n, seed=0)
    seconds = time.perf_counter() - t
    return {"target": target, "reference_mean_foldedness": float(out.reference.mean()),
            "reference_bootstrap_95": bootstrap_interval(out.reference, seed=1),
            "denoiser_mean_foldedness": out.base_mean, "denoiser_bootstrap_95": bootstrap_interval(out.base, seed=2),
            "steered_mean_foldedness": out.steered_mean,
            "steered_ess": out.ess, "n_particles": n,
            "w1_steered_vs_maxent_reference": float(wasserstein_distance(out.steered, out.reference,
                                                                         out.weights, out.reference_weights)),
            "w1_denoiser_vs_reference": float(wasserstein_distance(out.base, out.reference)),
            "seconds": seconds}


def timing() -> dict:
    config = ScenarioConfig()
    t = time.perf_counter()
    unguided(GaussianMixtureBase([0.5, 0.3, 0.2], [[-1.0, 0.0], [1.0, 0.5], [0.0, -1.0]], [0.3, 0.3, 0.4]),
             config.n_particles, 0)
    anchor = time.perf_counter() - t
    t = time.perf_counter()
    run(config, 0)
    seconds = time.perf_counter() - t
    return {"default_run_seconds": seconds, "anchor_unguided_seconds": anchor, "ratio_to_anchor": seconds / anchor}


SECTIONS = ("whole_target", "whole_target_replication", "whole_target_decision", "soft_calibration_against_steps",
            "repulsion_against_n", "batch_level", "closed_forms", "baselines", "guidance_seeds", "identity_nulls",
            "protein", "default_run", "page")


def main(quick: bool = False, whole_seeds: int | None = None, sections: tuple | None = None) -> int:
    """``quick`` (``--quick``): closed forms on 3 seeds of 2000 particles, baselines on 500 particles, the
    protein on 500, no page timings; the whole-target section keeps its seeds (``--whole-seeds N``,
    default 16). For a loaded machine. ``sections`` (``--sections a,b``): rerun only those of
    ``SECTIONS`` and keep the rest from the last results file (listed under ``rerun_sections``)."""
    global SEEDS, N, WHOLE_SEEDS
    if quick:
        SEEDS, N = range(3), 2000
    if whole_seeds is not None:
        if whole_seeds < 2:
            raise ValueError(f"whole_seeds: {whole_seeds}; allowed integers >= 2 (standard errors over seeds)")
        WHOLE_SEEDS = range(whole_seeds)
    unknown = [x for x in sections or () if x not in SECTIONS]
    if unknown:
        raise ValueError(f"sections: {unknown} unknown; allowed any of {', '.join(SECTIONS)}")
    runs = {"whole_target": whole_target, "whole_target_replication": whole_target_replication,
            "whole_target_decision": whole_target_decision, "soft_calibration_against_steps": soft_calibration_against_steps,
            "repulsion_against_n": repulsion_against_n, "batch_level": batch,
            "closed_forms": closed_forms, "baselines": lambda: baselines(500 if quick else 1000),
            "guidance_seeds": lambda: guidance_seeds(range(1, 4) if quick else range(1, 11)),
            "identity_nulls": identity_nulls,
            "protein": lambda: protein(n=500 if quick else 2000), "default_run": timing,
            "page": lambda: {} if quick else page_timings("../pages/distributional_steering.py")}
    t0 = time.perf_counter()
    if sections:
        r = json.loads((ROOT / "bench" / "results" / "distributional_steering.json").read_text())
        for key in ("claims", "verdicts", "checks", "measured_at"):
            r.pop(key, None)
        previous = r.get("commands") or ([command_line(r.get("quick"))] * bool(r.get("rerun_sections"))
                                         + [command(r)])   # the runs behind the stored results
        r["rerun_sections"] = list(sections)
        if "closed_forms" in sections:
            r["closed_form_seeds"], r["closed_form_particles"] = len(SEEDS), N
        scaled = {"closed_forms", "baselines", "protein", "page"}   # the sections --quick shrinks
        r["quick"] = quick or (bool(r.get("quick")) and not scaled <= set(r.get("full_sections", [])) | set(sections))
        if not quick:
            r["full_sections"] = sorted(set(r.get("full_sections", [])) | set(sections))
    else:
        previous, r = [], {"quick": quick, "closed_form_seeds": len(SEEDS), "closed_form_particles": N}
    if not sections or "whole_target" in sections:
        r["whole_seeds"] = len(WHOLE_SEEDS)
    r["commands"] = previous + [command_line(quick, len(WHOLE_SEEDS), sections)]
    for key, fn in runs.items():
        if not sections or key in sections:
            r[key] = fn()
    r["seconds" if not sections else "rerun_seconds"] = time.perf_counter() - t0
    cf, p = r["closed_forms"], r["protein"]
    r["checks"] = {
        "closed_forms_median_within_tolerance": all(v[m]["median"] < v[m]["tolerance"] for v in cf.values() for m in v),
        "protein_mean_foldedness_within_0.02": abs(p["steered_mean_foldedness"] - p["target"]) < 0.02,
        "default_run_under_20s": r["default_run"]["default_run_seconds"] < 20}
    if r["page"]:
        r["checks"]["first_view_under_2s"] = r["page"]["first_view_warm"]["median_s"] < 2.0
    return write_results("distributional_steering", r, table(r), verdicts=verdicts)


def table(r: dict) -> str:
    lines = (["Quick run (`--quick`, a loaded machine): closed forms on fewer seeds and particles, baselines and "
              "protein on 500 particles, no page timings; the whole-target section at full scale.", ""]
             if r.get("quick") else [])
    n_cf, seeds_cf = r.get("closed_form_particles", N), r.get("closed_form_seeds", len(SEEDS))
    lines += [f"Closed forms, {n_cf} particles, {seeds_cf} seeds: median (max) error; seeds within tolerance", "",
             "| task | mean error (tol 0.03) | mode-mass error (tol 0.02) | W1 (tol 0.05) |", "|---|---|---|---|"]
    for name, v in r["closed_forms"].items():
        cells = [f"{v[m]['median']:.4f} ({v[m]['max']:.4f}); {v[m]['within_tolerance']}/{seeds_cf}"
                 for m in ("mean", "mode_mass", "w1")]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += whole_table(f"Whole target, {r.get('whole_seeds', 8)} seeds (0-{r.get('whole_seeds', 8) - 1})",
                         r["whole_target"])
    if r.get("whole_target_replication"):
        rep = r["whole_target_replication"]
        lines += whole_table(f"Its replication on fresh seeds {rep['seeds'][0]}-{rep['seeds'][1]} (pre-registered"
                             + ("" if r.get("whole_target_decision") else "; decides the verdict") + ")", rep["families"])
    if r.get("whole_target_decision"):
        dec = r["whole_target_decision"]
        bound = familywise_bound(_whole_misses(dec["families"])[2], dec["alpha"])
        lines += whole_table(f"The decision block, fresh seeds {dec['seeds'][0]}-{dec['seeds'][1]} (fixed with its rule "
                             f"before it ran; decides the verdict: every free statistic within {bound:.2f} SE, "
                             f"Bonferroni at family-wise alpha {dec['alpha']:g})", dec["families"])
    lines += steps_table(r.get("soft_calibration_against_steps"))
    lines += repulsion_table(r.get("repulsion_against_n"))
    b = r["batch_level"]
    lines += ["", f"Particle guidance vs the framework's unweighted proposal (kernel repulsion, gamma {b['gamma']:g}, "
              f"{b['n_particles']} particles): largest gap {b['max_gap']:.1e}", "",
              "| method | ESS | spread | binned W1 | floor |", "|---|---|---|---|---|"]
    lines += [f"| {row['method']} | {row['ESS']:.0f} | {row['spread']:.3f} | {row['binned W1']:.3f} | {row['floor']:.3f} |"
              for row in b["rows"]]
    n_base = next(iter(r["baselines"].values()))[0].get("n_particles", 500 if r.get("quick") else 1000)
    lines += ["", f"Baselines on the page's scenarios (2-D mixture, {n_base} particles, seed 0):", "",
              "| reward | method | mean x1 | mean x2 | W1 to target | spread | ESS | s |", "|---|---|---|---|---|---|---|---|"]
    for reward, rows in r["baselines"].items():
        for row in rows:
            lines.append(f"| {reward} | {row['method']} | {row['mean x1']:.3f} | {row['mean x2']:.3f} | "
                         f"{row['W1 to target']:.3f} | {row['spread']:.3f} | {row['ESS']:.0f} | {row['seconds']:.2f} |")
    p = r["protein"]
    ci_r, ci_d = p.get("reference_bootstrap_95", [np.nan, np.nan]), p.get("denoiser_bootstrap_95", [np.nan, np.nan])
    lines += ["", f"Protein: target mean foldedness {p['target']}: steered {p['steered_mean_foldedness']:.4f} "
              f"(ESS {p['steered_ess']:.0f} of {p['n_particles']}, {p['seconds']:.1f} s); reference sample "
              f"{p['reference_mean_foldedness']:.3f} (bootstrap 95 %: {ci_r[0]:.3f} to {ci_r[1]:.3f}), learned denoiser "
              f"alone {p['denoiser_mean_foldedness']:.3f} ({ci_d[0]:.3f} to {ci_d[1]:.3f}); "
              f"W1 of foldedness, steered vs max-ent reweighted reference {p['w1_steered_vs_maxent_reference']:.3f} "
              f"(denoiser vs reference {p['w1_denoiser_vs_reference']:.3f}).",
              "", f"Default run: {r['default_run']['default_run_seconds']:.2f} s "
              f"({r['default_run']['ratio_to_anchor']:.1f}x an unguided run of the same size)."]
    lines += ["", "| page timing | median (s) | ratio to anchor |", "|---|---|---|"]
    lines += [f"| {k} | {v['median_s']:.3f} | {v.get('ratio_to_anchor', 1.0):.2f} |" for k, v in r["page"].items()]
    return "\n".join(lines) + "\n"



def whole_table(title: str, families: dict) -> list:
    lines = ["", f"{title}: free statistics in standard errors over seeds (z), binned 2-D W1 over its Monte Carlo "
             "floor (ESS exact samples)", "",
             "| family | free | mean: estimate vs exact (z) | sd: estimate vs exact (z) | W1/floor median (max) | ESS |",
             "|---|---|---|---|---|---|"]
    for name, v in families.items():
        cells = ["; ".join(f"{e:.3f} vs {x:.3f} ({z:+.1f})" for e, x, z in zip(v[s]["estimate"], v[s]["exact"], v[s]["z"]))
                 for s in ("mean", "sd")]
        lines.append(f"| {name} | {', '.join(v['free'])} | {cells[0]} | {cells[1]} | {v['ratio_median']:.2f} "
                     f"({v['ratio_max']:.2f}) | {v['ess_median']:.0f} |")
    return lines


def steps_table(sec: dict | None) -> list:
    if not sec:
        return []
    cell = lambda v, i: f"{v['bias'][i]:+.4f} ({v['z'][i]:+.1f})"  # noqa: E731
    lines = ["", f"Soft calibration against the step count (post hoc, section 2d; fresh seeds {sec['seeds'][0]}-"
             f"{sec['seeds'][1]}, {sec['n_particles']} particles): bias (z over seeds) of each statistic for the scheme, "
             f"for the same particles under the exact tilt (a = {sec['tilt']:.4f}), their paired difference (the "
             "scheme's own error), and the base sampler's own draws (uniform weights) against the exact base", "",
             "| steps | resamplings | statistic | scheme | exact tilt, same particles | paired | base draws |",
             "|---|---|---|---|---|---|---|"]
    for row in sec["rows"]:
        lines += [f"| {row['n_steps']} | {row['resamplings']} | {stat} | {cell(row['scheme'], i)} | "
                  f"{cell(row['exact_tilt'], i)} | {cell(row['paired'], i)} | {cell(row['base_draws'], i)} |"
                  for i, stat in enumerate(sec["stats"])]
    return lines


def repulsion_table(rep: dict | None) -> list:
    if not rep:
        return []
    cell = lambda v, i: f"{v['bias'][i]:+.4f} ({v['z'][i]:+.1f})"  # noqa: E731
    lines = ["", f"Repulsion (gamma {rep['gamma']:g}, h {rep['bandwidth']:g}) against N: bias of each free statistic "
             "(z over seeds) for the scheme, for the same particles reweighted with the exact mean-field potential, "
             "and their paired difference (the scheme's own error)", "",
             "| N | seeds | resamplings | statistic | scheme | exact potential, same particles | paired | N x paired |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rep["rows"]:
        for i, stat in enumerate(rep["stats"]):
            lines.append(f"| {row['n_particles']} | {row['seeds']} | {row['resamplings']} | {stat} | "
                         f"{cell(row['shipped'], i)} | {cell(row['exact_potential'], i)} | {cell(row['paired'], i)} | "
                         f"{row['n_particles'] * row['paired']['bias'][i]:+.2f} |")
    nl = rep["null"]
    lines += ["", f"The exact-potential estimator on the base sampler's own draws ({nl['n_particles']} particles, "
              f"{nl['seeds']} seeds; z over all, and per block of {nl['block']} seeds):", "",
              "| statistic | bias (z), all seeds | z per block |", "|---|---|---|"]
    lines += [f"| {stat} | {cell(nl, i)} | " + ", ".join(f"{b[i]:+.1f}" for b in nl["block_z"]) + " |"
              for i, stat in enumerate(rep["stats"])]
    return lines



KEY = "distributional_steering"
COMMAND = "python bench/distributional_steering.py"


def command(r: dict) -> str:
    """The command lines that measured ``r`` (partial reruns after the full run, joined by ``;``)."""
    if r.get("commands"):
        return "; ".join(r["commands"])
    return command_line(r.get("quick"), r.get("whole_seeds", 16), r.get("rerun_sections"))


def command_line(quick: bool, whole_seeds: int = 16, sections=None) -> str:
    """The command line of one run with these options."""
    return (COMMAND + (" --quick" if quick else "") + (f" --whole-seeds {whole_seeds}" if whole_seeds != 16 else "")
            + (" --sections " + ",".join(sections) if sections else ""))


def _row(rows: list, method: str) -> dict | None:
    return next((row for row in rows if row["method"] == method), None)


def describe(r: dict) -> dict:
    """Each claim's figure and detail in words, from the numbers in ``r`` alone; its rule in
    ``core.distributional_steering.claims`` decides its status."""
    cf = r["closed_forms"]
    cells = [(task, m, v) for task, per in cf.items() for m, v in per.items()]
    seeds = r.get("closed_form_seeds", len(SEEDS))
    good = [(t, m) for t, m, v in cells if v["within_tolerance"] >= 0.9 * seeds]
    unguided = {rw: _row(rows, "unguided")["W1 to target"] for rw, rows in r["baselines"].items()
                if np.isfinite(_row(rows, "unguided")["W1 to target"])}
    _, whole_summary, whole_detail = whole_target_reading(r, decided=False)
    out = {"targets_tilted_measure": (
        whole_summary,
        f"Closed-form tasks: {len(good)} of {len(cells)} task × statistic cells within tolerance on ≥ 90 % of {seeds} "
        "seeds; median errors over the seeds against their tolerances: " + "; ".join(
            f"{task} / {m} {v['median']:.3g} ({v['tolerance']:g})" for task, m, v in cells) + ". "
        + closed_form_z_note(cf) + closed_form_note(cf, seeds) + whole_detail + pooled_note(r)
        + steps_note(r.get("soft_calibration_against_steps"))
        + repulsion_note(r.get("repulsion_against_n"), r.get("whole_seeds", 8))
        + f"The unguided control's W1 to the target: {min(unguided.values()):.2f} to {max(unguided.values()):.2f} on "
        "the page's scenarios.")}
    tilt = r["baselines"]["tilt"]
    mf, fk = _row(tilt, "mean-field particles"), _row(tilt, "FK steering")
    gap = max(abs(mf[k] - fk[k]) for k in ("mean x1", "mean x2", "W1 to target"))
    out["pointwise_special_case"] = (
        f"largest difference from FK steering {gap:.0e}",
        f"On the pointwise tilt, seed 0, the mean-field scheme and a separately written FK steering give means and W1 "
        f"that differ by at most {gap:.0e} (W1 to the exact target {mf['W1 to target']:.3f})." + null_note(
            r, "pointwise", "The null, the same test on mean calibration (kappa 4), whose first variation moves with "
            "the measure, against FK steering with it frozen at the base: the means and W1 differ by {gap:.2f}."))
    pairs = {rw: (_row(rows, "mean-field particles")["W1 to target"], _row(rows, "gradient guidance only")["W1 to target"])
             for rw, rows in r["baselines"].items() if np.isfinite(_row(rows, "mean-field particles")["W1 to target"])}
    out["beats_gradient_guidance"] = guidance_words(r.get("guidance_seeds"), (
        "Seed 0 (the baselines section, the page's table), W1 to the exact target, mean-field against gradient "
        "guidance alone: " + "; ".join(f"{rw} {a:.3f} vs {b:.3f}" for rw, (a, b) in pairs.items()) + "."))
    b = r["batch_level"]
    rows = {row["method"]: row for row in b["rows"]}
    weighted, pg = rows.get("mean-field particles"), rows.get("particle guidance")
    out["batch_level_foundation"] = (
        f"particle guidance = the framework's unweighted repulsion proposal to {b['max_gap']:.0e}",
        "Particle guidance's drift is the gradient of the kernel-repulsion reward's first variation at the unweighted "
        "batch (Jacobian 1/alpha_t); sampled both ways with one seed the particles agree to "
        f"{b['max_gap']:.0e}. Alone, its binned W1 to the mean-field target is {pg['binned W1']:.3f} (floor "
        f"{pg['floor']:.3f}); the framework's weighted scheme's is {weighted['binned W1']:.3f} (floor "
        f"{weighted['floor']:.3f}). One batch-level method (particle guidance), one kernel." + null_note(
            r, "batch", "The null, the unguided sampler (the same proposal without the reward's first variation, same "
            "seed and particles), differs from particle guidance by up to {gap:.2f}."))
    p = r["protein"]
    base_gap = p["denoiser_mean_foldedness"] - p["reference_mean_foldedness"]
    lo, hi = p.get("reference_bootstrap_95", [p["reference_mean_foldedness"] - 0.02, p["reference_mean_foldedness"] + 0.02])
    interval = (f"the reference's {p['reference_mean_foldedness']:.3f} (bootstrap 95 % interval {lo:.3f} to {hi:.3f}, "
                "i.i.d. over the shipped conformations; chains correlate, so it is if anything too narrow)")
    out["protein_calibration"] = (
        f"steered mean foldedness {p['steered_mean_foldedness']:.3f} for a target of {p['target']}, W1 "
        f"{p['w1_steered_vs_maxent_reference']:.3f} to the max-ent reference; base-model fidelity (its own figure): "
        f"unsteered {p['denoiser_mean_foldedness']:.3f} vs reference {p['reference_mean_foldedness']:.3f}",
        f"W1 to the max-ent reweighted Langevin reference {p['w1_steered_vs_maxent_reference']:.3f}; the mean is on "
        "target by construction of the hard moment constraint, so that W1 is the informative test. The null, the "
        f"unsteered denoiser's ensemble, is {abs(p['denoiser_mean_foldedness'] - p['target']):.3f} from the target. "
        "Base-model fidelity, judged apart from the steering claim (the abstract does not assert it): the learned "
        f"denoiser alone gives {p['denoiser_mean_foldedness']:.3f} against {interval}: a gap of {base_gap:+.3f}. Where "
        "the denoiser alone falls below that interval the base model itself under-folds (retraining as documented in "
        "denoiser.py did not close it); steering calibrates to an absolute target, so the gap moves the start, not "
        "the goal. A toy Gō protein, not the paper's conformation benchmarks.")
    return out


verdicts = judged(KEY, describe, command)   # the command lines that measured the stored result


def null_note(r: dict, which: str, text: str) -> str:
    """`` text`` with the stored identity null's largest gap, or nothing before the identity_nulls section ran."""
    found = (r.get("identity_nulls") or {}).get(which)
    return " " + text.format(gap=found["max_gap"]) if found else ""


def closed_form_z_note(cf: dict) -> str:
    """The calibrated reading of the closed-form cells: the largest pooled |z| against its Bonferroni bound."""
    pooled = [(abs(z), f"{task} / {m}") for task, per in cf.items() for m, v in per.items() for z in v.get("pooled_z", [])]
    if not pooled:
        return ""
    bound = familywise_bound(len(pooled), CLOSED_FORM_ALPHA)
    worst, where = max(pooled)
    return (f"Mean signed errors over the seeds against an exact sampler's standard error at the same ESS (and the "
            f"reference sample's): largest |pooled z| {worst:.2f} ({where}) against the Bonferroni bound {bound:.2f} "
            f"over {len(pooled)} statistics at family-wise alpha {CLOSED_FORM_ALPHA:g}; the fixed tolerances below "
            "are reported, not decided on (9 of 10 seeds within them fails an exact sampler of the same ESS in "
            "expectation). ")


def closed_form_note(cf: dict, seeds: int) -> str:
    """The closed-form cells under 90 % of seeds, each beside what an exact sampler of the same ESS expects."""
    short = [(task, m, v) for task, per in cf.items() for m, v in per.items() if v["within_tolerance"] < 0.9 * seeds]
    if not short:
        return ""
    return ("Below 90 %: " + "; ".join(
        f"{task} / {m}: {v['within_tolerance']} of {seeds} within {v['tolerance']:g}"
        + (f" (an exact sampler of the same ESS: {v['exact_sampler_expected']:.1f} expected)"
           if "exact_sampler_expected" in v else "") for task, m, v in short) + ". ")


PRE_ISSUE = "hard constraint, pre-issue scheme"


def whole_blocks(r: dict) -> list:
    """The whole-target blocks in ``r`` in the order they ran: (label, seeds, families)."""
    n = r.get("whole_seeds", 8)
    return [(f"{n} seeds (0-{n - 1})", n, r["whole_target"])] + [
        (f"{b['seeds'][1] - b['seeds'][0] + 1} fresh seeds ({b['seeds'][0]}-{b['seeds'][1]})",
         b["seeds"][1] - b["seeds"][0] + 1, b["families"])
        for b in (r.get("whole_target_replication"), r.get("whole_target_decision")) if b]


def whole_target_reading(r: dict, decided: bool = True) -> tuple:
    """(passes, summary, detail) of the whole-target check: the decision block (section 2c) by its
    family-wise rule, whose control (the pre-issue scheme on the same seeds) must fail it; without
    one, the last block run by the per-statistic 2 SE rule. ``decided=False`` leaves the control's reading out of
    the detail (the verdicts' rule, ``core.distributional_steering.claims``, states it)."""
    blocks = whole_blocks(r)
    where, _, families = blocks[-1]
    dec = r.get("whole_target_decision")
    two, far, n_stats, n_fam = _whole_misses(families)
    bound = familywise_bound(n_stats, dec["alpha"]) if dec else 2.0
    misses = _whole_misses(families, bound)[0]
    old = families.get(PRE_ISSUE) or r["whole_target"].get(PRE_ISSUE)
    old_z = max(abs(z) for s in ("mean", "sd") for z in old[s]["z"]) if old else float("nan")
    control_fails = old is not None and (old_z >= bound or old["ratio_median"] >= 1.5)
    said = lambda m, b: "all within " + b + ". " if not m else "misses: " + "; ".join(m) + ". "  # noqa: E731
    earlier = "".join(f"Earlier block, {w}, by 2 SE: {said(_whole_misses(f)[0], '2 SE')}" for w, _, f in blocks[:-1])
    pre = (f"The pre-issue hard-constraint scheme on {where}: W1 {old['ratio_median']:.2f} floors, largest |z| "
           f"{old_z:.1f}" + ((": the rule rejects it. " if control_fails else ": the rule does not reject it, so it "
                             "cannot decide. ") if dec and decided else ". ")) if old else ""
    if dec:
        summary = (f"{n_stats - len(misses)} of {n_stats} free statistics within the family-wise bound {bound:.2f} SE "
                   f"over {where}, {n_stats - len(two)} "
                   f"within 2 SE; W1 within 1.5 floors on {n_fam - len(far)} of {n_fam} families")
        detail = (f"Whole target (statistics the reward does not constrain, 2-D W1 against its Monte Carlo floor) on "
                  f"{where}, a block fixed with its rule before it ran (every statistic within {bound:.2f} SE: "
                  f"Bonferroni over {n_stats} at family-wise alpha {dec['alpha']:g}): " + said(misses, f"{bound:.2f} SE")
                  + "By the per-statistic 2 SE reading: " + said(two, "2 SE") + chance_note(n_stats, len(two))
                  + pre + earlier)
        return not misses and not far and control_fails, summary, detail
    summary = (f"{n_stats - len(misses)} of {n_stats} free statistics within 2 SE over {where}; W1 within 1.5 floors "
               f"on {n_fam - len(far)} of {n_fam} families")
    detail = (f"Whole target (statistics the reward does not constrain, 2-D W1 against its Monte Carlo floor) on {where}: "
              + said(misses, "2 SE") + earlier + chance_note(n_stats, len(misses)) + pre)
    return not misses and not far, summary, detail


def pooled(r: dict) -> list:
    """Post hoc: every free statistic's mean over the seeds of all whole-target blocks against the exact,
    as (z, bias, family, statistic, coordinate), largest |z| first."""
    blocks = [(n, f) for _, n, f in whole_blocks(r)]
    total = sum(n for n, _ in blocks)
    out = []
    for name, v in blocks[0][1].items():
        if name == PRE_ISSUE:
            continue
        for stat in ("mean", "sd"):
            for i, x in enumerate(v["free"]):
                mean = sum(n * f[name][stat]["estimate"][i] for n, f in blocks) / total
                se = np.sqrt(sum((n * f[name][stat]["se"][i]) ** 2 for n, f in blocks)) / total
                bias = mean - v[stat]["exact"][i]
                out.append((float(bias / se), float(bias), name, stat, x))
    return sorted(out, key=lambda t: -abs(t[0]))


def pooled_note(r: dict) -> str:
    """The largest pooled statistics over all blocks, read against the family-wise bound (post hoc)."""
    rows, blocks = pooled(r), whole_blocks(r)
    if len(rows) < 2 or len(blocks) < 2:
        return ""
    bound, seeds = familywise_bound(len(rows)), sum(n for _, n, _ in blocks)
    past = [t for t in rows if abs(t[0]) >= bound]
    return (f"Post hoc, pooled over all {seeds} seeds of the blocks: " + "; ".join(
        f"{name} {stat} of {x} {z:+.1f} SE (bias {bias:+.4f})" for z, bias, name, stat, x in rows[:2])
        + f", {len(past)} of {len(rows)} past {bound:.2f} SE. ")


def steps_note(sec: dict | None) -> str:
    """What section 2d measured, from its numbers alone: per step count, each reading's largest |z|."""
    if not sec:
        return ""
    def worst(v):
        i = max(range(len(v["z"])), key=lambda k: abs(v["z"][k]))
        return f"{sec['stats'][i]} {v['bias'][i]:+.4f} ({v['z'][i]:+.1f} SE)"
    return (f"Post hoc, soft calibration on {sec['rows'][0]['seeds']} fresh seeds ({sec['seeds'][0]}-{sec['seeds'][1]}), "
            "largest of each reading: " + "; ".join(
                f"at {row['n_steps']} steps the scheme {worst(row['scheme'])}, its own error against the exact tilt on "
                f"the same particles {worst(row['paired'])}, the base sampler's draws {worst(row['base_draws'])}"
                for row in sec["rows"]) + ". ")


def chance_note(n_stats: int, misses: int) -> str:
    """How often an exact sampler misses the 2 SE rule as often, taking the statistics as independent."""
    from scipy.stats import binom

    p = 2 * norm.sf(2.0)
    return (f"An exact sampler misses 2 SE on {n_stats * p:.2f} of {n_stats} statistics on average, and on at least "
            f"{max(misses, 1)} with probability {binom.sf(max(misses, 1) - 1, n_stats, p):.2f}. ")


def _whole_misses(families: dict, bound: float = 2.0) -> tuple:
    """(misses at ``bound`` SE or beyond, families whose W1 is 1.5 floors or more, statistics, families) of a
    whole-target block."""
    whole = {k: v for k, v in families.items() if "pre-issue" not in k}
    misses = [f"{k} {s} of {x} ({z:+.1f} SE)" for k, v in whole.items() for s in ("mean", "sd")
              for x, z in zip(v["free"], v[s]["z"]) if abs(z) >= bound]
    far = [k for k, v in whole.items() if v["ratio_median"] >= 1.5]
    return misses, far, sum(2 * len(v["free"]) for v in whole.values()), len(whole)


def repulsion_note(rep: dict | None, whole_seeds: int) -> str:
    """What the repulsion family's N sweep says about its free statistics, from the numbers alone."""
    if not rep:
        return ""
    row = next((x for x in rep["rows"] if x["n_particles"] == 1000 and x["seeds"] == whole_seeds), None)
    worst = lambda v: max(range(len(v["z"])), key=lambda i: abs(v["z"][i]))  # noqa: E731
    paired = [max(abs(z) for z in x["paired"]["z"]) for x in rep["rows"]]
    out = ("Repulsion against N (" + ", ".join(f"{x['n_particles']}" for x in rep["rows"]) + "): the scheme's own "
           "error, its weights against the exact mean-field potential's on the same particles, is at most "
           f"{max(paired):.1f} SE at every N (largest |bias| "
           f"{max(abs(b) for x in rep['rows'] for b in x['paired']['bias']):.4f}; N x bias from "
           f"{min(x['n_particles'] * b for x in rep['rows'] for b in x['paired']['bias']):+.1f} to "
           f"{max(x['n_particles'] * b for x in rep['rows'] for b in x['paired']['bias']):+.1f}). ")
    if row:
        i = worst(row["shipped"])
        out += (f"At N 1000 over the same {row['seeds']} seeds the worst statistic ({rep['stats'][i]}) is "
                f"{row['shipped']['z'][i]:+.1f} SE for the scheme and {row['exact_potential']['z'][i]:+.1f} SE for the "
                f"exact potential on the same particles (paired {row['paired']['z'][i]:+.1f} SE)"
                + (": the offset is in those seeds' draws, not the weights. "
                   if abs(row["exact_potential"]["z"][i]) >= 2 and abs(row["paired"]["z"][i]) < 2 else ". "))
    nl = rep["null"]
    out += (f"The exact-potential estimator on the base sampler's draws is within "
            f"{max(abs(z) for z in nl['z']):.1f} SE over {nl['seeds']} seeds, its blocks of {nl['block']} reaching "
            f"{max(abs(z) for b in nl['block_z'] for z in b):.1f} SE (the first block, seeds 0-{nl['block'] - 1}: "
            f"{nl['block_z'][0][1]:+.1f} on mean x2). ")
    return out


def cli(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer seeds and particles outside the whole-target section")
    parser.add_argument("--whole-seeds", type=int, default=None, help="seeds of the whole-target section (default 16)")
    parser.add_argument("--sections", default=None, help=f"comma-separated, rerun only these of {', '.join(SECTIONS)}")
    args = parser.parse_args(argv)
    sections = tuple(x.strip() for x in args.sections.split(",")) if args.sections else None
    return main(quick=args.quick, whole_seeds=args.whole_seeds, sections=sections)


if __name__ == "__main__":
    sys.exit(cli())

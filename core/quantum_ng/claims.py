"""The locality-aware quantum natural gradient paper's headline claims, checked by ``bench/quantum_ng.py``."""

import math

import numpy as np

from core.common.claims import Claim
from core.common.decisions import AllOf, Binomial, Every, Flag, PairedT, Some, Threshold, Trend
from core.common.rules import Check, Diagnosis, Rule

CLAIMS = (
    Claim("per_shot_convergence",
          "On VQE with local ansätze for Heisenberg and Ising chains, up to 16 qubits, the surrogate converges "
          "better per cumulative shot than SGD, Adam, block-diagonal QNG and RNG.",
          "Median (over seeds) area of log10 energy error against cumulative shots, per chain and size, on the "
          "local brickwork ansatz, every shot each optimiser spends counted against one budget, step sizes tuned "
          "on separate seeds.",
          "The four baselines on the same budget; the surrogate must rank first."),
    Claim("targets_qfim",
          "The surrogate targets the QFIM through its covariance representation in propagated generators.",
          "Where it could fail (k < n, one shadow of T = 500 snapshots, the mask on): per fresh parameter point, the "
          "surrogate's relative error against the exact metric, next to the best multiple of the identity's, and "
          "how it falls with 4T snapshots; at 8, 12 and 16 qubits, k chosen on another point.",
          "The surrogate with its parameters' labels shuffled (null); the block-diagonal part of the exact metric, "
          "the surrogate at k = n with exact expectations, and our exact metric against PennyLane's "
          "qml.adjoint_metric_tensor (references)."),
    Claim("k_bias_variance",
          "The truncation weight k trades bias for variance: larger k captures more structure but costs more to "
          "estimate.",
          "Bias² (truncation error) and the shadow estimator's variance against k at a fixed shot count T, their "
          "sum (the MSE) and the best k; the one-dataset variance estimate against the empirical one.",
          "The exact metric (bias); the empirical variance over independent shadows (variance)."),
    Claim("practical_estimation",
          "The surrogate is practical to estimate under finite-shot budgets, far cheaper than the full QFIM.",
          "In the paper's unit, shots on hardware: per fresh parameter point and budget B (the full QFIM's "
          "parameter-shift circuits times 1, 4, 16 shots), the surrogate from one shadow of B snapshots against the "
          "full QFIM and the block-diagonal metric each estimated from B shots, and the trivial metric (no shots), by "
          "relative error against the exact metric; 8 and 12 qubits, k per budget from the tradeoff section's point "
          "0 (registered after a first look with k fixed at its T = 500 choice). CPU seconds in simulation as a "
          "reference.",
          "The surrogate with its parameters' labels shuffled (null); CPU seconds of every path at 16 qubits, "
          "qml.adjoint_metric_tensor among them (references)."),
    Claim("concentration_bound",
          "Finite-shot concentration bounds hold for the shadow-estimated surrogate.",
          "How often the shadow-estimated surrogate lies farther from its target (the truncated metric) than our "
          "derived bound's radius (the abstract gives no formula), against delta = 0.05 with an exact binomial "
          "interval over 200 seeded shadows: at 8 qubits, k = 2, T = 500, then at k = 1, 2 and T = 500, 2,000, "
          "8,000; and how loose the bound is.",
          "The bound measured against the exact metric (null: a misspecified target, off by the truncation bias), "
          "where the bias exceeds the radius; it must fail there."),
    Claim("stationary_convergence",
          "Surrogate QNG converges to a stationary neighbourhood under standard smoothness assumptions.",
          "Exact squared gradient norm settled along long runs (mean over the last third), per seed, against a "
          "tenth of its start, and how it shrinks as the shots per circuit grow; each optimiser's step tuned on "
          "separate seeds.",
          "The surrogate's step lengths in random directions (null); SGD, Adam and block-diagonal QNG tuned the same "
          "way (references)."),
)



_BASELINES = {"sgd": "SGD", "adam": "Adam", "block_qng": "block-diagonal QNG", "rng": "RNG"}


TIE_BAND = 0.05   # decades of mean log10 error over the budget (12 % in error): a smaller difference is a tie
VQE_JUDGED = "vqe_confirm"   # the fresh seeds registered with the band: they decide once every chain has them


def judged_cases(result) -> dict:
    """The chains that decide: VQE_JUDGED once it holds every chain of "vqe", else "vqe" (seeds 0-4)."""
    first = result["vqe"]
    confirm = result.get(VQE_JUDGED, {})
    return confirm if first and set(confirm) >= set(first) else first


def seed_leads(case: dict, key: str, start=None) -> list:
    """Per seed: ``key``'s log-error area minus the surrogate's (positive: the surrogate converged better per shot;
    paired by seed: the same start and shot stream); ``start``: the trivial method's area in the surrogate's place."""
    mine = case["optimizers"]["surrogate"]["areas"] if start is None else [start[str(s)] for s in case["seeds"]]
    return [b - a for a, b in zip(mine, case["optimizers"][key]["areas"], strict=True)]


def _leads(result, start=False) -> list:
    """Per chain, per baseline: the per-seed leads (``start``: of the trivial method, the start held)."""
    cases = judged_cases(result)
    return [[seed_leads(c, k, result["vqe_start"][name]["log_error_area"] if start else None) for k in _BASELINES]
            for name, c in cases.items()]


def _lead_over(key: str):
    return lambda r: [seed_leads(c, key) for c in judged_cases(r).values()]


def _target(over: str, under: str):
    """Per size of section qfim_target, per parameter point: log10 of its ``over`` error over its ``under`` error."""
    return lambda r: [[math.log10(p[over] / p[under]) for p in t["points"]] for t in r["qfim_target"].values()]


_SHAPE = AllOf((Every(Threshold(1e-12, "below", strict=False)), Trend("falling"),
                Every(Threshold(0.0, "above", strict=False)), Trend("rising")))


def _shapes(result, section: str = "tradeoff") -> list:
    """Per size: bias² steps over k, bias² over k, empirical variance steps over k, empirical variance over k."""
    return [(np.diff(t["bias2"]).tolist(), t["bias2"], np.diff(t["variance_empirical"]).tolist(),
             t["variance_empirical"]) for t in result[section].values()]


def _log_ratios(result) -> list:
    return [abs(math.log(e / v)) for t in result["tradeoff"].values()
            for e, v in zip(t["variance_estimate"], t["variance_empirical"]) if v > 0]


FRONTIER_JUDGED = "shot_frontier_k"   # registered after shot_frontier (k per budget, fresh points): decides once stored


def _frontier(mine: str, *others: str, section: str | None = None):
    """Per size and budget of the judged frontier section (``section``: that one), per point: log10 of the best of
    ``others`` (a budget's path, or "identity", the zero-shot trivial metric) over ``mine``'s error at that budget."""
    def at(r):
        out = []
        name = section or (FRONTIER_JUDGED if FRONTIER_JUDGED in r else "shot_frontier")
        for s in r[name].values():
            for i in range(len(s["budgets"])):
                out.append([math.log10(min(p["budgets"][i].get(o, p.get(o)) for o in others) / p["budgets"][i][mine])
                            for p in s["points"]])
        return out
    return at


def _dominance(result) -> list:
    """Per other path: its CPU seconds and its metric error minus the surrogate-from-one-shadow's."""
    m = result["construction"]["methods"]
    sur = m["surrogate_shadow"]
    return [[o["seconds"] - sur["seconds"], o["relative_error"] - sur["relative_error"]]
            for name, o in m.items() if name != "surrogate_shadow"]


STATIONARY_JUDGED = "stationary_confirm"   # registered after the 6 seeds of "stationary": 16 fresh seeds decide


def _stationary(key: str, field: str):
    """Per evaluation seed of the stationary runs of ``key`` (the confirmatory seeds once stored, as registered): log10 of the settled over the starting squared gradient
    norm at the most shots (``field="neighbourhood"``), or the slope of log10 settled norm over log10 shots."""
    def at(result):
        runs = result[STATIONARY_JUDGED if STATIONARY_JUDGED in result else "stationary"]["optimizers"][key]["runs"]
        if field == "slope":
            return [x["slope"] for x in runs]
        return [math.log10(x["tail"][-1] / x["initial"]) for x in runs]
    return at


BOUND_DELTA = 0.05   # the bench's delta (bench/quantum_ng_bound.py): the failure rate each binomial interval meets


def _grid_failures(r) -> list:
    """Per (k, T) of section bound_grid: (failures against the bound's target, shadows)."""
    return [(x["failures"], x["seeds"]) for x in r["bound_grid"].values()]


def _misspecified(r):
    """Per (k, T) of section bound_grid where the truncation bias exceeds the radius: (failures against the exact
    metric, shadows); None where no setting has such a bias (the null is then not measured)."""
    out = [(x["failures_against_exact"], x["seeds"]) for x in r["bound_grid"].values() if x["bias"] > x["radius"]]
    return out or None


RULES = {
    "per_shot_convergence": Rule(
        checks=(Check("some_chain", "claim", "per chain and size, each baseline's log-error area (mean log10 energy "
                      "error over the shot budget) minus the surrogate's, paired by seed (same start, same shot "
                      "stream): on at least one chain, the 95 % t interval wholly above 0 against all four baselines",
                      _leads, Some(Every(PairedT(0.0, "above")))),
                Check("every_chain", "part", "the same on every chain and size", _leads,
                      Every(Every(PairedT(0.0, "above")))),
                Check("never_worse", "part", f"never worse than a tie: every chain and baseline, the interval wholly "
                      f"above -{TIE_BAND:g} decades (the tie band, fixed with the registration)", _leads,
                      Every(Every(PairedT(-TIE_BAND, "above")))),
                Check("doing_nothing", "null", "the trivial method in the surrogate's place (the start's error held "
                      "over the budget, per seed): the claim's test, which it must fail",
                      lambda r: _leads(r, start=True), Some(Every(PairedT(0.0, "above")))),
                *(Check(key, "reference", f"{label}'s area minus the surrogate's, per chain: interval above 0 on "
                        "every chain", _lead_over(key), Every(PairedT(0.0, "above"))) for key, label in _BASELINES.items())),
        diagnosis=Diagnosis("genuine", "Judged with paired intervals and a tie band of 0.05 decades on the fresh "
                            "seeds 5-9 registered with the band (they decide): the surrogate is ahead in 5 of the 24 "
                            "chain-baseline pairs (RNG on 4 chains, Adam on one), tied in 4, undecided in 11 and "
                            "behind in 4 (SGD on 8-qubit Heisenberg, -0.029 [-0.055, -0.003], and on 16-qubit TFIM; "
                            "block-diagonal QNG on 12-qubit Heisenberg, -0.014 [-0.023, -0.006]; Adam on 16-qubit "
                            "TFIM), so on no chain does it beat all four. As the chain grows its lead over SGD and "
                            "over block-diagonal QNG stays a few hundredths of a decade below zero (8, 12, 16 qubits: "
                            "-0.023 and -0.017, -0.028 and -0.032, -0.016 and -0.014) while the budget's surrogate "
                            "steps fall (95, 26, 5): no advantage emerges with size in our budgets, and at 16 qubits 4 "
                            "to 6 steps separate little. The first look (seeds 0-4, before the band was fixed): ahead "
                            "in 7, tied in 10 (with block-diagonal QNG on all 6 chains), undecided in 7, behind in 0, "
                            "leads +0.003 and -0.001, +0.024 and +0.005, -0.009 and -0.006. The earlier rule ranked "
                            "the lowest median area (12-qubit Heisenberg 0.875 / 0.874 / 0.877 read as a loss). The "
                            "doing-nothing null (the start's error held over the budget) fails as predicted. Per shot "
                            "the surrogate converges about as well as SGD and block-diagonal QNG, not better. Commands: "
                            "python bench/quantum_ng.py --only vqe (seeds 0-4, about 32 minutes on 2 cores); --only "
                            "vqe_confirm --sizes 8 (169 s), --sizes 12 (237 s), --sizes 16 --models heisenberg (246 s),"
                            " --sizes 16 --models tfim (278 s); --only vqe_start (seconds). The trend is read from "
                            "the same runs as cells of python -m bench.run quantum_ng --grid vqe_confirm_08q, "
                            "vqe_confirm_12q, vqe_confirm_16q (150 cells, one optimiser, chain and seed each, repeating "
                            "section vqe_confirm's areas to 1e-15), then python bench/quantum_ng.py --only vqe_cells.",
                            trend="vqe_trend.trend")),
    "targets_qfim": Rule(
        checks=(Check("beats_trivial", "claim", "per size, per fresh parameter point, log10 of the best identity "
                      "multiple's relative error over the surrogate's (k < n from one shadow of T snapshots, mask on): "
                      "the 95 % t interval wholly above 0 at every size", _target("identity", "surrogate"),
                      Every(PairedT(0.0, "above"))),
                Check("more_shots", "part", "per size and point, log10 of the surrogate's error from T snapshots over "
                      "its error from 4T: the interval wholly above 0 at every size (it closes in on its target as the "
                      "shots grow)", _target("surrogate", "surrogate_more_shots"), Every(PairedT(0.0, "above"))),
                Check("shuffled_parameters", "null", "the surrogate with its parameters' labels shuffled (the same "
                      "entries aligned with nothing): the claim's test, which it must fail",
                      _target("identity", "shuffled"), Every(PairedT(0.0, "above"))),
                Check("best_scale", "reference", "the surrogate at its best multiple (c S, c knowing the metric: its "
                      "error up to a scale a tuned step absorbs, as the identity's is): the claim's test",
                      _target("identity", "surrogate_best_scale"), Every(PairedT(0.0, "above"))),
                Check("block_diagonal", "reference", "the block-diagonal part of the exact metric (one block per "
                      "rotation sub-layer) in the surrogate's place: the claim's test",
                      _target("identity", "block_diagonal"), Every(PairedT(0.0, "above"))),
                Check("full_weight", "reference", "the surrogate at k = n (no mask, exact expectations) against the "
                      "exact metric, 4 qubits, both ansätze: equal by construction, a test of the code (error < 1e-9)",
                      "checks.surrogate_exact_at_full_weight",
                      Flag("the surrogate equals the exact metric at full weight (error < 1e-9)")),
                Check("adjoint", "reference", "our exact metric against PennyLane's qml.adjoint_metric_tensor, largest "
                      "absolute difference", "construction.exact_matches_adjoint", Threshold(1e-8))),
        diagnosis=Diagnosis("scale", "Registered before it ran (k < n, one shadow of T = 500 snapshots, fresh points "
                            "3-14): at T = 500 no size beats the best multiple of the identity (log10 ratio 8 qubits "
                            "-0.020 [-0.052, +0.012] with k = 3, 12 qubits +0.007 [-0.005, +0.019], 16 qubits +0.000 "
                            "[-0.012, +0.012] with k = 2), although the shuffled-label null fails as predicted (-0.19, "
                            "-0.11, -0.12: the surrogate's entries do point at the metric's) and 4T snapshots bring it "
                            "closer at every size. The gap closes as the shots grow (cells of python -m bench.run "
                            "quantum_ng --grid target_shots, 108 cells, 346 s on 2 cores): T = 500, 2,000, 8,000 give "
                            "-0.020, +0.121, +0.176 at 8 qubits, +0.007, +0.028, +0.033 at 12, +0.000, +0.021, +0.027 "
                            "at 16, every interval at T >= 2,000 wholly above 0; with exact expectations (T infinite) "
                            "+0.20, +0.035, +0.029. So the estimate targets the QFIM, but at 500 snapshots its shot "
                            "noise spends the little the truncated, masked target has over the trivial metric: at k = 2 "
                            "that target is only 7 % closer than the identity (relative error 0.64 against 0.69 at 12 "
                            "and 16 qubits), and the block-diagonal part of the exact metric (0.59) is closer than "
                            "either. No defect of ours found: k = 3 at 8 qubits, chosen on point 0 by the tradeoff "
                            "section, is on the fresh points a little worse than k = 2 (median 0.71 against 0.69), and "
                            "the mask alone removes 0.28-0.38 of the metric at k = 4 (section metric). The earlier "
                            "verdict (reproduced) checked k = n with exact expectations, equal by construction; it is "
                            "kept as the full_weight reference. Commands: python bench/quantum_ng.py --only qfim_target "
                            "--sizes 8 12 16 (103 s); python -m bench.run quantum_ng --grid target_shots, then python "
                            "bench/quantum_ng.py --only target_trend.", trend="target_trend.trend")),
    "k_bias_variance": Rule(
        checks=(Check("some_size", "claim", "per size: bias² non-increasing over k = 1..4 (steps ≤ 1e-12) and lower at "
                      "the largest k than the smallest; the empirical variance non-decreasing and higher at the largest "
                      "k; at least one size", _shapes, Some(_SHAPE)),
                Check("every_size", "part", "the same at every size", _shapes, Every(_SHAPE)),
                Check("product_state", "null", "the same on a product-state ansatz (no entangler, 8 qubits): no "
                      "structure beyond weight 1 for a larger k to capture, so the claim's test must fail",
                      lambda r: _shapes(r, "tradeoff_product"), Some(_SHAPE)),
                Check("variance_estimate", "reference", "|log| of the one-dataset variance estimate over the empirical "
                      "variance over independent shadows, every size and k (empirical variance > 0)", _log_ratios,
                      Every(Threshold(math.log(1.5)))))),
    "practical_estimation": Rule(
        checks=(Check("cheaper_than_full", "claim", "per size and budget, per point: log10 of the better of the full "
                      "QFIM from the same shots and the trivial metric (no shots) over the surrogate's error: the 95 % "
                      "t interval wholly above 0 at every size and budget", _frontier("surrogate", "full_qfim",
                                                                                       "identity"),
                      Every(PairedT(0.0, "above"))),
                Check("beats_block_diagonal", "part", "log10 of the block-diagonal metric's error from the same shots "
                      "(the practical user's pick) over the surrogate's: interval above 0 at every size and budget",
                      _frontier("surrogate", "block_diagonal"), Every(PairedT(0.0, "above"))),
                Check("shuffled_parameters", "null", "the surrogate with its parameters' labels shuffled in its place "
                      "(the same shots, entries aligned with nothing): the claim's test, which it must fail",
                      _frontier("shuffled", "full_qfim", "identity"), Every(PairedT(0.0, "above"))),
                Check("fixed_k", "reference", "the first look (section shot_frontier: k fixed at its T = 500 choice, "
                      "points 15-26), the claim's test", _frontier("surrogate", "full_qfim", "identity",
                                                                  section="shot_frontier"),
                      Every(PairedT(0.0, "above"))),
                Check("fixed_k_block", "reference", "the first look, the block-diagonal part's test",
                      _frontier("surrogate", "block_diagonal", section="shot_frontier"), Every(PairedT(0.0, "above"))),
                Check("faster_than_adjoint", "reference", "CPU seconds of qml.adjoint_metric_tensor over the "
                      "surrogate from one shadow at 16 qubits (simulation, state and shadow production counted)",
                      lambda r: r["construction"]["methods"]["adjoint_metric_tensor"]["seconds"]
                      / r["construction"]["methods"]["surrogate_shadow"]["seconds"],
                      Threshold(1.0, "above", strict=False)),
                Check("frontier_cpu", "reference", "in CPU seconds, every other path (our exact metric, "
                      "qml.adjoint_metric_tensor, block-diagonal qml.metric_tensor, the surrogate with exact "
                      "expectations): its seconds and its error minus the surrogate's, one of them positive",
                      _dominance, Every(Some(Threshold(0.0, "above")))))),
    "concentration_bound": Rule(
        checks=(Check("coverage", "claim", "failures (shadow estimates farther from the truncated metric than our "
                      "bound's radius) over 200 seeded shadows, 8 qubits, k = 2, T = 500: the 95 % Clopper-Pearson "
                      "interval of the failure rate wholly below delta", lambda r: (r["bound"]["failures"],
                                                                                    r["bound"]["seeds"]),
                      Binomial(BOUND_DELTA, "below")),
                Check("every_setting", "part", "the same at every k = 1, 2 and T = 500, 2,000, 8,000 (fresh shadow "
                      "seeds per setting)", _grid_failures, Every(Binomial(BOUND_DELTA, "below"))),
                Check("exact_target", "null", "the bound against the exact metric (the misspecified target, off by "
                      "the truncation bias) at every setting whose bias exceeds the radius: the claim's test, which it "
                      "must fail at each of them", _misspecified, Some(Binomial(BOUND_DELTA, "below"))))),
    "stationary_convergence": Rule(
        checks=(Check("neighbourhood", "claim", "per seed, log10 of the exact squared gradient norm settled over the "
                      "last third of the run (at the most shots per circuit) over its start, surrogate QNG with its "
                      "tuned step: t interval wholly below -1 (under a tenth of the start)",
                      _stationary("surrogate", "neighbourhood"), PairedT(-1.0, "below")),
                Check("shrinks", "part", "per seed, the slope of log10 settled norm over log10 shots per circuit (the "
                      "neighbourhood shrinks as the estimates get less noisy): t interval wholly below 0",
                      _stationary("surrogate", "slope"), PairedT(0.0, "below")),
                Check("random_directions", "null", "the surrogate's own step lengths in random directions (no descent "
                      "left): the claim's test, which must fail", _stationary("random_directions", "neighbourhood"),
                      PairedT(-1.0, "below")),
                *(Check(key, "reference", f"{label} with its tuned step: the claim's test",
                        _stationary(key, "neighbourhood"), PairedT(-1.0, "below"))
                  for key, label in (("sgd", "SGD"), ("adam", "Adam"), ("block_qng", "block-diagonal QNG"))),
                Check("first_look", "reference", "the 6 seeds the confirmatory run was registered after (section "
                      "stationary): the claim's test", lambda r: [math.log10(x["tail"][-1] / x["initial"]) for x in
                                                                r["stationary"]["optimizers"]["surrogate"]["runs"]],
                      PairedT(-1.0, "below"))),
        diagnosis=Diagnosis("measurement", "Each optimiser's step tuned on seeds 100 and 101 (surrogate 0.03, SGD 0.1, "
                            "Adam 0.3, block-diagonal QNG 0.03; the earlier run used an untuned 0.1 and 2 seeds), on "
                            "6 evaluation seeds the surrogate settles -1.74 [-2.60, -0.88] decades under its start (4 "
                            "seeds near -2.2, two at -0.51 and -0.91) and the neighbourhood shrinks with the shots "
                            "(slope -0.63 [-1.01, -0.26]), while its step lengths in random directions stay at the "
                            "start (-0.02 [-0.27, +0.22]). Against a tenth of the start the 6 seeds have power 0.43 "
                            "(sd 0.82; 12 seeds for 0.8), so 16 fresh seeds (6-21, power 0.92) were registered before "
                            "they ran and decide once stored (section stationary_confirm; two looks, at most 0.05 "
                            "one-sided over both). The abstract gives no radius, so the neighbourhood is judged "
                            "against a tenth of the start. Commands: python bench/quantum_ng.py --only stationary "
                            "(about 3 minutes); --only stationary_confirm.")),
}

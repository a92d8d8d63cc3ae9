"""LVQMark's headline claims, checked by ``bench/lvqmark.py``."""

import numpy as np

from core.common.claims import Claim
from core.common.decisions import Binomial, Every, Interval, PairedT, Some, Threshold
from core.common.rules import Check, Diagnosis, Rule
from core.lvqmark.key_control import mean_t_interval

CLAIMS = (
    Claim("local_tokens",
          "In L-VQVAE each discrete token is produced from a short contiguous window, so a recovered unit depends "
          "only on a bounded temporal neighbourhood.",
          "Edit one time step of a window and record which tokens' encodings and codes change, for the trained "
          "local tokenizer and for the global-attention encoder, on every dataset.",
          "The global-attention encoder, whose tokens must change outside the edited step's windows."),
    Claim("null_drift_global",
          "Globally coupled re-encoding suffers bidirectional drift of the null: post-editing attacks shift the "
          "green fraction of non-watermarked series up or down, so clean-calibrated thresholds fail.",
          "Δμ₀ = mean g(attacked NoWM) - mean g(clean NoWM) with a paired 95% interval, and the FPR at the clean "
          "threshold, for each attack and strength, for the global-encoder system.",
          "The clean (no attack) row, where Δμ₀ = 0 by construction; the wrong-key and δ = 0 controls of the tests."),
    Claim("local_stabilises_null",
          "Local re-encoding stabilises false positives under attacks: the local system's null drift is smaller "
          "than the global one's.",
          "|Δμ₀| and FPR at FPR target 1e-3, local against global, over every dataset, attack and strength "
          "(the share of conditions where local's |Δμ₀| is smaller).",
          "The global-encoder system trained with the same budget on the same data."),
    Claim("detection_power",
          "LVQMark keeps detection power under post-editing attacks (TPR at FPR 1e-3).",
          "TPR of chunks of 1000 windows (the reference's sample size) at the clean-calibrated threshold 3.09, "
          "per dataset, attack and strength, with Wilson intervals, local and global.",
          "δ = 0 (no watermark), and 40 random wrong keys, whose z is 0 on average over keys (one wrong key's z "
          "follows its green half's overlap with the right one)."),
    Claim("quality_preserved",
          "Watermarking preserves generation quality.",
          "MMD² to the real test windows of watermarked against non-watermarked generations from the same prior "
          "(ratio with a bootstrap interval, margin 1.25), per dataset; predictive, discriminative and correlational "
          "scores beside it.",
          "Uniformly random codes decoded by the same tokenizer (a generator that ignores the prior), whose MMD² "
          "must be clearly worse; uniform noise windows as a reference."),
)

_ENCODERS = ("local", "global")
Z95 = 1.959963984540054   # the stored intervals' quantile


def _attacked(result, encoder):
    """Every attacked condition of ``encoder`` (dataset, row index, its record); the clean "none" row left out."""
    return [(ds, i, by[encoder]) for ds, by in result["detection"].items()
            for i, row in enumerate(by[encoder]["rows"]) if not row.startswith("none")]


FAMILY_ALPHA = 0.05   # null_drift_global's intervals hold it over every attacked condition together (Bonferroni)


def _family_z(result) -> float:
    """The normal quantile that makes a two-sided interval per attacked condition familywise at FAMILY_ALPHA."""
    from scipy import stats

    n = sum(not row.startswith("none") for by in result["detection"].values() for row in by["global"]["rows"])
    return float(stats.norm.isf(FAMILY_ALPHA / 2 / max(n, 1)))


def _drifts(result, clean=False):
    """The global system's Δμ₀ with its paired interval, per attacked (or, with ``clean``, clean) condition, widened
    from the stored 95% to familywise 1 - FAMILY_ALPHA over the attacked conditions."""
    scale = _family_z(result) / Z95
    return [(v, v - scale * (hi - lo) / 2, v + scale * (hi - lo) / 2)
            for d in (by["global"] for by in result["detection"].values()) for i, row in enumerate(d["rows"])
            if row.startswith("none") == clean for v, lo, hi in [(d["drift"][i], d["drift_low"][i], d["drift_high"][i])]]


def _global_fprs(result):
    """The global system's FPR at the clean threshold per attacked condition, with its exact (Clopper-Pearson)
    interval over the chunks at the familywise level (Wilson's is liberal at 10 chunks and a 1% rate)."""
    from scipy import stats

    chunks = result["scale"]["n_windows"] // result["scale"]["chunk"]
    fprs = [d["fpr"][i] for ds, i, d in _attacked(result, "global")]
    level = 1 - FAMILY_ALPHA / max(len(fprs), 1)
    return [(f, *stats.binomtest(int(round(f * chunks)), chunks).proportion_ci(level, "exact")) for f in fprs]


def _either_side(intervals):
    """Each interval and its mirror image (-high, -low): one wholly above 0 is a drift up or down."""
    return [*intervals, *((-v, -hi, -lo) for v, lo, hi in intervals)]


def _record(result, name, dataset):
    """A system's detection record: ``local`` or ``global``, or ``rerun`` (the global system's second run)."""
    return result["self_null"][dataset] if name == "rerun" else result["detection"][dataset][name]


def _smaller_count(result, first="local", second="global"):
    """(k, n): attacked conditions where ``first``'s |Δμ₀| is below ``second``'s."""
    pairs = [(abs(_record(result, first, ds)["drift"][i]), abs(_record(result, second, ds)["drift"][i]))
             for ds, i, d in _attacked(result, "local")]
    return sum(a < b for a, b in pairs), len(pairs)


def _smaller_share(result):
    """Share of attacked conditions where the local system's |Δμ₀| is below the global one's (point values)."""
    k, n = _smaller_count(result)
    return k / n


def _mean_fpr(result, encoder):
    """Mean FPR at the clean threshold of ``encoder`` over the local system's attacked conditions."""
    det = result["detection"]
    return float(np.mean([det[ds][encoder]["fpr"][i] for ds, i, d in _attacked(result, "local")]))


def _fpr_gaps(result, first="global", second="local"):
    """FPR at the clean threshold, ``first`` minus ``second`` (see :func:`_record`), per attacked condition."""
    return [_record(result, first, ds)["fpr"][i] - _record(result, second, ds)["fpr"][i]
            for ds, i, d in _attacked(result, "local")]


def _sign_interval(k, n):
    """The share k/n minus 1/2 with its 95% Clopper-Pearson interval: wholly above 0 when k/n is significantly
    above a coin's (the sign test)."""
    from scipy import stats

    ci = stats.binomtest(k, n).proportion_ci(0.95, "exact")
    return (k / n - 0.5, ci.low - 0.5, ci.high - 0.5)


def _stabilises_somewhat(result):
    """Either test of local_stabilises_null, as intervals wholly above 0 when it passes: the sign test's share
    minus 1/2, and the paired t interval of FPR global minus local."""
    return [_sign_interval(*_smaller_count(result)), mean_t_interval(_fpr_gaps(result))]


def _self_null(result):
    """The same two tests, the global system's second run (other windows and attack draws) against its first: a
    system cannot stabilise against itself."""
    return [_sign_interval(*_smaller_count(result, "rerun", "global")), mean_t_interval(_fpr_gaps(result, "global", "rerun"))]


def _abs_mean_z(result, control):
    return [abs(float(np.mean(by[e]["controls"][control]["z_empirical"]))) for by in result["detection"].values()
            for e in _ENCODERS]


KEY_ALPHA = 0.05 / 10   # the wrong keys' t intervals: Bonferroni over the 5 datasets x 2 encoders
QUALITY_MARGIN = 1.25   # the watermark may cost at most a quarter more MMD² to real windows (registered before the run)


def _wrong_key_intervals(result):
    """Per dataset and encoder, the mean over random wrong keys of each key's mean z, with its t interval at
    1 - KEY_ALPHA."""
    return [mean_t_interval(by[e]["controls"]["wrong_keys"]["mean_z"], KEY_ALPHA) for by in result["detection"].values()
            for e in _ENCODERS]


def _key_fire_share(result):
    """Share of (system, wrong key) pairs whose mean z over chunks is above the threshold, pooled."""
    from core.lvqmark.watermark import THRESHOLD

    return float(np.mean([z > THRESHOLD for by in result["detection"].values() for e in _ENCODERS
                          for z in by[e]["controls"]["wrong_keys"]["mean_z"]]))


def _mmd(result, kind, encoder="local"):
    """Per dataset, the MMD² ratio of ``kind`` to the clean generations with its bootstrap interval."""
    return [(m["ratio"], m["low"], m["high"]) for m in (by[encoder]["mmd_ratio"][kind] for by in result["quality"].values())]


def _held_share(result):
    """Share of the local system's attacked conditions with TPR ≥ 0.8 (point TPRs)."""
    return float(np.mean([d["tpr"][i] >= 0.8 for ds, i, d in _attacked(result, "local")]))


RULES = {
    "local_tokens": Rule(
        checks=(Check("local", "claim", "share of local codes changed outside the edited step's windows, per dataset "
                      "(20 test windows each)", lambda r: [v["local"]["changed_outside_window"]
                                                           for v in r["locality"].values()],
                      Every(Threshold(0.0, "below", strict=False))),
                Check("global", "null", "the same share for the global-attention encoder, per dataset",
                      lambda r: [v["global"]["changed_outside_window"] for v in r["locality"].values()],
                      Some(Threshold(0.0, "below", strict=False))))),
    "null_drift_global": Rule(
        checks=(Check("drift", "claim", "global system: Δμ₀ with its paired interval per attacked condition "
                      "(dataset, attack, strength), familywise 95% over the conditions (Bonferroni), up or down (an "
                      "interval and its mirror image)",
                      lambda r: _either_side(_drifts(r)), Some(Interval(0.0, "above"))),
                Check("up", "part", "global system: Δμ₀ with its paired familywise interval per attacked condition",
                      _drifts, Some(Interval(0.0, "above"))),
                Check("down", "part", "global system: Δμ₀ with its paired familywise interval per attacked condition",
                      _drifts, Some(Interval(0.0, "below"))),
                Check("fpr", "part", "global system: FPR at the clean-calibrated threshold with its exact interval "
                      "over chunks, familywise 95% over the attacked conditions", _global_fprs,
                      Some(Interval(0.01, "above"))),
                Check("clean", "null", "global system: Δμ₀ on the clean (no attack) row, 0 by construction, up or down",
                      lambda r: _either_side(_drifts(r, clean=True)), Some(Interval(0.0, "above")))),
        reproduced=("drift", "up", "down", "fpr"), partly=("drift",)),
    "local_stabilises_null": Rule(
        checks=(Check("smaller_or_lower", "claim", "either test below holds: the sign test's share minus 1/2 (95% "
                      "Clopper-Pearson) or the paired t interval of FPR global minus local, wholly above 0",
                      _stabilises_somewhat, Some(Interval(0.0, "above"))),
                Check("smaller", "part", "(k, n): attacked conditions where local |Δμ₀| < global |Δμ₀|, sign test: "
                      "the share's exact interval wholly above 1/2", _smaller_count, Binomial(0.5, "above")),
                Check("fpr", "part", "FPR at the clean threshold, local minus global, per attacked condition: paired t "
                      "interval wholly below 0", lambda r: [-g for g in _fpr_gaps(r)], PairedT(0.0, "below")),
                Check("self", "null", "the same two tests with the global system's second run (other windows and "
                      "attack draws) in place of the local system: a system cannot stabilise against itself",
                      _self_null, Some(Interval(0.0, "above"))),
                Check("global", "reference", "the global system's mean FPR at the clean threshold (same data and "
                      "budget) against the target 0.001: the drift there is to stabilise",
                      lambda r: _mean_fpr(r, "global"), Threshold(0.001, "above"))),
        partly=("smaller_or_lower",),
        diagnosis=Diagnosis(
            "genuine",
            "Method: tokens local by construction (no code changes outside an edited step's windows, local_tokens), "
            "the global encoder trained with the same budget and recipe. Test: the detector's z holds its level on "
            "clean series (python bench/lvqmark.py --calibration: 10 of 10 systems calibrated at 1e-3); the sign "
            "test is exact (size 0.016 at 50 conditions) with power 0.94 against a share of 0.75; the paired t on "
            "FPR gaps holds its level (tests/core/lvqmark/test_drift_calibration.py); the null (the global system "
            "against its own second run, python bench/lvqmark.py --self-null) fails as it must. Result: local "
            "|Δμ₀| below global's in 26 of 50 conditions, mean FPR local 0.128 vs global 0.066. Trend over the "
            "window length (systems retrained on energy and ett at T = 24, 48, 96; python -m bench.run lvqmark "
            "--grid window, 12 cells, 1 to 13 min each; python bench/lvqmark.py --window-trend): the share where "
            "local drifts less is 45%, 50%, 25%, and local's mean FPR stays at or above global's (0.105 vs 0.095, "
            "0.055 vs 0.000, 0.080 vs 0.030): the gap does not close as T grows. Why, as measured: our global "
            "encoder flips few codes outside an edited step's windows (0.016 to 0.033 of them on four datasets, 0.44 "
            "on finance; 0.03 to 0.05 in the trend's cells), while most attacks (offset, Gaussian noise, smoothing, "
            "crop 0.3) edit every step or a large block, where a bounded neighbourhood cannot help; and a one-step "
            "edit flips 1.2 to 1.75 local codes against 0.45 to 1.86 global ones on all but finance (4.99): the local "
            "codes are the less stable inside their windows.",
            trend="window_trend.rows")),
    "detection_power": Rule(
        checks=(Check("held", "claim", "share of the local system's attacked conditions with TPR ≥ 0.8 (chunks of "
                      "1000 windows, point TPRs)", _held_share, Threshold(0.8, "above", strict=False)),
                Check("clean", "part", "the local system's clean TPR per dataset",
                      lambda r: [by["local"]["tpr"][0] for by in r["detection"].values()],
                      Every(Threshold(1.0, "above", strict=False))),
                Check("delta0", "null", "|mean z| with δ = 0 (no watermark), per dataset and encoder",
                      lambda r: _abs_mean_z(r, "delta0"), Some(Threshold(2.0, "above", strict=False))),
                Check("wrong_keys", "null", "mean over 40 random wrong keys of each key's mean z (chunks of 1000 "
                      "watermarked windows), t interval at 1 - 0.05/10, per dataset and encoder: 0 by symmetry "
                      "(a partition and its complement are equally likely)", _wrong_key_intervals,
                      Some(Interval(0.0, "above"))),
                Check("key_specific", "reference", "share of (system, random wrong key) pairs whose mean z exceeds "
                      "Φ⁻¹(1 - 1e-3): key specificity, which one fixed green half does not promise",
                      _key_fire_share, Threshold(0.05, "below", strict=False))),
        partly=("held", "delta0")),
    "quality_preserved": Rule(
        checks=(Check("mmd", "claim", "MMD² to real test windows, watermarked (δ = 4) / clean generations, local "
                      "system, 95% percentile bootstrap interval per dataset, wholly below 1.25 on every dataset "
                      "(an intersection-union test)", lambda r: _mmd(r, "watermarked"),
                      Every(Interval(QUALITY_MARGIN, "below"))),
                Check("predictive", "part", "predictive score watermarked / clean, local system, per dataset",
                      lambda r: [by["local"]["watermarked"]["predictive"] / by["local"]["clean"]["predictive"]
                                 for by in r["quality"].values()], Every(Threshold(1.25))),
                Check("uniform_codes", "null", "the same MMD² ratio for uniformly random codes decoded by the local "
                      "tokenizer (the prior ignored), per dataset: a generator that loses the prior must not pass",
                      lambda r: _mmd(r, "uniform_codes"), Some(Interval(QUALITY_MARGIN, "below"))),
                Check("noise", "reference", "the same MMD² ratio for uniform noise windows, per dataset",
                      lambda r: _mmd(r, "noise"), Every(Interval(QUALITY_MARGIN, "above"))),
                Check("discriminative", "reference", "|discriminative score watermarked - clean|, local system, per "
                      "dataset (saturated: most generations are told from real windows perfectly)",
                      lambda r: [abs(by["local"]["watermarked"]["discriminative"]
                                     - by["local"]["clean"]["discriminative"]) for by in r["quality"].values()],
                      Every(Threshold(0.1)))),
        partly=("mmd",),
        diagnosis=Diagnosis(
            "measurement",
            "python bench/lvqmark.py (484 s): on energy and macro the clean generations are no closer to the real "
            "test windows than uniformly random codes decoded by the same tokenizer (MMD² ratio random / clean 1.06 "
            "[1.03, 1.09] and 1.08 [1.05, 1.11]) nor than uniform noise (0.93, 1.08): the prior adds nothing the "
            "score sees there, so a watermark has no quality of the prior's to lose and 'no loss' says nothing. "
            "Where the null fails (finance 2.76, ett 1.43, fmri 1.65) the watermark's ratio is at most 1.16, 1.14, "
            "1.06 (upper ends), inside the margin. Deciding on every dataset needs priors whose generations beat "
            "random codes there (more prior training on energy; macro has only 36 test windows).")),
}

"""lvqmark's detector under its own null: how often its z-tests fire on clean, non-watermarked generations.

Before a false-positive rate under attack says anything about re-encoding, the test behind it must hold its
level on clean series. Per dataset and encoder, ``POOL`` clean windows (δ = 0) are generated and re-encoded as
the detector does; their per-window green fractions g (G of the L scored tokens, so g takes L + 1 values) give the
null law of g. Each simulated detection then draws from that law, as ``bench/lvqmark.py`` detects, a calibration
set of ``N_CAL`` windows (μ₀, σ₀) and a chunk of ``CHUNK`` windows (generated windows are independent draws of
the prior, so a window is the unit: the L tokens of one window, whose receptive fields overlap, are counted
together, once), and tests at each α in ``ALPHAS``:

- ``as_used``: TimeWak's and LVQMark's empirical z, (mean g - μ₀) / (σ₀ / √chunk), which ignores the error of
  μ₀ itself: its null spread is √(1 + chunk / n_cal), not 1;
- ``two_sample``: the same difference over σ₀ √(1/chunk + 1/n_cal), the standard error of a difference of two
  independent means;
- ``analytic``: Kirchenbauer's z on the chunk's pooled counts, γ = 1/2, every token counted as independent.

Each rate comes with its exact binomial interval (``core.common.calibration.false_positive_rate``) over
``DRAWS`` detections; a rate whose interval excludes α is miscalibrated, and by how much is reported.

    python bench/lvqmark.py --calibration    # about 5 minutes on 2 cores; merged into bench/results/lvqmark.json
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from core.common.calibration import false_positive_rate

POOL = 20_000
N_CAL, CHUNK = 10_000, 1_000        # bench/lvqmark.py's sizes
ALPHAS = (0.05, 0.01, 0.001)
DRAWS = 20_000
TESTS = ("as_used", "two_sample", "analytic")


def null_law(fractions: np.ndarray, scored: int) -> tuple[np.ndarray, np.ndarray]:
    """The values g can take (0, 1/L, ..., 1) and their shares among ``fractions``."""
    values = np.arange(scored + 1) / scored
    counts = np.bincount(np.rint(np.asarray(fractions) * scored).astype(int), minlength=scored + 1)
    return values, counts / counts.sum()


def _mean_sd(rng, values, probs, n):
    counts = rng.multinomial(n, probs)
    mean = counts @ values / n
    return mean, np.sqrt(counts @ (values - mean) ** 2 / (n - 1))


def detection_p(test: str, values, probs, scored: int, n_cal: int = N_CAL, chunk: int = CHUNK):
    """A simulator and a one-sided p-value for ``test``: draw (calibration set, chunk) from the law, then score."""
    if test not in TESTS:
        raise ValueError(f"test: {test!r}; allowed {', '.join(TESTS)}")

    def simulate(rng):
        return _mean_sd(rng, values, probs, n_cal), _mean_sd(rng, values, probs, chunk)[0]

    def p_value(draw):
        (mu0, sigma0), mean = draw
        if test == "analytic":
            z = (mean - 0.5) * np.sqrt(chunk * scored) / 0.5
        else:
            se = sigma0 * np.sqrt(1 / chunk + (1 / n_cal if test == "two_sample" else 0.0))
            z = (mean - mu0) / max(se, 1e-12)
        return float(stats.norm.sf(z))

    return simulate, p_value


def calibration_of(fractions: np.ndarray, scored: int, n_cal: int = N_CAL, chunk: int = CHUNK,
                   draws: int = DRAWS, seed: int = 0) -> dict:
    """Each test's false-positive rate at each α, with its interval, under the law of ``fractions``."""
    values, probs = null_law(fractions, scored)
    out = {"null_mean": float(probs @ values), "null_sd": float(np.sqrt(probs @ (values - probs @ values) ** 2)),
           "n_cal": n_cal, "chunk": chunk, "draws": draws, "tests": {}}
    for test in TESTS:
        simulate, p_value = detection_p(test, values, probs, scored, n_cal, chunk)
        rows = []
        for alpha in ALPHAS:
            c = false_positive_rate(p_value, simulate, alpha=alpha, n_draws=draws, seed=seed)
            rows.append({"alpha": alpha, "rate": c.rate, "low": c.interval[0], "high": c.interval[1],
                         "verdict": c.verdict})
        out["tests"][test] = rows
    return out


def calibration(datasets, encoders, pool: int = POOL, seed: int = 0) -> dict:
    """Per dataset and encoder: the law of g on ``pool`` clean generations, and each test's calibration."""
    from core.lvqmark import load_watermarker, warmup_length

    out = {}
    for ds in datasets:
        out[ds] = {}
        for encoder in encoders:
            system = load_watermarker(ds, encoder)
            clean = system.generate(pool, 0.0, 12345, seed=1000 + seed)
            fractions = system.fractions(clean.series, 12345)
            scored = clean.tokens.shape[1] - warmup_length(clean.tokens.shape[1])
            out[ds][encoder] = {"pool": pool, "scored_tokens": scored, **calibration_of(fractions, scored, seed=seed)}
    return out


def calibration_words(section: dict | None) -> str:
    """The detector's calibration on clean series, in one sentence per test (for the verdicts' details)."""
    if not section:
        return "The detector's calibration on clean series is not measured (python bench/lvqmark.py --calibration). "
    parts = []
    for test, label in (("as_used", "TimeWak's empirical z (μ₀'s own error ignored)"),
                        ("two_sample", "the two-sample z, μ₀'s error counted (the detector's z)"),
                        ("analytic", "Kirchenbauer's analytic z")):
        rates = [row for by in section.values() for e in by.values() for row in e["tests"][test]
                 if row["alpha"] == min(ALPHAS)]
        verdicts = [r["verdict"] for r in rates]
        parts.append(f"{label}: false-positive rate at α = {min(ALPHAS):g} from {min(r['rate'] for r in rates):.4f} "
                     f"to {max(r['rate'] for r in rates):.4f} over {len(rates)} systems "
                     f"({verdicts.count('calibrated')} calibrated, {verdicts.count('liberal')} liberal, "
                     f"{verdicts.count('conservative')} conservative)")
    return "Detector on clean series (no attack): " + "; ".join(parts) + ". "

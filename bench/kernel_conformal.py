"""kernel_conformal benchmark: identities, coverage over seeds, volume ratios against dimension and alpha,
MAPIE's learned Σ(x), the real data (statsmodels' macrodata VAR residuals, linnerud), the page's timings.

    python bench/kernel_conformal.py                       # everything (10 seeds per sweep point)
    python bench/kernel_conformal.py --seeds 5             # fewer seeds per sweep point
    python bench/kernel_conformal.py --only sweeps         # measure some sections, keep the others stored
    python bench/kernel_conformal.py --verdicts            # re-derive the verdicts from the stored numbers

Sections: identities, coverage, sweeps, mapie, real, speed, page. Other flags: ``--laws banana,bimodal``
(the sweeps' residual laws, merged into the stored ones), ``--coverage-seeds N``
(default 1000), ``--mapie-seeds N`` (default 3), ``--mapie-dims 2,6`` (default), ``--no-page``. Writes bench/results/kernel_conformal.json
and .md; ``scale`` records what each section ran at. Speed: MKS scoring against the global ellipsoid
(the anchor) on the same residuals, as a ratio of median times in one run; the page's first view
against a one-line Streamlit page.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import judged, rederive_verdicts, write_results  # noqa: E402
from bench.timing import page_timings  # noqa: E402

KEY = "kernel_conformal"
COMMAND = "python bench/kernel_conformal.py"
DIMS = (2, 4, 6, 10)
ALPHAS = (0.05, 0.1, 0.2)
PAGE = "../pages/kernel_conformal.py"
SECTIONS = ("identities", "coverage", "sweeps", "mapie", "real", "speed", "page")


def flag(name: str, default: int) -> int:
    args = sys.argv[1:]
    return int(args[args.index(name) + 1]) if name in args else default


def identities() -> dict:
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF

    from core.common.seeding import derive_rng
    from core.kernel_conformal import GlobalEllipsoid, MapieScore, MultivariateKernelScore, make_regression

    rng = derive_rng(0, "bench", "identities")
    R, Q = rng.standard_normal((400, 3)) @ rng.normal(size=(3, 3)), rng.standard_normal((200, 3))
    lam = 0.01
    gp = GaussianProcessRegressor(RBF(1.0), alpha=400 * lam, optimizer=None).fit(R, np.zeros(400))
    gp_err = np.abs(lam * MultivariateKernelScore("rbf", bandwidth=1.0, lam=lam, centred=False).fit(R).score(Q)
                    - gp.predict(Q, return_std=True)[1] ** 2).max()
    c = Q - R.mean(0)
    maha = np.einsum("ij,ij->i", c @ np.linalg.inv(np.cov(R.T, bias=True) + lam * np.eye(3)), c)
    lin_err = np.abs(MultivariateKernelScore("linear", lam=lam).fit(R).score(Q) - maha).max()
    d = make_regression("banana", 3, 400, 400, 10, seed=0)
    ours = GlobalEllipsoid().fit(d.Y_fit - d.Y_fit.mean(0))
    mapie = MapieScore(learned=False).fit(d.Y_fit - d.Y_fit.mean(0), d.X_fit)
    mapie_err = np.abs(ours.score(d.Y_cal) - mapie.score(d.Y_cal, d.X_cal)).max()
    return {"gp_variance_max_abs": float(gp_err), "linear_mahalanobis_max_abs": float(lin_err),
            "mapie_constant_sigma_max_abs": float(mapie_err)}


def coverage(n_seeds: int = 1000) -> dict:
    from core.kernel_conformal import coverage_check

    out = {}
    for name, kw in (("split", {}), ("in_sample_control", {"calibrate_on_fit": True, "scores": ("mks",)})):
        c = coverage_check(alphas=ALPHAS, n_seeds=n_seeds, seed=0, **kw)
        out[name] = {"alphas": c.alphas.tolist(), "scores": c.scores, "share": (c.hits / c.n_seeds).tolist(),
                     "exact": c.exact.tolist(), "band_low": c.band_low.tolist(), "band_high": c.band_high.tolist(),
                     "n_seeds": c.n_seeds}
    return out


def finite(values) -> list:
    """A list for JSON: NaN and infinities as None."""
    return [None if v is None or not np.isfinite(v) else float(v) for v in np.ravel(values)]


def sweep_summary(s) -> dict:
    with np.errstate(divide="ignore"):
        vol = np.exp(np.nanmean(np.log(s.volume), axis=1))
    return {"values": s.values.tolist(), "scores": s.scores, "seeds": len(s.seeds), "ratio": s.ratio.tolist(),
            "ratio_low": s.ratio_low.tolist(), "ratio_high": s.ratio_high.tolist(),
            "ratio_per_seed": [finite(np.exp(row)) for row in s.log_ratio],
            "coverage_mean": np.nanmean(s.coverage, axis=1).tolist(),
            "coverage_per_seed": [finite(row) for row in s.coverage[:, :, 0]],
            "volume_geomean": [finite(row) for row in vol],
            "effective_rank": np.nanmean(s.effective_rank, axis=1).tolist()}


LAWS = ("banana", "bimodal", "gaussian")


def sweeps(n_seeds: int, laws=LAWS) -> dict:
    from core.common.progress import TqdmProgress
    from core.kernel_conformal import CompareConfig, sweep

    out = {}
    for law in laws:
        for field, values in (("dim", DIMS), ("alpha", ALPHAS)):
            s = sweep(CompareConfig(law=law), field, values, n_seeds=n_seeds, seed=0,
                      progress=TqdmProgress(desc=f"{law} {field}"))
            out[f"{law}/{field}"] = sweep_summary(s)
    return out


def mapie(n_seeds: int, dims=(2, 6)) -> dict:
    """MAPIE's learned-Σ(x) score beside MKS and the ellipsoids (default 2-D and 6-D, alpha = 0.1)."""
    from core.common.progress import TqdmProgress
    from core.kernel_conformal import CompareConfig, sweep

    out = {}
    for law in ("banana", "bimodal"):
        s = sweep(CompareConfig(law=law, mapie=True), "dim", dims, n_seeds=n_seeds, seed=0,
                  progress=TqdmProgress(desc=f"mapie {law}"))
        with np.errstate(divide="ignore", invalid="ignore"):
            log_mapie = np.log(s.volume[:, :, 0] / s.volume[:, :, s.scores.index("mapie")])
        from core.kernel_conformal.experiment import geometric_interval

        out[law] = {**sweep_summary(s), "coverage_all": np.nanmean(s.coverage, axis=1).tolist(),
                    "ratio_mks_over_mapie": [list(geometric_interval(row)) for row in log_mapie]}
    return out


def real(n_macro: int = 50, n_linnerud: int = 200) -> dict:
    """The real data: VAR(2) residuals of statsmodels' macrodata, and linnerud (a 20-row demo)."""
    from core.kernel_conformal import CompareConfig, linnerud, macro_var, real_data_check

    out = {}
    for name, data, cfg, sizes, n in (
            ("macro_var", macro_var(2), CompareConfig(alpha=0.1), (100, 60), n_macro),
            ("macro_var_bandwidth_1", macro_var(2), CompareConfig(alpha=0.1, bandwidth_scale=1.0), (100, 60), n_macro),
            ("linnerud", linnerud(), CompareConfig(alpha=0.2), (8, 9), n_linnerud)):
        c = real_data_check(data, cfg, n_fit=sizes[0], n_cal=sizes[1], n_splits=n, seed=0, name=name)
        out[name] = {"alpha": c.alpha, "n_fit": c.n_fit, "n_cal": c.n_cal, "n_test": c.n_test, "splits": c.done,
                     "bandwidth_scale": cfg.bandwidth_scale, "scores": c.scores,
                     "coverage_mean": np.nanmean(c.coverage, axis=0).tolist(), "exact": c.exact,
                     "ratio": c.ratio, "ratio_low": c.ratio_low, "ratio_high": c.ratio_high,
                     "unbounded": c.unbounded, "effective_rank": c.effective_rank}
    return out


def speed() -> dict:
    from core.kernel_conformal import GlobalEllipsoid, MultivariateKernelScore, make_regression

    d = make_regression("banana", 4, 400, 400, 20000, seed=0)
    R = d.Y_fit - d.Y_fit.mean(0)
    mks, ell = MultivariateKernelScore().fit(R), GlobalEllipsoid().fit(R)
    times = {}
    for name, fn in (("mks", mks.score), ("ellipsoid", ell.score)):
        runs = []
        for _ in range(5):
            t = time.perf_counter()
            fn(d.Y_test)
            runs.append(time.perf_counter() - t)
        times[name] = float(np.median(runs))
    return {"scoring_20000_points_d4_n400": times, "ratio_mks_over_ellipsoid": times["mks"] / times["ellipsoid"]}


def table(result: dict) -> str:
    seeds = next(iter(result["sweeps"].values())).get("seeds", result.get("scale", {}).get("seeds"))
    lines = [f"Sweeps: {seeds} seeds per point, n_fit = n_cal = 400, n_test = 1000, 20000 importance samples.", "",
             "| law / sweep | value | MKS / ellipsoid volume (95% CI) | coverage MKS | coverage ellipsoid | eff. rank |",
             "|---|---|---|---|---|---|"]
    for key, s in result["sweeps"].items():
        for i, v in enumerate(s["values"]):
            lines.append(f"| {key} | {v:g} | {s['ratio'][i]:.3f} [{s['ratio_low'][i]:.3f}, {s['ratio_high'][i]:.3f}] | "
                         f"{s['coverage_mean'][i][0]:.3f} | {s['coverage_mean'][i][1]:.3f} | "
                         f"{s['effective_rank'][i]:.2f} |")
    cov = result["coverage"]["split"]
    lines += ["", "| α | exact level | MKS | ellipsoid | 99.9% band | in-sample control (MKS) |", "|---|---|---|---|---|---|"]
    ctrl = result["coverage"]["in_sample_control"]
    for i, a in enumerate(cov["alphas"]):
        lines.append(f"| {a:g} | {cov['exact'][i]:.3f} | {cov['share'][i][0]:.3f} | {cov['share'][i][1]:.3f} | "
                     f"[{cov['band_low'][i]:.3f}, {cov['band_high'][i]:.3f}] | {ctrl['share'][i][0]:.3f} |")
    lines += ["", "Identities (max abs difference): " + ", ".join(f"{k} {v:.1e}" for k, v in result["identities"].items())]
    if "mapie" in result:
        lines += ["", "| MAPIE (α = 0.1) | d | coverage MKS / ellipsoid / local / box / MAPIE | MKS / ellipsoid | "
                  "MKS / MAPIE |", "|---|---|---|---|---|"]
        for law, m in result["mapie"].items():
            for i, d in enumerate(m["values"]):
                r = m["ratio_mks_over_mapie"][i]
                lines.append(f"| {law} ({m['seeds']} seeds) | {d:g} | " + " / ".join(f"{c:.3f}" for c in m["coverage_all"][i])
                             + f" | {m['ratio'][i]:.3f} | {r[0]:.3f} [{r[1]:.3f}, {r[2]:.3f}] |")
    if "real" in result:
        lines += ["", "| real data | α | splits (fit / cal / test) | coverage MKS / ellipsoid (exact) | MKS / ellipsoid "
                  "volume (95% CI) | MKS unbounded |", "|---|---|---|---|---|---|"]
        for name, r in result["real"].items():
            lines.append(f"| {name} (bandwidth {r['bandwidth_scale']:g} × median) | {r['alpha']:g} | {r['splits']} "
                         f"({r['n_fit']} / {r['n_cal']} / {r['n_test']}) | {r['coverage_mean'][0]:.3f} / "
                         f"{r['coverage_mean'][1]:.3f} ({r['exact']:.3f}) | {r['ratio']:.3f} [{r['ratio_low']:.3f}, "
                         f"{r['ratio_high']:.3f}] | {r['unbounded']} |")
    if "page" in result:
        lines += ["", "| page timing | median (s) | ratio to anchor |", "|---|---|---|"]
        lines += [f"| {k} | {v['median_s']:.3f} | {v.get('ratio_to_anchor', 1.0):.2f} |" for k, v in result["page"].items()]
    return "\n".join(lines) + "\n"


def describe(result: dict) -> dict:
    """Each claim's figure and detail in words, from the numbers in ``result`` alone; its rule in
    ``core.kernel_conformal.claims`` decides its status."""
    ident = result["identities"]
    out = {"gp_variance_and_mahalanobis": (
        f"max difference {max(ident.values()):.1e}",
        f"Uncentred MKS vs GP posterior variance {ident['gp_variance_max_abs']:.1e}; linear MKS vs regularised "
        f"Mahalanobis {ident['linear_mahalanobis_max_abs']:.1e}; global ellipsoid vs MAPIE's constant-Σ score "
        f"{ident['mapie_constant_sigma_max_abs']:.1e}. These are identities of our reading of the score, not of the "
        "paper's text (unavailable).")}
    cov, ctrl = result["coverage"]["split"], result["coverage"]["in_sample_control"]
    out["finite_sample_coverage"] = (
        "MKS " + ", ".join(f"{r[0]:.3f}" for r in cov["share"]) + " at α = " + ", ".join(f"{a:g}" for a in cov["alphas"]),
        f"Share of {cov['n_seeds']} seeds covered (MKS, ellipsoid) against the 99.9% binomial band around the exact "
        "level: " + "; ".join(f"α = {a:g}: {', '.join(f'{s:.3f}' for s in row)} in [{lo:.3f}, {hi:.3f}]"
                              for a, row, lo, hi in zip(cov["alphas"], cov["share"], cov["band_low"], cov["band_high"]))
        + f"; the in-sample control gives {', '.join(f'{r[0]:.3f}' for r in ctrl['share'])}.")
    sw = result["sweeps"]
    n_seeds = next(iter(sw.values())).get("seeds", result.get("scale", {}).get("seeds"))
    nonell = {law: sw[f"{law}/dim"] for law in ("banana", "bimodal")}
    al = {law: sw[f"{law}/alpha"] for law in ("banana", "bimodal")}
    macro = result.get("real", {}).get("macro_var")
    fig = "; ".join(f"{law}: d=2 {s['ratio'][0]:.2f}, d={DIMS[-1]} {s['ratio'][-1]:.2f}" for law, s in nonell.items())
    if macro is not None:
        fig += f"; macrodata VAR {macro['ratio']:.2f}"
    real_text = "" if macro is None else (
        f" On the real series (VAR(2) residuals of statsmodels' macrodata, {macro['splits']} random splits "
        f"{macro['n_fit']}/{macro['n_cal']}/{macro['n_test']}) the ratio is {macro['ratio']:.2f} "
        f"[{macro['ratio_low']:.2f}, {macro['ratio_high']:.2f}] at coverage {macro['coverage_mean'][0]:.3f} "
        f"(ellipsoid {macro['coverage_mean'][1]:.3f}).")
    mp = result.get("mapie")
    mapie_text = "" if mp is None else " Against MAPIE's learned Σ(x): MKS / MAPIE volume " + "; ".join(
        f"{law} " + ", ".join(f"d={d:g} {r[0]:.2f}" for d, r in zip(m["values"], m["ratio_mks_over_mapie"]))
        for law, m in mp.items()) + "."
    def ratios(s):
        return ", ".join(f"{r:.2f} [{lo:.2f}, {hi:.2f}]" for r, lo, hi in zip(s["ratio"], s["ratio_low"],
                                                                                         s["ratio_high"]))
    out["volume_vs_ellipsoid"] = (
        fig, "Volume ratio MKS / ellipsoid with its 95% interval over d = "
        + ", ".join(f"{d:g}" for d in nonell["banana"]["values"]) + ": "
        + "; ".join(f"{law} {ratios(s)}" for law, s in nonell.items())
        + f"; Gaussian control {ratios(sw['gaussian/dim'])} over d, {ratios(sw['gaussian/alpha'])} over α = "
        + ", ".join(f"{a:g}" for a in sw["gaussian/alpha"]["values"]) + "; over α: "
        + "; ".join(f"{law} " + ", ".join(f"{r:.2f}" for r in s["ratio"]) for law, s in al.items())
        + f". {n_seeds} seeds, n_fit = n_cal = 400, default bandwidth 0.5 × median, λ = 0.01." + real_text + mapie_text)
    out["effective_rank_rates"] = ("", "The paper's rate (its form and constants) was not available; the bench reports "
                                   "the effective rank against the dimension (table) but tests no rate.")
    return out


verdicts = judged(KEY, describe, COMMAND)


def main() -> int:
    import json

    from bench.report import RESULTS

    args = sys.argv[1:]
    if "--verdicts" in args:
        return rederive_verdicts(KEY, table, verdicts)
    only = args[args.index("--only") + 1].split(",") if "--only" in args else list(SECTIONS)
    unknown = [s for s in only if s not in SECTIONS]
    if unknown:
        raise SystemExit(f"--only: {unknown} are not sections; allowed {', '.join(SECTIONS)}")
    if "--no-page" in args and "page" in only:
        only.remove("page")
    stored = RESULTS / f"{KEY}.json"
    result = json.loads(stored.read_text()) if "--only" in args and stored.is_file() else {}
    for key in ("claims", "verdicts", "measured_at"):
        result.pop(key, None)
    seeds, cov_seeds, mapie_seeds = flag("--seeds", 10), flag("--coverage-seeds", 1000), flag("--mapie-seeds", 3)
    laws = args[args.index("--laws") + 1].split(",") if "--laws" in args else list(LAWS)
    mapie_dims = [int(d) for d in args[args.index("--mapie-dims") + 1].split(",")] if "--mapie-dims" in args else [2, 6]
    runs = {"identities": identities, "coverage": lambda: coverage(cov_seeds), "sweeps": lambda: {**result.get("sweeps", {}), **sweeps(seeds, laws)},
            "mapie": lambda: mapie(mapie_seeds, mapie_dims), "real": real, "speed": speed,
            "page": lambda: page_timings(PAGE, repeats=3)}
    scale = result.setdefault("scale", {})
    scale.update({"n_fit": 400, "n_cal": 400, "n_test": 1000, "mc_samples": 20000, "dims": list(DIMS),
                  "alphas": list(ALPHAS)})
    wall = result.setdefault("wall_s_by_section", {})
    for name in only:
        t0 = time.perf_counter()
        result[name] = runs[name]()
        wall[name] = time.perf_counter() - t0
        scale[name] = {"sweeps": {"seeds": seeds, "laws": laws}, "coverage": {"seeds": cov_seeds},
                       "mapie": {"seeds": mapie_seeds, "dims": mapie_dims}}.get(name, {})
    scale.pop("seeds", None)
    result.pop("wall_s", None)
    result["checks"] = {"identities_hold": max(result["identities"].values()) < 1e-9}
    if "page" in result:
        result["checks"]["first_view_under_2s"] = result["page"]["first_view_warm"]["median_s"] < 2.0
    return write_results(KEY, result, table(result), verdicts=verdicts)


if __name__ == "__main__":
    sys.exit(main())

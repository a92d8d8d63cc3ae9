"""looped_lm across designs: fixed points, attention, extrapolation and stage alignment.

For the shipped stable / unstable designs and four more trained here (block size 1 and 4 with
Huginn's design; additive injection with pre-norm; concat injection with post-norm): accuracy
against loops, delta at loops 4 and 32, fixed-point separation, attention change at loop 32, and
the stage comparison with the shipped feedforward model (CKA alignment of each block layer, and the
correlation of one loop's logit-lens entropy profile with the feedforward profile). Test-time
scaling: the shipped pointer-chasing model's accuracy per hop against loops, on fresh samples, and
the live preset (5 nodes, 3 hops) trained here, timed against a default live run (the anchor).

    python bench/looped_lm.py   # writes bench/results/looped_lm.json and .md (~7 minutes)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import write_results  # noqa: E402
from core.common.claims import NOT_REPRODUCED, PARTLY, REPRODUCED, verdict  # noqa: E402
from bench.timing import page_timings  # noqa: E402
from core.common.progress import TqdmProgress  # noqa: E402
from core.looped_lm import (LIVE_POINTER, LoopedConfig, attention_change, fixed_point_residuals,  # noqa: E402
                            fixed_point_separation, load_pretrained, make_task, run_with_cache, task_of, train)
from core.looped_lm.pretrained import SCALING_LOOPS  # noqa: E402
from core.looped_lm.training import accuracy_by_hops  # noqa: E402
from core.looped_lm.stages import (cka_matrix, feedforward_profile, feedforward_states, looped_profile,  # noqa: E402
                                   profile_correlation, stage_alignment)

TRAINED = {"B1 concat sandwich": dict(block=1), "B4 concat sandwich": dict(block=4),
           "B2 additive pre": dict(injection="additive", norm="pre"), "B2 concat post": dict(norm="post")}


def measure(model, task, accuracy: dict, ff) -> dict:
    ids, targets = task.sample(256, 123)
    cache = run_with_cache(model, ids, 40)
    delta = fixed_point_residuals(cache.hiddens, reduce="median")
    tv = attention_change(cache.attentions)
    short = run_with_cache(model, ids, 6)
    looped = looped_profile(model, short, targets[:, -1])
    feed = feedforward_profile(ff, ids, targets[:, -1])
    cka = cka_matrix(feedforward_states(ff, ids)[0], short)
    B = cache.block_size
    return {"accuracy_by_loops": {str(k): v for k, v in accuracy.items()},
            "delta_loop4_worst": float(delta[3].max()), "delta_loop32_worst": float(delta[31].max()),
            "separation": fixed_point_separation(cache.hiddens), "attention_change_loop32": float(tv[31].mean()),
            # With one layer there is one fixed point and no separation to ask for.
            "stable_cycle": bool(delta[31].max() <= 1e-2 and delta[31].max() <= delta[3].max() / 10
                                 and (B == 1 or fixed_point_separation(cache.hiddens) > 0.05)
                                 and tv[31].mean() < 0.01),
            "block_layer_ff_depth": stage_alignment(cka, B).tolist(),
            "max_cka_per_block_layer": cka[:, -B:].max(0).tolist(),
            "profile_correlation": profile_correlation(looped.entropy[-B:], feed.entropy)}


def live_pointer() -> dict:
    """The live preset trained as the page trains it, timed against a default live run in the same process."""
    t = time.perf_counter()
    train(LoopedConfig(), seed=0)
    anchor = time.perf_counter() - t
    config = LoopedConfig(**LIVE_POINTER)
    t = time.perf_counter()
    result = train(config, seed=0)
    seconds = time.perf_counter() - t
    acc = accuracy_by_hops(result.model, task_of(config), SCALING_LOOPS, n=1024, seed=77)
    return {"config": config.to_dict(), "train_seconds": seconds, "anchor_default_run_seconds": anchor,
            "ratio_to_anchor": seconds / anchor, "loops": list(SCALING_LOOPS), "accuracy_by_hop": acc.tolist(),
            "needs_a_second_loop": bool(acc[1, -1] >= 0.95 and acc[1, -1] >= acc[0, -1] + 0.05
                                        and acc[-1, -1] >= 0.95)}


def main() -> int:
    t0 = time.perf_counter()
    ff, task = load_pretrained("feedforward")
    designs = {}
    for name in ("stable", "unstable"):
        model, task = load_pretrained(name)
        acc = {int(k): v for k, v in model.metadata["accuracy_by_loops"].items()}
        designs[f"{name} (shipped)"] = {"config": {k: getattr(model, k, None) for k in ("block_size", "injection", "norm_mode")},
                                        **measure(model, task, acc, ff)}
    for name, changes in TRAINED.items():
        with TqdmProgress(desc=name, leave=False) as bar:
            result = train(LoopedConfig(**changes), seed=0, progress=bar)
        designs[name] = {"config": LoopedConfig(**changes).to_dict(),
                         **measure(result.model, make_task(LoopedConfig().task), result.accuracy, ff)}
    r_live = live_pointer()
    pointer, pointer_task = load_pretrained("pointer")
    scaling = accuracy_by_hops(pointer, pointer_task, SCALING_LOOPS, n=1024, seed=77)
    r = {"designs": designs, "feedforward_accuracy": ff.metadata["accuracy_by_loops"]["1"],
         "test_time_scaling": {"loops": list(SCALING_LOOPS), "accuracy_by_hop": scaling.tolist()},
         "live_pointer": r_live, "page": page_timings("../pages/looped_lm.py")}
    r["seconds"] = time.perf_counter() - t0
    stable, unstable = designs["stable (shipped)"], designs["unstable (shipped)"]
    r["checks"] = {"stable_reaches_a_cycle": stable["stable_cycle"], "unstable_does_not": not unstable["stable_cycle"],
                   "stable_profile_lines_up_with_feedforward": stable["profile_correlation"] > 0.5,
                   "pointer_accuracy_rises_with_loops": bool(scaling[0, -1] < 0.7 and scaling[3, -1] >= 0.95),
                   "pointer_holds_at_32_loops": bool(scaling[-1, -1] >= 0.95),
                   "live_pointer_needs_a_second_loop": r_live["needs_a_second_loop"],
                   "live_pointer_under_a_minute": r_live["train_seconds"] < 60,
                   "first_view_under_2s": r["page"]["first_view_warm"]["median_s"] < 2.0}
    return write_results("looped_lm", r, table(r), verdicts=verdicts)


def table(r: dict) -> str:
    lines = ["| design | acc@4 | acc@32 | δ@4 | δ@32 | separation | attn change@32 | stable cycle | FF depth per block layer | profile corr |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, d in r["designs"].items():
        acc = d["accuracy_by_loops"]
        depths = ", ".join(f"{x:.2f}" for x in d["block_layer_ff_depth"])
        lines.append(f"| {name} | {acc['4']:.2f} | {acc['32']:.2f} | {d['delta_loop4_worst']:.1e} | "
                     f"{d['delta_loop32_worst']:.1e} | {d['separation']:.3f} | {d['attention_change_loop32']:.1e} | "
                     f"{d['stable_cycle']} | {depths} | {d['profile_correlation']:.2f} |")
    scaling = r["test_time_scaling"]
    lines += ["", "Pointer chasing (block of 1 layer), accuracy at the answer (hop 8) against loops:", "",
              "| loops | " + " | ".join(map(str, scaling["loops"])) + " |", "|---|" + "---|" * len(scaling["loops"]),
              "| accuracy | " + " | ".join(f"{a[-1]:.3f}" for a in scaling["accuracy_by_hop"]) + " |"]
    live = r.get("live_pointer")
    lines += [] if live is None else ["", f"Live pointer chasing (5 nodes, 3 hops, 1000 steps): trained in {live['train_seconds']:.1f} s "
              f"({live['ratio_to_anchor']:.2f}x a default live run, {live['anchor_default_run_seconds']:.1f} s); "
              "accuracy at the answer (hop 3) against loops:", "",
              "| loops | " + " | ".join(map(str, live["loops"])) + " |", "|---|" + "---|" * len(live["loops"]),
              "| accuracy | " + " | ".join(f"{a[-1]:.3f}" for a in live["accuracy_by_hop"]) + " |"]
    lines += ["", "| page timing | median (s) | ratio to anchor |", "|---|---|---|"]
    lines += [f"| {k} | {v['median_s']:.3f} | {v.get('ratio_to_anchor', 1.0):.2f} |" for k, v in r["page"].items()]
    return "\n".join(lines) + "\n"


COMMAND = "python bench/looped_lm.py"
LEARNED = 0.9   # accuracy at 32 loops above which a design counts as having learned its task
STABLE_DELTA = 1e-4


def learned(d: dict) -> bool:
    return d["accuracy_by_loops"]["32"] >= LEARNED


def verdicts(r: dict) -> list:
    """One verdict per claim in ``core.looped_lm.CLAIMS``, from the numbers in ``r`` alone.

    A claim about learned dynamics is ``reproduced`` only when a control (an untrained model of the
    same design, under ``r["controls"]["untrained"]``) fails the same test; without one it is ``partly``.
    """
    s = r["designs"]["stable (shipped)"]
    control = r.get("controls", {}).get("untrained")
    fixed = s["delta_loop32_worst"] < STABLE_DELTA and s["separation"] > 0.1
    control_fixed = control is not None and control["delta_loop32_worst"] < STABLE_DELTA and control["separation"] > 0.1
    no_control = "The bench has no untrained control of the same design, so this may be a property of the " \
                 "architecture (an injected, normalised block) rather than of training (issue 21)."

    def graded(ok: bool, control_ok: bool) -> str:
        if not ok:
            return NOT_REPRODUCED
        return PARTLY if control is None or control_ok else REPRODUCED

    out = [verdict("distinct_fixed_points", graded(fixed, control_fixed),
                   f"δ@32 {s['delta_loop32_worst']:.1e}, separation {s['separation']:.2f}",
                   f"The shipped stable model's worst per-layer residual falls to {s['delta_loop32_worst']:.1e} by "
                   f"loop 32 (stable below {STABLE_DELTA:g}) and its layers' fixed points are {s['separation']:.2f} "
                   f"apart. " + (no_control if control is None else
                                  f"Untrained control: δ@32 {control['delta_loop32_worst']:.1e}, separation "
                                  f"{control['separation']:.2f}."), command=COMMAND)]
    settled = s["attention_change_loop32"] < 1e-4
    control_settled = control is not None and control["attention_change_loop32"] < 1e-4
    out.append(verdict("attention_stabilises", graded(settled, control_settled),
                       f"attention change at loop 32: {s['attention_change_loop32']:.1e}",
                       f"Largest change of a head's attention between loops 31 and 32 on the stable model: "
                       f"{s['attention_change_loop32']:.1e}. " + (no_control if control is None else
                       f"Untrained control: {control['attention_change_loop32']:.1e}."), command=COMMAND))
    corr, one_loop = s["profile_correlation"], s["accuracy_by_loops"]["1"]
    needs_loops = one_loop < LEARNED
    out.append(verdict("stages_repeat", NOT_REPRODUCED if not corr > 0.5 else REPRODUCED if needs_loops else PARTLY,
                       f"profile correlation {corr:.2f} with the feedforward model",
                       f"One loop's logit-lens profile correlates {corr:.2f} with the feedforward model's. "
                       + ("" if needs_loops else f"But the model already solves its task after one loop (accuracy "
                          f"{one_loop:.2f}), so iteration is never needed and repetition across loops is not shown; "
                          "the stages must be measured on pointer chasing."), command=COMMAND))
    trained = {n: d for n, d in r["designs"].items() if learned(d)}
    untrained = sorted(set(r["designs"]) - set(trained))
    stable = sorted(n for n, d in trained.items() if d["stable_cycle"])
    unstable = sorted(set(trained) - set(stable))
    both = bool(stable) and bool(unstable)
    out.append(verdict("design_shapes_stability", PARTLY if both else NOT_REPRODUCED,
                       f"{len(stable)} of {len(trained)} learned designs reach a stable cycle",
                       f"Among designs that learned the task (accuracy at 32 loops ≥ {LEARNED}): stable "
                       f"{', '.join(stable) or 'none'}; not stable {', '.join(unstable) or 'none'}. Excluded as not "
                       f"learned: {', '.join(untrained) or 'none'}. One seed per design and no design guidance "
                       "drawn from it yet.", command=COMMAND))
    return out


if __name__ == "__main__":
    sys.exit(main())

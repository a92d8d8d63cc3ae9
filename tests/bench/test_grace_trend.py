"""bench/grace.py's fit-set trend: the grid's cells and how replicates are pooled per kind and size."""

import numpy as np
import pytest
from scipy import stats

from bench.grace import FIT_SIZES, REPLICATES, TREND_REPLICATES, scale_trend, sweep
from core.grace.compare import NAMED


def test_the_scale_grid_runs_every_kind_size_and_replicate_once():
    cells = sweep("scale")
    assert len({c.name for c in cells}) == len(cells) == len(REPLICATES) * len(FIT_SIZES) * TREND_REPLICATES
    assert {(c.params["kind"], c.params["n_fit"], c.params["replicate"]) for c in cells} == {
        (k, n, r) for k in REPLICATES for n in FIT_SIZES for r in range(TREND_REPLICATES)}
    assert len({c.seed for c in cells}) == 1          # every replicate's seeds derive from the bench's base seed
    with pytest.raises(ValueError, match="^grid: "):
        sweep("huge")


def _cell(kind, n, grace, splice, zero, l0=(10.0, 9.0)):
    def row(value, active):
        return {"L0": active, **{m: value for m in NAMED}}
    return {"kind": kind, "n_fit": n, "methods": {"GRACE": row(grace, l0[0]), "SpLiCE": row(splice, l0[1]),
                                                  "no fitting": row(zero, 13.0)}}


def test_the_trend_pools_replicates_per_kind_and_size():
    cells = [_cell("image", 250, 0.5, 0.6, 0.7), _cell("image", 250, 0.6, 0.6, 0.7), _cell("image", 250, 0.7, 0.6, 0.7),
             _cell("image", 1000, 0.8, 0.6, 0.7, (12.0, 11.0)), _cell("video", 250, 0.4, 0.5, 0.5)]
    rows = scale_trend(cells)["rows"]
    assert [(r["kind"], r["n_fit"], r["replicates"]) for r in rows] == [("image", 250, 3), ("image", 1000, 1),
                                                                        ("video", 250, 1)]
    first = rows[0]["GRACE - SpLiCE"]["object recall (clutter)"]
    d = np.array([-0.1, 0.0, 0.1])
    assert first["mean"] == pytest.approx(0.0, abs=1e-12)
    assert first["ci95_seeds"] == pytest.approx(list(stats.t.interval(0.95, 2, loc=d.mean(), scale=stats.sem(d))))
    assert rows[0]["GRACE - no fitting"]["retrieval P@50"]["mean"] == pytest.approx(-0.1)
    assert rows[1]["L0"] == {"GRACE": 12.0, "SpLiCE": 11.0}
    assert rows[1]["GRACE - SpLiCE"]["top-K precision"]["ci95_seeds"] == pytest.approx([0.2, 0.2])


def test_the_stored_results_hold_the_figures_the_diagnosis_quotes():
    """human_aligned's diagnosis quotes the stored trend and ablation; a rerun that moves them must reword it."""
    import json
    import re

    from bench.report import RESULTS
    from core.grace.claims import RULES

    stored = json.loads((RESULTS / "grace.json").read_text())
    evidence = RULES["human_aligned"].diagnosis.evidence
    clutter = "object recall (clutter)"
    for kind, label in (("image", "on images"), ("video", "on clips")):
        gaps = [f"{row['GRACE - SpLiCE'][clutter]['mean']:+.3f}".replace("+", "") for row in stored["scale_trend"]["rows"]
                if row["kind"] == kind]
        assert [row["n_fit"] for row in stored["scale_trend"]["rows"] if row["kind"] == kind] == list(FIT_SIZES)
        assert ", ".join(gaps) + " " + label in evidence, (gaps, label)
    ablation = stored["summaries"]["image, GRACE without geometry term"]["differences"]["SpLiCE"][clutter]
    low, high = ablation["ci95_seeds"]
    assert f"+{ablation['mean']:.3f} (+{low:.3f}, +{high:.3f})" in evidence
    assert re.search(r"images -0\.\d{3} \(", evidence)

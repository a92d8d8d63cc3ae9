"""bench/lvqmark.py's window-length trend: the grid's cells and how they are pooled per T; make_windows' length."""

import numpy as np
import pytest

from bench.lvqmark import ENCODERS, TREND_DATASETS, WINDOWS, sweep, window_trend
from core.lvqmark import load_series, make_windows
from core.lvqmark.model import n_tokens


def test_the_window_grid_trains_every_dataset_length_and_encoder_once():
    cells = sweep("window")
    assert len({c.name for c in cells}) == len(cells) == len(TREND_DATASETS) * len(WINDOWS) * len(ENCODERS)
    assert {(c.params["dataset"], c.params["window"], c.params["encoder"]) for c in cells} == {
        (d, t, e) for d in TREND_DATASETS for t in WINDOWS for e in ENCODERS}
    with pytest.raises(ValueError, match="grid"):
        sweep("huge")


def _cell(ds, T, enc, drifts, fprs, outside=0.0):
    rows = ["none@0"] + [f"a{i}@0.3" for i in range(len(drifts))]
    return {"dataset": ds, "window": T, "encoder": enc, "rows": rows, "drift": [0.0, *drifts], "fpr": [0.0, *fprs],
            "changed_outside_window": outside}


def test_the_trend_pools_attacked_conditions_per_length_and_skips_unpaired_cells():
    ds_a, ds_b = TREND_DATASETS
    cells = [_cell(ds_a, 24, "local", [0.01, -0.03], [0.2, 0.4]), _cell(ds_a, 24, "global", [-0.02, 0.02], [0.1, 0.3], 0.5),
             _cell(ds_b, 24, "local", [0.0, 0.05], [0.0, 1.0]), _cell(ds_b, 24, "global", [0.01, 0.01], [0.0, 0.0], 0.1),
             _cell(ds_a, 48, "local", [0.01], [0.5])]   # its global cell is not finished: T = 48 is left out
    rows = window_trend(cells)["rows"]
    assert [r["window"] for r in rows] == [24]
    r = rows[0]
    assert r["datasets"] == 2 and r["smaller_share"] == 0.5   # |0.01| < |-0.02|, 0.03 > 0.02, 0 < 0.01, 0.05 > 0.01
    assert r["fpr_local"] == pytest.approx(0.4) and r["fpr_global"] == pytest.approx(0.1)
    assert r["drift_local"] == pytest.approx(np.mean([0.01, 0.03, 0.0, 0.05]))
    assert r["global_changed_outside_window"] == pytest.approx(0.3)


def test_windows_of_any_even_length_and_clear_errors_otherwise():
    series = load_series("finance")
    for T in WINDOWS:
        split = make_windows(series, window=T)
        assert split.train.shape[1] == T and len(split.train) + len(split.test) == len(series.values) - T + 1
        assert n_tokens(T) == (T - 4) // 2 + 1
    with pytest.raises(ValueError, match="window: 25 is odd"):
        make_windows(series, window=25)
    with pytest.raises(ValueError, match="window"):
        make_windows(series, window=len(series.values))

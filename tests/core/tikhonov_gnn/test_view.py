"""The shipped first view (view.npz) against the shipped checkpoints, and Stop in train / cross_validate."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.tikhonov_gnn.data import DATASETS, Dataset, load_dataset
from core.tikhonov_gnn.operator import (
    bernstein_eval,
    bernstein_to_monomial,
    normalized_laplacian,
    tikhonov_operator,
)
from core.tikhonov_gnn.view import SEED, ShippedView, layout, load_view, save_view

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("name", DATASETS)
def test_the_shipped_view_is_what_the_shipped_checkpoint_gives(name):
    from core.tikhonov_gnn.explain import explain
    from core.tikhonov_gnn.ship import shipped

    view = load_view(name)
    loaded = shipped(name)
    model, meta = loaded.model, loaded.metadata
    data = load_dataset(name, seed=SEED)
    assert view.n_graphs == len(data.graphs)
    assert view.accuracy == pytest.approx(meta["accuracy"])
    for index in (view.example, 1, len(data.graphs) - 1):      # recompute a few graphs with torch
        e = explain(model, data.graphs[index])
        np.testing.assert_allclose(view.scores(index), e.q, rtol=1e-5)
        np.testing.assert_allclose(view.explanation(data, index).operator, e.operator, atol=1e-4)   # numpy R
        # Kamada-Kawai stops at its optimiser's tolerance, which lands 1e-4 apart on another CPU's BLAS
        # (measured on an AVX-512 EPYC against the machine that shipped the view); drawn positions, not data.
        np.testing.assert_allclose(view.layout(index), layout(data.graphs[index].adjacency, SEED), atol=1e-3)
    e = explain(model, data.graphs[view.example])
    np.testing.assert_allclose(view.operator, e.operator, atol=1e-6)
    np.testing.assert_allclose(view.p, e.p, rtol=1e-6)
    assert view.explanation(data, view.example).kind == e.kind


@pytest.mark.parametrize("name", ["motifs", "sbm_heterophilic"])
def test_the_numpy_operator_from_shipped_q_and_theta_is_the_models_R(name):
    view = load_view(name)
    graph = load_dataset(name, seed=SEED).graphs[view.example]

    R = tikhonov_operator(normalized_laplacian(graph.adjacency), view.scores(view.example),
                          bernstein_to_monomial(view.theta))
    np.testing.assert_allclose(R, view.operator, atol=1e-4)
    np.testing.assert_allclose(view.p, bernstein_eval(view.theta, view.lam), rtol=1e-9)
    data = load_dataset(name, seed=SEED)
    other = view.explanation(data, 2)       # not the example: R re-solved in numpy from q and theta
    expected = tikhonov_operator(normalized_laplacian(data.graphs[2].adjacency), view.scores(2),
                                 bernstein_to_monomial(view.theta))
    np.testing.assert_allclose(other.operator, expected, atol=1e-12)
    np.testing.assert_allclose(other.q, view.scores(2))


def test_views_round_trip_and_refuse_a_wrong_graph(tmp_path):
    view = ShippedView("x", np.ones(3), np.linspace(0, 2, 5), np.ones(5), np.array([1.0, 2.0, 3.0]),
                       np.array([0, 1, 3]), 0, np.eye(1), {"gcn": 0.5, "tikhonov": 0.75},
                       np.arange(6.0).reshape(3, 2))
    (tmp_path / "x").mkdir()
    save_view(view, tmp_path / "x")
    back = load_view("x", tmp_path)
    np.testing.assert_array_equal(back.scores(1), [2.0, 3.0])
    np.testing.assert_array_equal(back.layout(1), [[2.0, 3.0], [4.0, 5.0]])
    assert back.accuracy == {"gcn": 0.5, "tikhonov": 0.75} and back.example == 0
    assert load_view("missing", tmp_path) is None
    with pytest.raises(ValueError, match="^graph: 2 is out of range; allowed 0..1$"):
        back.scores(2)


def test_the_first_view_modules_import_no_torch():
    code = ("import sys; import core.tikhonov_gnn as t; v = t.load_view('mutag'); "
            "v.explanation(t.load_dataset('mutag'), 0); t.recommended_config('mutag'); "
            "print(__import__('json').dumps('torch' in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) is False


def small(name="planted_feature", n=40):
    d = load_dataset(name)
    return Dataset(d.name, d.graphs[:n], d.n_classes, d.task, d.class_names)


def test_a_stopped_training_says_so_and_does_nothing_after_the_stop():
    from core.tikhonov_gnn.training import TikhonovConfig, train

    log = ProgressLog(stop_after=1)
    result = train(TikhonovConfig(epochs=5, hidden=8), small(), seed=0, progress=log)
    assert result.stopped and result.epoch.tolist() == [1] and log.steps == [1]
    assert result.test_accuracy.size == 1
    full = train(TikhonovConfig(epochs=2, hidden=8), small(), seed=0, progress=ProgressLog(stop_after=2))
    assert not full.stopped and full.epoch.tolist() == [1, 2]       # a stop on the last epoch loses nothing


def test_cross_validate_stops_inside_a_fold_and_keeps_only_finished_folds():
    from core.tikhonov_gnn.training import TikhonovConfig, cross_validate

    config = TikhonovConfig(model="gcn", epochs=3, hidden=8)
    log = ProgressLog(stop_after=5)          # fold 1 (3 epochs) finishes, fold 2 stops at its 2nd epoch
    out = cross_validate(config, small(), folds=4, seed=0, progress=log)
    assert log.steps == [1, 2, 3, 4, 5] and set(log.totals) == {12}
    assert out.stopped and len(out.fold_accuracies) == 1
    assert out.mean == pytest.approx(out.fold_accuracies[0])
    log = ProgressLog(stop_after=1)
    out = cross_validate(config, small(), folds=4, seed=0, progress=log)
    assert out.stopped and out.fold_accuracies.tolist() == [] and np.isnan(out.mean) and log.steps == [1]
    assert cross_validate(config, small(), folds=2, seed=0).stopped is False

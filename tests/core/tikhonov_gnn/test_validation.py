"""Entry points outside a Config validate their numbers and names, naming the field, before any work."""

import numpy as np
import pytest

from core.tikhonov_gnn import (TikhonovConfig, explanation_from_scores, filter_kind, load_dataset, load_view,
                               tikhonov_solve)
from core.tikhonov_gnn.data import Graph


def test_training_entry_points_refuse_bad_indices_and_folds():
    from core.tikhonov_gnn import cross_validate, train

    data = load_dataset("sbm_homophilic")
    config = TikhonovConfig(model="gcn", epochs=1, hidden=8)
    with pytest.raises(ValueError, match=r"^train_index: graph indices outside the dataset; allowed"):
        train(config, data, train_index=[0, 40], test_index=[1])
    with pytest.raises(ValueError, match=r"^test_index: graph indices outside the dataset; allowed"):
        train(config, data, train_index=[0], test_index=[-1])
    with pytest.raises(ValueError, match=r"^train_index: empty"):
        train(config, data, train_index=[], test_index=[1])
    with pytest.raises(ValueError, match=r"^folds: .*allowed"):
        cross_validate(config, data, folds=1)
    with pytest.raises(ValueError, match=r"^seed: "):
        train(config, data, seed=-3)
    # the control: valid indices train
    assert train(config, data, train_index=[0, 1], test_index=[2]).epoch.tolist() == [1]


def test_solver_and_explanation_refuse_bad_numbers():
    import torch

    L, q = torch.eye(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    theta, rhs = torch.ones(3, dtype=torch.float64), torch.ones(3, 1, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"^tol: .*allowed"):
        tikhonov_solve(q, theta, rhs, L, tol=0.0)
    with pytest.raises(ValueError, match=r"^max_iter: .*allowed"):
        tikhonov_solve(q, theta, rhs, L, max_iter=0)
    g = Graph(np.ones((3, 3)) - np.eye(3), np.ones((3, 1), np.float32), 0)
    with pytest.raises(ValueError, match=r"^grid: .*allowed"):
        explanation_from_scores([1.0, 1.0, 1.0], [1.0, 1.0], g, grid=1)
    lam = np.linspace(0, 2, 5)
    with pytest.raises(ValueError, match=r"^flat_tol: .*allowed"):
        filter_kind(lam, lam, flat_tol=1.5)
    with pytest.raises(ValueError, match=r"^p: shape"):
        filter_kind(lam, lam[:3])


def test_views_and_auroc_refuse_bad_names_and_graphs():
    from core.tikhonov_gnn import TikhonovClassifier, explanation_auroc

    with pytest.raises(ValueError, match=r"^name: '\.\./etc' is not a dataset key"):
        load_view("../etc")
    assert load_view("not_shipped") is None
    model = TikhonovClassifier(2, 2, "node", hidden=8)
    with pytest.raises(ValueError, match=r"^graphs: none carries a ground truth"):
        explanation_auroc(model, load_dataset("sbm_homophilic").graphs[:2])

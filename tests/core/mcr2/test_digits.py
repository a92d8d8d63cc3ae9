"""MCR² on an MLP's output (scikit-learn digits) against cross-entropy: the torch objective, geometry, accuracy."""

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.mcr2 import DigitsConfig, geometry, rate_reduction, train_digits
from core.mcr2.digits import torch_rate_reduction


def test_the_torch_objective_equals_the_numpy_one():
    import torch

    rng = np.random.default_rng(0)
    labels = rng.permutation(np.repeat(np.arange(4), 9))
    Z = rng.normal(size=(36, 6))
    onehot = torch.nn.functional.one_hot(torch.tensor(labels)).double()
    value = torch_rate_reduction(torch.tensor(Z), onehot, 0.7, 0.03).item()
    assert value == pytest.approx(rate_reduction(Z.T, labels, 0.7, 0.03), rel=1e-12)


def test_geometry_sees_orthogonal_and_shared_subspaces():
    rng = np.random.default_rng(1)
    labels = np.repeat([0, 1], 40)
    Q = np.linalg.qr(rng.normal(size=(8, 8)))[0]
    ortho = np.concatenate([rng.normal(size=(40, 2)) @ Q[:, :2].T, rng.normal(size=(40, 2)) @ Q[:, 2:4].T])
    shared = np.concatenate([rng.normal(size=(40, 2)) @ Q[:, :2].T, rng.normal(size=(40, 2)) @ Q[:, :2].T])
    a, b = geometry(ortho, labels), geometry(shared, labels)
    assert a.max_cosine < 1e-10 and b.max_cosine > 0.99
    assert a.rate_reduction > b.rate_reduction + 0.5


@pytest.fixture(scope="module")
def trained():
    cfg = DigitsConfig(epochs=60, lr=3e-3)
    return {obj: train_digits(cfg.replace(objective=obj), seed=1) for obj in ("mcr2", "cross_entropy")}


@pytest.mark.claim
@pytest.mark.slow(reason="trains the MLP twice (MCR² and the cross-entropy control) and imports torch and scikit-learn")
def test_claim_mcr2_improves_geometry_and_keeps_accuracy_and_cross_entropy_does_not(trained):
    mcr2, ce = trained["mcr2"], trained["cross_entropy"]
    assert mcr2.loss[-1] < mcr2.loss[0]                         # F went up
    assert mcr2.geometry.rate_reduction > 2 * ce.geometry.rate_reduction
    assert mcr2.geometry.rate_reduction > mcr2.raw_geometry.rate_reduction    # better than the pixels
    assert mcr2.geometry.mean_cosine < ce.geometry.mean_cosine - 0.15
    # the control does not improve on the pixels' geometry
    assert ce.geometry.rate_reduction < ce.raw_geometry.rate_reduction
    assert ce.geometry.mean_cosine >= ce.raw_geometry.mean_cosine - 0.05
    assert mcr2.test_accuracy > 0.9 and abs(mcr2.test_accuracy - ce.test_accuracy) < 0.03
    # the network's output, measured as the free features are: MCR² moves it towards the maximiser set,
    # the cross-entropy control away from it
    assert mcr2.feature_gap[-1] < 0.9 * mcr2.feature_gap[0] and mcr2.feature_distance[-1] < mcr2.feature_distance[0]
    assert np.all(np.diff(mcr2.feature_objective) > 0)
    assert ce.feature_gap[-1] > ce.feature_gap[0] and ce.feature_distance[-1] > mcr2.feature_distance[-1]


def test_feature_metrics_vanish_at_a_closed_form_maximiser_and_not_away_from_it():
    from core.mcr2 import singular_value_roots
    from core.mcr2.digits import feature_metrics

    rng = np.random.default_rng(3)
    d, sizes, eps, lam = 8, np.array([12, 12]), np.sqrt(0.5), 0.01
    labels = np.repeat([0, 1], sizes)
    sigma = np.sqrt(singular_value_roots(d, sizes, eps, lam).maximiser)
    Q = np.linalg.qr(rng.normal(size=(d, d)))[0]
    Z = np.zeros((d, 24))
    for c, cols in enumerate((Q[:, :4], Q[:, 4:])):
        Z[:, labels == c] = sigma[c] * cols @ np.linalg.qr(rng.normal(size=(12, 4)))[0].T
    value, grad, dist, gap = feature_metrics(Z.T, labels, eps, lam)       # rows are samples here
    assert grad < 1e-10 and dist < 1e-8 and abs(gap) < 1e-10
    assert value == pytest.approx(rate_reduction(Z, labels, eps, lam))
    _, grad, dist, gap = feature_metrics(Z.T + 0.1 * rng.normal(size=Z.T.shape), labels, eps, lam)
    assert grad > 1e-3 and dist > 0.1 and gap > 0


def test_training_stops_when_asked():
    log = ProgressLog(stop_after=3)
    result = train_digits(DigitsConfig(epochs=50, objective="cross_entropy"), seed=0, progress=log)
    assert log.steps == [1, 2, 3] and result.epochs_done == 3 and result.loss.size == 3
    assert result.tracked_epochs.tolist() == [0, 3] and result.feature_gap.shape == (2,)


def test_digits_config_validates():
    with pytest.raises(ValueError, match="^objective: 'hinge' is not an option"):
        DigitsConfig(objective="hinge")

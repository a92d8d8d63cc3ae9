"""The prototype learners against scikit-learn oracles, their incremental identities, and bad input."""

import numpy as np
import pytest
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import Ridge
from sklearn.neighbors import NearestCentroid

from core.class_il import NCM, SLDA, FeCAM, RanPAC, fit_incrementally, gaussian_tasks, task_confusion
from core.class_il.learners import RIDGES


@pytest.fixture(scope="module")
def tasks():
    d = gaussian_tasks(6.0, n_tasks=3, dim=12, n_train=60, n_test=100, seed=3)
    rng = np.random.default_rng(0)
    keep = rng.random(len(d.y_train)) < 0.8    # unequal class counts, so the priors matter
    return d.X_train[keep], d.y_train[keep], d.task_train[keep], d.X_test, d.y_test


def test_slda_streaming_equals_sklearn_lda_lsqr(tasks):
    X, y, t, Xt, yt = tasks
    ours = fit_incrementally(SLDA(epsilon=0.0), X, y, t)
    lda = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    np.testing.assert_allclose(ours.covariance_, lda.covariance_, atol=1e-10)
    np.testing.assert_allclose(ours.means_, lda.means_, atol=1e-12)
    # sklearn adds log priors; ours is the prior-free prototype score (SLDA): the rest is identical
    np.testing.assert_allclose(ours.decision_function(Xt) + np.log(lda.priors_), lda.decision_function(Xt), atol=1e-8)
    prior_free = lda.classes_[np.argmax(lda.decision_function(Xt) - np.log(lda.priors_), axis=1)]
    assert np.array_equal(ours.predict(Xt), prior_free)


def test_slda_sample_by_sample_equals_one_batch_in_any_order(tasks):
    X, y, t, Xt, _ = tasks
    batch = fit_incrementally(SLDA(), X, y, t)
    stream = SLDA()
    for task in np.unique(t):
        for i in np.flatnonzero(t == task)[::-1]:
            stream.partial_fit(X[i:i + 1], y[i:i + 1], int(task))
    np.testing.assert_allclose(stream.covariance_, batch.covariance_, atol=1e-10)
    order = [int(np.flatnonzero(stream.classes_ == c)[0]) for c in batch.classes_]   # classes arrive reversed
    np.testing.assert_allclose(stream.decision_function(Xt)[:, order], batch.decision_function(Xt), atol=1e-8)
    assert np.array_equal(stream.predict(Xt), batch.predict(Xt))


def test_ranpac_incremental_readout_equals_the_joint_ridge_solve(tasks):
    X, y, t, Xt, _ = tasks
    model = fit_incrementally(RanPAC(n_random=80, lam=0.7, seed=1), X, y, t)
    H = model.project(X)
    Y = (y[:, None] == model.classes_[None, :]).astype(float)
    ridge = Ridge(alpha=0.7, fit_intercept=False).fit(H, Y)
    np.testing.assert_allclose(model.readout_, ridge.coef_, atol=1e-8)
    np.testing.assert_allclose(model.decision_function(Xt), ridge.predict(model.project(Xt)), atol=1e-8)


def test_ranpac_chosen_ridge_is_the_brute_force_validation_minimum(tasks):
    X, y, t, _, _ = tasks
    model = RanPAC(n_random=60, seed=2)
    model.partial_fit(X[t == 0], y[t == 0], 0)
    H = model.project(X[t == 0])
    Y = (y[t == 0][:, None] == model.classes_[None, :]).astype(float)
    cut = int(0.8 * len(H))
    errs = [np.mean((H[cut:] @ np.linalg.solve(H[:cut].T @ H[:cut] + lam * np.eye(60), H[:cut].T @ Y[:cut])
                     - Y[cut:]) ** 2) for lam in RIDGES]
    assert model.lam_ == RIDGES[int(np.argmin(errs))]


def test_fecam_with_identity_covariance_is_cosine_ncm(tasks):
    X, y, t, Xt, _ = tasks
    fecam = fit_incrementally(FeCAM(tukey_beta=None, covariance="identity"), X, y, t)
    ncm = fit_incrementally(NCM("cosine"), X, y, t)
    assert np.array_equal(fecam.predict(Xt), ncm.predict(Xt))
    # −‖x̂ − μ̂‖² = 2 cos(x, μ) − 2: the scores agree exactly, not only their argmax
    np.testing.assert_allclose(fecam.decision_function(Xt), 2 * ncm.decision_function(Xt) - 2, atol=1e-10)


def test_euclidean_ncm_equals_sklearn_nearest_centroid(tasks):
    X, y, t, Xt, _ = tasks
    ours = fit_incrementally(NCM("euclidean"), X, y, t)
    assert np.array_equal(ours.predict(Xt), NearestCentroid().fit(X, y).predict(Xt))


def test_fecam_distance_is_scipy_mahalanobis_to_the_normalised_mean(tasks):
    from scipy.spatial.distance import mahalanobis

    X, y, t, Xt, _ = tasks
    model = fit_incrementally(FeCAM(tukey_beta=0.5), X, y, t)
    k = 1
    P = np.linalg.pinv(model.class_covariance(k))
    x = model.tukey(Xt[:3])
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    mu = model.means_[k] / np.linalg.norm(model.means_[k])
    expected = [-mahalanobis(row, mu, P) ** 2 for row in x]
    np.testing.assert_allclose(model.decision_function(Xt[:3])[:, k], expected, atol=1e-10)
    cov = np.cov(model.tukey(X[y == model.classes_[k]]).T)
    assert np.allclose(model.scatters_[k] / (model.counts_[k] - 1), cov, atol=1e-10)


def test_task_confusion_on_a_hand_made_case():
    scores = np.array([[3., 1., 0., 2.],    # class 0, CIL right
                       [1., 0., 0., 3.],    # class 0: CIL says 3 (task 1), TIL right
                       [0., 1., 0., 0.5],   # class 1: both right
                       [0., 2., 1., 0.]])   # class 2: CIL says 1 (task 0), TIL says 2 (right)
    tc = task_confusion(scores, np.array([0, 0, 1, 2]), np.array([0, 1, 2, 3]), np.array([0, 0, 1, 1]))
    assert (tc.acc_cil, tc.acc_til, tc.tc_gap) == (0.5, 1.0, 0.5)
    np.testing.assert_allclose(tc.confusion, [[2 / 3, 1 / 3], [1.0, 0.0]])


def test_bad_input_names_the_field_and_changes_nothing(tasks):
    X, y, t, _, _ = tasks
    model = SLDA().partial_fit(X[t == 0], y[t == 0], 0)
    before = (model.classes_.copy(), model.scatter_.copy(), model.means_.copy())
    with pytest.raises(ValueError, match=r"^y: class .* already belongs to task 0; allowed"):
        model.partial_fit(X[t <= 1], y[t <= 1], 1)     # task 0's classes again, now as task 1
    with pytest.raises(ValueError, match=r"^X: 3 features; allowed 12"):
        model.partial_fit(X[:5, :3], y[:5], 1)
    with pytest.raises(ValueError, match=r"^X: contains NaN"):
        model.partial_fit(np.full((2, 12), np.nan), y[:2], 1)
    with pytest.raises(ValueError, match=r"^task: -1 is not a task index"):
        model.partial_fit(X[:2], y[:2], -1)
    assert np.array_equal(model.classes_, before[0]) and np.array_equal(model.scatter_, before[1])
    assert np.array_equal(model.means_, before[2])
    with pytest.raises(ValueError, match=r"^learner: not fitted"):
        SLDA().predict(X)
    with pytest.raises(ValueError, match=r"^metric: 'manhattan' is not an option"):
        NCM("manhattan")
    with pytest.raises(ValueError, match=r"^n_random: 0 is out of range"):
        RanPAC(n_random=0)

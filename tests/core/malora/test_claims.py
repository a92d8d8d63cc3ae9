"""MaLoRA's claims at small scale on synthetic tasks, each with a control that must fail it."""

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.malora import (AdapterConfig, MergeConfig, SweepConfig, compare_merges, cosine, fit_head, lambda_sweep,
                         max_margin_classifier, orthogonal_check, synthetic_tasks, task_margin, train_adapter)

pytestmark = pytest.mark.claim


@pytest.fixture(scope="module")
def task():
    tasks = synthetic_tasks(n_tasks=1, seed=3)
    W0 = fit_head(tasks.X_train[0], tasks.y_train[0], 3)
    return tasks, W0, max_margin_classifier(tasks.X_train[1], tasks.y_train[1], 3)


@pytest.mark.parametrize("lam", [1e-3, 1e-4])
def test_adapter_aligns_with_the_crammer_singer_svm_at_small_lambda(task, lam):
    tasks, W0, svm = task
    X, y = tasks.X_train[1], tasks.y_train[1]
    assert task_margin(svm, X, y) > 0.99                  # the oracle separates the task (hard margin 1)
    ad = train_adapter(W0, X, y, AdapterConfig(rank=2, lam=lam, steps=30), seed=0)
    assert cosine(ad.delta, svm) > 0.97


def test_control_the_class_mean_classifier_and_a_large_lambda_adapter_are_not_max_margin():
    """With isotropic noise the trivial classifier is already close to the SVM; stretched noise separates them."""
    tasks = synthetic_tasks(n_tasks=1, anisotropy=4.0, noise=0.1, seed=1)
    X, y = tasks.X_train[1], tasks.y_train[1]
    W0 = fit_head(tasks.X_train[0], tasks.y_train[0], 3)
    svm = max_margin_classifier(X, y, 3)
    means = np.stack([X[y == c].mean(0) for c in range(3)])
    assert cosine(means - means.mean(0), svm) < 0.8                        # the trivial method fails the claim
    big = train_adapter(W0, X, y, AdapterConfig(rank=2, lam=1e-1, steps=30), seed=0)
    small = train_adapter(W0, X, y, AdapterConfig(rank=2, lam=1e-4, steps=30), seed=0)
    assert cosine(big.delta, svm) < 0.9 < 0.97 < cosine(small.delta, svm)   # alignment is reached only at small lambda


SWEEP = dict(n_lams=4, lam_low=1e-4, steps=20)


def test_lambda_trades_retention_for_adaptation_as_the_closed_forms_say():
    s = lambda_sweep(SweepConfig(**SWEEP), seed=0)
    assert np.all(np.diff(s.pre_margin) < 0) and np.all(s.pre_margin > 0)      # shrinks, never to zero
    assert np.all(np.diff(s.ft_margin) > 0)                                     # adaptation grows as lambda falls
    np.testing.assert_allclose(s.pre_margin, s.closed_pre, rtol=1e-4)           # exact on orthogonal tasks
    assert np.all(s.ft_margin <= s.closed_ft + 1e-9)                            # the max-margin bound ...
    assert s.ft_margin[-1] > 0.85 * s.closed_ft[-1]                             # ... approached as cos -> 1


def test_control_near_orthogonal_tasks_break_the_closed_form_and_the_retention():
    s = lambda_sweep(SweepConfig(overlap=0.5, **SWEEP), seed=0)
    assert np.max(np.abs(s.pre_margin - s.closed_pre) / s.closed_pre) > 0.2
    assert s.pre_margin[-1] < 0                                                  # the pretraining margin collapses


@pytest.fixture(scope="module")
def merged():
    return compare_merges(MergeConfig(steps=20, grid=61), seed=2)


def row(result, name):
    return result.methods.index(name)


def test_merged_models_have_positive_margin_on_every_task(merged):
    for name in ("malora", "task_arithmetic", "cat"):
        assert np.all(merged.task_margin[row(merged, name)] > 0), name
    assert merged.task_margin[row(merged, "base")][1:].max() <= 1e-9         # the base alone does not solve them


def test_control_peft_linear_merge_loses_a_task(merged):
    assert merged.task_margin[row(merged, "peft_linear")].min() < 0


def test_malora_coefficients_match_the_grid_optimum_of_the_union_margin(merged):
    values = np.linspace(0, 2 * merged.alpha_star.max(), 61)
    step = values[1] - values[0]
    best = merged.weights[row(merged, "grid_oracle")]
    assert np.all(np.abs(best - merged.alpha_star) <= step + 1e-12)
    m, u = merged.union_margin[row(merged, "malora")], merged.union_margin[row(merged, "task_arithmetic")]
    assert m >= merged.union_margin[row(merged, "grid_oracle")] - 1e-9          # the closed form is at least as good
    assert m == pytest.approx(float(orthogonal_check(merged)), rel=1e-4)        # and equals its closed-form value
    assert u < 0.9 * m                                                          # control: uniform alpha is worse


def test_runs_stop_cleanly_and_report_progress():
    log = ProgressLog(stop_after=3)
    r = compare_merges(MergeConfig(steps=5), seed=0, progress=log)
    assert log.steps == [1, 2, 3] and set(log.totals) == {2 * 5 + len(r.methods)}
    assert r.done == 1 and np.all(np.isnan(r.union_margin))
    log = ProgressLog(stop_after=2)
    s = lambda_sweep(SweepConfig(n_lams=4, steps=3), seed=0, progress=log)
    assert s.done == 2 and np.isfinite(s.pre_margin[1]) and np.isnan(s.pre_margin[2])

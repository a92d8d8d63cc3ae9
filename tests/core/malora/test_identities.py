"""MaLoRA's building blocks against independent references: brute-force margins, peft's own merges."""

import json

import numpy as np
import pytest

from core.malora import (AdapterConfig, MergeConfig, SweepConfig, compare_merges, fit_head, malora_coefficients, merge,
                         merged_delta, normalized_margin, orthogonal_union_margin, peft_merge, sample_margins,
                         synthetic_tasks, task_margin, train_adapter)
from core.malora.ship import shipped_merge


def brute_margins(W, X, y):
    return np.array([min((W[y[i]] - W[j]) @ X[i] for j in range(len(W)) if j != y[i]) for i in range(len(y))])


def test_margins_equal_a_brute_force_loop_and_scale_out():
    rng = np.random.default_rng(0)
    W, X, y = rng.normal(size=(4, 5)), rng.normal(size=(30, 5)), rng.integers(0, 4, 30)
    np.testing.assert_allclose(sample_margins(W, X, y), brute_margins(W, X, y), atol=1e-12)
    assert task_margin(W, X, y) == pytest.approx(brute_margins(W, X, y).min())
    assert normalized_margin(3.0 * W, X, y) == pytest.approx(normalized_margin(W, X, y))
    assert task_margin(W, X, y, quantile=0.1) > task_margin(W, X, y)


@pytest.fixture(scope="module")
def adapters():
    tasks = synthetic_tasks(seed=1)
    W0 = fit_head(tasks.X_train[0], tasks.y_train[0], 3)
    ads = [train_adapter(W0, tasks.X_train[t], tasks.y_train[t], AdapterConfig(rank=2, steps=10), task=t)
           for t in (1, 2)]
    return W0, ads


@pytest.mark.parametrize("peft_type, ours", [("svd", "task_arithmetic"), ("ties_svd", "ties"),
                                             ("magnitude_prune_svd", "magnitude_prune")])
def test_peft_svd_merges_at_full_rank_equal_ours_on_delta_w(adapters, peft_type, ours):
    W0, ads = adapters
    w = [0.7, 1.3]
    theirs = peft_merge(W0, ads, w, peft_type, svd_rank=min(W0.shape), density=0.5, seed=4)
    mine = merged_delta(ads, ours, weights=w, density=0.5, seed=4)
    assert np.abs(theirs - mine).max() < 1e-6 * np.abs(mine).max()
    if ours in ("ties", "magnitude_prune"):     # the pruning really changed something
        assert np.abs(mine - merged_delta(ads, "task_arithmetic", weights=w)).max() > 1e-3


def test_peft_cat_is_the_exact_weighted_sum_and_peft_linear_is_not(adapters):
    W0, ads = adapters
    w = [0.7, 1.3]
    exact = sum(wi * a.delta for wi, a in zip(w, ads))
    assert np.abs(peft_merge(W0, ads, w, "cat") - exact).max() < 1e-6 * np.abs(exact).max()
    assert np.abs(merged_delta(ads, "cat", weights=w) - exact).max() < 1e-12
    np.testing.assert_allclose(merge(W0, ads, "cat", weights=w), W0 + exact, atol=1e-12)
    linear = peft_merge(W0, ads, w, "linear")       # A and B merged separately (peft issue 3004): a row, not an oracle
    assert np.linalg.norm(linear - exact) / np.linalg.norm(exact) > 0.3


def test_svd_truncates_to_the_given_rank(adapters):
    _, ads = adapters
    full = merged_delta(ads, "task_arithmetic")
    cut = merged_delta(ads, "svd", svd_rank=1)
    assert np.linalg.matrix_rank(cut, tol=1e-9) == 1 and np.linalg.matrix_rank(full, tol=1e-9) == 2
    s = np.linalg.svd(full, compute_uv=False)
    assert np.linalg.norm(full - cut) == pytest.approx(s[1], rel=1e-9)      # Eckart-Young
    # three classes: cross-entropy updates have rows summing to zero, so rank 2 (the default) is already exact
    np.testing.assert_allclose(merged_delta(ads, "svd"), full, atol=1e-10)


def test_dare_is_seeded_and_leaves_global_torch_state_alone(adapters):
    """peft's own DARE types draw after initialising the new adapter, so their masks differ from ours."""
    import torch

    _, ads = adapters
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    a = merged_delta(ads, "dare_linear", seed=5)
    after = torch.rand(1)
    assert torch.equal(before, after)
    np.testing.assert_array_equal(a, merged_delta(ads, "dare_linear", seed=5))
    assert np.abs(a - merged_delta(ads, "dare_linear", seed=6)).max() > 1e-6


def test_malora_coefficients_and_the_orthogonal_closed_form():
    np.testing.assert_allclose(malora_coefficients(1.5, [3.0, 0.5]), [0.5, 3.0])
    rng = np.random.default_rng(2)
    # exactly orthogonal blocks: W0 on coordinates 0-2, dW_t on their own coordinates; data in the same blocks
    W0 = np.zeros((3, 9))
    W0[:, 0:3] = rng.normal(size=(3, 3))
    deltas = [np.zeros((3, 9)) for _ in range(2)]
    deltas[0][:, 3:6], deltas[1][:, 6:9] = rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
    Xs, ys = [], []
    for t, M in enumerate([W0, *deltas]):
        X = np.zeros((40, 9))
        X[:, 3 * t:3 * t + 3] = rng.normal(size=(40, 3))
        y = (X @ M.T).argmax(1)                      # labels from the block's own classifier: separable
        Xs.append(X)
        ys.append(y)
    g0 = task_margin(W0, Xs[0], ys[0])
    g = [task_margin(d, X, y) for d, X, y in zip(deltas, Xs[1:], ys[1:])]
    a = np.array([0.3, 2.0])
    W = W0 + a[0] * deltas[0] + a[1] * deltas[1]
    measured = normalized_margin(W, np.vstack(Xs), np.concatenate(ys))
    closed = orthogonal_union_margin(a, np.linalg.norm(W0), g0, [np.linalg.norm(d) for d in deltas], g)
    assert measured == pytest.approx(float(closed), rel=1e-12)


def test_bad_input_names_the_field_and_changes_nothing():
    with pytest.raises(ValueError, match=r"^task_margins: .*allowed"):
        malora_coefficients(1.0, [0.5, -0.1])
    with pytest.raises(ValueError, match=r"^base_margin: .*allowed"):
        malora_coefficients(0.0, [1.0])
    with pytest.raises(ValueError, match=r"^lam: .*allowed"):
        MergeConfig(lam=0.0)
    with pytest.raises(ValueError, match=r"^family: .*allowed"):
        MergeConfig(family="imagenet")
    with pytest.raises(ValueError, match=r"^lam_low: .*allowed"):
        SweepConfig(lam_low=0.5, lam_high=0.1)
    with pytest.raises(ValueError, match=r"^method: .*allowed"):
        merged_delta([np.ones((2, 2))], "average")
    config = MergeConfig()
    with pytest.raises(ValueError, match=r"^density: "):
        config.replace(density=2.0)
    assert config.density == 0.5


def test_entry_points_outside_a_config_validate_before_doing_anything():
    from core.malora import cosine, landscape, max_margin_classifier, merge_view, union_margin_grid

    W0, X, y = np.eye(2), np.array([[1.0, 0.2], [0.3, 1.0]]), np.array([0, 1])
    deltas = np.stack([np.diag([1.0, 0.0]), np.diag([0.0, 1.0])])
    kept = (W0.copy(), X.copy(), deltas.copy())
    cases = [
        (r"^quantile: .*allowed", lambda: task_margin(W0, X, y, quantile=0.9)),
        (r"^lam: .*allowed", lambda: fit_head(X, y, 2, lam=-1.0)),
        (r"^n_classes: .*allowed", lambda: fit_head(X, y, 1)),
        (r"^y: .*allowed", lambda: fit_head(X, np.array([0, 5]), 3)),
        (r"^task: .*allowed", lambda: train_adapter(W0, X, y, task=0)),
        (r"^config: .*allowed", lambda: train_adapter(W0, X, y, config=MergeConfig())),
        (r"^W: .*allowed", lambda: train_adapter(W0, X[:, :1], y)),
        (r"^C: .*allowed", lambda: max_margin_classifier(X, y, 2, C=0.0)),
        (r"^U: .*allowed", lambda: cosine(np.zeros((2, 2)), W0)),
        (r"^alphas: .*allowed", lambda: orthogonal_union_margin([-1.0, 1.0], 1.0, 1.0, [1.0, 1.0], [1.0, 1.0])),
        (r"^alphas: .*allowed", lambda: orthogonal_union_margin([1.0], 1.0, 1.0, [1.0, 1.0], [1.0, 1.0])),
        (r"^values: .*allowed", lambda: union_margin_grid(W0, deltas, X, y, np.linspace(0, 1, 1001))),
        (r"^deltas: .*allowed", lambda: union_margin_grid(W0, deltas[:, :1], X, y, np.array([0.0, 1.0]))),
        (r"^grid: .*allowed", lambda: landscape(W0, deltas, [X], [y], np.array([1.0, 1.0]), grid=2)),
        (r"^grid: .*allowed", lambda: merge_view(MergeConfig(steps=1), grid=1000)),
        (r"^config: .*allowed", lambda: compare_merges(SweepConfig())),
        (r"^weights: .*allowed", lambda: peft_merge(W0, [], [1.0], "cat")),
    ]
    for pattern, call in cases:
        with pytest.raises(ValueError, match=pattern):
            call()
    for before, after in zip(kept, (W0, X, deltas)):
        np.testing.assert_array_equal(before, after)


def test_shipped_merge_table_is_recomputed():
    shipped = shipped_merge()
    assert shipped is not None
    config = MergeConfig.from_dict(shipped["config"])
    again = compare_merges(config, seed=shipped["seed"])
    ship = shipped["result"]
    np.testing.assert_allclose(again.union_margin, np.array(ship["union_margin"], dtype=float), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(again.deltas, np.array(ship["deltas"]), rtol=1e-6, atol=1e-9)
    assert json.dumps(ship["methods"]) == json.dumps(again.methods)


def test_task_families_have_the_documented_structure():
    from core.malora import digits_tasks, text_corpus, text_tasks

    orth = synthetic_tasks(seed=0)
    assert np.abs(orth.X_train[1] @ orth.X_train[2].T).max() < 1e-12          # exactly orthogonal tasks
    near = synthetic_tasks(overlap=0.5, seed=0)
    assert np.abs(near.X_train[1] @ near.X_train[0].T).max() > 0.1             # the shared block couples them
    text = text_tasks(seed=0)
    sentences = text_corpus().sentences
    assert len(sentences) == len(set(sentences)) == 432
    assert [sorted(set(y)) for y in text.y_train] == [list(c) for c in text.classes]
    assert sum(len(y) for y in text.y_train + text.y_test) == 432 and text.dim == 384
    digits = digits_tasks(seed=0)
    assert digits.n_classes == 10 and digits.dim == 32
    assert [sorted(set(y)) for y in digits.y_test] == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    np.testing.assert_allclose(digits.X_train[0].mean(axis=0), 0.0, atol=1e-12)   # centred at the pretraining mean

"""Domains: shapes, seeds, the truth they plant, the SVD alignment, and bad input."""

import numpy as np
import pytest

from core.graph_clustering import (DOMAINS, karate_club, make_csbm, make_domain, make_er_control, make_lfr,
                                   mutag_graphs, svd_align)


def test_csbm_plants_its_communities_and_is_reproducible():
    d = make_csbm(n=200, k=4, p_in=0.2, p_out=0.01, seed=3)
    A, y = d.adjacency, d.labels
    assert (A == A.T).all() and not A.diagonal().any()
    same = y[:, None] == y[None, :]
    assert A[same].mean() > 0.15 > 0.02 > A[~same].mean()
    again = make_csbm(n=200, k=4, p_in=0.2, p_out=0.01, seed=3)
    assert np.array_equal(A, again.adjacency) and np.array_equal(d.features, again.features)
    assert not np.array_equal(A, make_csbm(n=200, k=4, p_in=0.2, p_out=0.01, seed=4).adjacency)


def test_lfr_is_reproducible_and_its_mixing_is_near_mu():
    d = make_lfr(seed=1)
    assert np.array_equal(d.adjacency, make_lfr(seed=1).adjacency)
    y = d.labels
    i, j = np.nonzero(np.triu(d.adjacency))
    assert 0.03 < np.mean(y[i] != y[j]) < 0.2


def test_the_control_labels_are_independent_of_the_graph():
    d = make_er_control(seed=0)
    i, j = np.nonzero(np.triu(d.adjacency))
    assert abs(np.mean(d.labels[i] == d.labels[j]) - 0.25) < 0.05


def test_every_named_domain_builds():
    for name in DOMAINS:
        d = make_domain(name, seed=0)
        assert d.features.shape[0] == d.n_nodes == d.labels.size and d.labels.max() + 1 == d.n_clusters


def test_svd_align_reproduces_pca_scores_up_to_scale():
    from sklearn.decomposition import PCA

    X = np.random.default_rng(0).normal(size=(80, 12)) @ np.random.default_rng(1).normal(size=(12, 12))
    Z = svd_align(X, dim=5)
    P = PCA(5, svd_solver="full").fit_transform(X)
    ratio = np.abs(Z).sum() / np.abs(P).sum()
    np.testing.assert_allclose(np.abs(Z), np.abs(P) * ratio, rtol=1e-4, atol=1e-5)


def test_karate_and_mutag_load_offline():
    d = karate_club()
    assert d.n_nodes == 34 and d.n_clusters == 2
    g = mutag_graphs()
    assert len(g.adjacencies) == 188 and np.bincount(g.labels).tolist() == [63, 125]


def test_bad_input_names_the_field():
    with pytest.raises(ValueError, match="^p_in: 1.5 is out of range"):
        make_csbm(p_in=1.5)
    with pytest.raises(ValueError, match="^mu: 0.9 is out of range"):
        make_lfr(mu=0.9)
    with pytest.raises(ValueError, match="^domain: 'cora' is not an option"):
        make_domain("cora")
    with pytest.raises(ValueError, match="^dim: 0 is out of range"):
        svd_align(np.ones((4, 2)), dim=0)

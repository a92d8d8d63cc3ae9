"""Scores and DMoN's losses against independent references: scikit-learn, networkx, torch_geometric."""

import networkx as nx
import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

from core.graph_clustering import ari, cluster_accuracy, karate_club, modularity_losses, nmi, score_clustering


def test_acc_of_a_permuted_labelling_is_one_and_of_a_wrong_one_is_not():
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 5, 200)
    perm = rng.permutation(5)
    assert cluster_accuracy(truth, perm[truth]) == 1.0
    wrong = truth.copy()
    wrong[:20] = (wrong[:20] + 1) % 5
    assert cluster_accuracy(truth, perm[wrong]) == pytest.approx(0.9)


@pytest.mark.parametrize("k_true,k_pred", [(2, 2), (4, 3), (3, 7)])
def test_nmi_and_ari_equal_scikit_learns(k_true, k_pred):
    rng = np.random.default_rng(k_true * 10 + k_pred)
    truth = rng.integers(0, k_true, 300)
    pred = np.where(rng.random(300) < 0.6, truth % k_pred, rng.integers(0, k_pred, 300))
    assert abs(nmi(truth, pred) - normalized_mutual_info_score(truth, pred)) < 1e-12
    assert abs(ari(truth, pred) - adjusted_rand_score(truth, pred)) < 1e-12
    s = score_clustering(truth, pred)
    assert 0 < s.nmi < 1 and s.ari < 1


def test_spectral_loss_of_hard_assignments_is_minus_networkx_modularity_on_karate():
    G = nx.karate_club_graph()
    A = karate_club().adjacency
    for parts in (nx.community.greedy_modularity_communities(G, weight=None),
                  [set(range(17)), set(range(17, 34))]):
        S = np.zeros((34, len(parts)))
        for c, part in enumerate(parts):
            S[list(part), c] = 1.0
        q = nx.community.modularity(G, parts, weight=None)
        assert abs(modularity_losses(A, S).spectral + q) < 1e-8
        from core.graph_clustering.network import dmon_losses
        import torch
        spectral, _ = dmon_losses(torch.as_tensor(A, dtype=torch.float64), torch.as_tensor(S))
        assert abs(float(spectral) + q) < 1e-8


def test_our_dmon_losses_equal_pyg_dmonpooling_for_a_batch_of_one():
    import torch
    from torch_geometric.nn import DMoNPooling

    from core.graph_clustering.network import dmon_losses

    A = karate_club().adjacency
    torch.manual_seed(0)
    pool = DMoNPooling(8, 3)
    x = torch.randn(1, 34, 8)
    adj = torch.as_tensor(A, dtype=torch.float32)[None]
    with torch.no_grad():
        s, _, _, spectral, _, cluster = pool(x, adj)
    ours_spectral, ours_collapse = dmon_losses(adj[0], s[0])
    assert abs(float(ours_spectral) - float(spectral)) < 1e-5
    assert abs(float(ours_collapse) - float(cluster)) < 1e-5
    numpy_version = modularity_losses(A, s[0].detach().numpy())
    assert abs(numpy_version.spectral - float(spectral)) < 1e-5


def test_collapse_loss_is_zero_for_equal_clusters_and_sqrt_k_minus_one_for_one():
    A = karate_club().adjacency
    S = np.zeros((34, 2))
    S[:17, 0], S[17:, 1] = 1, 1
    assert abs(modularity_losses(A, S).collapse) < 1e-12
    S = np.zeros((34, 2))
    S[:, 0] = 1
    assert abs(modularity_losses(A, S).collapse - (np.sqrt(2) - 1)) < 1e-12


def test_bad_labellings_name_the_field():
    with pytest.raises(ValueError, match="^pred: 2 labels for 3 nodes"):
        nmi([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="^truth: expected a non-empty 1-D"):
        ari([], [])
    with pytest.raises(ValueError, match="^adjacency: the graph has no edges"):
        modularity_losses(np.zeros((3, 3)), np.eye(3))

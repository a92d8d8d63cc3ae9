"""Training, cross-validation, checkpoints and the layer inside a padded batch."""

import numpy as np
import pytest
import torch

from core.common.progress import ProgressLog
from core.tikhonov_gnn.data import Dataset, Graph, load_dataset
from core.tikhonov_gnn.explain import explain
from core.tikhonov_gnn.models import build_model
from core.tikhonov_gnn.operator import bernstein_to_monomial, normalized_laplacian, tikhonov_operator
from core.tikhonov_gnn.training import (TikhonovConfig, collate, cross_validate, load_model, recommended_config,
                                       save_model, train)

FAST = dict(epochs=3, hidden=8)


def small(name="planted_feature", n=40):
    d = load_dataset(name)
    return Dataset(d.name, d.graphs[:n], d.n_classes, d.task, d.class_names)


def test_padding_does_not_change_a_graphs_output():
    d = load_dataset("mutag")
    torch.manual_seed(0)
    model = build_model("tikhonov", 7, 2, "graph", TikhonovConfig()).eval()
    sizes = [g.n_nodes for g in d.graphs]
    small_i, big_i = int(np.argmin(sizes)), int(np.argmax(sizes))
    alone = collate(d, [small_i])
    together = collate(d, [small_i, big_i])
    with torch.no_grad():
        a = model(alone.x, alone.adjacency, alone.mask)
        b = model(together.x, together.adjacency, together.mask)
    assert torch.allclose(a[0], b[0], atol=1e-5)


def test_the_layer_fixes_the_scale_of_p_and_its_two_solvers_agree():
    from core.tikhonov_gnn.layer import TikhonovLayer

    d = load_dataset("mutag")
    batch = collate(d, [0, 1, 2])                       # padded: graphs of different sizes
    torch.manual_seed(0)
    dense = TikhonovLayer(4, 7, degree=5, q_hidden=8, solver="dense")
    with torch.no_grad():
        dense.theta_raw.normal_()
    cg = TikhonovLayer(4, 7, degree=5, q_hidden=8, solver="cg", cg_tol=1e-7)
    cg.load_state_dict(dense.state_dict())
    assert float(dense.theta.mean()) == pytest.approx(1.0) and float(dense.theta.std()) > 0.1
    h = torch.randn(3, batch.x.shape[1], 4)
    with torch.no_grad():
        (za, qa), (zb, qb) = dense(h, batch.x, batch.adjacency, batch.mask), cg(h, batch.x, batch.adjacency, batch.mask)
    assert torch.equal(qa, qb) and torch.allclose(za, zb, atol=1e-5)


def test_the_linear_readout_weighs_each_node_by_its_column_sum_of_r():
    """readout='linear': the head sees W (1^T R) H + n b, R = (p(L)+Q)^-1 Q from numpy ('linear_norm': that vector
    through the batch norm's affine map); the per-node SiLU does not."""
    g = load_dataset("planted_feature").graphs[3]
    x, adj = torch.as_tensor(g.features)[None], torch.as_tensor(g.adjacency, dtype=torch.float32)[None]
    mask = torch.ones(1, g.n_nodes, dtype=torch.bool)
    gaps = {}
    for readout in ("linear", "linear_norm", "node"):
        torch.manual_seed(1)
        model = build_model("tikhonov", 2, 2, "graph", TikhonovConfig(hidden=8, readout=readout))
        if model.pool_norm is not None:         # trained statistics: the batch norm is an affine map per graph
            with torch.no_grad():
                model.pool_norm.running_mean.normal_()
                model.pool_norm.running_var.uniform_(0.5, 2.0)
                model.pool_norm.weight.normal_()
        model.eval()
        tik, mix = model.layers[0], model.mix[0]
        with torch.no_grad():
            tik.theta_raw.normal_()
            q = tik.qnet(x, adj, mask)[0].double().numpy()
            h = model.encode(x)[0].double().numpy()
            out = model(x, adj, mask)[0]
        R = tikhonov_operator(normalized_laplacian(g.adjacency), q, bernstein_to_monomial(tik.theta.detach().double().numpy()))
        pooled = mix.weight.detach().double().numpy() @ (R.sum(0) @ h) + g.n_nodes * mix.bias.detach().double().numpy()
        if model.pool_norm is not None:
            n = model.pool_norm
            scale = (n.weight / torch.sqrt(n.running_var + n.eps)).detach().double().numpy()
            pooled = scale * (pooled - n.running_mean.double().numpy()) + n.bias.detach().double().numpy()
        with torch.no_grad():
            expected = model.head(torch.as_tensor(pooled, dtype=torch.float32))
        gaps[readout] = float((out - expected).abs().max())
    assert gaps["linear"] < 1e-4 and gaps["linear_norm"] < 1e-4
    assert gaps["node"] > 1e-2              # the control: with the per-node SiLU the identity fails


def test_the_q_penalty_adds_its_weight_times_mean_q_to_the_loss():
    """One full batch and a negligible step: the losses differ by exactly penalty * mean q over real nodes."""
    d = small()
    losses = {}
    for penalty in (0.0, 0.5):
        config = TikhonovConfig(q_penalty=penalty, epochs=1, hidden=8, lr=1e-12, batch_size=1024, test_fraction=0.25)
        result = train(config, d, seed=0)
        losses[penalty] = float(result.loss[0])
    batch = collate(d, result.train_index)
    with torch.no_grad():
        q = result.model.layers[0].qnet(batch.x, batch.adjacency, batch.mask)
    assert losses[0.5] - losses[0.0] == pytest.approx(0.5 * float(q[batch.mask].mean()), rel=1e-4)
    assert losses[0.5] - losses[0.0] > 0.01                                 # not a vacuous difference


def test_explanation_operator_is_the_numpy_operator_with_the_learned_q_and_p():
    d = small()
    result = train(TikhonovConfig(**FAST), d, seed=0)
    g = d.graphs[0]
    e = explain(result.model, g)
    R = tikhonov_operator(normalized_laplacian(g.adjacency), e.q, e.poly_coeffs)
    np.testing.assert_allclose(e.operator, R, atol=1e-4)
    assert (e.q > 0).all() and e.p.min() >= 0 and e.kind in {"low-pass", "high-pass", "band-pass", "all-pass"}
    np.testing.assert_allclose(e.poly_coeffs, bernstein_to_monomial(result.model.layers[0].theta.detach().numpy()),
                               rtol=1e-5)


@pytest.mark.parametrize("model", ["tikhonov", "gcn", "gin"])
def test_train_is_deterministic_and_stops_when_asked(model):
    d = small()
    log = ProgressLog(stop_after=2)
    a = train(TikhonovConfig(model=model, **FAST), d, seed=4, progress=log)
    assert log.steps == [1, 2] and log.totals == [3, 3] and a.epoch.tolist() == [1, 2]
    assert set(log.metrics[0]) == {"loss", "train accuracy", "test accuracy"}
    b = train(TikhonovConfig(model=model, **FAST), d, seed=4, progress=ProgressLog(stop_after=2))
    np.testing.assert_array_equal(a.loss, b.loss)


def test_cross_validate_reports_every_fold():
    out = cross_validate(TikhonovConfig(model="gcn", **FAST), small(), folds=4, seed=0)
    assert len(out.fold_accuracies) == 4
    assert out.mean == pytest.approx(np.mean(out.fold_accuracies))
    assert out.std == pytest.approx(np.std(out.fold_accuracies))


def test_checkpoint_round_trip_predicts_the_same(tmp_path):
    d = small()
    result = train(TikhonovConfig(**FAST), d, seed=1)
    save_model(result, tmp_path / "ckpt", {"note": "test"})
    loaded = load_model(tmp_path / "ckpt", d)
    model, config, meta = loaded.model, loaded.config, loaded.metadata
    batch = collate(d, range(10))
    with torch.no_grad():
        assert torch.allclose(model(batch.x, batch.adjacency, batch.mask),
                              result.model.eval()(batch.x, batch.adjacency, batch.mask), atol=1e-6)
    assert config == result.config and meta["note"] == "test" and meta["dataset"] == "planted_feature"


def test_empty_graphs_are_refused():
    empty = Graph(np.zeros((0, 0)), np.zeros((0, 2), dtype=np.float32), 0)
    d = Dataset("x", [empty], 2, "graph")
    with pytest.raises(ValueError, match="^dataset: contains an empty graph"):
        train(TikhonovConfig(**FAST), d)
    model = train(TikhonovConfig(**FAST), small(), seed=0).model
    with pytest.raises(ValueError, match="^graph: it has no nodes"):
        explain(model, empty)


def test_config_validates():
    with pytest.raises(ValueError, match="^model: 'gat' is not an option; allowed 'tikhonov', 'gcn', 'gin'$"):
        TikhonovConfig(model="gat")
    with pytest.raises(ValueError, match=r"^degree: 0 is out of range; allowed integers in \[1, 10\]$"):
        TikhonovConfig(degree=0)


@pytest.mark.parametrize("name", ["mutag", "motifs", "planted_feature", "sbm_homophilic", "sbm_heterophilic"])
def test_shipped_checkpoints_are_small_and_their_accuracy_is_what_they_say(name):
    from core.tikhonov_gnn.ship import ASSETS, shipped
    from core.tikhonov_gnn.training import accuracy, holdout_split

    assert sum(f.stat().st_size for f in (ASSETS / name).iterdir()) < 2 * 1024 * 1024
    loaded = shipped(name)
    model, config, meta = loaded.model, loaded.config, loaded.metadata
    data = load_dataset(name, seed=meta["seed"])
    _, test_index = holdout_split(data, config.test_fraction, meta["seed"])
    assert sorted(meta["test_index"]) == sorted(test_index.tolist())
    assert accuracy(model, data, test_index) == pytest.approx(meta["accuracy"]["tikhonov"], abs=1e-6)
    assert set(meta["accuracy"]) == {"tikhonov", "gcn", "gin"}


def test_explanation_auroc_pooled_and_per_graph_match_scikit_learn():
    from sklearn.metrics import roc_auc_score

    from core.tikhonov_gnn.explain import explanation_auroc

    graphs = load_dataset("motifs", seed=2).graphs[:12]
    torch.manual_seed(3)
    model = build_model("tikhonov", graphs[0].features.shape[1], 2, "graph", TikhonovConfig(hidden=8)).eval()
    qs = [explain(model, g).q for g in graphs]
    pooled = roc_auc_score(np.concatenate([g.truth for g in graphs]), np.concatenate(qs))
    within = np.mean([roc_auc_score(g.truth, q) for g, q in zip(graphs, qs)])
    assert explanation_auroc(model, graphs) == pytest.approx(pooled)
    assert explanation_auroc(model, graphs, per_graph=True) == pytest.approx(within)
    assert abs(pooled - within) > 1e-3           # two different numbers: the option is not a no-op here


@pytest.mark.slow("three motif runs of 200 epochs and three of 60: about 80 s on 2 cores")
def test_the_motif_preset_fits_seeds_where_the_earlier_one_collapsed():
    # Seeds 20, 21 and 22, with the per-node readout both were chosen on: the earlier preset (lr 0.01, 60 epochs,
    # flat start) stayed at chance on each, this one
    # fitted each (bench/tikhonov_gnn.py, section motif_preset: 10 of seeds 20-29 against 3); a majority, as
    # training differs by machine
    fitted, earlier = [], []
    for seed in (20, 21, 22):
        data = load_dataset("motifs", seed=seed)
        fitted.append(float(train(recommended_config("motifs", readout="node"), data, seed=seed).train_accuracy[-1]))
        earlier_preset = recommended_config("motifs", lr=0.01, epochs=60, p_init="flat", readout="node")
        earlier.append(float(train(earlier_preset, data, seed=seed).train_accuracy[-1]))
    assert sum(a >= 0.9 for a in fitted) >= 2, fitted
    assert sum(a >= 0.9 for a in earlier) <= 1, earlier      # the control: the earlier preset collapses here


def test_the_pooled_batch_norm_standardises_over_the_batch_and_takes_a_batch_of_one():
    data = load_dataset("motifs", seed=1)
    batch = collate(data, list(range(6)))
    torch.manual_seed(0)
    model = build_model("tikhonov", data.n_features, 2, "graph", TikhonovConfig(hidden=8, readout="linear_norm")).train()
    seen = {}
    handle = model.head.register_forward_hook(lambda m, inputs, out: seen.update(pooled=inputs[0].detach()))
    model(batch.x, batch.adjacency, batch.mask)
    assert torch.allclose(seen["pooled"].mean(0), torch.zeros(8), atol=1e-4)      # standardised over the six graphs
    var = seen["pooled"].var(0, unbiased=False)             # var / (var + eps): just under 1
    assert ((var > 0.98) & (var <= 1.0)).all()
    one = collate(data, [0])
    out = model(one.x, one.adjacency, one.mask)       # a last batch of one graph: the running statistics, no error
    assert torch.isfinite(out).all()
    handle.remove()
    with pytest.raises(ValueError, match="readout"):
        TikhonovConfig(readout="batch")

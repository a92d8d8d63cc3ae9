"""tikhonov_gnn at full scale: 10-fold MUTAG and Cuneiform for the three models, explanation AUROC
over seeds (with an untrained control; pooled and within each graph; and a linear-readout variant
of the model, not the shipped one), filter shapes on the SBM tasks, identifiability after
normalisation, Dirichlet energy against depth, a long-range task across a bottleneck, the
matrix-free solve against the dense one and PyG's APPNP from 100 to 50,000 nodes, checkpoint
sizes and the page's timings.

    python bench/tikhonov_gnn.py                       # everything; writes bench/results/tikhonov_gnn.json and .md
    python bench/tikhonov_gnn.py --parts DIR --section explanations   # one section into DIR/<section>.json
    python bench/tikhonov_gnn.py --parts DIR           # the missing sections, then the results from DIR

Sections run as separate processes share nothing but DIR, so they can run side by side.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import interval_text, judged, write_results  # noqa: E402
from core.common.progress import TqdmProgress  # noqa: E402
from core.common.results import result_to_dict  # noqa: E402
from core.common.seeding import derive_rng  # noqa: E402
from core.tikhonov_gnn import (MODELS, cross_validate, explain, explanation_auroc, load_dataset,  # noqa: E402
                               recommended_config, train)
from core.common.calibration import folds_for_power, non_inferiority_power, observed_power  # noqa: E402
from core.common.decisions import PairedT  # noqa: E402
from core.tikhonov_gnn.claims import (AUROC_GOAL, FIT_GATE, JUDGED_SELECTION, MATCH_MARGIN,  # noqa: E402
                                      bottleneck_tested, confirmatory, fitted_seeds)     # shared with the rules
from core.tikhonov_gnn.ship import ASSETS  # noqa: E402

PAGE = "../pages/tikhonov_gnn.py"
RESULTS = ROOT / "bench" / "results" / "tikhonov_gnn.json"   # the stored run (trend_q_depth reads its tuned_cv)
SEEDS = (0, 1, 2, 3, 4)
COMMAND = "python bench/tikhonov_gnn.py"
SIZES = (100, 500, 2000, 10000, 50000)
DENSE_MAX = 2000
# The motif preset before lr 0.003 x 200 epochs from the Laplacian start became the shipped one (core/tikhonov_gnn/
# config.py; section motif_preset compares them): the stored explanations, explanations_gated and
# explanations_linear_readout sections measured it, and explanations_selected selects from it; pinned here so that
# each section's command still reproduces its stored figures.
# The readout every explanation section before explanations_final measured: the per-node one, the default then and
# for the benchmarks still; the explanation datasets ship 'linear_norm' since (core/tikhonov_gnn/config.py).
EARLIER_READOUT = {"readout": "node"}
EARLIER_PRESETS = {"motifs": {"lr": 0.01, "epochs": 60, "p_init": "flat", **EARLIER_READOUT},
                   "planted_feature": EARLIER_READOUT}


def measured_config(name: str, **changes):
    """The configuration the explanation sections measure on ``name``: its earlier preset, then ``changes``."""
    return recommended_config(name, **{**EARLIER_PRESETS.get(name, {}), **changes})


def benchmark_cv(name: str, models=MODELS) -> dict:
    data = load_dataset(name)
    out = {}
    for model in models:
        with TqdmProgress(desc=f"{name} 10-fold {model}", leave=False) as bar:
            t0 = time.perf_counter()
            cv = cross_validate(recommended_config(name, model=model), data, folds=10, seed=0, progress=bar)
            out[model] = {**result_to_dict(cv), "seconds": time.perf_counter() - t0}
    return out


def majority_cv(name: str) -> dict:
    """The trivial method on the same 10 folds: every test graph gets its training fold's most common class."""
    from core.tikhonov_gnn.training import cv_folds

    data = load_dataset(name)
    labels = np.asarray(data.labels)
    acc = [float((labels[te] == np.bincount(labels[tr]).argmax()).mean()) for tr, te in cv_folds(data, 10, 0)]
    return {"fold_accuracies": acc, "mean": float(np.mean(acc))}


def untrained_auroc(name: str, data, test_index, seed: int, **changes) -> float:
    """The control: the same architecture at its initialisation (zero epochs)."""
    from core.common.seeding import torch_seeded
    from core.tikhonov_gnn.models import build_model

    with torch_seeded(seed):
        model = build_model("tikhonov", data.n_features, data.n_classes, data.task, measured_config(name, **changes))
    return explanation_auroc(model.eval(), [data.graphs[i] for i in test_index])


def explanation_quality(name: str, **changes) -> dict:
    rows = []
    for seed in SEEDS:
        data = load_dataset(name, seed=seed)
        result = train(measured_config(name, **changes), data, seed=seed)
        test = [data.graphs[i] for i in result.test_index]
        rows.append({"seed": seed, "accuracy": result.final_test_accuracy, "auroc": explanation_auroc(result.model, test),
                     "auroc_within_graph": explanation_auroc(result.model, test, per_graph=True),
                     "untrained_auroc": untrained_auroc(name, data, result.test_index, seed, **changes)})
    auroc = np.array([r["auroc"] for r in rows])
    control = np.array([r["untrained_auroc"] for r in rows])
    return {"runs": rows, "auroc_mean": float(auroc.mean()), "auroc_min": float(auroc.min()),
            "share_at_least_0.85": float((auroc >= AUROC_GOAL).mean()), "untrained_auroc_mean": float(control.mean()),
            "config_changes": changes}


GATED_SEEDS = tuple(range(10, 20))   # new seeds: 0-4 are the stored runs the collapse was seen on
TRAINED_GATE = 0.9                   # a run is judged when its training accuracy reaches this (no test graph read)


def shuffled_labels(data, train_index, seed: int):
    """The dataset with its training labels permuted (the held-out graphs keep theirs): graph labels among the
    training graphs, or, for node tasks, each training graph's node labels among its nodes."""
    import dataclasses

    rng = derive_rng(seed, "shuffle")
    graphs = list(data.graphs)
    if data.task == "node":
        for i in train_index:
            graphs[i] = dataclasses.replace(data.graphs[i], label=rng.permutation(data.graphs[i].label))
    else:
        for i, j in zip(train_index, rng.permutation(train_index)):
            graphs[i] = dataclasses.replace(data.graphs[i], label=data.graphs[j].label)
    return dataclasses.replace(data, graphs=graphs)


def explanations_gated(name: str) -> dict:
    """AUROC of q among the runs that trained (training accuracy >= TRAINED_GATE) over GATED_SEEDS, the shipped
    configuration; the null, the same model trained on the same graphs with their labels shuffled; the untrained
    model as a second null."""
    rows = []
    for seed in GATED_SEEDS:
        data = load_dataset(name, seed=seed)
        config = measured_config(name)
        result = train(config, data, seed=seed)
        test = [data.graphs[i] for i in result.test_index]
        shuffled = train(config, shuffled_labels(data, result.train_index, seed), seed=seed,
                         train_index=result.train_index, test_index=result.test_index)
        rows.append({"seed": seed, "train_accuracy": float(result.train_accuracy[-1]),
                     "test_accuracy": result.final_test_accuracy, "auroc": explanation_auroc(result.model, test),
                     "shuffled_train_accuracy": float(shuffled.train_accuracy[-1]),
                     "shuffled_auroc": explanation_auroc(shuffled.model, test),
                     "untrained_auroc": untrained_auroc(name, data, result.test_index, seed)})
    return {"runs": rows, "gate": TRAINED_GATE, "seeds": list(GATED_SEEDS)}


EXPLAIN_BUDGET = ({}, {"lr": 0.003, "epochs": 200})   # the earlier preset, and a slower, longer one
# the earlier preset, and the slower, longer one from the Laplacian start (the motif preset since section motif_preset)
EXPLAIN_BUDGET_LAPLACIAN = ({}, {"lr": 0.003, "epochs": 200, "p_init": "laplacian"})
# the selections, the one the claim is judged on first (its budget holds the shipped motif preset)
SELECTED_SECTIONS = (JUDGED_SELECTION, "explanations_selected")


def _fell_back(curve, gate: float = TRAINED_GATE) -> bool:
    """A run that reached the gate at some epoch and ended below it (learned, then collapsed)."""
    return max(curve) >= gate > curve[-1]


def _q_spread(model, graphs) -> float:
    """Max minus min of q over the graphs' nodes, over its mean: 0 when one q sits on every node."""
    q = np.concatenate([explain(model, g).q for g in graphs])
    return float((q.max() - q.min()) / q.mean())


PRESET_SEEDS = tuple(range(20, 30))   # fresh seeds: the preset was chosen on the failing seeds of 10-19


def motif_preset() -> dict:
    """How often a motif run fits its training graphs (training accuracy >= TRAINED_GATE) over PRESET_SEEDS, each
    seed's own split as the page trains it: the preset (core/tikhonov_gnn/config.py), the earlier one, and the
    earlier start (flat p) with the preset's learning rate and epochs."""
    configs = {"preset": recommended_config("motifs", **EARLIER_READOUT), "earlier": measured_config("motifs"),
               "flat_start": recommended_config("motifs", p_init="flat", **EARLIER_READOUT)}
    rows = []
    for seed in PRESET_SEEDS:
        data = load_dataset("motifs", seed=seed)
        rows.append({"seed": seed, **{k: float(train(c, data, seed=seed).train_accuracy[-1]) for k, c in configs.items()}})
    return preset_summary(rows)


def run_text(c: dict) -> str:
    """A training configuration (or a selection budget's entry) in words: lr, epochs and, when recorded, p's start."""
    return f"lr {c['lr']:g} x {c['epochs']} epochs" + (f" from the {c['p_init']} start" if "p_init" in c else "")


def budget_text(selected: dict) -> str:
    """A selection section's budget in words (the same for each dataset but for its presets)."""
    return " and ".join(run_text(b) for b in next(iter(selected.values()))["budget"])


def preset_summary(rows: list) -> dict:
    """motif_preset's counts of fitted runs per configuration, and the exact McNemar test (two-sided) of the preset
    against each other configuration on the seeds where one fitted and the other did not."""
    from scipy.stats import binomtest

    keys = [k for k in rows[0] if k != "seed"]
    fit = {k: [x[k] >= TRAINED_GATE for x in rows] for k in keys}
    tests = {}
    for other in (k for k in keys if k != "preset"):
        only = [sum(a and not b for a, b in zip(fit["preset"], fit[other])),
                sum(b and not a for a, b in zip(fit["preset"], fit[other]))]
        tests[other] = {"only_preset": only[0], f"only_{other}": only[1],
                        "mcnemar_p": binomtest(only[0], sum(only), 0.5).pvalue if sum(only) else 1.0}
    return {"runs": rows, "gate": TRAINED_GATE, "fitted": {k: sum(v) for k, v in fit.items()}, "against": tests}


def _select_with_null(name: str, configs, seed: int, null: bool = True):
    """One seed of a selection section: the dataset, its held-out graphs, the configuration chosen on validation
    (tuning.select; no test graph read) and the same selection with the training labels shuffled (the null; None
    without ``null``)."""
    from core.tikhonov_gnn.training import holdout_split
    from core.tikhonov_gnn.tuning import select

    data = load_dataset(name, seed=seed)
    train_index, test_index = holdout_split(data, configs[0].test_fraction, seed)
    chosen = select(configs, data, seed, test_index=test_index, train_index=train_index)
    shuffled = select(configs, shuffled_labels(data, train_index, seed), seed, test_index=test_index,
                      train_index=train_index) if null else None
    return data, [data.graphs[i] for i in test_index], chosen, shuffled


def explanations_selected(name: str, budget=EXPLAIN_BUDGET) -> dict:
    """The gated measure with the collapse diagnosed: per seed (GATED_SEEDS), each configuration of ``budget``
    trained on the same inner split of the training graphs, the best on validation kept (tuning.select; no test
    graph read), its q scored on the held-out graphs. Every configuration's training curve says whether a run
    learned and then fell back to chance. The null, the same selection on the graphs with their training labels
    shuffled."""
    rows, configs = [], [measured_config(name, **c) for c in budget]
    for seed in GATED_SEEDS:
        _, test, chosen, shuffled = _select_with_null(name, configs, seed)
        rows.append({"seed": seed, "chosen": chosen.index, "validation": chosen.validation,
                     "train_accuracy": chosen.train_accuracy, "test_accuracy": chosen.test_accuracy,
                     "auroc": explanation_auroc(chosen.model, test), "q_spread": _q_spread(chosen.model, test),
                     "peak_train_accuracy": [max(c) for c in chosen.train_curves],
                     "final_train_accuracy": [c[-1] for c in chosen.train_curves],
                     "fell_back": [_fell_back(c) for c in chosen.train_curves],
                     "shuffled_train_accuracy": shuffled.train_accuracy,
                     "shuffled_auroc": explanation_auroc(shuffled.model, test)})
    return {"runs": rows, "gate": TRAINED_GATE, "seeds": list(GATED_SEEDS),
            "budget": [{"lr": c.lr, "epochs": c.epochs, "p_init": c.p_init} for c in configs]}


def explanations_occlusion(name: str, **changes) -> dict:
    """q against the model itself: per seed (GATED_SEEDS), the selection of the judged section (the budget
    EXPLAIN_BUDGET_LAPLACIAN, with ``changes``), then on the held-out graphs the mean per-graph Spearman
    correlation between q and each node's occlusion effect (core/tikhonov_gnn/occlusion.py), beside the AUROC of q
    for the motif or planted nodes; the untrained model (q at initialisation) as the null."""
    from core.common.seeding import torch_seeded
    from core.tikhonov_gnn.models import build_model
    from core.tikhonov_gnn.occlusion import occlusion_agreement

    rows, configs = [], [measured_config(name, **{**c, **changes}) for c in EXPLAIN_BUDGET_LAPLACIAN]
    for seed in GATED_SEEDS:
        data, test, chosen, _ = _select_with_null(name, configs, seed, null=False)
        with torch_seeded(seed):
            untrained = build_model("tikhonov", data.n_features, data.n_classes, data.task, configs[chosen.index])
        rows.append({"seed": seed, "chosen": chosen.index, "train_accuracy": chosen.train_accuracy,
                     "test_accuracy": chosen.test_accuracy, "auroc": explanation_auroc(chosen.model, test),
                     "agreement": occlusion_agreement(chosen.model, test),
                     "untrained_agreement": occlusion_agreement(untrained.eval(), test)})
    return {"runs": rows, "gate": TRAINED_GATE, "seeds": list(GATED_SEEDS), "config_changes": changes,
            "budget": [{"lr": c.lr, "epochs": c.epochs, "p_init": c.p_init} for c in configs]}


LINEAR_SEEDS = tuple(range(30, 40))   # fresh: the linear readout was proposed on 10-19, the motif preset chosen on 20-29
NORM_SEEDS = tuple(range(40, 50))     # fresh: the batch norm after pooling was proposed on motif seeds 30-39
FINAL_SEEDS = tuple(range(50, 60))    # fresh: 'linear_norm' was chosen as the shipped readout on seeds 10-49
SHIPPED_READOUT = recommended_config("planted_feature").readout   # what both explanation datasets ship (config.py)
PERMUTE_SEED = 0                      # the permuted-q null's permutations
# The confirmatory motif test, registered after the 10-seed run (explanations_final: gain +0.26, sd 0.61, power 0.23):
# 44 fresh seeds give power 0.8 at that gain; four sections of 11 seeds, each under 20 minutes on 2 cores.
CONFIRM_SEEDS = tuple(range(60, 104))
CONFIRM_SECTIONS = {f"explanations_confirm_{k + 1}": CONFIRM_SEEDS[11 * k: 11 * (k + 1)] for k in range(4)}


def explanations_linear_judged(name: str, readout: str = "linear", seeds=LINEAR_SEEDS) -> dict:
    """A candidate readout (``readout``: "linear", no per-node nonlinearity after the layer, or "linear_norm", a
    batch norm after pooling too) judged as the shipped model would be, on ``seeds``: per seed, the selection from the judged section's budget (EXPLAIN_BUDGET_LAPLACIAN
    over the dataset's earlier preset; tuning.select, no test graph read), its q scored on the held-out graphs (AUROC
    for the motif or planted nodes, and rank agreement with the model's own occlusion effects); the nulls on the same
    graphs: the same selection with the training labels shuffled, the chosen configuration untrained, and the
    trained model's q permuted across each graph's nodes."""
    from core.common.seeding import torch_seeded
    from core.tikhonov_gnn.models import build_model
    from core.tikhonov_gnn.occlusion import occlusion_agreement

    configs = [measured_config(name, **{**c, "readout": readout}) for c in EXPLAIN_BUDGET_LAPLACIAN]
    rows = []
    for seed in seeds:
        data, test, chosen, shuffled = _select_with_null(name, configs, seed)
        with torch_seeded(seed):
            untrained = build_model("tikhonov", data.n_features, data.n_classes, data.task,
                                    configs[chosen.index]).eval()
        rows.append({"seed": seed, "chosen": chosen.index, "validation": chosen.validation,
                     "train_accuracy": chosen.train_accuracy, "test_accuracy": chosen.test_accuracy,
                     "auroc": explanation_auroc(chosen.model, test), "q_spread": _q_spread(chosen.model, test),
                     "fell_back": [_fell_back(c) for c in chosen.train_curves],
                     "agreement": occlusion_agreement(chosen.model, test),
                     "permuted_agreement": occlusion_agreement(chosen.model, test, permute_seed=PERMUTE_SEED + seed),
                     "shuffled_train_accuracy": shuffled.train_accuracy,
                     "shuffled_auroc": explanation_auroc(shuffled.model, test),
                     "untrained_auroc": explanation_auroc(untrained, test),
                     "untrained_agreement": occlusion_agreement(untrained, test)})
    return {"runs": rows, "gate": TRAINED_GATE, "seeds": list(seeds), "readout": configs[0].readout,
            "budget": [{"lr": c.lr, "epochs": c.epochs, "p_init": c.p_init} for c in configs]}


# q schemes of the capacity probe: (q on the motif's nodes, q elsewhere); p(λ) = λ
CAPACITY_Q = {"oracle": (10.0, 0.01), "oracle_mild": (1.0, 0.1), "constant_1": (1.0, 1.0), "constant_0.01": (0.01, 0.01)}


def pooled_linear_readout(graph, q) -> np.ndarray:
    """What the linear readout's head sees of a graph, up to the learned linear maps: (1^T R) X, the node features
    weighted by R's column sums (R = (p(L) + Q)^-1 Q with p(λ) = λ; a linear encoder and a linear map after the
    layer)."""
    from core.tikhonov_gnn.operator import normalized_laplacian, tikhonov_operator

    return tikhonov_operator(normalized_laplacian(graph.adjacency), q, [0.0, 1.0]).sum(0) @ graph.features


def linear_readout_capacity(seeds=(30, 31, 32)) -> dict:
    """Can the linear readout tell the motif classes apart at all? In closed form (no training): per motif dataset
    seed and q scheme (CAPACITY_Q, p(λ) = λ), each graph's pooled representation (pooled_linear_readout), and the
    10-fold accuracy of scikit-learn's logistic regression and a small MLP on it, standardised and raw (the model's
    head sees it raw); the bag of node features (no R) as the null (the classes share their degree multiset)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    def scores(v, y):
        cv = StratifiedKFold(10, shuffle=True, random_state=0)
        models = {"logistic": lambda: LogisticRegression(max_iter=5000),
                  "mlp": lambda: MLPClassifier((32, 32), max_iter=3000, random_state=0)}
        out = {f"{k}_standardised": float(cross_val_score(make_pipeline(StandardScaler(), m()), v, y, cv=cv).mean())
               for k, m in models.items()}
        out.update({f"{k}_raw": float(cross_val_score(m(), v, y, cv=cv).mean()) for k, m in models.items()})
        return out

    import warnings

    from sklearn.exceptions import ConvergenceWarning

    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for seed in seeds:
            graphs = load_dataset("motifs", seed=seed).graphs
            y = np.array([g.label for g in graphs])
            for name, (on, off) in CAPACITY_Q.items():
                v = np.array([pooled_linear_readout(g, np.where(g.truth, on, off)) for g in graphs])
                rows.append({"seed": seed, "q": name, **scores(v, y)})
            rows.append({"seed": seed, "q": "bag_of_features", **scores(np.array([g.features.sum(0) for g in graphs]), y)})
    return {"runs": rows, "q_schemes": {k: list(v) for k, v in CAPACITY_Q.items()}, "p": "λ", "folds": 10}


def _off_motif_cycles(graph) -> np.ndarray:
    """The nodes on a cycle that avoids the motif (in the 5-cycle class, the base's long cycle closed by its chord)."""
    import networkx as nx

    out = np.zeros(graph.n_nodes, dtype=bool)
    for cycle in nx.cycle_basis(nx.from_numpy_array(graph.adjacency)):
        if not graph.truth[cycle].any():
            out[cycle] = True
    return out


def motif_evidence() -> dict:
    """Does q mark other evidence of the label in our motif data? Per seed (GATED_SEEDS), the judged selection's
    model (as in explanations_selected_laplacian), and on each held-out graph where its largest q lies: on the motif,
    on a cycle off the motif (the 5-cycle class's long base cycle), or elsewhere; with the AUROC of q for those
    off-motif cycle nodes in the 5-cycle class."""
    from sklearn.metrics import roc_auc_score

    rows, configs = [], [measured_config("motifs", **c) for c in EXPLAIN_BUDGET_LAPLACIAN]
    for seed in GATED_SEEDS:
        _, test, chosen, _ = _select_with_null("motifs", configs, seed, null=False)
        largest = {"motif": 0, "off_motif_cycle": 0, "elsewhere": 0}
        cycle_q, cycle_mask = [], []
        for g in test:
            q, off = explain(chosen.model, g).q, _off_motif_cycles(g)
            k = int(np.argmax(q))
            largest["motif" if g.truth[k] else "off_motif_cycle" if off[k] else "elsewhere"] += 1
            if g.label == 1:
                cycle_q.append(q)
                cycle_mask.append(off)
        rows.append({"seed": seed, "train_accuracy": chosen.train_accuracy,
                     "auroc": explanation_auroc(chosen.model, test), "largest_q": largest,
                     "off_motif_cycle_auroc": float(roc_auc_score(np.concatenate(cycle_mask), np.concatenate(cycle_q)))})
    return {"runs": rows, "gate": TRAINED_GATE}


TREND_SIZES = (150, 300, 600)        # planted-feature graphs per dataset (300 is the shipped size)


def trend_row(n: int, seed: int, agreement: bool = False, **changes) -> dict:
    """One run of the explanation trend: planted_feature with ``n`` graphs, the earlier per-node readout with
    ``changes``; whether it trained, its AUROC and (``agreement``) its occlusion agreement on the held-out graphs."""
    from core.tikhonov_gnn.data import make_planted_feature
    from core.tikhonov_gnn.occlusion import occlusion_agreement

    data = make_planted_feature(n_graphs=n, seed=seed)
    result = train(recommended_config("planted_feature", **{**EARLIER_READOUT, **changes}), data, seed=seed)
    test = [data.graphs[i] for i in result.test_index]
    row = {"graphs": n, "seed": seed, "trained": float(result.train_accuracy[-1]) >= TRAINED_GATE,
           "auroc": explanation_auroc(result.model, test)}
    return {**row, "agreement": occlusion_agreement(result.model, test)} if agreement else row


def explanations_trend(sizes=TREND_SIZES, agreement: bool = False, rows: list | None = None, **changes) -> dict:
    """The gated AUROC on planted_feature as the training set grows (the same seeds and configuration: the earlier
    per-node readout with ``changes``; readout="linear" is the variant whose node reaches the prediction only
    through R). With ``agreement``, each run's occlusion agreement (core/tikhonov_gnn/occlusion.py) on the same
    held-out graphs too, and its trend (``trend_agreement``). ``rows``: the runs already made (a bench.run grid's
    cells), else run here."""
    if rows is None:
        rows = [trend_row(n, seed, agreement, **changes) for n in sizes for seed in GATED_SEEDS]
    rows = sorted(rows, key=lambda x: (sizes.index(x["graphs"]), x["seed"]))
    trend, agreements = [], []
    for n in sizes:
        trained = [x for x in rows if x["graphs"] == n and x["trained"]]
        trend.append([n, float(np.mean([x["auroc"] for x in trained])) if trained else None, len(trained)])
        agreements.append([n, float(np.mean([x["agreement"] for x in trained])) if trained and agreement else None,
                           len(trained)])
    out = {"runs": rows, "trend": trend, "trend_columns": ["graphs", "mean AUROC of trained runs", "trained runs"],
           "config_changes": changes}
    return {**out, "trend_agreement": agreements} if agreement else out


def linear_readout_quality(name: str) -> dict:
    """The variant of issue 22's item 2, not the shipped model: no per-node nonlinearity after the layer, so a
    node reaches the prediction only through R's column sums, which scale with its q (column j of R is q_j
    (p(L) + Q)^-1 e_j); the per-node SiLU let a constant q solve planted_feature (seed 4: accuracy 1.0, AUROC 0.48)."""
    return explanation_quality(name, readout="linear")


def filter_shapes(name: str) -> dict:
    rows = []
    for seed in SEEDS[:3]:
        data = load_dataset(name, seed=seed)
        result = train(recommended_config(name), data, seed=seed)
        e = explain(result.model, data.graphs[result.test_index[0]])
        shuffled = train(recommended_config(name), shuffled_labels(data, result.train_index, seed), seed=seed,
                         train_index=result.train_index, test_index=result.test_index)
        rows.append({"seed": seed, "accuracy": result.final_test_accuracy, "kind": e.kind,
                     "p_at_0_1_2": [float(e.p[0]), float(e.p[len(e.p) // 2]), float(e.p[-1])],
                     "shuffled_kind": explain(shuffled.model, data.graphs[result.test_index[0]]).kind,
                     "shuffled_accuracy": shuffled.final_test_accuracy})
    return {"runs": rows}


def filters() -> dict:
    return {name: filter_shapes(name) for name in ("sbm_homophilic", "sbm_heterophilic")}


def identifiability(draws: int = 40) -> dict:
    """Recover the normalised (q, p|spec) from R on random connected graphs; the unnormalised control."""
    import networkx as nx

    from core.tikhonov_gnn.operator import (bernstein_to_monomial, normalize_parameters, normalized_laplacian,
                                            parameters_from_operator, tikhonov_operator)

    recovery, same_r_raw_gap, same_r_norm_gap = [], [], []
    for k in range(draws):
        rng = derive_rng(0, "identifiability", k)
        n = int(rng.integers(8, 30))
        g = nx.connected_watts_strogatz_graph(n, 4, 0.3, seed=int(rng.integers(2**31)))
        L = normalized_laplacian(nx.to_numpy_array(g))
        q, theta = rng.uniform(0.1, 5.0, n), rng.uniform(0.05, 3.0, 5)
        coeffs = bernstein_to_monomial(theta)
        R = tikhonov_operator(L, q, coeffs)
        norm, back = normalize_parameters(L, q, coeffs), parameters_from_operator(R, L)
        qn, pn, rq, rp = norm.q_normalized, norm.p_spectrum, back.q_normalized, back.p_spectrum
        recovery.append(max(np.abs(rq - qn).max() / np.abs(qn).max(), np.abs(rp - pn).max()))
        c = float(rng.uniform(0.2, 5.0))
        same_r_raw_gap.append(float(np.abs(c * q - q).max()))          # distinct raw parameters ...
        scaled = normalize_parameters(L, c * q, c * coeffs)           # ... the same R, the same normalised ones
        qc, pc = scaled.q_normalized, scaled.p_spectrum
        same_r_norm_gap.append(float(max(np.abs(qc - qn).max(), np.abs(pc - pn).max())))
        assert np.abs(tikhonov_operator(L, c * q, c * coeffs) - R).max() < 1e-9
    return {"draws": draws, "max_relative_recovery_error": float(max(recovery)),
            "min_raw_parameter_gap_same_R": float(min(same_r_raw_gap)),
            "max_normalised_gap_same_R": float(max(same_r_norm_gap))}


def smoothing() -> dict:
    import networkx as nx

    from core.tikhonov_gnn.smoothing import energy_curves

    out = {}
    for name, g in {"ba_200": nx.barabasi_albert_graph(200, 2, seed=0), "ring_64": nx.cycle_graph(64)}.items():
        c = energy_curves(nx.to_numpy_array(g), seed=0)
        out[name] = {"depth": c.depth.tolist(), "gcn": c.gcn.tolist(), "appnp": c.appnp.tolist(),
                     "tikhonov_stacked": c.tikhonov_stacked.tolist(), "strength": c.strength.tolist(),
                     "tikhonov_strength": c.tikhonov_strength.tolist(), "input": c.input_energy,
                     "diameter": c.diameter}
    return out


# The long-range task (the bottleneck), each model selected on a validation split from the same budget: six
# configurations of 200 epochs (batch 16), fixed before the run. The Tikhonov layer starts global (p(λ) ≈ λ, q small
# on every node: from the flat start, p = 1, R is diagonal and an 8-hop signal sends no gradient to p or q); GCN and
# GIN have as many layers as hops (at least 3). The grid was designed on seeds 0 to 2 of the 8-hop task; the
# evaluation seeds are others.
LONG_RANGE_DISTANCES = (2, 4, 8, 16)
LONG_RANGE_SEEDS = (10, 11, 12, 13, 14)
LONG_RANGE_LRS = (0.01, 0.003, 0.001)
# The sweep's grids, (distances, seeds) each, sized to run in under 20 minutes on 2 cores (16 GIN layers at 16 hops:
# about 300 s a cell, so the farthest distance is split by seed, two seeds a grid).
LONG_RANGE_GRIDS = {"long_range_near": ((2, 4), LONG_RANGE_SEEDS), "long_range_mid": ((8,), LONG_RANGE_SEEDS),
                    "long_range_far": ((16,), LONG_RANGE_SEEDS[:2]), "long_range_far_b": ((16,), LONG_RANGE_SEEDS[2:4]),
                    "long_range_far_c": ((16,), LONG_RANGE_SEEDS[4:])}
# The Q-network's depth (message-passing hops) as a scale: Tikhonov's tuned 10-fold runs at each depth, the same
# budget and folds as tuned_cv (whose Tikhonov runs are the shipped depth, 2), one grid per depth (under 20 minutes).
Q_DEPTHS = (1, 2, 4, 6)
Q_DEPTH_GRIDS = {f"tuned_cv_q{h}": h for h in Q_DEPTHS if h != 2}
# tuned_cv again, Tikhonov with the linear readout (the candidate model), its own run of GCN and GIN beside it: a rerun
# on another machine moves single folds, so each Tikhonov is paired with the baselines of its own run
LINEAR_TUNED_GRID = "tuned_cv_linear_readout"
# The shipped model's explanation trend over training-set size (section trend_explanations_shipped), one cell a run
TREND_GRID = "trend_explanations_shipped"
SWEEP_GRIDS = ("small", *LONG_RANGE_GRIDS, TREND_GRID, "tuned_cv", LINEAR_TUNED_GRID, *Q_DEPTH_GRIDS)
TUNED_LRS, TUNED_HIDDEN = (0.01, 0.003, 0.001), (32, 64)   # every model's budget on the benchmarks: 6 configurations


def tuned_cv_configs(name: str, model: str, **changes) -> list:
    """A model's budget on a benchmark: lr x width, the benchmark's other settings as shipped (80 epochs), then
    ``changes`` (the Q-network's depth: q_hops)."""
    return [recommended_config(name, model=model, lr=lr, hidden=h, **changes) for lr in TUNED_LRS for h in TUNED_HIDDEN]


def long_range_configs(model: str, distance: int, epochs: int = 200, lrs=LONG_RANGE_LRS) -> list:
    """A model's budget on the bottleneck task: len(lrs) x 2 configurations (Tikhonov: q_init 0.01, 0.05 from
    the Laplacian start; GCN and GIN: width 32, 64), ``epochs`` each."""
    base = dict(model=model, epochs=epochs, batch_size=16, baseline_layers=min(max(distance, 3), 16))
    if model == "tikhonov":
        return [recommended_config("sbm_homophilic", **base, lr=lr, p_init="laplacian", q_init=q)
                for lr in lrs for q in (0.01, 0.05)]
    return [recommended_config("sbm_homophilic", **base, lr=lr, hidden=h) for lr in lrs for h in (32, 64)]


def sweep(grid: str) -> list:
    """The long-range cells (distance x model x seed, and the cut-path null at the farthest distance), or the
    ``small`` grid (2 hops, one seed, 2 configurations of 3 epochs: seconds)."""
    from bench.run import Cell

    if grid == "small":
        return [Cell(f"long_range-d02-{m}-seed0", {"distance": 2, "model": m, "epochs": 3, "lrs": [0.01]}, 0)
                for m in MODELS]
    if grid == TREND_GRID:
        return [Cell(f"trend_explanations-g{n:04d}-seed{s}", {"graphs": n, "readout": SHIPPED_READOUT}, s)
                for n in TREND_SIZES for s in GATED_SEEDS]
    if grid == "tuned_cv":
        return [Cell(f"tuned_cv-{b}-{m}-fold{k:02d}", {"benchmark": b, "model": m, "fold": k}, 0)
                for b in ("mutag", "cuneiform") for m in MODELS for k in range(1, 11)]
    if grid == LINEAR_TUNED_GRID:
        return [Cell(f"tuned_cv_linear-{b}-{m}-fold{k:02d}", {"benchmark": b, "model": m, "fold": k,
                                                               **({"readout": "linear"} if m == "tikhonov" else {})}, 0)
                for b in ("mutag", "cuneiform") for m in MODELS for k in range(1, 11)]
    if grid in Q_DEPTH_GRIDS:
        return [Cell(f"tuned_cv-{b}-tikhonov-q{Q_DEPTH_GRIDS[grid]}-fold{k:02d}",
                     {"benchmark": b, "model": "tikhonov", "fold": k, "q_hops": Q_DEPTH_GRIDS[grid]}, 0)
                for b in ("mutag", "cuneiform") for k in range(1, 11)]
    if grid not in LONG_RANGE_GRIDS:
        raise ValueError(f"grid: {grid!r} is not a grid of bench/tikhonov_gnn.py; allowed {', '.join(SWEEP_GRIDS)}")
    distances, seeds = LONG_RANGE_GRIDS[grid]
    cells = [Cell(f"long_range-d{d:02d}-{m}-seed{s}", {"distance": d, "model": m}, s)
             for d in distances for m in MODELS for s in seeds]
    far = max(LONG_RANGE_DISTANCES)
    if far not in distances:
        return cells
    return cells + [Cell(f"long_range-d{far:02d}-tikhonov-cut-seed{s}", {"distance": far, "model": "tikhonov",
                                                                       "cut": True}, s) for s in seeds]


def run_cell(cell):
    """One model on one bottleneck dataset and seed: its budget selected on validation, then scored on test."""
    from bench.run import CellOutput
    from core.tikhonov_gnn.data import make_bottleneck
    from core.tikhonov_gnn.tuning import select

    p = cell.params
    if "graphs" in p:
        return CellOutput(values=trend_row(p["graphs"], cell.seed, agreement=True, readout=p["readout"]))
    if "benchmark" in p:
        return CellOutput(values=tuned_fold(p["benchmark"], p["model"], p["fold"],
                                            **{k: p[k] for k in ("q_hops", "readout") if k in p}))
    configs = long_range_configs(p["model"], p["distance"], p.get("epochs", 200), tuple(p.get("lrs", LONG_RANGE_LRS)))
    chosen = select(configs, make_bottleneck(p["distance"], seed=cell.seed, cut=p.get("cut", False)), cell.seed)
    config = configs[chosen.index]
    values = {"distance": p["distance"], "model": p["model"], "cut": p.get("cut", False), "seed": cell.seed,
              "configs": len(configs), "chosen": {k: getattr(config, k) for k in ("lr", "q_init", "hidden")},
              "validation": chosen.validation, "train_accuracy": chosen.train_accuracy,
              "test_accuracy": chosen.test_accuracy, "test_correct": chosen.test_correct,
              "test_count": chosen.test_count}
    return CellOutput(values=values)   # bench/run.py measures the cell's seconds


def accuracy_by_distance(lr: dict) -> dict:
    """{(distance, model, cut): [test accuracy per seed, by seed]} from the long-range section's runs."""
    out = {}
    for x in sorted(lr["runs"], key=lambda x: x["seed"]):
        out.setdefault((x["distance"], x["model"], x.get("cut", False)), []).append(x["test_accuracy"])
    return out


def bottleneck_table(lr: dict) -> dict:
    """{row label: {model: cell text}}: each distance, and the cut-path null."""
    rows = {}
    for (d, m, cut), acc in accuracy_by_distance(lr).items():
        label = f"{d}, path cut (null)" if cut else str(d)
        layers = 1 if m == "tikhonov" else min(max(d, 3), 16)
        rows.setdefault(label, {})[m] = (f"{np.mean(acc):.2f} ({layers} layer{'s' if layers > 1 else ''}; "
                                         + ", ".join(f"{a:.2f}" for a in acc) + ")")
    return dict(sorted(rows.items(), key=lambda kv: (int(kv[0].split(",")[0]), "cut" in kv[0])))


def seed_test_calibration(n_seeds: int = len(LONG_RANGE_SEEDS), n_targets: int = 40, n_draws: int = 4000) -> dict:
    """How often the long-range rule's t interval over seeds (95 %, one side: nominal 0.025) passes when the true
    mean accuracy sits exactly on its bar: seeds alike (each Binomial(n_targets, 0.75) / n_targets), or half the
    seeds reading the value (accuracy 1) and half at chance (0.5), the way training fails; for the paired
    difference of two models with the same accuracy per seed, measured on independent test draws; and for
    matches_baselines' paired folds when Tikhonov is exactly the margin under a baseline (10 folds of 19 graphs);
    and, for faithful_explanations, the t and bootstrap intervals over 10 or 2 trained runs whose AUROC is 0.5."""
    from core.common.calibration import false_positive_rate
    from core.common.decisions import Bootstrap, PairedT

    bar = PairedT(0.75, "above")
    passes = lambda decision: (lambda x: 0.0 if decision.decide(x).passed else 1.0)   # noqa: E731
    alike = lambda rng: rng.binomial(n_targets, 0.75, n_seeds) / n_targets              # noqa: E731
    split = lambda rng: np.where(rng.random(n_seeds) < 0.5, 1.0, rng.binomial(n_targets, 0.5, n_seeds) / n_targets)  # noqa: E731

    def paired(rng):
        a = rng.uniform(0.5, 1.0, n_seeds)          # the seed's accuracy, shared by both models
        return (rng.binomial(n_targets, a) - rng.binomial(n_targets, a)) / n_targets

    def folds(rng, n_folds=10, per_fold=19):       # MUTAG's folds: Tikhonov exactly MATCH_MARGIN under a baseline
        a = rng.uniform(0.7, 0.9, n_folds)
        return (rng.binomial(per_fold, a - MATCH_MARGIN) - rng.binomial(per_fold, a)) / per_fold

    boot = lambda k: (lambda rng: rng.normal(0.5, 0.12, k))   # noqa: E731 - AUROCs of runs whose q knows nothing
    scenarios = (  # name, the decision, the null simulated, whether a rule uses it, draws
        ("bootstrap over 10 trained runs, AUROC at 0.5", Bootstrap(0.5, "above"), boot(10), False, n_draws // 4),
        ("bootstrap over 2 trained runs, AUROC at 0.5", Bootstrap(0.5, "above"), boot(2), False, n_draws // 4),
        ("t interval over 10 trained runs, AUROC at 0.5", PairedT(0.5, "above"), boot(10), True, n_draws // 4),
        ("t interval over 2 trained runs, AUROC at 0.5", PairedT(0.5, "above"), boot(2), True, n_draws // 4),
        ("bar, seeds alike", bar, alike, True, n_draws), ("bar, half the seeds fail", bar, split, True, n_draws),
        ("paired difference, equal models", PairedT(0.0, "above"), paired, True, n_draws),
        ("non-inferiority over 10 folds, at the margin", PairedT(-MATCH_MARGIN, "above"), folds, True, n_draws))
    out = {}
    for name, decision, simulate, used, draws in scenarios:
        c = false_positive_rate(passes(decision), simulate, alpha=0.025, n_draws=draws, seed=0)
        out[name] = {"rate": c.rate, "interval": list(c.interval), "alpha": c.alpha, "verdict": c.verdict,
                     "n_draws": c.n_draws, "used": used}
    return out


DESIGN_SEEDS = (0, 1, 2)   # the seeds the long-range grid was designed on; the diagnosis probes use them too


def long_range_capacity(distance: int = max(LONG_RANGE_DISTANCES)) -> dict:
    """Can one Tikhonov layer read the value ``distance`` hops away, and does training longer find it? On the design
    seeds: q set by hand (10 at the source, 0.01 elsewhere; p and the readout trained from the Laplacian start, lr
    0.003, 200 epochs), and the Q-network trained for 600 epochs (q_init 0.01, lr 0.003) in place of 200."""
    import torch

    from core.tikhonov_gnn import models
    from core.tikhonov_gnn.data import make_bottleneck

    class HandQ(torch.nn.Module):
        def forward(self, x, adjacency, mask):
            return torch.where(mask & (x[..., 0] > 0.5), 10.0, torch.where(mask, 0.01, 1.0))

    def hand_built(*args):
        model = models.build_model(*args)
        for layer in model.layers:
            layer.qnet = HandQ()
        return model

    import core.tikhonov_gnn.training as training
    rows = []
    for seed in DESIGN_SEEDS:
        data = make_bottleneck(distance, seed=seed)
        base = dict(batch_size=16, lr=0.003, p_init="laplacian")
        training.build_model = hand_built
        try:
            hand = train(recommended_config("sbm_homophilic", epochs=200, **base), data, seed=seed)
        finally:
            training.build_model = models.build_model
        longer = train(recommended_config("sbm_homophilic", epochs=600, q_init=0.01, **base), data, seed=seed)
        rows.append({"seed": seed, "hand_q_test": hand.final_test_accuracy, "hand_q_train": float(hand.train_accuracy[-1]),
                     "epochs_600_test": longer.final_test_accuracy,
                     "epochs_600_train": float(longer.train_accuracy[-1])})
    return {"distance": distance, "runs": rows}


LEAK_Q = (0.01, 0.003, 0.001, 0.0003)   # q on every node but the source (the source: 10)


def long_range_leak(distances=(8, 16), seed: int = 0) -> dict:
    """What one layer needs to read the source across the path, in closed form (numpy, no training): with q = 10
    at the source and ``q_other`` on every other node, p(λ) = λ, the sign of the target's (R value)_t against the
    source's value over the dataset's graphs, and the source's share of the target's row of R. q enters R only
    against p's scale, so q_other is relative to p."""
    from core.tikhonov_gnn.data import make_bottleneck
    from core.tikhonov_gnn.operator import normalized_laplacian, tikhonov_operator

    rows = []
    for distance in distances:
        graphs = make_bottleneck(distance, seed=seed).graphs
        for q_other in LEAK_Q:
            hits, share = [], []
            for g in graphs:
                source, target = int(np.argmax(g.features[:, 0])), int(np.argmax(g.features[:, 1]))
                q = np.full(g.n_nodes, q_other)
                q[source] = 10.0
                r = tikhonov_operator(normalized_laplacian(g.adjacency), q, [0.0, 1.0])   # p(λ) = λ
                hits.append(np.sign(r[target] @ g.features[:, 2]) == g.features[source, 2])
                share.append(r[target, source] / np.abs(r[target]).sum())
            rows.append({"distance": distance, "q_other": q_other, "sign_accuracy": float(np.mean(hits)),
                         "source_share": float(np.mean(share))})
    return {"runs": rows, "seed": seed}


SMALL_Q_STARTS = ({"q_init": 0.01}, {"q_init": 0.002}, {"eps_q": 1e-5, "q_init": 0.0005},
                  {"eps_q": 1e-5, "q_init": 0.0005, "lr": 0.01})


def long_range_small_q(distance: int = max(LONG_RANGE_DISTANCES)) -> dict:
    """Is a small q everywhere enough to train at ``distance`` hops (long_range_leak says it is needed)? On the design
    seeds, one Tikhonov run per start in SMALL_Q_STARTS (Laplacian start, lr 0.003 unless given, 200 epochs, batch
    16): final training and test accuracy."""
    from core.tikhonov_gnn.data import make_bottleneck

    rows = []
    for seed in DESIGN_SEEDS:
        data = make_bottleneck(distance, seed=seed)
        for start in SMALL_Q_STARTS:
            config = recommended_config("sbm_homophilic", **{"model": "tikhonov", "epochs": 200, "batch_size": 16,
                                                             "lr": 0.003, "p_init": "laplacian", **start})
            result = train(config, data, seed=seed)
            rows.append({"seed": seed, "start": start, "train_accuracy": float(result.train_accuracy[-1]),
                         "test_accuracy": result.final_test_accuracy})
    return {"distance": distance, "runs": rows}


LOG_SCALE_STARTS = ({"q_init": 0.01}, {"q_init": 0.05}, {"q_init": 0.01, "lr": 0.01}, {"q_init": 0.01, "lr": 0.001})


def long_range_log_scale(distance: int = max(LONG_RANGE_DISTANCES)) -> dict:
    """Does the log parameterisation of q and p's scale (``scale='log'``: q = exp(.) + eps, p times a learned exp(s))
    train at ``distance`` hops, where long_range_leak asks q against p to span four orders of magnitude? On the
    design seeds, one Tikhonov run per start in LOG_SCALE_STARTS (Laplacian start, lr 0.003 unless given, 200 epochs,
    batch 16): final training and test accuracy, and the learned p scale exp(s) and q's range on the first graph."""
    import torch

    from core.tikhonov_gnn.data import make_bottleneck
    from core.tikhonov_gnn.training import collate

    rows = []
    for seed in DESIGN_SEEDS:
        data = make_bottleneck(distance, seed=seed)
        for start in LOG_SCALE_STARTS:
            config = recommended_config("sbm_homophilic", **{"model": "tikhonov", "epochs": 200, "batch_size": 16,
                                                             "lr": 0.003, "p_init": "laplacian", "scale": "log",
                                                             **start})
            result = train(config, data, seed=seed)
            layer = result.model.layers[0]
            g, b = data.graphs[0], collate(data, [0])
            with torch.no_grad():
                q = layer.qnet(b.x, b.adjacency, b.mask)[0].numpy()
            source = int(np.argmax(g.features[:, 0]))
            rows.append({"seed": seed, "start": start, "train_accuracy": float(result.train_accuracy[-1]),
                         "test_accuracy": result.final_test_accuracy,
                         "p_scale": float(torch.exp(layer.log_p_scale.detach())), "q_source": float(q[source]),
                         "q_others_max": float(np.delete(q, source).max())})
    return {"distance": distance, "runs": rows}


def sweep_values(grid: str) -> tuple[list, list]:
    """Every cell's values of this bench's sweep ``grid`` and each cell's seconds (bench/run.py's sweep_values)."""
    from bench.run import sweep_values as values

    return values("tikhonov_gnn", grid)


def tuned_fold(name: str, model: str, fold: int, **changes) -> dict:
    """Fold ``fold`` (1-10) of the benchmark's 10-fold split: ``model`` selected from its budget (with ``changes``)
    on a validation split of the training fold, scored on the test fold (the same folds and seeds as
    cross_validate)."""
    from core.common.seeding import derive_seed
    from core.tikhonov_gnn.training import cv_folds
    from core.tikhonov_gnn.tuning import select

    data = load_dataset(name)
    tr, te = cv_folds(data, 10, 0)[fold - 1]
    configs = tuned_cv_configs(name, model, **changes)
    chosen = select(configs, data, derive_seed(0, "fold", fold), train_index=tr, test_index=te)
    config = configs[chosen.index]
    return {"benchmark": name, "model": model, "fold": fold, "test_accuracy": chosen.test_accuracy,
            "validation": chosen.validation, "chosen": {"lr": config.lr, "hidden": config.hidden},
            "q_hops": config.q_hops, "readout": config.readout}


def tuned_cv(grid: str = "tuned_cv") -> dict:
    """Every benchmark's tuned 10-fold accuracies, through bench/run.py (``python -m bench.run tikhonov_gnn --grid
    tuned_cv``, or LINEAR_TUNED_GRID), as {benchmark: {model: {fold_accuracies, mean, chosen}}}."""
    out = {}
    for c in sorted(sweep_values(grid)[0], key=lambda v: v["fold"]):
        row = out.setdefault(c["benchmark"], {}).setdefault(c["model"], {"fold_accuracies": [], "chosen": []})
        row["fold_accuracies"].append(c["test_accuracy"])
        row["chosen"].append(c["chosen"])
    for models in out.values():
        for row in models.values():
            row["mean"] = float(np.mean(row["fold_accuracies"]))
    return out


def trend_q_depth(tuned: dict | None = None) -> dict:
    """Tikhonov's tuned 10-fold accuracy against the Q-network's depth (Q_DEPTHS; depth 2 from the stored tuned_cv,
    the others through ``python -m bench.run tikhonov_gnn --grid tuned_cv_q1`` and friends), and at each depth its
    paired difference to each baseline's tuned folds: whether the gap closes as the Q-network deepens."""
    tuned = tuned if tuned is not None else json.loads(RESULTS.read_text())["tuned_cv"]
    folds = {(b, 2): v["tikhonov"]["fold_accuracies"] for b, v in tuned.items()}
    for grid, depth in Q_DEPTH_GRIDS.items():
        for c in sorted(sweep_values(grid)[0], key=lambda v: v["fold"]):
            folds.setdefault((c["benchmark"], depth), []).append(c["test_accuracy"])
    out = {}
    for b in sorted(tuned):
        rows = []
        for depth in Q_DEPTHS:
            acc = folds[(b, depth)]
            row = {"q_hops": depth, "fold_accuracies": acc, "mean": float(np.mean(acc))}
            for m in ("gcn", "gin"):
                row[f"minus_{m}"] = [float(x) for x in t_interval(np.subtract(acc, tuned[b][m]["fold_accuracies"]))]
            rows.append(row)
        out[b] = {"runs": rows, "trend": [[r["q_hops"], r["mean"], r["minus_gin"][0]] for r in rows],
                  "trend_columns": ["Q-network hops", "Tikhonov tuned 10-fold accuracy", "minus GIN"]}
    return out


def long_range(grids=tuple(LONG_RANGE_GRIDS)) -> dict:
    """Every long-range cell, through bench/run.py, one sweep per grid (resumable: ``python -m bench.run
    tikhonov_gnn --grid long_range_near`` runs the same cells, on Ray too); each grid's cell seconds kept."""
    runs, seconds = [], {}
    for grid in grids:
        values, cell = sweep_values(grid)
        runs += values
        seconds[grid] = {"cells": len(cell), "cell_seconds_total": round(sum(cell), 1), "longest_cell": round(max(cell), 1),
                         # any order of the cells on 2 workers ends by then (list scheduling: total / 2 + longest)
                         "wall_bound_2_workers": round(sum(cell) / 2 + max(cell), 1)}
    by = accuracy_by_distance({"runs": runs})
    trend = [[d, *(float(np.mean(by[(d, m, False)])) for m in MODELS)] for d in sorted({r["distance"] for r in runs})]
    return {"runs": runs, "distances": sorted({r["distance"] for r in runs}), "trend": trend,
            "trend_columns": ["distance", *(f"{m} mean test accuracy" for m in MODELS)],
            "calibration": seed_test_calibration(),
            "seeds": sorted({r["seed"] for r in runs}), "budget": "6 configurations x 200 epochs per model, selected "
            "on 20 % of the training graphs", "grid_seconds": seconds,
            "command": " && ".join(f"python -m bench.run tikhonov_gnn --grid {g}" for g in grids)}


SCALING_CHILD = r"""
import json, resource, sys, time
import numpy as np, torch, networkx as nx
sys.path.insert(0, {root!r})
torch.set_num_threads(1)
from core.tikhonov_gnn.layer import sparse_laplacian, tikhonov_solve, bernstein_matrix
method, n = {method!r}, {n}
g = nx.barabasi_albert_graph(n, 3, seed=0)
edges = np.array(g.edges()).T
edge_index = torch.tensor(np.hstack([edges, edges[::-1]]), dtype=torch.long)
rng = np.random.default_rng(0)
q = torch.tensor(rng.uniform(0.5, 2.0, n), dtype=torch.float32)
theta = torch.tensor(rng.uniform(0.2, 2.0, 5), dtype=torch.float32)
x = torch.tensor(rng.standard_normal((n, 16)), dtype=torch.float32)
from torch_geometric.nn import APPNP
L_sparse = sparse_laplacian(edge_index, n)

def run():
    if method == "cg":
        return tikhonov_solve(q, theta, q[:, None] * x, L_sparse, tol=1e-5)
    if method == "dense":
        L = L_sparse.to_dense()
        return torch.linalg.solve(bernstein_matrix(theta, L) + torch.diag(q), q[:, None] * x)
    return APPNP(K=10, alpha=0.1)(x, edge_index)

# Warm-up of first-call costs (PyG's and torch's) on a 3-node graph: untimed, and too small to move the peak.
APPNP(K=10, alpha=0.1)(x[:3], torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]]))
tikhonov_solve(q[:3], theta, x[:3], sparse_laplacian(torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]]), 3))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
z = run()
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
residual = float("nan")
if method != "appnp":
    L = L_sparse
    from core.tikhonov_gnn.layer import apply_polynomial, bernstein_monomial_matrix
    c = bernstein_monomial_matrix(4, torch.float32) @ theta
    r = apply_polynomial(c, L, z) + q[:, None] * z - q[:, None] * x
    residual = float(r.norm() / (q[:, None] * x).norm())
print(json.dumps({{"seconds": seconds, "extra_peak_mb": max(peak - before, 0) / 1024, "relative_residual": residual}}))
"""


def scaling() -> dict:
    rows = []
    for n in SIZES:
        for method in ("appnp", "cg", "dense"):
            if method == "dense" and n > DENSE_MAX:
                continue
            code = SCALING_CHILD.format(root=str(ROOT), method=method, n=n)
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
            if out.returncode != 0:
                rows.append({"nodes": n, "method": method, "error": out.stderr.strip().splitlines()[-1]})
                continue
            rows.append({"nodes": n, "method": method, **json.loads(out.stdout.strip().splitlines()[-1])})
    return {"runs": rows, "graph": "Barabasi-Albert, m = 3; 16 channels; degree-4 p; CG relative tolerance 1e-5; "
            "APPNP K = 10, alpha = 0.1 (PyG); one thread; imports and the Laplacian outside the timer, an untimed "
            "warm-up on a 3-node graph; extra peak MB = peak RSS growth during the timed call"}


def checkpoint_bytes() -> dict:
    return {p.name: sum(f.stat().st_size for f in p.iterdir()) for p in sorted(ASSETS.iterdir()) if p.is_dir()}


def page() -> dict:
    from bench.timing import page_timings

    return page_timings(PAGE)


EXPLAINED = ("motifs", "planted_feature")
PER_DATASET = {"explanations": explanation_quality,   # the sections that run one explanation dataset at a time
               "explanations_linear_readout": linear_readout_quality,
               "explanations_gated": explanations_gated, "explanations_selected": explanations_selected,
               "explanations_selected_laplacian": lambda n: explanations_selected(n, EXPLAIN_BUDGET_LAPLACIAN),
               "explanations_occlusion": explanations_occlusion,
               "explanations_linear_judged": explanations_linear_judged,
               "explanations_linear_norm_judged": lambda n: explanations_linear_judged(n, "linear_norm", NORM_SEEDS),
               "explanations_final": lambda n: explanations_linear_judged(n, SHIPPED_READOUT, FINAL_SEEDS),
               "explanations_final_node": lambda n: explanations_linear_judged(n, "node", FINAL_SEEDS),
               "explanations_occlusion_linear_readout": lambda n: explanations_occlusion(n, readout="linear")}


def _both(section: str):
    """A PER_DATASET section over both explanation datasets."""
    return lambda: {n: PER_DATASET[section](n) for n in EXPLAINED}


SECTIONS = {"mutag_10fold": lambda: benchmark_cv("mutag"), "cuneiform_10fold": lambda: benchmark_cv("cuneiform"),
            "majority_10fold": lambda: {n: majority_cv(n) for n in ("mutag", "cuneiform")},
            "long_range_capacity": long_range_capacity, "long_range_leak": long_range_leak,
            "long_range_small_q": long_range_small_q, "long_range_log_scale": long_range_log_scale, "linear_readout_capacity": linear_readout_capacity,
            "motif_preset": motif_preset, "motif_evidence": motif_evidence,
            "explanations_gated": _both("explanations_gated"), "explanations_selected": _both("explanations_selected"),
            "explanations_selected_laplacian": _both("explanations_selected_laplacian"),
            "explanations_occlusion": _both("explanations_occlusion"),
            "explanations_linear_judged": _both("explanations_linear_judged"),
            "explanations_linear_norm_judged": _both("explanations_linear_norm_judged"),
            "explanations_final": _both("explanations_final"), "explanations_final_node": _both("explanations_final_node"),
            **{k: (lambda s=s: {"motifs": explanations_linear_judged("motifs", SHIPPED_READOUT, s)})
               for k, s in CONFIRM_SECTIONS.items()},
            "explanations_occlusion_linear_readout": _both("explanations_occlusion_linear_readout"),
            "trend_explanations": explanations_trend,
            "trend_explanations_linear_readout": lambda: explanations_trend(readout="linear"),
            "trend_explanations_shipped": lambda: explanations_trend(
                agreement=True, rows=sweep_values(TREND_GRID)[0], readout=SHIPPED_READOUT),
            "tuned_cv": tuned_cv, LINEAR_TUNED_GRID: lambda: tuned_cv(LINEAR_TUNED_GRID),
            "trend_q_depth": trend_q_depth,
            "explanations": _both("explanations"), "explanations_linear_readout": _both("explanations_linear_readout"),
            "filters": filters, "identifiability": identifiability,
            "smoothing": smoothing, "long_range": long_range, "scaling": scaling,
            "checkpoint_bytes": checkpoint_bytes, "page": page}


def table(r: dict) -> str:
    lines = ["| 10-fold accuracy | tikhonov | gcn | gin |", "|---|---|---|---|"]
    for name in ("mutag", "cuneiform"):
        cv = r.get(f"{name}_10fold")
        if not cv or set(cv) != set(MODELS):
            lines.append(f"| {name} | not measured in this run | | |")
            continue
        lines.append(f"| {name} | " + " | ".join(f"{cv[m]['mean']:.3f} ± {cv[m]['std']:.3f}" for m in MODELS) + " |")
    if r.get("tuned_cv"):
        lines += ["", "| 10-fold accuracy, each model selected from 6 configurations per fold | " + " | ".join(MODELS)
                  + " |", "|---|---|---|---|"]
        for name, cv in sorted(r["tuned_cv"].items()):
            lines.append(f"| {name} | " + " | ".join(
                f"{cv[m]['mean']:.3f} ± {np.std(cv[m]['fold_accuracies']):.3f}" if m in cv else "" for m in MODELS) + " |")
    lines += ["", "| explanation AUROC of q | mean | min | share >= 0.85 | per seed | untrained (control) |",
              "|---|---|---|---|---|---|"]
    for name, v in r.get("explanations", {}).items():
        per = ", ".join(f"{x['auroc']:.2f}" for x in v["runs"])
        lines.append(f"| {name} | {v['auroc_mean']:.3f} | {v['auroc_min']:.3f} | {v['share_at_least_0.85']:.1f} | "
                     f"{per} | {v['untrained_auroc_mean']:.3f} |")
    for name, v in r.get("explanations_linear_readout", {}).items():
        per = ", ".join(f"{x['auroc']:.2f}" for x in v["runs"])
        lines.append(f"| {name}, linear readout (variant) | {v['auroc_mean']:.3f} | {v['auroc_min']:.3f} | "
                     f"{v['share_at_least_0.85']:.1f} | {per} | {v['untrained_auroc_mean']:.3f} |")
    gated = {s: r[s] for s in (*SELECTED_SECTIONS, "explanations_gated") if r.get(s)}
    if gated:
        lines += ["", f"| explanation AUROC of q, seeds {GATED_SEEDS[0]}-{GATED_SEEDS[-1]} | runs trained | mean among "
                  "trained | per trained seed | labels shuffled (null) | untrained (null) |", "|---|---|---|---|---|---|"]
        untrained = {n: f"{np.mean([x['untrained_auroc'] for x in v['runs']]):.3f}"   # the same model at its start
                     for n, v in r.get("explanations_gated", {}).items()}
        for section, ex in gated.items():
            how = {"explanations_selected_laplacian": "selected, Laplacian start in the budget",
                   "explanations_selected": "selected, flat start"}.get(section, "preset of the time")
            for name, v in ex.items():
                good = trained_aurocs(v)
                lines.append(f"| {name}, {how} | {len(good)} of {len(v['runs'])} | "
                             f"{np.mean(good) if good else float('nan'):.3f} | " + ", ".join(f"{a:.2f}" for a in good)
                             + f" | {np.mean([x['shuffled_auroc'] for x in v['runs']]):.3f} | " + untrained.get(name, "")
                             + " |")
    if r.get("motif_preset"):
        v, n = r["motif_preset"], len(r["motif_preset"]["runs"])
        preset, earlier = (run_text(vars(c)) for c in (recommended_config("motifs"), measured_config("motifs")))
        lines += ["", f"Motif preset (section motif_preset, seeds {PRESET_SEEDS[0]}-{PRESET_SEEDS[-1]}, each seed's own "
                  f"split): the preset ({preset}) fitted its training graphs in "
                  f"{v['fitted']['preset']} of {n} runs; the earlier {earlier} in "
                  f"{v['fitted']['earlier']} (exact McNemar p = {v['against']['earlier']['mcnemar_p']:.3f}); the flat "
                  f"start at the preset's lr and epochs in {v['fitted']['flat_start']} (p = "
                  f"{v['against']['flat_start']['mcnemar_p']:.3f})."]
    lines += ["", "| SBM task | learned filter per seed | test accuracy per seed |", "|---|---|---|"]
    for name, v in r["filters"].items():
        kinds = ", ".join(x["kind"] for x in v["runs"])
        accs = ", ".join(f"{x['accuracy']:.2f}" for x in v["runs"])
        lines.append(f"| {name} | {kinds} | {accs} |")
    i = r["identifiability"]
    lines += ["", f"Identifiability ({i['draws']} random graphs): normalised (q, p|spec) recovered from R with "
              f"max relative error {i['max_relative_recovery_error']:.1e}; pairs (c·q, c·θ) with the same R differ "
              f"by ≥ {i['min_raw_parameter_gap_same_R']:.2f} raw and by {i['max_normalised_gap_same_R']:.1e} "
              "after normalisation."]
    for name, c in r["smoothing"].items():
        lines += ["", f"| Dirichlet energy, {name} (input {c['input']:.3f}, diameter {c['diameter']}) | "
                  + " | ".join(str(d) for d in c["depth"]) + " |", "|---|" + "---|" * len(c["depth"])]
        for key in ("gcn", "appnp", "tikhonov_stacked"):
            lines.append(f"| {key} (depth) | " + " | ".join(f"{v:.3g}" for v in c[key]) + " |")
        lines.append(f"| tikhonov one layer, strength {', '.join(f'{s:g}' for s in c['strength'])} | "
                     + " | ".join(f"{v:.3g}" for v in c["tikhonov_strength"]) + " |" + " |" * (len(c["depth"]) - len(c["strength"])))
    lines += ["", "| bottleneck distance (test accuracy, mean over seeds; per seed) | " + " | ".join(MODELS) + " |",
              "|---|---|---|---|"]
    for d, row in bottleneck_table(r["long_range"]).items():
        lines.append(f"| {d} | " + " | ".join(row.get(m, "") for m in MODELS) + " |")
    lines += ["", "| nodes | method | seconds | extra peak MB | relative residual |", "|---|---|---|---|---|"]
    for x in r.get("scaling", {}).get("runs", []):
        if "error" in x:
            lines.append(f"| {x['nodes']} | {x['method']} | failed: {x['error']} | | |")
        else:
            lines.append(f"| {x['nodes']} | {x['method']} | {x['seconds']:.3g} | {x['extra_peak_mb']:.0f} | "
                         f"{x['relative_residual']:.1e} |")
    lines += ["", "| page timing | median (s) | ratio to anchor |", "|---|---|---|"]
    lines += [f"| {k} | {v['median_s']:.3f} | {v.get('ratio_to_anchor', 1.0):.2f} |" for k, v in r.get("page", {}).items()]
    if r.get("missing_sections"):
        lines += ["", f"Not measured in this run: {', '.join(r['missing_sections'])}."]
    lines += ["", f"Shipped checkpoints: {', '.join(f'{k} {v / 1024:.0f} kB' for k, v in r['checkpoint_bytes'].items())}."]
    return "\n".join(lines) + "\n"


def checks(r: dict) -> dict:
    runs = r.get("scaling", {}).get("runs", [])
    scal = {(x["nodes"], x["method"]): x for x in runs}
    return {
        "cg_serves_50000_nodes": "seconds" in scal.get((max(SIZES), "cg"), {}),
        "cg_residual_below_1e-4": bool(runs) and all(x.get("relative_residual", 0) < 1e-4 for x in runs
                                                     if x["method"] == "cg"),
        "identifiable_after_normalisation": r["identifiability"]["max_relative_recovery_error"] < 1e-6,
        "checkpoints_under_2MB": all(v < 2 * 1024 * 1024 for v in r["checkpoint_bytes"].values()),
        "first_view_under_2s": "page" in r and r["page"]["first_view_warm"]["median_s"] < 2.0,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--parts", type=Path, help="a folder for per-section results")
    parser.add_argument("--section", choices=sorted(SECTIONS))
    parser.add_argument("--model", choices=MODELS, help="with a *_10fold section: only this model")
    parser.add_argument("--dataset", choices=EXPLAINED,
                        help="with an explanations section: only this dataset")
    parser.add_argument("--available-only", action="store_true",
                        help="with --parts: write the results from the parts there, leaving out missing sections")
    args = parser.parse_args(argv)
    if args.section:
        if args.parts is None:
            parser.error("--section needs --parts")
        args.parts.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        if args.model:
            value = benchmark_cv(args.section[: -len("_10fold")], (args.model,))
            name = f"{args.section}.{args.model}"
        elif args.dataset:
            if args.section not in PER_DATASET:
                parser.error(f"--dataset: only with a section of {', '.join(PER_DATASET)}")
            value, name = {args.dataset: PER_DATASET[args.section](args.dataset)}, f"{args.section}.{args.dataset}"
        else:
            value, name = SECTIONS[args.section](), args.section
        (args.parts / f"{name}.json").write_text(json.dumps({"value": value, "seconds": time.perf_counter() - t0}))
        return 0
    r, seconds = {}, {}
    for name, run in SECTIONS.items():
        cached = sorted(args.parts.glob(f"{name}.*json")) if args.parts else []
        merged = name.endswith("_10fold") or name.startswith("explanations")
        if merged and cached:                          # per-model or per-dataset parts
            parts = [json.loads(c.read_text()) for c in cached]
            r[name] = {k: v for p in parts for k, v in p["value"].items()}
            seconds[name] = sum(p["seconds"] for p in parts)
            whole = set(MODELS) if name.endswith("_10fold") else set(EXPLAINED)
            if set(r[name]) >= whole:
                continue
            if args.available_only:                    # keep the parts that ran, say which did not
                r.setdefault("missing_sections", []).extend(f"{name}.{k}" for k in sorted(whole - set(r[name])))
                continue
        if cached and not merged:
            part = json.loads(cached[0].read_text())
            r[name], seconds[name] = part["value"], part["seconds"]
        elif args.available_only:
            r.pop(name, None)
            r.setdefault("missing_sections", []).append(name)
        else:
            t0 = time.perf_counter()
            r[name] = run()
            seconds[name] = time.perf_counter() - t0
    r["seconds"] = seconds
    r["checks"] = checks(r)
    return write_results("tikhonov_gnn", r, table(r), verdicts=verdicts)


def learned_auroc(name: str, v: dict) -> str:
    """The mean AUROC of the runs that learned the task: a run at chance explains nothing, rightly or not."""
    good = [x["auroc"] for x in v["runs"] if x["accuracy"] >= 0.9]
    return f"{name} {np.mean(good):.2f} in {len(good)} of {len(v['runs'])} runs" if good else \
        f"{name} none of {len(v['runs'])} runs"


def within_note(ex: dict) -> str:
    """The per-graph reading (each graph's own AUROC, averaged), where the runs stored it; the goal is on the pooled one."""
    have = {n: [x["auroc_within_graph"] for x in v["runs"]] for n, v in ex.items()
            if all("auroc_within_graph" in x for x in v["runs"])}
    if not have:
        return ""
    return (" Ranked within each graph instead (the mean of every held-out graph's own AUROC, blind to a per-graph "
            "scale of q): " + "; ".join(f"{n} {np.mean(a):.2f} (per seed " + ", ".join(f"{x:.2f}" for x in a) + ")"
                                        for n, a in have.items()) + ".")


def trained_runs(v: dict) -> list:
    """The runs of a gated section that trained (training accuracy at or over its gate, read before any test graph)."""
    return [x for x in v["runs"] if x["train_accuracy"] >= v["gate"]]


def trained_aurocs(v: dict) -> list:
    """The AUROC of the runs of a gated section that trained."""
    return [x["auroc"] for x in trained_runs(v)]


def gains(runs) -> list:
    """Training's gain per run: its agreement with its own occlusion effects minus its untrained start's."""
    return [x["agreement"] - x["untrained_agreement"] for x in runs]


def gain_power(runs) -> tuple[float, int]:
    """The paired t test's power at the observed mean gain with these runs, and the runs it needs for 0.8."""
    return observed_power(gains(runs))


def gated_figure(name: str, v: dict) -> str:
    good = trained_aurocs(v)
    return (f"{name} AUROC {np.mean(good):.2f} in the {len(good)} of {len(v['runs'])} runs that trained" if good
            else f"{name}: none of {len(v['runs'])} runs trained")


def bootstrap_note(cal: dict) -> str:
    rows = {k: c for k, c in cal.items() if "trained runs" in k}
    return "" if not rows else (" Null calibration of the intervals over trained runs (nominal one-sided 0.025; the "
                                "rule uses the t interval, the bootstrap's is reported): " + "; ".join(
        f"{k} {c['rate']:.3f} [{c['interval'][0]:.3f}, {c['interval'][1]:.3f}] ({c['verdict']})" for k, c in rows.items())
        + ".")


def selected_note(name: str, v: dict) -> str:
    """One dataset's selected runs: the gated figure, per seed, the runs that learned and fell back, the null."""
    rows = v["runs"]
    fell = [sum(x["fell_back"][k] for x in rows) for k in range(len(v["budget"]))]
    flat = [x for x in rows if x["train_accuracy"] >= v["gate"] and x["q_spread"] < 1e-3]
    return (f"{gated_figure(name, v)}, per seed (configuration chosen / training accuracy / AUROC) " + ", ".join(
        f"{x['chosen'] + 1} / {x['train_accuracy']:.2f} / {x['auroc']:.2f}" for x in rows)
        + f"; {len(flat)} trained run{'s' if len(flat) != 1 else ''} with one q on every node (the prediction from p "
        "alone); runs that reached the gate and ended below it, per configuration: " + ", ".join(map(str, fell))
        + f"; labels shuffled (the same selection), AUROC {np.mean([x['shuffled_auroc'] for x in rows]):.2f}")


def t_interval(values) -> tuple[float, float, float]:
    """(mean, low, high): the 95 % t interval of paired differences, as the rules' PairedT computes it."""
    out = PairedT(0.0).decide(list(values))
    return out.value, out.low, out.high


def occlusion_note(r: dict) -> str:
    """q against the model's own occlusion effects (section explanations_occlusion), and with the linear readout."""
    def one(name, v):
        runs = trained_runs(v)
        return (f"{name} {interval_text([x['agreement'] for x in runs])} over {len(runs)} trained runs (per seed "
                "AUROC / agreement " + ", ".join(f"{x['auroc']:.2f} / {x['agreement']:+.2f}" for x in runs)
                + f"; untrained {interval_text([x['untrained_agreement'] for x in v['runs']])}; trained minus "
                f"untrained, paired by seed, {interval_text(gains(runs))})")

    occ, lin = r.get("explanations_occlusion", {}), r.get("explanations_occlusion_linear_readout", {})
    if set(occ) != set(EXPLAINED):
        return " Occlusion (q against the model itself) was not measured in this run."
    out = (" Against the model itself (section explanations_occlusion, the same selections): the mean per-graph "
           "Spearman correlation between q and each node's occlusion effect (its propagated input averaged away, q "
           "kept), " + "; ".join(one(n, v) for n, v in occ.items()) + ".")
    if set(lin) == set(EXPLAINED):
        out += (" With the linear readout (variant; the same budget and seeds, section "
                "explanations_occlusion_linear_readout): " + "; ".join(
                    f"{gated_figure(n, v)}, agreement " + one(n, v).split(" ", 1)[1] for n, v in lin.items()) + ".")
    return out


def final_figure(r: dict, section: str = "explanations_final") -> str:
    """The claim's figure: training's gain in agreement over the untrained start per dataset (motifs from the
    confirmatory seeds once stored, as the rule decides), then the AUROC."""
    deciding = {**r[section], **({"motifs": confirmatory(r)} if confirmatory(r) else {})}
    return "q's agreement with the model, gain over untrained: " + "; ".join(
        f"{n} {interval_text(gains(trained_runs(v)))} (AUROC "
        f"{np.mean([x['auroc'] for x in trained_runs(v)]):.2f}, {len(trained_runs(v))} of {len(v['runs'])} trained)"
        for n, v in deciding.items())


def confirm_note(r: dict) -> str:
    """The confirmatory motif seeds (CONFIRM_SECTIONS): how many sections are stored and, once all are, the gain."""
    every = confirmatory(r)
    if every is None:
        return (f" Confirmatory motif seeds {CONFIRM_SEEDS[0]}-{CONFIRM_SEEDS[-1]} (registered after the 10 seeds' "
                f"power of 0.23; they decide motifs once all {len(CONFIRM_SECTIONS)} sections are stored): "
                f"{sum(k in r for k in CONFIRM_SECTIONS)} stored.")
    trained = trained_runs(every)
    return (f" Confirmatory motif seeds {CONFIRM_SEEDS[0]}-{CONFIRM_SEEDS[-1]} (they decide motifs): {len(trained)} of "
            f"{len(every['runs'])} trained, agreement {interval_text([x['agreement'] for x in trained])}, gain "
            f"{interval_text(gains(trained))}, AUROC {np.mean([x['auroc'] for x in trained]):.2f}.")


def final_note(r: dict, section: str = "explanations_final") -> str:
    """One judged section in words: per dataset, the trained runs' agreement, its gain over the untrained start,
    the AUROC, and the nulls (q permuted, labels shuffled, untrained)."""
    def one(name, v):
        runs = trained_runs(v)
        if len(runs) < 2:
            return f"{name}: {len(runs)} of {len(v['runs'])} runs trained"
        power, needed = gain_power(runs)
        untrained = [x["untrained_agreement"] for x in v["runs"]]
        return (f"{name}, {len(runs)} of {len(v['runs'])} runs trained: agreement "
                f"{interval_text([x['agreement'] for x in runs])} (sd {np.std([x['agreement'] for x in runs], ddof=1):.2f}), "
                f"untrained {interval_text(untrained)} (from {min(untrained):+.2f} to {max(untrained):+.2f}, sd "
                f"{np.std(untrained, ddof=1):.2f}), gain {interval_text(gains(runs))} (power {power:.2f} at the "
                f"observed gain with {len(runs)} runs, {needed} for 0.8); AUROC "
                f"{interval_text([x['auroc'] for x in runs])}; q permuted, agreement "
                f"{interval_text([x['permuted_agreement'] for x in v['runs']])}; labels shuffled, AUROC "
                f"{np.mean([x['shuffled_auroc'] for x in v['runs']]):.2f}; untrained, AUROC "
                f"{np.mean([x['untrained_auroc'] for x in v['runs']]):.2f}; per seed (chosen / training accuracy / "
                "agreement / untrained / AUROC) " + ", ".join(
                    f"{x['chosen'] + 1} / {x['train_accuracy']:.2f} / {x['agreement']:+.2f} / "
                    f"{x['untrained_agreement']:+.2f} / {x['auroc']:.2f}" for x in v["runs"]))

    v = r[section]
    first = next(iter(v.values()))
    return (f"readout '{first['readout']}', seeds {first['seeds'][0]}-{first['seeds'][-1]}, each seed's model "
            f"selected on 20 % of its training graphs from {budget_text(v)} (section {section}): "
            + "; ".join(one(n, x) for n, x in v.items()) + ".")


def trend_note(t: dict | None, what: str = " Planted feature") -> str:
    if not t:
        return f"{what}: the trend over training-set size was not measured in this run."
    out = (f"{what} as the training set grows (graphs: mean AUROC of the trained runs, runs trained): "
           + "; ".join(f"{n}: {'-' if a is None else f'{a:.2f}'} ({k} of {len(GATED_SEEDS)})" for n, a, k in t["trend"])
           + ".")
    if t.get("trend_agreement"):
        out += " Their agreement with the model's own effects: " + "; ".join(
            f"{n}: {'-' if a is None else f'{a:+.2f}'}" for n, a, _ in t["trend_agreement"]) + "."
    return out


def variant_note(r: dict) -> str:
    """What the linear-readout variant measured, where it ran; the verdict itself is on the shipped model."""
    var = r.get("explanations_linear_readout", {})
    if not var:
        return " The linear-readout variant (no per-node nonlinearity after the layer) was not measured in this run."
    return (" Variant, not the shipped model (readout = 'linear': no per-node nonlinearity after the layer, so a node "
            "reaches the prediction only through R's column sums, which scale with its q): " + "; ".join(
                f"{n} AUROC {v['auroc_mean']:.2f} (per seed " + ", ".join(f"{x['auroc']:.2f}" for x in v["runs"])
                + f"; untrained {v['untrained_auroc_mean']:.2f}; among the runs that learned, {learned_auroc(n, v)})" for n, v in var.items())
            + ". Chosen after seeing seeds 3 and 4 of planted_feature, so it is not an out-of-sample figure"
            + ("" if set(var) >= set(EXPLAINED) else "; motifs not measured in this run") + ".")


def paired_note(name: str, cv: dict, baseline: str) -> str:
    """Tikhonov minus ``baseline`` on benchmark ``name``: the paired mean and interval, and what 10 folds can show."""
    d = np.subtract(cv["tikhonov"]["fold_accuracies"], cv[baseline]["fold_accuracies"])
    return (f"{name} minus {baseline.upper()} {interval_text(d, 3)}, power "
            f"{non_inferiority_power(d, MATCH_MARGIN, d.size):.2f} at a true difference of 0 "
            f"({folds_for_power(d, MATCH_MARGIN)} folds for 0.8)")


def q_depth_note(t: dict | None) -> str:
    """Tikhonov's tuned accuracy and its paired gap to each baseline against the Q-network's depth."""
    if not t:
        return " The trend over the Q-network's depth was not measured in this run."
    def deeper(v):   # the deepest Q-network minus the shipped depth (2 hops), paired by fold
        rows = {r["q_hops"]: r["fold_accuracies"] for r in v["runs"]}
        return (f"; {max(rows)} hops minus 2, paired by fold, "
                + interval_text(np.subtract(rows[max(rows)], rows[2]), 3))

    gap = lambda m: f"{m[0]:+.3f} [{m[1]:+.3f}, {m[2]:+.3f}]"   # noqa: E731
    return (" As the Q-network deepens (section trend_q_depth: hops, the same budget and folds; Tikhonov's mean, minus "
            "GCN, minus GIN, paired by fold): " + "; ".join(
                f"{b} " + ", ".join(f"{r['q_hops']} hops {r['mean']:.3f}, {gap(r['minus_gcn'])}, {gap(r['minus_gin'])}"
                                    for r in v["runs"]) + deeper(v) for b, v in sorted(t.items()))
            + ".")


def capacity_note(cap: dict | None) -> str:
    """What one layer can do at the farthest distance when q is set by hand, and with three times the epochs."""
    if not cap:
        return "The capacity probe (q set by hand) was not run in this run."
    runs = cap["runs"]
    read = lambda key: sum(x[key] >= 0.9 for x in runs)   # noqa: E731
    return (f"Capacity at {cap['distance']} hops, on the design seeds: with q set by hand (10 at the source, 0.01 "
            f"elsewhere) the layer reads the value in {read('hand_q_test')} of {len(runs)} (test accuracy "
            + ", ".join(f"{x['hand_q_test']:.2f}" for x in runs) + "); the Q-network trained 600 epochs in place of "
            f"200 reads it in {read('epochs_600_test')} of {len(runs)} ("
            + ", ".join(f"{x['epochs_600_test']:.2f}" for x in runs) + ").")


def fold_calibration_note(cal: dict) -> str:
    c = cal.get("non-inferiority over 10 folds, at the margin")
    return "" if c is None else (f" Null calibration (simulated, Tikhonov exactly {MATCH_MARGIN:g} under): the fold "
                                 f"test passes at rate {c['rate']:.3f} [{c['interval'][0]:.3f}, {c['interval'][1]:.3f}]"
                                 f" against its nominal one-sided 0.025 ({c['verdict']}).")


def calibration_note(cal: dict) -> str:
    """The seed-level t intervals' false-positive rates under their nulls, against the nominal one-sided 0.025."""
    if not cal:
        return "The t intervals over seeds were not calibrated in this run."
    return ("Null calibration of the t intervals over seeds (nominal one-sided rate 0.025): " + "; ".join(
        f"{name} {c['rate']:.3f} [{c['interval'][0]:.3f}, {c['interval'][1]:.3f}] ({c['verdict']})"
        for name, c in cal.items() if "folds" not in name and "trained runs" not in name)
        + " (seed_test_calibration, simulated).")


def describe(r: dict) -> dict:
    """Each claim's figure and detail in words, from the numbers in ``r`` alone; its rule in
    ``core.tikhonov_gnn.claims`` decides its status."""
    benchmarks = {k[: -len("_10fold")]: v for k, v in r.items() if k.endswith("_10fold") and set(v) == set(MODELS)}
    tuned = {b: v for b, v in r.get("tuned_cv", {}).items() if set(v) == set(MODELS)}
    untuned = ("" if not benchmarks else " One shared untuned configuration (the earlier protocol, reference): " + "; ".join(
        paired_note(name, cv, m) for name, cv in sorted(benchmarks.items()) for m in ("gcn", "gin")) + ".")
    out = {"matches_baselines": ("", "No tuned 10-fold run finished in this bench run." + untuned) if not tuned else (
        "; ".join(f"{name}: {cv['tikhonov']['mean']:.3f} vs GCN {cv['gcn']['mean']:.3f}, GIN {cv['gin']['mean']:.3f}"
                  for name, cv in sorted(tuned.items())),
        "10-fold cross-validated accuracy (final epoch; the same folds and seeds for the three models), each model "
        f"selected in every fold from the same budget (learning rate {', '.join(map(str, TUNED_LRS))} x width "
        f"{', '.join(map(str, TUNED_HIDDEN))}, 80 epochs, chosen on 20 % of the training fold). Non-inferiority within "
        f"{MATCH_MARGIN:g}: the 95 % t interval of Tikhonov minus a baseline, paired by fold, wholly above the margin. "
        + "; ".join(paired_note(name, cv, m) for name, cv in sorted(tuned.items()) for m in ("gcn", "gin")) + "."
        + untuned
        + (" Null, the trivial method (majority class of each training fold) on the same folds: " + ", ".join(
            f"{n} {v['mean']:.3f}" for n, v in sorted(r["majority_10fold"].items())) + "."
           if "majority_10fold" in r else " The trivial method was not measured in this run.")
        + fold_calibration_note(r.get("long_range", {}).get("calibration", {}))
        + q_depth_note(r.get("trend_q_depth")))}

    ex, gated = r.get("explanations", {}), r.get("explanations_gated", {})
    earlier = "" if set(ex) != set(EXPLAINED) else (
        " Earlier measure (seeds 0-4, every run averaged, trained or not; goal ≥ " f"{AUROC_GOAL}): " + "; ".join(
            f"{n} {v['auroc_mean']:.2f} (per seed AUROC / test accuracy " + ", ".join(
                f"{x['auroc']:.2f} / {x['accuracy']:.2f}" for x in v["runs"]) + ")" for n, v in ex.items())
        + "." + within_note(ex) + variant_note(r))
    selected, flat = r.get(JUDGED_SELECTION, {}), r.get("explanations_selected", {})
    flat_note = "" if set(flat) != set(EXPLAINED) else (
        " Selected from the flat-start budget (" + budget_text(flat) + "; reference): "
        + ", ".join(gated_figure(n, v) for n, v in flat.items()) + ".")
    shipped = "" if set(gated) != set(EXPLAINED) else (
        " The preset of the time alone (motifs " + run_text(vars(measured_config("motifs"))) + "; no selection; seeds " f"{GATED_SEEDS[0]}-{GATED_SEEDS[-1]}): " + "; ".join(
            f"{gated_figure(n, v)}, per seed (training accuracy / AUROC) " + ", ".join(
                f"{x['train_accuracy']:.2f} / {x['auroc']:.2f}" for x in v["runs"]) for n, v in gated.items())
        + "; untrained, AUROC " + ", ".join(f"{n} {np.mean([x['untrained_auroc'] for x in v['runs']]):.2f}"
                                            for n, v in gated.items()) + ".")
    final = set(r.get("explanations_final", {})) == set(EXPLAINED)
    lead = "" if not final else (
        "Judged on the shipped model against itself: per seed, the mean per-graph Spearman correlation between q and "
        "each node's occlusion effect (its propagated input averaged away, q kept) on the held-out graphs, minus "
        "the same for the untrained model; among the runs that trained (training accuracy ≥ "
        f"{TRAINED_GATE}), its paired t interval above 0 on both datasets; the AUROC of q for the label-carrying "
        "nodes is a further part. The shipped " + final_note(r)
        + ("" if set(r.get("explanations_final_node", {})) != set(EXPLAINED) else
           " The earlier shipped " + final_note(r, "explanations_final_node"))
        + confirm_note(r)
        + trend_note(r.get("trend_explanations_shipped"), " Planted feature with the shipped readout")
        + " Earlier judged selection (the per-node readout): ")
    out["faithful_explanations"] = ("", "The selected explanation runs did not finish in this bench run." + shipped
                                    + earlier) if set(selected) != set(EXPLAINED) else (
        final_figure(r) if final else ", ".join(gated_figure(n, v) for n, v in selected.items()),
        lead + f"AUROC of q for the label-carrying nodes on the held-out graphs, judged among the runs that trained "
        f"(training accuracy ≥ {TRAINED_GATE}, read before any test graph) over seeds {GATED_SEEDS[0]} to "
        f"{GATED_SEEDS[-1]}; each seed's model selected on 20 % of its training graphs from "
        + budget_text(selected) + " (the first each dataset's earlier preset; motifs now ships the second): "
        + "; ".join(selected_note(n, v) for n, v in selected.items())
        + "." + occlusion_note(r) + trend_note(r.get("trend_explanations"))
        + trend_note(r.get("trend_explanations_linear_readout"), " With the linear readout (variant)")
        + bootstrap_note(r.get("long_range", {}).get("calibration", {}))
        + " The layer propagates a linear map of the features (an MLP encoder let the readout ignore q); the motif "
        "classes have the same edge count and degree multiset." + flat_note + shipped + earlier)

    kinds = {name: [x["kind"] for x in v["runs"]] for name, v in r["filters"].items()}
    want = {"sbm_homophilic": "low-pass", "sbm_heterophilic": "high-pass"}
    right = {name: sum(k == want[name] for k in ks) for name, ks in kinds.items() if name in want}
    total = {name: len(ks) for name, ks in kinds.items() if name in want}
    out["filter_reveals_homophily"] = (
        ", ".join(f"{want[n]} on {n[4:]} {right[n]} of {total[n]}" for n in right),
        "The learned polynomial p, classified by its values on the spectrum, against the block models' known "
        "homophily, one fit per seed: " + "; ".join(f"{n[4:]} {', '.join(ks)}" for n, ks in kinds.items()) + ".")

    i = r["identifiability"]
    out["distinct_operators"] = (
        f"normalised explanation recovered from R, error {i['max_relative_recovery_error']:.1e} over {i['draws']} graphs",
        "Judged on the explanation as the abstract reads it: large q_i against the penalty p ('node i's own features "
        "drive the prediction') and the shape of p on the spectrum, which R = (p(L) + Q)^-1 Q only sees up to a common "
        "scale: (c·q, c·p) gives the same R for every c > 0, and p enters only through its values on spec(L). "
        "Normalised (q / c, p|spec / c with c the mean of p on the spectrum), the explanation is recovered from R "
        f"alone with a largest relative error of {i['max_relative_recovery_error']:.1e} over {i['draws']} random "
        f"graphs, and normalised explanations with the same R differ by at most {i['max_normalised_gap_same_R']:.1e}. "
        f"Null: the raw parameters, which the scale symmetry predicts are not identifiable: pairs ≥ "
        f"{i['min_raw_parameter_gap_same_R']:.2f} apart give the same R. Read literally on raw parameters the claim "
        "is false; no reading of the explanation depends on the scale.")

    sm = r["smoothing"]["ba_200"]
    depth = np.array(sm["depth"])
    reach = int(np.flatnonzero(depth >= sm["diameter"])[0])       # the GCN depth that sees the whole graph
    gcn_at_reach, tik_one = sm["gcn"][reach], sm["tikhonov_strength"][sm["strength"].index(1.0)]
    tik_strong = sm["tikhonov_strength"][-1]
    lr = r["long_range"]
    far = max(lr["distances"])
    by = accuracy_by_distance(lr)
    mean = {m: float(np.mean(by[(far, m, False)])) for m in MODELS}
    cut = by.get((far, "tikhonov", True))
    out["long_range"] = (
        f"energy {tik_one:.3f} vs GCN {gcn_at_reach:.3f}; bottleneck {far}: {mean['tikhonov']:.2f} vs GCN "
        f"{mean['gcn']:.2f}, GIN {mean['gin']:.2f}"
        + ("" if bottleneck_tested(r) else
           " (Tikhonov fit its training graphs on {} of {} seeds: not tested)".format(*fitted_seeds(r))),
        f"Oversmoothing (BA graph, 200 nodes, diameter {sm['diameter']}): one Tikhonov layer (q = 1, p = λ) reaches "
        f"every node with Dirichlet energy {tik_one:.3f} (input {sm['input']:.3f}); a GCN needs depth "
        f"{int(depth[reach])} to reach them and keeps {gcn_at_reach:.3f}; APPNP keeps {sm['appnp'][reach]:.3f}. "
        f"A strong layer (p = {sm['strength'][-1]:g} λ) smooths to {tik_strong:.3f}: the layer can oversmooth too, "
        f"it is q against p that decides. Oversquashing: test accuracy reading a value {far} hops away through a "
        f"one-node path, mean over {len(lr['seeds'])} seeds, each model selected on a validation split from the same "
        f"budget ({lr['budget']}): Tikhonov (1 layer) {mean['tikhonov']:.2f}, GCN {mean['gcn']:.2f}, GIN "
        f"{mean['gin']:.2f} (as many layers as hops, at least 3)"
        + (f"; with the path cut, Tikhonov {np.mean(cut):.2f} (chance 0.5)" if cut else "") + ". "
        + fit_note(r) + " Per distance "
        "(Tikhonov / GCN / GIN): " + "; ".join(f"{t[0]}: " + " / ".join(f"{v:.2f}" for v in t[1:]) for t in lr["trend"])
        + ". " + capacity_note(r.get("long_range_capacity")) + " " + calibration_note(lr.get("calibration", {}))
        + " The Tikhonov layer starts global (p(λ) ≈ λ, q small on every node)." + earlier_note(lr.get("earlier")))
    return out


def fit_note(r: dict) -> str:
    """Whether the bottleneck checks are tested: Tikhonov fit its own training graphs at the farthest distance on
    most seeds (the rule's gate), or the training failure that leaves them not tested."""
    fitted, runs = fitted_seeds(r)
    far = max(r["long_range"]["distances"])
    if bottleneck_tested(r):
        return f"Tikhonov fit its own training graphs at {far} hops on {fitted} of {runs} seeds: the bottleneck is tested."
    return (f"Tikhonov fit its own training graphs (training accuracy {FIT_GATE:g}) at {far} hops on only {fitted} of "
            f"{runs} seeds, so the bottleneck checks are not tested: they would measure our optimiser, not the layer's "
            "reach.")


def earlier_note(earlier: dict | None) -> str:
    """The stored runs of the earlier budget (flat start, lr 0.01, 60 epochs, one seed), Tikhonov's per distance."""
    if not earlier:
        return ""
    tik = sorted((x for x in earlier["runs"] if x["model"] == "tikhonov"), key=lambda x: x["distance"])
    return (" From the flat start (p = 1, R diagonal) with the earlier budget (" + earlier["note"].split(": ", 1)[-1]
            + "), test / training accuracy: " + "; ".join(
                f"{x['distance']} hops {x['test_accuracy']:.2f} / {x['train_accuracy']:.2f}" for x in tik) + ".")


verdicts = judged("tikhonov_gnn", describe, COMMAND)


if __name__ == "__main__":
    sys.exit(main())

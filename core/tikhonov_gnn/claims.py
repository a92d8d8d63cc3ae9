"""The Tikhonov GNN paper's headline claims, checked by ``bench/tikhonov_gnn.py``."""

from core.common.claims import Claim
from core.common.decisions import AnyOf, Every, Flag, InBand, PairedT, Some, Threshold
from core.common.rules import Check, Diagnosis, Rule

CLAIMS = (
    Claim("matches_baselines",
          "On standard graph classification benchmarks the Tikhonov layer matches (and sometimes beats) opaque "
          "baselines.",
          "10-fold cross-validated accuracy on MUTAG and Cuneiform (grakel's bundled copies) against GCN and GIN.",
          "GCN and GIN trained on the same folds."),
    Claim("faithful_explanations",
          "The learned node scores q are a faithful explanation: a large q_i marks a node whose own features "
          "drive the prediction.",
          "AUROC of q for the nodes that carry the label on held-out graphs, among the runs that trained (training "
          "accuracy >= 0.9) over 10 seeds, each seed's model selected on validation from two configurations, with "
          "a t interval, on a motif dataset (classes with equal edge counts and degree multisets) and a "
          "planted-feature dataset; and, against the model itself, the rank agreement of q with each node's "
          "occlusion effect on the prediction.",
          "The same model trained on shuffled labels, and untrained (its q at initialisation); a random score has "
          "AUROC 0.5 and agreement 0."),
    Claim("filter_reveals_homophily",
          "The shape of the learned polynomial p reveals whether homophily or heterophily is exploited.",
          "The learned p classified as low- or high-pass on homophilic and heterophilic stochastic block models, "
          "3 seeds each.",
          "The graphs' known homophily."),
    Claim("distinct_operators",
          "Distinct explanations (q, p) necessarily yield distinct propagation operators.",
          "The explanation as the abstract reads it ('large q_i indicates that node i's own features drive the "
          "prediction, while small q_i signals reliance on the local graph topology'; 'the shape of p reveals ...'): "
          "q against the penalty p, so the pair up to a common positive scale, and p on the spectrum of L, the only "
          "values R depends on. The normalised (q / c, p on spec(L) / c) recovered from R alone on 40 random graphs.",
          "Raw parameters (c q, c theta): distinct for every c != 1, the same R (the scale no reading of the "
          "explanation depends on)."),
    Claim("long_range",
          "A single layer has a global receptive field, mitigating oversmoothing and oversquashing.",
          "Dirichlet energy of propagated features against depth or strength, and test accuracy reading a value "
          "across a one-node-wide path (2 to 8 hops).",
          "GCN and APPNP propagations on the same graph; GCN and GIN with as many layers as hops."),
)

_MODELS = ("tikhonov", "gcn", "gin")
_EXPLAINED = ("motifs", "planted_feature")
AUROC_GOAL = 0.85        # bench/tikhonov_gnn.py's goal for the mean AUROC of q
_WANT = {"sbm_homophilic": "low-pass", "sbm_heterophilic": "high-pass"}


def _benchmarks(result):
    """The 10-fold runs that finished for all three models, by benchmark."""
    return {k[: -len("_10fold")]: v for k, v in result.items() if k.endswith("_10fold") and set(v) == set(_MODELS)}


MATCH_MARGIN = 0.03   # non-inferiority margin: Tikhonov at most 3 accuracy points under a baseline


def _tuned(result, section="tuned_cv"):
    """{benchmark: {model: {fold_accuracies, ...}}}: each model selected from the same budget inside every fold
    (``tuned_cv_linear_readout``: Tikhonov with the linear readout, beside that run's own baselines)."""
    return {b: v for b, v in result[section].items() if set(v) == set(_MODELS)}


def _differences(result, model="tikhonov", tuned=True, section="tuned_cv"):
    """Per (benchmark, baseline): ``model``'s fold accuracy minus the baseline's, fold by fold (the same 10 folds
    and seeds for every model, so the folds pair); ``model`` may be "majority", the trivial method. ``tuned``:
    every model selected from its budget in each fold (in the tuned run ``section``); else the one shared untuned
    configuration."""
    out = []
    for name, cv in sorted((_tuned(result, section) if tuned else _benchmarks(result)).items()):
        mine = cv[model]["fold_accuracies"] if model in cv else result["majority_10fold"][name]["fold_accuracies"]
        for baseline in ("gcn", "gin"):
            out.append([a - b for a, b in zip(mine, cv[baseline]["fold_accuracies"], strict=True)])
    return out


def _explanations(result, field):
    """``field`` of both explanation datasets, or None unless both ran."""
    ex = result["explanations"]
    return [ex[n][field] for n in _EXPLAINED] if set(ex) == set(_EXPLAINED) else None


JUDGED_SELECTION = "explanations_selected_laplacian"   # the per-node readout's judged selection (motif preset)
FINAL = "explanations_final"   # the shipped readout judged on the fresh seeds 50-59, the measure fixed before it ran


CONFIRM = tuple(f"explanations_confirm_{k}" for k in (1, 2, 3, 4))   # motif seeds 60-103, 11 per section


def confirmatory(result):
    """The confirmatory motif runs (seeds 60-103) as one section entry ({"runs", "gate"}) once all four sections of
    CONFIRM are stored, else None."""
    if not all(s in result for s in CONFIRM):
        return None
    return {"runs": [x for s in CONFIRM for x in result[s]["motifs"]["runs"]], "gate": result[CONFIRM[0]]["motifs"]["gate"]}


def _registered_gain(result):
    """The claim's gain per dataset as registered: planted feature from FINAL; motifs from the confirmatory seeds
    60-103 once all four of their sections are stored (the 10-seed run had power 0.23), from FINAL until then."""
    final, every = _gain(result), confirmatory(result)
    return final if every is None else [_trained_gain(every["runs"], every["gate"]), final[1]]


def _registered(result, field):
    """``field`` of every run on the seeds that decide the claim: FINAL's, motifs' from CONFIRM once all four are
    stored."""
    final, every = _gated(result, field, trained=False, section=FINAL), confirmatory(result)
    return final if every is None else [[x[field] for x in every["runs"]], final[1]]


def _confirmed(result, field):
    """``field`` of the confirmatory motif runs that trained, once all four sections are stored."""
    every = confirmatory(result)
    return [x[field] for x in every["runs"] if x["train_accuracy"] >= every["gate"]]


def _trained_gain(runs, gate):
    """Training's gain per run that trained: its agreement with its own occlusion effects minus its untrained
    start's with its own."""
    return [x["agreement"] - x["untrained_agreement"] for x in runs if x["train_accuracy"] >= gate]


def _auroc_reference(name, text, section=JUDGED_SELECTION):
    """A reference: another section's AUROC of q among its trained runs, t interval above 0.5 on both datasets."""
    return Check(name, "reference", text + ": AUROC above 0.5 on both datasets",
                 lambda r: _gated(r, "auroc", section=section), Every(PairedT(0.5, "above")))


def _gain_reference(name, text, section):
    """A reference: the claim's test (training's gain in agreement) on another section."""
    return Check(name, "reference", text + ": the claim's test", lambda r: _gain(r, section), Every(PairedT(0.0, "above")))


def _gain(result, section=FINAL):
    """Per explanation dataset, training's gain among the runs that trained (:func:`_trained_gain`), seed by seed."""
    ex = result[section]
    if set(ex) != set(_EXPLAINED):
        raise KeyError(section)
    return [_trained_gain(ex[n]["runs"], ex[n]["gate"]) for n in _EXPLAINED]


def _gated(result, field, trained=True, section=JUDGED_SELECTION):
    """Per explanation dataset: ``field`` of the runs that trained (or of every run with ``trained=False``), each
    seed's model selected on validation from a budget with the Laplacian start (``explanations_selected_laplacian``)
    or with the flat start only (``explanations_selected``), or the dataset's earlier preset alone
    (``explanations_gated``; motifs: lr 0.01, 60 epochs, flat start)."""
    ex = result[section]
    if set(ex) != set(_EXPLAINED):
        raise KeyError(section)
    return [[x[field] for x in ex[n]["runs"] if not trained or x["train_accuracy"] >= ex[n]["gate"]]
            for n in _EXPLAINED]


def _filter_kinds(result, names=tuple(_WANT), field="kind"):
    """Per seed of the named block models: whether the learned p's kind (``field``) is the one the graph's
    homophily wants."""
    return [x[field] == _WANT[n] for n, v in result["filters"].items() if n in names for x in v["runs"]]


BOTTLENECK_BAR = 0.75   # mean test accuracy across the farthest bottleneck over seeds (chance 0.5, reading 1.0)
FIT_GATE = 0.9          # a bottleneck run trained when it fits its own training graphs to this accuracy


def _smoothing(result):
    """(one Tikhonov layer's energy (q = 1, p = λ), twice GCN's at the depth that reaches every node, the input's)."""
    sm = result["smoothing"]["ba_200"]
    reach = [i for i, d in enumerate(sm["depth"]) if d >= sm["diameter"]][0]  # the GCN depth that sees the graph
    if 1.0 not in sm["strength"]:
        raise KeyError("strength 1.0")
    return sm["tikhonov_strength"][sm["strength"].index(1.0)], 2 * sm["gcn"][reach], sm["input"]


def _far(result, model, cut=False):
    """{seed: test accuracy} of ``model`` at the farthest bottleneck distance (on the cut graphs with ``cut``)."""
    lr = result["long_range"]
    far = max(lr["distances"])
    out = {x["seed"]: x["test_accuracy"] for x in lr["runs"]
           if x["distance"] == far and x["model"] == model and x.get("cut", False) == cut}
    if not out:
        raise KeyError(f"{model} at {far}")
    return out


def fitted_seeds(result):
    """(seeds where Tikhonov fit its own training graphs at the farthest distance, seeds run): training accuracy
    at least FIT_GATE, read on no test graph."""
    lr = result["long_range"]
    far = max(lr["distances"])
    fits = [x["train_accuracy"] >= FIT_GATE for x in lr["runs"]
            if x["distance"] == far and x["model"] == "tikhonov" and not x.get("cut", False)]
    return sum(fits), len(fits)


def bottleneck_tested(result) -> bool:
    """Whether Tikhonov fit its training graphs on most seeds at the farthest distance: else the bottleneck checks
    would measure our optimiser, not the layer's reach, and are not tested (the failure is in the detail)."""
    fitted, runs = fitted_seeds(result)
    return 2 * fitted > runs


def _trained(result, values):
    """``values()`` when the bottleneck is tested (bottleneck_tested), else None."""
    return values() if bottleneck_tested(result) else None


def _accuracies(result, model="tikhonov", cut=False):
    return [v for _, v in sorted(_far(result, model, cut).items())]


def _reach(result):
    """Tikhonov's test accuracy per seed across the farthest path, when it trained (_trained)."""
    return _trained(result, lambda: _accuracies(result))


def _paired(result, baseline):
    """Per seed at the farthest distance: Tikhonov's test accuracy minus ``baseline``'s (same data and split), when
    Tikhonov trained (_trained)."""
    tik, base = _far(result, "tikhonov"), _far(result, baseline)
    return _trained(result, lambda: [tik[s] - base[s] for s in sorted(set(tik) & set(base))])


def _either_long_range(result):
    """Oversmoothing's numbers and oversquashing's, for "smoothing or bottleneck"."""
    return _smoothing(result), _reach(result)


RULES = {
    "matches_baselines": Rule(
        checks=(Check("some", "claim", "Tikhonov's 10-fold accuracy minus a baseline's (GCN, GIN), paired by fold, each "
                      "model selected in every fold from the same budget (6 configurations on a validation split): "
                      f"non-inferior within {MATCH_MARGIN:g} on at least one pair", _differences,
                      Some(PairedT(-MATCH_MARGIN, "above"))),
                Check("every", "part", "the same, on every pair (both baselines, every benchmark)", _differences,
                      Every(PairedT(-MATCH_MARGIN, "above"))),
                Check("benchmarks", "part", "benchmarks whose tuned 10-fold runs finished for all three models",
                      lambda r: len(_tuned(r)), Threshold(2.0, "above", strict=False)),
                Check("majority", "null", "the trivial method (each training fold's most common class) on the same "
                      "folds, minus each tuned baseline: the same non-inferiority test, which a benchmark that tells "
                      "models apart must refuse", lambda r: _differences(r, "majority"),
                      Some(PairedT(-MATCH_MARGIN, "above"))),
                Check("untuned", "reference", "the same test with one shared untuned configuration (the earlier "
                      "protocol), every pair", lambda r: _differences(r, tuned=False),
                      Every(PairedT(-MATCH_MARGIN, "above"))),
                Check("linear_readout", "reference", "the candidate model (the linear readout after the layer), "
                      "tuned the same way beside its own run of the baselines (section tuned_cv_linear_readout): "
                      "the same test on at least one pair", lambda r: _differences(r, section="tuned_cv_linear_readout"),
                      Some(PairedT(-MATCH_MARGIN, "above")))),
        partly=("some",),
        diagnosis=Diagnosis("scale", "With each model selected from the same budget in every fold (6 "
                            "configurations), Tikhonov is non-inferior to GCN on MUTAG (+0.010 [-0.029, +0.049]) and "
                            "shown worse than GIN on Cuneiform (-0.105 [-0.182, -0.028]; untuned -0.106 [-0.180, "
                            "-0.032]); MUTAG against GIN and Cuneiform against GCN cannot decide (power 0.14 and 0.13 "
                            "at a true difference of 0; the detail gives the folds each would need). The fold test is "
                            "calibrated (simulated: 0.024 against 0.025) and its null, the majority class, fails it on "
                            "every pair. The abstract routes expressivity through an 'arbitrarily deep' Q-network: "
                            "with its depth as the scale (1, 2, 4, 6 hops, 6 the largest our configuration allows; "
                            "the same budget and folds), Cuneiform's gap to GIN narrows (-0.094, -0.105, -0.083, "
                            "-0.064; at 6 hops [-0.136, +0.008], still not within the margin) as Tikhonov rises from "
                            "0.779 to 0.820, though the gain from 2 to 6 hops is not shown (+0.041 [-0.030, +0.113], "
                            "paired by fold); MUTAG's stays flat (-0.031 to -0.059, never shown). So plausibly "
                            "depth, not shown: the gap closes slowly and not within our range. The earlier rule "
                            "compared means within 3 points of the best baseline (stored run of 2026-12-01, not "
                            "quiet: MUTAG -0.032, Cuneiform -0.053; kept under 'earlier'). The candidate model with "
                            "the linear readout after the layer (reference linear_readout; section "
                            "tuned_cv_linear_readout, rerun 2026-12-07 with its own GCN and GIN) is non-inferior on no "
                            "pair: MUTAG minus GCN +0.005 [-0.038, +0.047], minus GIN -0.080 [-0.155, -0.006]; "
                            "Cuneiform minus GCN -0.079 [-0.143, -0.016], minus GIN -0.128 [-0.200, -0.056]. Its "
                            "baselines differ from the stored run's on the same code (Cuneiform GCN 0.832 against "
                            "0.794, one fold by 0.26; MUTAG GIN 0.910 against 0.877) while each cell reproduces "
                            "itself on one machine: training is not bit-identical across machines, so each Tikhonov "
                            "is paired with its own run's baselines, and a pair near the margin (MUTAG against GCN) "
                            "can change sides between runs. Commands: python -m "
                            "bench.run tikhonov_gnn --grid tuned_cv (686 s on 2 Ray workers; tuned_cv_linear_readout "
                            "586 s), --grid tuned_cv_q1 "
                            "(425 s), tuned_cv_q4 (455 s) and tuned_cv_q6 (540 s), each with --engine ray; python "
                            "bench/tikhonov_gnn.py --parts DIR --section trend_q_depth (reads those sweeps and the "
                            "stored tuned_cv), --section mutag_10fold (81 s; cuneiform_10fold 127 s; "
                            "majority_10fold), then python bench/ledger.py tikhonov_gnn.",
                            trend="trend_q_depth.cuneiform.trend")),
    "faithful_explanations": Rule(
        checks=(Check("faithful", "claim", "q against the model itself, as the abstract reads q ('node i's own "
                      "features drive the prediction'): per seed, the mean per-graph Spearman correlation between q "
                      "and each node's occlusion effect (its propagated input averaged away, q kept: "
                      "core/tikhonov_gnn/occlusion.py) on held-out graphs, minus the same for the untrained model "
                      "(q at initialisation, which already keeps a large-q node's own input), among the runs that "
                      "trained of the shipped model's selection on the fresh seeds 50-59 (section "
                      "explanations_final); its paired t interval above 0 on both datasets (motifs, planted "
                      "feature); on motifs, once stored, the confirmatory fresh seeds 60-103 (sections "
                      "explanations_confirm_1 to 4, registered after the 10 seeds' power of 0.23) replace seeds "
                      "50-59 (two looks: at most 0.05 one-sided over both)", _registered_gain,
                      Every(PairedT(0.0, "above"))),
                Check("agrees", "part", "the trained model's agreement itself, same runs: t interval above 0 on "
                      "both datasets", lambda r: _gated(r, "agreement", section=FINAL), Every(PairedT(0.0, "above"))),
                Check("informative", "part", "q marks the label's nodes: AUROC of q for the label-carrying nodes on "
                      "the same held-out graphs, same runs: t interval above 0.5 on both datasets",
                      lambda r: _gated(r, "auroc", section=FINAL), Every(PairedT(0.5, "above"))),
                Check("goal", "part", f"the same interval above the goal {AUROC_GOAL} on both datasets",
                      lambda r: _gated(r, "auroc", section=FINAL), Every(PairedT(AUROC_GOAL, "above"))),
                Check("permuted", "null", "the trained model's q permuted across each graph's nodes (the same values "
                      "on random nodes): its agreement with the effects, every seed that decides the claim (motifs: "
                      "the confirmatory seeds once stored), t interval above 0 on either dataset",
                      lambda r: _registered(r, "permuted_agreement"),
                      Some(PairedT(0.0, "above"))),
                Check("shuffled", "null", "the same selection on the same graphs with their labels shuffled: AUROC "
                      "of its q, every seed, t interval above 0.5 on either dataset",
                      lambda r: _gated(r, "shuffled_auroc", trained=False, section=FINAL), Some(PairedT(0.5, "above"))),
                Check("untrained", "null", "the chosen configuration untrained (q at initialisation): AUROC, every "
                      "seed, t interval above 0.5 on either dataset",
                      lambda r: _gated(r, "untrained_auroc", trained=False, section=FINAL), Some(PairedT(0.5, "above"))),
                Check("confirm_informative", "reference", "the confirmatory motif seeds 60-103 (registered for the "
                      "claim's check only, so they never decide a part): AUROC of q above 0.5",
                      lambda r: _confirmed(r, "auroc"), PairedT(0.5, "above")),
                Check("untrained_agreement", "reference", "why the claim is paired: the untrained model's own "
                      "agreement, every seed, t interval above 0 on either dataset",
                      lambda r: _gated(r, "untrained_agreement", trained=False, section=FINAL),
                      Some(PairedT(0.0, "above"))),
                _gain_reference("node_readout", "the earlier shipped model (the per-node readout), the same selection "
                                "on the same fresh seeds (section explanations_final_node)", "explanations_final_node"),
                _auroc_reference("node_readout_informative", "the same runs", "explanations_final_node"),
                _auroc_reference("node_selected", "the earlier judged measure: the per-node readout's selection on "
                                 "seeds 10-19 (section explanations_selected_laplacian)"),
                _gain_reference("node_occlusion", "the per-node readout on seeds 10-19 (section "
                                "explanations_occlusion)", "explanations_occlusion"),
                _auroc_reference("linear_readout", "the linear readout after the layer (a node reaches the prediction "
                                 "only through R's column sums), the same budget on the fresh seeds 30-39 (section "
                                 "explanations_linear_judged)", "explanations_linear_judged"),
                _gain_reference("linear_norm", "the shipped readout where it was chosen (seeds 40-49, section "
                                "explanations_linear_norm_judged)", "explanations_linear_norm_judged"),
                _auroc_reference("flat_start", "the per-node readout's selection from the flat-start budget (lr 0.01 x "
                                 "60 and lr 0.003 x 200 epochs, p = 1 at first; section explanations_selected)",
                                 "explanations_selected"),
                Check("earlier", "reference", "the earlier measure: mean AUROC over seeds 0-4, trained or not, against "
                      f"{AUROC_GOAL} on each dataset", lambda r: _explanations(r, "auroc_mean"),
                      Every(Threshold(AUROC_GOAL, "above", strict=False)))),
        partly=("faithful",),
        diagnosis=Diagnosis("genuine", "The claim holds and the goal does not. Training's gain in faithfulness is "
                            "shown on both datasets as registered: on the 44 confirmatory motif seeds 60-103 (sections "
                            "explanations_confirm_1 to 4, registered once the 10 seeds' power was known; every run "
                            "trains) +0.25 [+0.11, +0.38] (one-sided p = 0.0003 against the two looks' 0.025 each), "
                            "agreement +0.40 [+0.33, +0.47], q permuted across each graph's nodes -0.00 [-0.01, +0.00]; "
                            "on planted feature (seeds 50-59) +0.22 [+0.07, +0.37]. What fails is q marking the "
                            "dataset's label nodes as strongly as the goal 0.85 asks: on the confirmatory motif seeds "
                            "AUROC 0.63 [0.53, 0.73] (untrained 0.50 [0.42, 0.58], labels shuffled 0.51 [0.45, 0.57]), "
                            "above chance but far from the goal, and the same on planted feature; the registered part "
                            "'informative' is judged on seeds 50-59, where motifs (10 runs) cannot show even 0.5. As "
                            "the training set grows (planted feature, the shipped readout, 150, 300, 600 graphs, run as "
                            "cells of python -m bench.run tikhonov_gnn --grid trend_explanations_shipped) the AUROC "
                            "stays flat: AUROC 0.61, 0.66, 0.65, agreement +0.74, +0.75, +0.73 (the earlier in-process"
                            " run of the same seeds, whose float order differs: 0.63, 0.59, 0.65). So at our scale the "
                            "gap to the goal does not close with data: q is faithful to the model (it says which "
                            "nodes' own features the prediction uses, the abstract's reading) without singling out the"
                            " planted nodes, which a model with a rescaling head need not amplify. The registered run "
                            "on seeds 50-59 (the rule and the shipped readout committed before it ran): the shipped "
                            "model, readout 'linear_norm'. Every run trains on both "
                            "datasets and q agrees with the model's own occlusion effects (motifs +0.47 [+0.32, "
                            "+0.63], planted feature +0.64 [+0.50, +0.77]; q permuted across each graph's nodes +0.00"
                            " [-0.01, +0.01] and +0.01 [-0.02, +0.04]), but training's gain over the untrained start "
                            "is shown on planted feature only (+0.22 [+0.07, +0.37]; motifs +0.26 [-0.17, +0.70]). On"
                            " motifs the test cannot show it: the untrained start's own agreement spans -0.57 to "
                            "+0.95 over the seeds (sd 0.49, the trained runs' 0.21), so at the observed gain the "
                            "paired test has power 0.23 with 10 seeds and needs 44 for 0.8; on planted feature "
                            "(untrained sd 0.08) it has 0.84. The untrained model agrees by design (R = (p(L) + Q)^-1"
                            " Q keeps a large-q node's own input before any training), which is the abstract's "
                            "'interpretable by design'; the claim as registered asks training to add to it. q marks "
                            "the label's nodes on planted feature (AUROC 0.63 [0.54, 0.72]) and not shown so on "
                            "motifs (0.65 [0.42, 0.88]: half the runs at 0.78 to 0.99, half at 0.06 to 0.50), below "
                            "the goal 0.85 on both; nulls: labels shuffled 0.51, 0.45, untrained 0.57, 0.52. The earlier shipped "
                            "per-node readout on the"
                            " same seeds (reference node_readout, section explanations_final_node): motifs 9 of 10 "
                            "trained, agreement +0.45 [+0.22, +0.69], gain +0.32 [-0.08, +0.72], AUROC 0.71 [0.53, "
                            "0.89]; planted feature 10 of 10 trained, agreement +0.54 [+0.24, +0.83], gain +0.10 "
                            "[-0.24, +0.44], AUROC 0.76 [0.64, 0.87]. So neither readout passes the registered test: "
                            "the per-node one marks the label's nodes on both datasets (AUROC above 0.5) with "
                            "training's gain shown on neither, the shipped one shows the gain on planted feature only"
                            " (it was chosen on seeds 10-49 because every run trains and q reaches the prediction "
                            "only through R). History (each kept in its section): the per-node readout let the "
                            "prediction bypass q; from the flat start the earlier motif preset trained 2 of 10 motif "
                            "runs (seeds 10-19, explanations_gated), the Laplacian start fixed that (motif_preset: 10"
                            " of 10 fresh seeds), and the judged selection on seeds 10-19 "
                            "(explanations_selected_laplacian) gave AUROC 0.62 [0.44, 0.81] on motifs (three runs at "
                            "0.28, whose q marks neither the motif nor the 5-cycle's base cycle: motif_evidence) and "
                            "0.71 on planted feature, with q agreeing with the effects (+0.40 [+0.09, +0.71], +0.42 "
                            "[+0.11, +0.72]) but training's gain not shown (+0.31 [-0.09, +0.72], +0.13 [-0.12, "
                            "+0.38]; explanations_occlusion). The plain linear readout (a node reaches the prediction"
                            " only through R's column sums; fresh seeds 30-39, explanations_linear_judged) gives "
                            "planted feature AUROC 0.85 [0.70, 1.01], but on motifs only 3 of 10 runs train (8 of 10 "
                            "on seeds 10-19; Fisher exact p = 0.07): training, not capacity (linear_readout_capacity,"
                            " closed form and scikit-learn: with q marking the motif a logistic regression reaches "
                            "0.84 to 0.87 and an MLP 0.83 to 0.85 on the raw vector, with one small q everywhere an "
                            "MLP 0.92 to 0.93 once the pooled vector is standardised and 0.48 to 0.50 raw, the bag of"
                            " node features 0.46 to 0.58). Standardising the pooled vector (linear_norm; proposed on "
                            "seeds 30-39, judged on 40-49, explanations_linear_norm_judged) fixed the training: "
                            "agreement +0.36 [+0.22, +0.51] and +0.66 [+0.51, +0.80], gain +0.33 [+0.00, +0.67] and "
                            "+0.21 [+0.05, +0.37], AUROC 0.56 [0.41, 0.71] and 0.56 [0.46, 0.66]; once the head can "
                            "rescale, nothing requires a large q on the label's nodes, so the AUROC measures how "
                            "strongly a model must amplify them. The earlier measure (mean AUROC over seeds 0-4, "
                            "trained or not: motifs 0.59, planted feature 0.75) is kept in the detail. Commands: "
                            "python bench/tikhonov_gnn.py --parts DIR --section explanations_confirm_1 (and _2, _3, _4; "
                            "359 s each on a quiet machine), --section explanations_final"
                            " (675 s on motifs, 392 s on planted feature, with --dataset), --section "
                            "explanations_final_node (680 s, 356 s), --section trend_explanations_shipped (130 s, its cells "
                            "through bench.run), "
                            "--section explanations_linear_norm_judged (433 s, 204 s), explanations_linear_judged "
                            "(525 s, 191 s), linear_readout_capacity (140 s), explanations_selected_laplacian (643 s,"
                            " 361 s), explanations_occlusion (639 s, 153 s), motif_evidence (304 s), motif_preset "
                            "(591 s), trend_explanations (186 s); then python bench/ledger.py tikhonov_gnn.",
                            trend="trend_explanations_shipped.trend")),
    "filter_reveals_homophily": Rule(
        checks=(Check("some", "claim", "the learned p's kind (low- or high-pass on the spectrum) per seed, on both "
                      "block models", _filter_kinds, Some(Flag("the kind the graph's homophily wants"))),
                Check("every", "part", "the same, every seed on both block models", _filter_kinds,
                      Every(Flag("the kind the graph's homophily wants"))),
                *(Check(n[4:], "reference", f"the {n[4:]} block model's known homophily: p {_WANT[n]} per seed",
                        lambda r, n=n: _filter_kinds(r, (n,)), Every(Flag(f"{_WANT[n]}"))) for n in _WANT),
                Check("shuffled", "null", "p learned on the same graphs with each training graph's node labels "
                      "shuffled (no homophily left to exploit): the kind the graph's homophily wants, every seed on "
                      "both block models", lambda r: _filter_kinds(r, field="shuffled_kind"),
                      Every(Flag("the kind the graph's homophily wants")))),
        partly=("some",)),
    "distinct_operators": Rule(
        checks=(Check("recovery", "claim", "largest relative error of the normalised explanation (q / c, p|spec / c, "
                      "c the mean of p on spec(L)) recovered from R alone, over the random graphs",
                      "identifiability.max_relative_recovery_error", Threshold(1e-6)),
                Check("same_r", "part", "largest gap between normalised explanations that give the same R",
                      "identifiability.max_normalised_gap_same_R", Threshold(1e-9)),
                Check("raw", "null", "smallest gap between raw parameter pairs (c q, c θ) that give the same R: the "
                      "claim read on raw parameters, which the scale symmetry of R = (p(L) + Q)^-1 Q predicts fails",
                      "identifiability.min_raw_parameter_gap_same_R", Threshold(1e-6))),
        partly=("recovery",)),
    "long_range": Rule(
        checks=(Check("smoothing_or_bottleneck", "claim", "oversmoothing (the energy check below) or oversquashing "
                      "(the bottleneck check below)", _either_long_range,
                      AnyOf((InBand("above"), PairedT(BOTTLENECK_BAR, "above")))),
                Check("smoothing", "part", "Dirichlet energy after one Tikhonov layer (q = 1, p = λ) against twice "
                      "GCN's at the depth that reaches every node of the BA graph (up to the input's energy)",
                      _smoothing, InBand("above")),
                Check("bottleneck", "part", "test accuracy of one Tikhonov layer reading a value across the farthest "
                      f"one-node-wide path, per seed (t interval over seeds) against {BOTTLENECK_BAR}; not tested "
                      f"unless the layer fit its own training graphs (training accuracy {FIT_GATE:g}) on most seeds",
                      _reach, PairedT(BOTTLENECK_BAR, "above")),
                *(Check(m, "part", f"Tikhonov's test accuracy minus {m.upper()}'s (as many layers as hops) across the "
                        "farthest path, paired by seed (same data and split, each model selected from the same budget), "
                        "tested as the bottleneck check is",
                        lambda r, m=m: _paired(r, m), PairedT(0.0, "above")) for m in ("gcn", "gin")),
                Check("cut", "null", "the same Tikhonov model and budget on the same graphs with the path cut (no "
                      "route from source to target): test accuracy per seed against chance, which a global receptive "
                      "field cannot beat without a leak", lambda r: _accuracies(r, cut=True), PairedT(0.5, "above"))),
        reproduced=("smoothing_or_bottleneck", "smoothing", "bottleneck", "gcn", "gin", "cut"),
        partly=("smoothing_or_bottleneck",),
        diagnosis=Diagnosis("method", "Our training, not the layer's reach, so the oversquashing half is not "
                            "tested: the verdict is partly on oversmoothing alone. At the farthest distance (16 hops) "
                            "4 of 5 Tikhonov runs did not fit their own training graphs (training accuracy 0.50 to "
                            "0.65), and a bottleneck verdict on a model that did not train would judge our optimiser "
                            "(the rule gates it: most seeds must fit, training accuracy 0.9), "
                            "while at 8 hops 4 of 5 read the value (1.00) where GCN and GIN sit at chance (0.48, "
                            "0.43), the cut-path null stays at chance (0.50: no leak), and with q set by hand one layer reads the "
                            "value 16 hops away on 2 of 3 design seeds (trained 600 epochs instead of 200: 1 of 3). "
                            "The earlier figure (0.40 at 8 hops, one seed, lr 0.01, 60 epochs; kept under "
                            "long_range.earlier) came from the flat start, where R is diagonal and an 8-hop signal "
                            "sends no gradient; the Laplacian start and the selection from six configurations fixed "
                            "8 hops, not 16. What 16 hops asks of q (closed form, no training; section "
                            "long_range_leak): with q = 10 at the source and p(λ) = λ, the target reads the source's "
                            "sign at 0.53 when every other node has q = 0.01, 0.93 at 0.003 and 1.00 at 0.001 (at 8 "
                            "hops 0.85, 1.00, 1.00): the other nodes' q, relative to p's scale, must fall about tenfold "
                            "below the budget's q_init (0.01, 0.05), close to the floor eps_q = 0.001, and the hand-set "
                            "probe's 0.01 elsewhere reads only where training raised p's scale. A small q everywhere "
                            "is needed, not enough: on the design seeds (section long_range_small_q, 200 epochs from "
                            "the Laplacian start) q_init 0.01 and 0.002 each fit 1 of 3 (seed 1; seeds 0 and 2 at "
                            "0.50 to 0.57), and q_init 0.0005 with eps_q 1e-5 none, at lr 0.003 or 0.01: the source's "
                            "q must also rise by orders of magnitude. Nor is the parameterisation the obstacle "
                            "(section long_range_log_scale, the same design seeds and budget with q = exp(.) + eps and "
                            "p's scale exp(s) learned, so q against p moves by orders of magnitude within the steps): "
                            "again only seed 1 fits (2 of 4 starts, q at the source 1.37 and 2.47 against at most 0.06 "
                            "elsewhere), seeds 0 and 2 stay at 0.54 to 0.64 with q at the source no larger than "
                            "elsewhere and p's learned scale falling (0.73 to 0.94, where a rise would help), and lr "
                            "0.01 diverges once. Where training fails, q never singles out the source: at 16 hops even "
                            "q = 10 at the source gives it only 0.07 of the target's row of R while the others keep "
                            "0.01 (long_range_leak), and at the start, with q equal everywhere, less: too weak a signal"
                            " against the other nodes' random values for the gradient to find. Open: a curriculum over distance or an optimiser change given to every model alike."
                            " Commands: python -m bench.run tikhonov_gnn --grid long_range_near "
                            "(and long_range_mid, long_range_far, long_range_far_b, long_range_far_c; each under 20 minutes on 2 Ray workers); python "
                            "bench/tikhonov_gnn.py --parts DIR --section long_range; python bench/tikhonov_gnn.py --parts DIR --section long_range_capacity; --section long_range_leak "
                            "(under a second); --section long_range_small_q (168 s); --section long_range_log_scale (101 s); python "
                            "bench/ledger.py tikhonov_gnn.", trend="long_range.trend")),
}

"""The GRACE paper's headline claims, checked by ``bench/grace.py`` on the harder world of ``scenes.py``."""

import numpy as np

from core.common.claims import Claim
from core.common.decisions import Every, Interval, Some, Threshold
from core.common.rules import Check, Diagnosis, Rule
from core.grace.compare import NAMED, NULLS, REFERENCE
from core.grace.transfer import IN_DOMAIN

CLAIMS = (
    Claim("human_aligned",
          "GRACE's concept decompositions are aligned with human perception.",
          "Measures that read the concepts' names, on held-out images and clips: per-attribute agreement of the "
          "largest code with the main object's value, per-object recall of each object's words among the top "
          "concepts, top-K precision, and concept retrieval precision@50 (does the code for 'red' retrieve red "
          "objects); GRACE minus each null, intervals over replicates and over scenes; how close GRACE comes to "
          "CLIP's zero-shot classifier over the same words.",
          "Nulls, which must fail: GRACE's map with shuffled concept labels, and GRACE's objective fitted on a random "
          "dictionary named by the words at GRACE's L0. References: SpLiCE (not ahead of GRACE), and the zero-shot "
          "classifier ReLU(z·Dᵀ) (GRACE's initialisation, no fitting), a bar reported, not required."),
    Claim("geometry_preserving",
          "GRACE's objective preserves the geometric relations of samples in concept space.",
          "Trustworthiness of the concept codes' neighbourhoods at matched sparsity, over replicates, against "
          "SpLiCE, the no-fitting control and GRACE without its geometry term.",
          "GRACE without the geometry term (ablation), the no-fitting control and SpLiCE; the shuffled-label "
          "control equals GRACE on this name-free measure by construction."),
    Claim("global_structure",
          "Learning concepts globally over the feature space captures structure that per-sample decompositions miss.",
          "Transfer across domain, task and scene family: every map fitted on the source only reads held-out "
          "target scenes, images to clips (eight moving frames; motion replaces position; scored on shape, colour "
          "and size) and scenes whose main object is a circle, square or triangle to scenes of crosses, diamonds "
          "and rings (every attribute); per scene, the share of scored attributes whose largest code is the true "
          "value; GRACE minus SpLiCE (per-sample, λ from the source), intervals over replicates and over scenes.",
          "SpLiCE; nulls in GRACE's place, which must fail: shuffled labels and the random dictionary; references: "
          "GRACE fitted on the target itself (in domain) and the zero-shot classifier (no fitting)."),
    Claim("preserves_performance",
          "GRACE preserves most of the model's original performance.",
          "Zero-shot accuracy from the reconstructed embeddings against the raw embeddings, on every replicate, "
          "with the small CLIP below the ceiling in the harder world.",
          "Null: each scene reconstructed from another scene's GRACE codes (a derangement of the held-out scenes), "
          "which must lose; references: the raw embeddings' zero-shot accuracy (below ceiling, so that a loss can "
          "show, and above chance) and the no-fitting reconstructions, which keep it as well."),
)

_KINDS = ("image", "video")   # images and clips, as far as the results hold them
HEADLINE = ("concept-attribute agreement", "object recall (main)", "retrieval P@50")


def _kinds(result):
    return [k for k in _KINDS if k in result["summaries"]]


def _intervals(result, kind, other, metric):
    """GRACE − other on a metric: its t interval over replicates and, for per-scene metrics, its scene bootstrap."""
    d = result["summaries"][kind]["differences"][other][metric]
    return [tuple(d["ci95_seeds"])] + ([tuple(d["ci95_scenes"])] if "ci95_scenes" in d else [])


def _all_intervals(result, others, metric):
    return [iv for k in _kinds(result) for o in others for iv in _intervals(result, k, o, metric)]


def _lows(result, other, metric):
    return [low for low, _ in _all_intervals(result, (other,), metric)]


def null_gap(summary, metric):
    """Random dictionary − shuffled labels on ``metric`` per replicate (from the stored GRACE − each), with its t
    interval: the claim's test run on a null in GRACE's place."""
    from core.grace.compare import t_interval

    d = summary["differences"]
    values = np.array(d["shuffled labels"][metric]["values"]) - np.array(d["random dictionary"][metric]["values"])
    return {"mean": float(values.mean()), "values": values.tolist(), "ci95_seeds": t_interval(values)}


TRANSFERS = ("transfer", "family_transfer")    # images to clips; one scene family to another (core.grace.transfer)


def _transfer(result, a, b, name):
    """A − B on one transfer: its t interval over replicates and its scene bootstrap."""
    d = result[name]["differences"][a][b]
    return [tuple(d["ci95_seeds"]), tuple(d["ci95_scenes"])]


def _transfers(result, a, b):
    """A − B on every transfer, one list of intervals per transfer."""
    return [_transfer(result, a, b, name) for name in TRANSFERS]


def _ratios(result, method, metric="zero-shot (mean)"):
    """``method``'s ``metric`` (zero-shot accuracy of its reconstructions, or of another scene's) over the raw
    embeddings' zero-shot accuracy, per replicate, images and clips."""
    return [float(v) for k in _kinds(result)
            for v in np.array(_zero_shot(result, k, method, metric)) / np.array(_zero_shot(result, k, "raw embeddings"))]


def _zero_shot(result, kind, method, metric="zero-shot (mean)"):
    s = result["summaries"][kind]
    return (s["raw embeddings"] if method == "raw embeddings" else s["methods"][method])[metric]["values"]


RULES = {
    "human_aligned": Rule(
        checks=(Check("beats_nulls", "claim", "GRACE − each null (shuffled labels, random dictionary) on the headline "
                      "named measures (attribute agreement, main-object recall, retrieval P@50): t interval over "
                      "replicates and scene bootstrap, images and clips",
                      lambda r: [iv for m in HEADLINE for iv in _all_intervals(r, NULLS, m)],
                      Every(Interval(0.0, "above"))),
                Check("beats_nulls_all", "part", "GRACE − each null on every named measure (clutter recall and top-K "
                      "precision too), images and clips",
                      lambda r: [iv for m in NAMED for iv in _all_intervals(r, NULLS, m)],
                      Every(Interval(0.0, "above"))),
                Check("random_dictionary", "null", "the claim's test with the random dictionary in GRACE's place: "
                      "random dictionary − shuffled labels on the headline measures, t interval over replicates, "
                      "images and clips",
                      lambda r: [tuple(null_gap(r["summaries"][k], m)["ci95_seeds"]) for m in HEADLINE
                                 for k in _kinds(r)], Every(Interval(0.0, "above"))),
                Check("splice", "reference", "GRACE − SpLiCE per named measure and kind: the larger upper end of its "
                      "intervals (a SpLiCE lead would put both below 0)",
                      lambda r: [max(hi for _, hi in _intervals(r, k, "SpLiCE", m)) for m in NAMED for k in _kinds(r)],
                      Every(Threshold(0.0, "above", strict=False))),
                Check("zero_shot", "reference", "GRACE − the zero-shot classifier (no fitting) on the headline "
                      "measures, images and clips: the larger upper end of its intervals (reported: how close GRACE "
                      "comes to the bar, not required)",
                      lambda r: [max(hi for _, hi in _intervals(r, k, REFERENCE, m)) for m in HEADLINE
                                 for k in _kinds(r)], Every(Threshold(0.0, "above", strict=False)))),
        reproduced=("beats_nulls", "beats_nulls_all", "random_dictionary", "splice"),
        diagnosis=Diagnosis(
            "genuine",
            "GRACE beats both nulls on every named measure in images and clips, and the random dictionary fails the "
            "same test (python bench/grace.py --no-page); what stops 'reproduced' is the SpLiCE reference: SpLiCE "
            "recalls the clutter objects' words better (images -0.038 (-0.048, -0.028), clips -0.043 (-0.060, "
            "-0.025)), while GRACE leads it on the main object's attributes, main-object recall and retrieval. Our "
            "scoring is not the cause: the t interval and the scene bootstrap are calibrated (tests/bench/"
            "test_grace_intervals.py) and the L0s are matched. The lead does not close with data: GRACE - SpLiCE "
            "on clutter recall at 250, 1000, 4000, 16000 fit scenes is -0.044, -0.034, -0.027, -0.034 on images and "
            "-0.046, -0.042, -0.036, -0.053 on clips (python -m bench.run grace --grid scale; python bench/grace.py "
            "--scale-trend). Its mechanism is the geometry term of our reading of the objective: without it "
            "(gamma = 0, the bench's ablation) GRACE leads SpLiCE on clutter recall +0.029 (+0.012, +0.046) on "
            "images; the neighbourhood term pulls the codes toward the main object, which dominates the embeddings' "
            "neighbourhoods. Old figure (3 replicates of 500/400 and 300/200 scenes, 2026-12-01): not reproduced "
            "against the no-fitting control, then counted as a null (agreement 0.856 vs 0.887).",
            trend="scale_trend.rows")),
    "geometry_preserving": Rule(
        checks=(Check("some_comparison", "claim", "GRACE − SpLiCE and GRACE − no fitting on trustworthiness (t interval "
                      "over replicates, images and clips), and GRACE − GRACE without its geometry term (paired replicates)",
                      lambda r: [_all_intervals(r, ("SpLiCE",), "trustworthiness"),
                                 _all_intervals(r, ("no fitting",), "trustworthiness"),
                                 [tuple(r["geometry_term_trustworthiness_gain"]["ci95_seeds"])]],
                      Some(Every(Interval(0.0, "above")))),
                Check("splice", "reference", "GRACE − SpLiCE on trustworthiness, images and clips",
                      lambda r: _all_intervals(r, ("SpLiCE",), "trustworthiness"), Every(Interval(0.0, "above"))),
                Check("no_fitting", "null", "low ends of GRACE − no fitting on trustworthiness, images and clips",
                      lambda r: _lows(r, "no fitting", "trustworthiness"), Some(Threshold(0.0, "below", strict=False))),
                Check("ablation", "null", "low end of GRACE − GRACE without its geometry term on trustworthiness",
                      "geometry_term_trustworthiness_gain.ci95_seeds.0", Threshold(0.0, "below", strict=False))),
        reproduced=("some_comparison", "splice", "no_fitting", "ablation")),
    "global_structure": Rule(
        checks=(Check("transfer_splice", "claim", "attribute agreement after transfer (images to clips on shape, colour "
                      "and size; one scene family to another on every attribute): GRACE − SpLiCE, t interval over "
                      "replicates and scene bootstrap, in some transfer",
                      lambda r: _transfers(r, "GRACE", "SpLiCE"), Some(Every(Interval(0.0, "above")))),
                Check("transfer_splice_all", "part", "GRACE − SpLiCE in both transfers",
                      lambda r: [iv for t in _transfers(r, "GRACE", "SpLiCE") for iv in t],
                      Every(Interval(0.0, "above"))),
                Check("transfer_beats_nulls", "part", "GRACE − each null (shuffled labels, random dictionary) in both "
                      "transfers, t interval over replicates and scene bootstrap",
                      lambda r: [iv for n in NULLS for t in _transfers(r, "GRACE", n) for iv in t],
                      Every(Interval(0.0, "above"))),
                Check("transfer_nulls", "null", "the claim's test with each null in GRACE's place: null − SpLiCE, per "
                      "null and transfer",
                      lambda r: [t for n in NULLS for t in _transfers(r, n, "SpLiCE")], Some(Every(Interval(0.0, "above")))),
                Check("in_domain", "reference", "GRACE from the source − GRACE fitted on the target, on the target: the "
                      "larger upper end of its intervals, per transfer (as good as in domain; reported)",
                      lambda r: [max(hi for _, hi in t) for t in _transfers(r, "GRACE", IN_DOMAIN)],
                      Every(Threshold(0.0, "above", strict=False))),
                Check("zero_shot", "reference", "GRACE − the zero-shot classifier (no fitting) after transfer: the "
                      "larger upper end of its intervals, per transfer (reported)",
                      lambda r: [max(hi for _, hi in t) for t in _transfers(r, "GRACE", REFERENCE)],
                      Every(Threshold(0.0, "above", strict=False)))),
        reproduced=("transfer_splice", "transfer_splice_all", "transfer_beats_nulls", "transfer_nulls")),
    "preserves_performance": Rule(
        checks=(Check("keeps", "claim", "zero-shot accuracy from GRACE's reconstructions / from the raw embeddings, "
                      "every replicate, images and clips",
                      lambda r: _ratios(r, "GRACE"),
                      Every(Threshold(0.9, "above", strict=False))),
                Check("scenes_permuted", "null", "the claim's test on each scene reconstructed from another scene's "
                      "GRACE codes: zero-shot accuracy / the raw embeddings', every replicate, images and clips",
                      lambda r: _ratios(r, "GRACE", "zero-shot (scenes permuted)"), Every(Threshold(0.9, "above", strict=False))),
                Check("no_fitting", "reference", "the same ratio for the no-fitting reconstructions (reported: the "
                      "zero-shot classifier keeps it as well)", lambda r: _ratios(r, REFERENCE),
                      Every(Threshold(0.9, "above", strict=False))),
                Check("below_ceiling", "reference", "the raw embeddings' mean zero-shot accuracy, images and clips "
                      "(under 0.99 somewhere, so a loss can show)",
                      lambda r: [float(np.mean(_zero_shot(r, k, "raw embeddings"))) for k in _kinds(r)],
                      Some(Threshold(0.99))),
                Check("informative", "reference", "the raw embeddings' mean zero-shot accuracy, images and clips "
                      "(chance about 0.21)",
                      lambda r: [float(np.mean(_zero_shot(r, k, "raw embeddings"))) for k in _kinds(r)],
                      Every(Threshold(0.5, "above", strict=False)))),
        reproduced=("keeps", "scenes_permuted", "below_ceiling", "informative")),
}

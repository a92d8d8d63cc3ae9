"""The hierarchical driving world model's headline claims, checked by ``bench/driving_world_model.py``."""

import numpy as np

from core.common.claims import Claim
from core.common.decisions import Every, Some, Threshold
from core.common.rules import Check, Rule

CLAIMS = (
    Claim("df_richer_representations",
          "Pretraining with diffusion forcing yields substantially richer internal representations than teacher "
          "forcing.",
          "Held-out R² of ridge probes from the GRU state to ego speed, lane and lead gap (mean over the three), flat "
          "DF against flat TF at equal steps, over training seeds.",
          "Probes fitted on shuffled targets (R² near or below 0) and the untrained network's features."),
    Claim("tf_stable_rollouts",
          "Teacher forcing (clean context, next frame only) gives more stable autoregressive rollouts; fine-tuning the "
          "DF model with TF keeps that stability.",
          "Vehicle IoU at horizon 32 of autoregressive rollouts from 9 context frames, TF and DF→TF against DF, over "
          "training seeds.",
          "The copy-last-frame baseline (IoU of the last context frame against each future frame)."),
    Claim("hierarchy_long_horizon",
          "Factorising prediction into a coarse long-horizon predictor and a detailed generator conditioned on it gives "
          "better long-horizon fidelity than a flat model.",
          "IoU and error against horizon 1..32, hierarchical DF→TF against flat DF→TF.",
          "The same low-level generator fed ground-truth keyframes (an upper bound) and the flat model."),
    Claim("steering_responsiveness",
          "The hierarchical model responds to steering on counterfactual scenarios.",
          "Spearman's rho of commanded heading (5 values, held 8 frames) against generated lateral shift (road-channel "
          "detector), centred per context; the issue's threshold is 0.8.",
          "The same hierarchy trained on shuffled actions (rho near 0) and the simulator's own shifts (rho near 1)."),
)


def _probe(result, name):
    """Mean held-out probe R² over probe sets and targets (speed, lane, gap)."""
    return float(np.mean(np.asarray(result["probes"][name]["r2"])))


def _per_set(result):
    """Per probe set, flat DF's and flat TF's mean R² over the targets."""
    r2 = {n: np.asarray(result["probes"][n]["r2"]).mean(1) for n in ("flat_df", "flat_tf")}
    return r2["flat_df"], r2["flat_tf"]


def _at(result, name, key, step):
    """Mean over evaluation seeds of ``key`` (iou, mse) at horizon step ``step``."""
    return float(np.mean(np.asarray(result["evaluations"][name][key])[:, step]))


def _mean_iou(result, name):
    """Mean IoU over every frame of the 32-frame horizon and every evaluation seed."""
    return float(np.mean(np.asarray(result["evaluations"][name]["iou"])))


def _spearman(result, name):
    return float(np.mean(result["evaluations"][name]["spearman"]))


RULES = {
    "df_richer_representations": Rule(
        checks=(Check("majority", "claim", "share of probe sets on which flat DF's mean R² exceeds flat TF's",
                      lambda r: float(np.mean(_per_set(r)[0] > _per_set(r)[1])), Threshold(0.5, "above")),
                Check("every_set", "part", "flat DF's mean R² less flat TF's, per probe set",
                      lambda r: [float(d - t) for d, t in zip(*_per_set(r))],
                      Every(Threshold(0.0, "above"))),
                Check("margin", "part", "mean probe R² of flat DF less flat TF's", lambda r: _probe(r, "flat_df")
                      - _probe(r, "flat_tf"), Threshold(0.05, "above")),
                Check("untrained", "null", "mean probe R² of flat DF less the untrained network's",
                      lambda r: _probe(r, "flat_df") - _probe(r, "untrained_flat"),
                      Threshold(0.05, "below", strict=False)),
                Check("shuffled", "null", "held-out R² of probes fitted on shuffled targets, flat DF and flat TF, every "
                      "set and target",
                      lambda r: [float(x) for n in ("flat_df", "flat_tf")
                                 for x in np.ravel(r["probes"][n]["r2_shuffled"])],
                      Some(Threshold(0.1, "above", strict=False))),
                Check("training_seeds", "part", "number of training seeds", lambda r: len(r["scale"]["training_seeds"]),
                      Threshold(2, "above", strict=False))),
        partly=("majority", "shuffled")),
    "tf_stable_rollouts": Rule(
        checks=(Check("mse", "claim", "MSE@32 of flat TF and of flat DF→TF less flat DF's, mean over evaluation seeds",
                      lambda r: [_at(r, n, "mse", -1) - _at(r, "flat_df", "mse", -1) for n in ("flat_tf", "flat_dftf")],
                      Every(Threshold(0.0))),
                Check("iou", "part", "IoU@32 of flat TF and of flat DF→TF less flat DF's",
                      lambda r: [_at(r, n, "iou", -1) - _at(r, "flat_df", "iou", -1) for n in ("flat_tf", "flat_dftf")],
                      Every(Threshold(0.0, "above"))),
                Check("copy_last", "null", "IoU@32 of the copy-last-frame baseline less flat TF's and less flat DF→TF's",
                      lambda r: [_at(r, "copy_last", "iou", -1) - _at(r, n, "iou", -1) for n in ("flat_tf", "flat_dftf")],
                      Some(Threshold(0.0, "above", strict=False))))),
    "hierarchy_long_horizon": Rule(
        checks=(Check("iou_not_below", "claim", "mean IoU over 32 frames and evaluation seeds, hierarchical DF→TF less "
                      "flat DF→TF", lambda r: _mean_iou(r, "hier_dftf") - _mean_iou(r, "flat_dftf"),
                      Threshold(0.0, "above", strict=False)),
                Check("iou_above", "part", "the same difference of mean IoU",
                      lambda r: _mean_iou(r, "hier_dftf") - _mean_iou(r, "flat_dftf"), Threshold(0.0, "above")),
                Check("mse", "part", "MSE@32, hierarchical DF→TF less flat DF→TF",
                      lambda r: _at(r, "hier_dftf", "mse", -1) - _at(r, "flat_dftf", "mse", -1), Threshold(0.0)),
                Check("true_keyframes", "reference", "IoU@32 of the low level fed ground-truth keyframes (the "
                      "hierarchy's upper bound) less flat DF→TF's",
                      lambda r: _at(r, "low_dftf_true_keyframes", "iou", -1) - _at(r, "flat_dftf", "iou", -1),
                      Threshold(0.0, "above")))),
    "steering_responsiveness": Rule(
        checks=(Check("responds", "claim", "Spearman's ρ of commanded heading against lateral shift, hierarchical DF→TF, "
                      "mean over evaluation seeds", lambda r: _spearman(r, "hier_dftf"), Threshold(0.5, "above")),
                Check("threshold", "part", "the same ρ against the issue's threshold",
                      lambda r: _spearman(r, "hier_dftf"), Threshold(0.8, "above", strict=False)),
                Check("shuffled_actions", "null", "|ρ| of the hierarchy trained on shuffled actions",
                      lambda r: abs(_spearman(r, "hier_shuffled")), Threshold(0.3, "above", strict=False)),
                Check("simulator", "reference", "the simulator's own ρ, each evaluation seed", "truth_steering.spearman",
                      Every(Threshold(0.9, "above")))),
        partly=("responds", "shuffled_actions")),
}

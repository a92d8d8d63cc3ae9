"""Shipped checkpoints and first-view arrays, and the command that regenerates them.

    python -m core.hebbian_memory.ship                      # train the four networks, then the views
    python -m core.hebbian_memory.ship train plastic lstm   # train some (in parallel processes) ...
    python -m core.hebbian_memory.ship views                # ... then write the views from them

Trains (seed 0) the plastic Hebb-RNN, its α = 0 control and an LSTM on rank recall with explicit
chunk cues, and a plastic network on lexicon sequences whose only chunk signal is the predictive
module's surprise; writes them to ``assets/hebbian_memory/models/<name>/`` (safetensors + JSON), and
the page's first view to ``view.npz`` (PCA of the condition means, one episode's Hebbian trace,
the surprise trace) and ``summary.json`` (recall, geometry and boundary scores). Loading the view
needs numpy only.
"""

from __future__ import annotations

import json
from dataclasses import asdict

import numpy as np

from core.common.assets import asset_dir
from core.common.seeding import derive_seed

ASSETS = asset_dir("hebbian_memory")
MODELS = ASSETS / "models"
VIEW, SUMMARY = ASSETS / "view.npz", ASSETS / "summary.json"
SEED = 0
STEPS = 1500
NETWORKS = ("plastic", "nonplastic", "lstm", "plastic_predicted")
TRACE_UNITS = 24


def shipped_view() -> dict | None:
    """The first view's arrays by name (None when the assets are missing)."""
    if not VIEW.is_file():
        return None
    with np.load(VIEW) as z:
        return {k: z[k] for k in z.files}


def shipped_summary() -> dict | None:
    """Recall, geometry and boundary figures of the shipped networks (None when missing)."""
    return json.loads(SUMMARY.read_text()) if SUMMARY.is_file() else None


def network_configs(name: str):
    from core.hebbian_memory.model import ModelConfig
    from core.hebbian_memory.tasks import TaskConfig

    if name == "plastic_predicted":
        return TaskConfig(items="lexicon", cues="predicted"), ModelConfig(kind="plastic")
    return TaskConfig(), ModelConfig(kind=name)


def train_networks(steps: int = STEPS, seed: int = SEED, progress=None, names=NETWORKS) -> dict:
    from core.common.progress import TqdmProgress
    from core.hebbian_memory.training import TrainConfig, meta_train, save_model

    out = {}
    for name in names:
        task, model = network_configs(name)
        run = meta_train(task, model, TrainConfig(steps=steps), seed, progress or TqdmProgress(desc=name))
        save_model(run, MODELS / name, {"command": "python -m core.hebbian_memory.ship"})
        out[name] = run
    return out


def trace_movie(trained, seed: int = SEED) -> dict:
    """One episode's Hebbian trace at every step, on the units whose trace varies most."""
    import torch

    from core.hebbian_memory.tasks import rank_recall_episodes
    from core.hebbian_memory.training import recall_loss

    ep = rank_recall_episodes(trained.task, 1, derive_seed(seed, "movie"))
    with torch.no_grad():
        _, _, traj = recall_loss(trained.net, ep, record_trace=True)
    traces = traj.traces.numpy()
    units = np.sort(np.argsort(traces[trained.task.length - 1].std(axis=1))[::-1][:TRACE_UNITS])
    return {"trace": traces[:, units][:, :, units].astype(np.float16), "trace_units": units,
            "trace_eta": traj.eta[0].numpy(), "trace_targets": ep.targets[0],
            "trace_input_kind": np.array([0] * trained.task.length + [1] * trained.task.delay
                                         + [2, 3] * trained.task.probes)}


def write_assets(steps: int = STEPS) -> tuple:
    from core.hebbian_memory.geometry import ordinal_geometry, untrained_like
    from core.hebbian_memory.predictive import boundary_score, untrained_predictor
    from core.hebbian_memory.tasks import rank_recall_episodes
    from core.hebbian_memory.training import evaluate_recall, load_model

    ASSETS.mkdir(parents=True, exist_ok=True)
    if steps > 0:
        train_networks(steps)
    nets = {name: load_model(MODELS / name) for name in NETWORKS}
    recall = {name: asdict(evaluate_recall(net, 512)) for name, net in nets.items()}
    geoms = {"plastic": ordinal_geometry(nets["plastic"]), "untrained": ordinal_geometry(untrained_like(nets["plastic"])),
             "plastic_predicted": ordinal_geometry(nets["plastic_predicted"])}
    pred = nets["plastic_predicted"]
    ep = rank_recall_episodes(pred.task, 200, derive_seed(SEED, "boundaries"), pred.lexicon, pred.predictor)
    scores = {"trained": asdict(boundary_score(pred.predictor, ep.tokens, ep.boundaries)),
              "untrained": asdict(boundary_score(untrained_predictor(pred.lexicon, pred.predictor.threshold),
                                                 ep.tokens, ep.boundaries))}
    stream = ep.tokens[:2].reshape(1, -1)          # two episodes back to back: six words
    truth = ep.boundaries[:2].reshape(1, -1)
    view = {"geom_names": np.array(list(geoms)), "geom_coords": np.stack([g.coords for g in geoms.values()]),
            "geom_explained": np.stack([g.explained for g in geoms.values()]),
            "surprise": pred.predictor.surprise(stream)[0], "surprise_untrained":
                untrained_predictor(pred.lexicon, pred.predictor.threshold).surprise(stream)[0],
            "surprise_truth": truth[0], "surprise_detected": pred.predictor.boundaries(stream)[0],
            "surprise_tokens": stream[0], **trace_movie(nets["plastic"])}
    np.savez_compressed(VIEW, **view)
    summary = {"seed": SEED, "steps": int(nets["plastic"].done), "recall": recall,
               "geometry": {k: {f: float(getattr(g, f)) for f in ("cos_axes", "top2", "ccgp_position", "ccgp_chunk",
                                                                   "chance_position", "chance_chunk")}
                            for k, g in geoms.items()},
               "boundaries": scores, "threshold": pred.predictor.threshold,
               "curves": {name: {"steps": net.steps.tolist(), "accuracy": net.accuracy.tolist()}
                          for name, net in nets.items()}}
    SUMMARY.write_text(json.dumps(summary, indent=1, default=lambda o: np.asarray(o).tolist()) + "\n")
    return VIEW, SUMMARY


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["train"]:        # one network (to train the four in parallel), then "views"
        train_networks(names=tuple(sys.argv[2:]))
    elif sys.argv[1:2] == ["views"]:
        print("wrote", *write_assets(0))
    else:
        print("wrote", *write_assets())

"""Hebb-RNN: fast Hebbian plasticity folds sequence order into an orthogonal 2-D geometry.

The paper's claim: a recurrent network with fast Hebbian plasticity, meta-trained on rank-recall
tasks, recalls novel item–rank bindings and hierarchical sequences better than control models,
develops an orthogonal 2-D ordinal code (chunk rank × within-chunk rank, as in human MEG/EEG and
macaque PFC recordings), learns new tasks faster from that pre-learned scaffold, and, with a
predictive module, acquires the hierarchy without explicit chunking signals.

What is ours (only the abstract was available), each documented where it lives:

- the task (:mod:`.tasks`): 3 chunks × 3 items, novel ±1 items per episode, a two-step probe
  (cue, then response) naming the rank as (chunk, position) one-hots, the recall softmax over the
  episode's own items; our own generators (neurogym cannot be installed with the pins);
- the network (:mod:`.model`): Backpropamine's plastic RNN (learned α per synapse, a scalar
  neuromodulated rate, decay, clipping) with the same-step co-activity h_t h_tᵀ by default;
  the α = 0 and LSTM controls; meta-training by BPTT with Adam (:mod:`.training`);
- the geometry (:mod:`.geometry`): measured on encoding states; axes as first PCs of the chunk
  and position means; CCGP with logistic decoders held out across conditions;
- the transfer task (:mod:`.transfer`): successor recall, scaffold fine-tuning against scratch;
- the predictive module (:mod:`.predictive`): a next-syllable softmax predictor trained online on
  a stream of recurring words; its surprise above a threshold is the chunk cue.
"""

from core.hebbian_memory.geometry import Geometry, ordinal_geometry, untrained_like
from core.hebbian_memory.model import KINDS, ModelConfig, RecurrentMemory, Trajectory, hebbian_step
from core.hebbian_memory.predictive import (BoundaryScore, NextItemPredictor, PredictorConfig, boundary_score,
                                            train_predictor, untrained_predictor)
from core.hebbian_memory.tasks import (Episodes, Lexicon, TaskConfig, make_lexicon, rank_recall_episodes,
                                       word_stream)
from core.hebbian_memory.training import (Recall, TrainConfig, TrainedModel, evaluate_recall, load_model,
                                          meta_train, save_model)
from core.hebbian_memory.transfer import Transfer, TransferConfig, steps_to_threshold, transfer_run

from core.hebbian_memory.claims import CLAIMS  # noqa: E402

__all__ = [
    "CLAIMS", "TaskConfig", "Episodes", "Lexicon", "make_lexicon", "word_stream", "rank_recall_episodes",
    "KINDS", "ModelConfig", "RecurrentMemory", "Trajectory", "hebbian_step",
    "TrainConfig", "TrainedModel", "Recall", "meta_train", "evaluate_recall", "save_model", "load_model",
    "PredictorConfig", "NextItemPredictor", "BoundaryScore", "train_predictor", "untrained_predictor",
    "boundary_score", "Geometry", "ordinal_geometry", "untrained_like",
    "TransferConfig", "Transfer", "transfer_run", "steps_to_threshold",
]

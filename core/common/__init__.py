"""Plumbing shared by every system: seeding, progress, configs, checkpoints, devices, results, assets.

- :class:`Config` with :func:`param`/:func:`choice`: frozen, validated configs whose errors name the
  field and the allowed range (``check_range``/``check_choice`` for arguments outside a config).
- The progress protocol (:class:`Progress`, :func:`report`, :class:`ProgressLog`, :class:`TqdmProgress`):
  one callback drives a live page, a tqdm bar and a test, and can stop a run.
- Seeds: :func:`make_rng`, :func:`derive_seed`/:func:`derive_rng` (SeedSequence children, never seed
  arithmetic), :func:`torch_seeded`.
- Checkpoints in safetensors + JSON (:func:`save_checkpoint`, :func:`load_checkpoint`), never pickles.
- Helpers two systems need: TU-format graph datasets shipped inside grakel (:func:`load_mutag`,
  :func:`load_cuneiform`) and the shipped MiniLM sentence embedder (:func:`embed_sentences`).
- :func:`choose_device`, :func:`asset_dir`, and result export (:func:`result_to_dict`, ``_json``, ``_frame``).
"""

from core.common.assets import ASSETS_ROOT, asset_dir
from core.common.checkpoint import load_checkpoint, save_checkpoint
from core.common.config import Config, choice, check_choice, check_range, param
from core.common.device import choose_device
from core.common.graphs import Dataset, Graph, load_cuneiform, load_mutag, read_tu_graphs
from core.common.progress import Progress, ProgressLog, TqdmProgress, report
from core.common.results import result_to_dict, result_to_frame, result_to_json
from core.common.text_embedding import embed_sentences, sentence_encoder
from core.common.seeding import check_seed, derive_rng, derive_seed, make_rng, make_torch_generator, torch_seeded

__all__ = [
    "Config", "param", "choice", "check_range", "check_choice",
    "Progress", "ProgressLog", "TqdmProgress", "report",
    "make_rng", "make_torch_generator", "torch_seeded", "check_seed", "derive_seed", "derive_rng",
    "save_checkpoint", "load_checkpoint",
    "choose_device",
    "asset_dir", "ASSETS_ROOT",
    "Graph", "Dataset", "read_tu_graphs", "load_mutag", "load_cuneiform",
    "embed_sentences", "sentence_encoder",
    "result_to_dict", "result_to_json", "result_to_frame",
]

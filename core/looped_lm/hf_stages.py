"""Stages of inference in a local Hugging Face causal LM: the feedforward side of the comparison.

The paper compares the looped block's stages with those of feedforward models; this reads the same
lens metrics as :mod:`.stages` off any causal LM a user has on disk (nothing is downloaded:
``local_files_only``). ``output_hidden_states`` gives the embedding and the residual stream after
each layer; the logit lens at a layer is ``lm_head(final_norm(h))``. Our choices:

- every position that has a next token is read out, and the "correct token" is that next token;
  agreement is with the model's own top-1 prediction at the same position;
- the last depth is the model's own output logits (not a lens of ``hidden_states[-1]``, which some
  architectures return already normalised and others not), so its agreement is 1 by construction;
- the final norm is found by name on the base model (``ln_f`` for GPT-2, ``norm`` for Llama-style,
  ``decoder.final_layer_norm`` for OPT); a model without one is read through ``lm_head`` directly.

:func:`profile_causal_lm` is the two together (load, then profile) with the progress protocol, for
the page's live panel: loading a real model takes seconds to minutes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from core.common.progress import report
from core.looped_lm.config import SAMPLE_TEXT  # noqa: F401 (re-exported: the default text)
from core.looped_lm.metrics import matrix_entropy
from core.looped_lm.stages import StageProfile, _readout


def load_causal_lm(model_dir: str | Path):
    """(model, tokenizer) from a local directory holding a Hugging Face causal LM and its tokenizer."""
    from transformers.models.auto.modeling_auto import AutoModelForCausalLM
    from transformers.models.auto.tokenization_auto import AutoTokenizer

    path = Path(str(model_dir)).expanduser()
    if not (path / "config.json").is_file():
        raise ValueError(f"model_dir: {str(model_dir)!r} holds no config.json; allowed a local directory with a "
                         "Hugging Face causal LM and its tokenizer (save_pretrained)")
    try:
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True).eval()
    except (OSError, ValueError, KeyError) as error:
        raise ValueError(f"model_dir: {path} could not be loaded as a causal LM ({error}); allowed a directory "
                         "written by save_pretrained for a model and its tokenizer") from error
    return model, tokenizer


def final_norm(model):
    base = model.base_model
    for owner in (base, getattr(base, "decoder", None)):
        for name in ("ln_f", "norm", "final_layer_norm"):
            module = getattr(owner, name, None) if owner is not None else None
            if isinstance(module, torch.nn.Module):
                return module
    return torch.nn.Identity()


@torch.no_grad()
def causal_lm_profile(model, tokenizer, text: str = SAMPLE_TEXT, max_tokens: int = 256) -> StageProfile:
    """Logit-lens entropy, agreement and next-token rank, and matrix entropy, after every layer."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("text: empty; allowed a text of at least two tokens")
    ids = tokenizer(text, return_tensors="pt")["input_ids"][:, :max_tokens]
    if ids.shape[1] < 2:
        raise ValueError(f"text: {ids.shape[1]} token; allowed a text of at least two tokens")
    out = model(input_ids=ids, output_hidden_states=True)
    states = out.hidden_states
    final_logits = out.logits[0, :-1]
    final_pred, answer = final_logits.argmax(-1), ids[0, 1:]
    head, norm = model.get_output_embeddings(), final_norm(model)
    rows = []
    for i, h in enumerate(states):
        lens = final_logits if i == len(states) - 1 else head(norm(h))[0, :-1]
        ent, agree, rank = _readout(lens.float(), final_pred, answer)
        rows.append((ent, agree, rank, agree, matrix_entropy(h[0].float())))
    labels = ["embedding"] + [f"layer {i}" for i in range(1, len(states))]
    return StageProfile(labels, *map(np.array, zip(*rows)))


def profile_causal_lm(model_dir: str | Path, text: str = SAMPLE_TEXT, max_tokens: int = 256,
                      progress=None) -> StageProfile | None:
    """Load the causal LM in ``model_dir`` and read its :func:`causal_lm_profile` on ``text``.

    Parameters
    ----------
    model_dir : str or Path
        A local directory written by ``save_pretrained`` (model and tokenizer); nothing is downloaded.
    text : str
        At least two tokens; the first ``max_tokens`` are read.
    progress : callable, optional
        Called after loading (step 1 of 2, metric ``layers``) and after the profile (step 2);
        returning False after loading stops before the forward pass.

    Returns
    -------
    StageProfile or None
        The profile; None if stopped after loading.
    """
    if not isinstance(text, str) or not text.strip():      # refused before paying for the load
        raise ValueError("text: empty; allowed a text of at least two tokens")
    model, tokenizer = load_causal_lm(model_dir)
    if not report(progress, 1, 2, {"layers": getattr(model.config, "num_hidden_layers", 0)}):
        return None
    profile = causal_lm_profile(model, tokenizer, text, max_tokens)
    report(progress, 2, 2, {"layers": len(profile.depth_labels) - 1})
    return profile

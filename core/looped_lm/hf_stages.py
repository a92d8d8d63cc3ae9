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

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from core.common.config import check_range
from core.common.progress import report
from core.looped_lm.config import SAMPLE_TEXT  # noqa: F401 (re-exported: the default text)
from core.looped_lm.metrics import matrix_entropy
from core.looped_lm.stages import StageProfile, _readout


@dataclass
class CausalLM:
    """A local Hugging Face causal LM and its tokenizer.

    Attributes
    ----------
    model : torch.nn.Module
        The ``AutoModelForCausalLM`` model, in eval mode.
    tokenizer : object
        Its ``AutoTokenizer``.
    """

    model: torch.nn.Module
    tokenizer: object


def load_causal_lm(model_dir: str | Path) -> CausalLM:
    """Load a Hugging Face causal LM and its tokenizer from a local directory (nothing is downloaded).

    Parameters
    ----------
    model_dir : str or Path
        A directory written by ``save_pretrained`` for a causal LM and its tokenizer (``~`` expanded).

    Returns
    -------
    CausalLM
        The model (eval mode) and the tokenizer, loaded with ``local_files_only=True``.

    Raises
    ------
    ValueError
        ``model_dir: ...`` if the directory holds no ``config.json`` or does not load as a causal LM.

    Examples
    --------
    >>> from core.looped_lm import load_causal_lm
    >>> lm = load_causal_lm("~/models/gpt2")          # doctest: +SKIP
    >>> load_causal_lm("/nowhere")
    Traceback (most recent call last):
    ...
    ValueError: model_dir: '/nowhere' holds no config.json; allowed a local directory with a Hugging Face causal LM and its tokenizer (save_pretrained)
    """
    path = Path(str(model_dir)).expanduser()
    if not (path / "config.json").is_file():       # checked before paying for the transformers import
        raise ValueError(f"model_dir: {str(model_dir)!r} holds no config.json; allowed a local directory with a "
                         "Hugging Face causal LM and its tokenizer (save_pretrained)")
    from transformers.models.auto.modeling_auto import AutoModelForCausalLM
    from transformers.models.auto.tokenization_auto import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True).eval()
    except (OSError, ValueError, KeyError) as error:
        raise ValueError(f"model_dir: {path} could not be loaded as a causal LM ({error}); allowed a directory "
                         "written by save_pretrained for a model and its tokenizer") from error
    return CausalLM(model, tokenizer)


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
    """Logit-lens entropy, agreement and next-token rank, and matrix entropy, after every layer.

    At depth i the residual stream h_i is read as ``lm_head(final_norm(h_i))`` at every position with a
    next token (the last depth is the model's own logits), against that next token.

    Parameters
    ----------
    model : torch.nn.Module
        A Hugging Face causal LM (``output_hidden_states`` and ``get_output_embeddings``).
    tokenizer : object
        Its tokenizer.
    text : str
        At least two tokens.
    max_tokens : int
        The first ``max_tokens`` tokens are read, 2..100000.

    Returns
    -------
    StageProfile
        One entry per depth: "embedding", "layer 1", ...

    Raises
    ------
    ValueError
        For an empty text or one of fewer than two tokens.

    References
    ----------
    Mechanistic analysis of looped reasoning language models (NeurIPS 2026, ``docs/PAPERS.md``): the feedforward stages of
    inference the looped ones are compared with.

    Examples
    --------
    >>> from core.looped_lm import causal_lm_profile, load_causal_lm
    >>> lm = load_causal_lm("~/models/gpt2")                     # doctest: +SKIP
    >>> causal_lm_profile(lm.model, lm.tokenizer).depth_labels[:2]   # doctest: +SKIP
    ['embedding', 'layer 1']
    >>> causal_lm_profile(None, None, "  ")
    Traceback (most recent call last):
    ...
    ValueError: text: empty; allowed a text of at least two tokens
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("text: empty; allowed a text of at least two tokens")
    check_range("max_tokens", max_tokens, low=2, high=100_000, integer=True)
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
    max_tokens : int
        2..100000.
    progress : callable, optional
        Called after loading (step 1 of 2, metric ``layers``) and after the profile (step 2);
        returning False after loading stops before the forward pass.

    Returns
    -------
    StageProfile or None
        The profile; None if stopped after loading.

    Examples
    --------
    >>> from core.looped_lm import profile_causal_lm
    >>> profile_causal_lm("~/models/gpt2").depth_labels[0]      # doctest: +SKIP
    'embedding'
    >>> profile_causal_lm("/nowhere", text="")
    Traceback (most recent call last):
    ...
    ValueError: text: empty; allowed a text of at least two tokens
    """
    if not isinstance(text, str) or not text.strip():      # refused before paying for the load
        raise ValueError("text: empty; allowed a text of at least two tokens")
    check_range("max_tokens", max_tokens, low=2, high=100_000, integer=True)
    lm = load_causal_lm(model_dir)
    model, tokenizer = lm.model, lm.tokenizer
    if not report(progress, 1, 2, {"layers": getattr(model.config, "num_hidden_layers", 0)}):
        return None
    profile = causal_lm_profile(model, tokenizer, text, max_tokens)
    report(progress, 2, 2, {"layers": len(profile.depth_labels) - 1})
    return profile

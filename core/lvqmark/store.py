"""Checkpoints of a trained LVQMark system: safetensors (float16) + JSON, under ``assets/lvqmark/``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from core.common.assets import asset_dir
from core.common.checkpoint import load_checkpoint, save_checkpoint
from core.common.config import check_choice
from core.lvqmark.data import DATASETS
from core.lvqmark.detection import Watermarker
from core.lvqmark.model import RobustEncoder, Tokenizer, TokenPrior
from core.lvqmark.training import (ENCODERS, PriorConfig, RobustConfig, TokenizerConfig, TrainedPrior, TrainedRobust,
                                   TrainedTokenizer)

ASSETS = asset_dir("lvqmark")


def system_dir(dataset: str, encoder: str) -> Path:
    return ASSETS / f"{check_choice('dataset', dataset, DATASETS)}_{check_choice('encoder', encoder, ENCODERS)}"


def _half(module: torch.nn.Module) -> dict:
    return {k: v.detach().to(torch.float16) if v.is_floating_point() else v for k, v in module.state_dict().items()}


def _load(module: torch.nn.Module, tensors: dict) -> torch.nn.Module:
    module.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in tensors.items()})
    return module.eval()


def save_watermarker(system: Watermarker, directory: Path) -> Path:
    tok, prior, robust = system.tokenizer, system.prior, system.robust
    save_checkpoint(directory / "tokenizer", _half(tok.model), tok.config,
                    {"n_vars": tok.n_vars, "dataset": system.dataset, "loss": tok.loss[-20:].mean().item()})
    save_checkpoint(directory / "prior", _half(prior.model), prior.config,
                    {"codebook_size": prior.codebook_size, "n_tokens": prior.n_tokens})
    save_checkpoint(directory / "robust", _half(robust.model), robust.config, {"encoder": robust.encoder})
    return directory


def load_watermarker(dataset: str = "energy", encoder: str = "local") -> Watermarker:
    """The shipped system trained on ``dataset`` with the ``encoder`` tokenizer.

    Parameters
    ----------
    dataset : str
        One of ``DATASETS``.
    encoder : str
        ``local`` (L-VQVAE) or ``global`` (the globally coupled baseline).

    Returns
    -------
    Watermarker
        Tokenizer, prior and robust encoder, in eval mode.

    Examples
    --------
    >>> w = load_watermarker("finance", "global")
    >>> w.encoder, w.codebook_size
    ('global', 32)
    """
    directory = system_dir(dataset, encoder)
    t = load_checkpoint(directory / "tokenizer", TokenizerConfig)
    n_vars, length = int(t.metadata["n_vars"]), 24
    cfg = t.config
    tok = TrainedTokenizer(_load(Tokenizer(cfg.encoder, n_vars, length, cfg.codebook_size, cfg.code_dim, cfg.d_model,
                                           cfg.dead_after), t.tensors), cfg, n_vars, np.zeros(0), np.zeros(0),
                           np.zeros(0))
    p = load_checkpoint(directory / "prior", PriorConfig)
    K, N = int(p.metadata["codebook_size"]), int(p.metadata["n_tokens"])
    prior = TrainedPrior(_load(TokenPrior(K, N, p.config.d_model, layers=p.config.layers), p.tensors), p.config, K, N,
                         np.zeros(0))
    r = load_checkpoint(directory / "robust", RobustConfig)
    robust = TrainedRobust(_load(RobustEncoder(cfg.encoder, n_vars, length, K, r.config.d_model), r.tensors),
                           r.config, cfg.encoder, np.zeros(0), np.zeros(0))
    return Watermarker(tok, prior, robust, dataset)

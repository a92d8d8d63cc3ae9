"""A small CLIP from transformers' CLIPModel, trained here on the synthetic scenes.

Text is tokenised word by word over a fixed list (BOS, words, EOS; the EOS id is 3, not 2, because
transformers 5 pools a config with ``eos_token_id == 2`` by argmax of the ids). A clip's embedding is
the mean of its frames' image embeddings plus a learned linear map of (late frames − early frames):
a mean alone cannot tell leftward from rightward, since both visit the same positions.

The vision tower's position embeddings start at std 0.5 instead of transformers' 0.02: at 0.02 they
are ~20x weaker than a patch's content, and neither contrastive nor supervised training moved
position information into the pooled token within thousands of steps (position zero-shot stayed at
chance, 0.25); at 0.5 a supervised probe learns position in ~150 steps.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

from core.grace.vocabulary import (ASSETS, BOS, DISTRACTORS, EOS, GLUE, MAX_LEN, PAD, TOKEN, UNK,  # noqa: F401
                                   WORDS, default_vocabulary)

PROJECTION = 32
MEAN, STD = 0.5, 0.25


def tokenize(texts) -> torch.Tensor:
    """[n, MAX_LEN] ids: BOS, word ids (UNK for unknown words), EOS, then PAD."""
    ids = torch.full((len(texts), MAX_LEN), PAD, dtype=torch.long)
    for row, text in enumerate(texts):
        words = [TOKEN.get(w, UNK) for w in text.lower().split()]
        if len(words) > MAX_LEN - 2:
            raise ValueError(f"texts: {text!r} has {len(words)} words; allowed at most {MAX_LEN - 2}")
        seq = [BOS, *words, EOS]
        ids[row, : len(seq)] = torch.tensor(seq)
    return ids


def clip_config():
    # Import from the defining modules, not the lazy top-level package: the app's warm-up thread may be
    # importing transformers at the same moment, and `from transformers import X` then fails.
    from transformers.models.clip.configuration_clip import CLIPConfig, CLIPTextConfig, CLIPVisionConfig

    text = CLIPTextConfig(vocab_size=len(WORDS) + 4, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                          num_attention_heads=4, max_position_embeddings=MAX_LEN, projection_dim=PROJECTION,
                          pad_token_id=PAD, bos_token_id=BOS, eos_token_id=EOS)
    vision = CLIPVisionConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=64, intermediate_size=128,
                              num_hidden_layers=3, num_attention_heads=4, projection_dim=PROJECTION)
    return CLIPConfig(text_config=text.to_dict(), vision_config=vision.to_dict(), projection_dim=PROJECTION)


class TinyCLIP(nn.Module):
    """transformers' CLIPModel at toy size (32-pixel images, 8-pixel patches, 32-d projection), plus a
    learned motion map for clips (see the module docstring)."""

    def __init__(self):
        super().__init__()
        from transformers.models.clip.modeling_clip import CLIPModel

        self.clip = CLIPModel(clip_config())
        nn.init.normal_(self.clip.vision_model.embeddings.position_embedding.weight, std=0.5)
        self.motion = nn.Linear(PROJECTION, PROJECTION, bias=False)
        nn.init.zeros_(self.motion.weight)

    def image_features(self, images: torch.Tensor) -> torch.Tensor:
        """uint8 [n, 32, 32, 3] -> unnormalised embeddings [n, PROJECTION]."""
        pixels = (images.float() / 255 - MEAN) / STD
        return self.clip.get_image_features(pixel_values=pixels.permute(0, 3, 1, 2)).pooler_output

    def video_features(self, clips: torch.Tensor) -> torch.Tensor:
        n, t = clips.shape[:2]
        frames = self.image_features(clips.reshape(n * t, *clips.shape[2:])).reshape(n, t, -1)
        half = t // 2
        return frames.mean(1) + self.motion(frames[:, half:].mean(1) - frames[:, :half].mean(1))

    def text_features(self, ids: torch.Tensor) -> torch.Tensor:
        return self.clip.get_text_features(input_ids=ids, attention_mask=(ids != PAD).long()).pooler_output


def _normalise(x: torch.Tensor) -> np.ndarray:
    return torch.nn.functional.normalize(x, dim=-1).numpy()


@torch.no_grad()
def embed_images(model: TinyCLIP, images, batch: int = 512) -> np.ndarray:
    """Unit-norm embeddings [n, 32] of uint8 images [n, 32, 32, 3] or clips [n, 8, 32, 32, 3].

    A clip's embedding is the mean of its frames' image embeddings plus the model's learned map of
    (mean of the last four frames − mean of the first four); both are normalised to unit length.

    Parameters
    ----------
    model : TinyCLIP
        The small CLIP, e.g. :func:`load_model`; switched to eval mode.
    images : array_like of uint8
        Images of shape (n, 32, 32, 3) or 8-frame clips of shape (n, 8, 32, 32, 3).
    batch : int, default 512
        Images (or clips) per forward pass, 1 to 100,000; it changes memory, not the result.

    Returns
    -------
    numpy.ndarray
        float32 [n, 32], unit rows.

    Raises
    ------
    ValueError
        ``"images: ..."`` for another shape, ``"batch: ..."`` out of range.

    References
    ----------
    .. [1] "GRACE concept decompositions" (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> model = load_model()
    >>> from core.grace.scenes import make_scenes
    >>> emb = embed_images(model, make_scenes(2, seed=0).images)
    >>> emb.shape, bool(np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5))
    ((2, 32), True)
    """
    from core.common.config import check_range

    batch = check_range("batch", batch, 1, 100_000, integer=True)
    images = torch.as_tensor(np.asarray(images))
    if images.ndim not in (4, 5) or tuple(images.shape[-3:]) != (32, 32, 3):
        raise ValueError(f"images: shape {tuple(images.shape)}; allowed [n, 32, 32, 3] or [n, 8, 32, 32, 3]")
    fn = model.video_features if images.ndim == 5 else model.image_features
    model.eval()
    return np.concatenate([_normalise(fn(images[i:i + batch])) for i in range(0, len(images), batch)])


@torch.no_grad()
def embed_texts(model: TinyCLIP, texts) -> np.ndarray:
    """Unit-norm embeddings [n, 32] of texts, tokenised word by word over the small CLIP's word list.

    Parameters
    ----------
    model : TinyCLIP
        The small CLIP, e.g. :func:`load_model`; switched to eval mode.
    texts : iterable of str
        Lower-cased and split on spaces; unknown words become UNK; at most 26 words each.

    Returns
    -------
    numpy.ndarray
        float32 [n, 32], unit rows.

    Raises
    ------
    ValueError
        ``"texts: ..."`` for a text longer than 26 words.

    References
    ----------
    .. [1] "GRACE concept decompositions" (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> model = load_model()
    >>> emb = embed_texts(model, ["a red circle", "a blue square"])
    >>> emb.shape, bool(np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5))
    ((2, 32), True)
    """
    model.eval()
    return _normalise(model.text_features(tokenize(list(texts))))


def load_model(directory: Path | None = None) -> TinyCLIP:
    """Load the shipped small CLIP (``python -m core.grace.ship clip`` regenerates it), in eval mode.

    The checkpoint is safetensors + JSON (``core.common.load_checkpoint``, never unpickled); its
    metadata (training steps, held-out zero-shot accuracies) is attached as ``model.metadata``.

    Parameters
    ----------
    directory : pathlib.Path, optional
        A checkpoint folder; default ``assets/grace/clip``.

    Returns
    -------
    TinyCLIP
        The model, in eval mode, with ``metadata`` (a dict from the checkpoint's JSON).

    References
    ----------
    .. [1] "GRACE concept decompositions" (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> model = load_model()
    >>> model.training, sorted(model.metadata)[:2]
    (False, ['made_by', 'seed'])
    """
    from core.common.checkpoint import load_checkpoint

    ckpt = load_checkpoint(directory or ASSETS / "clip")
    model = TinyCLIP()
    model.load_state_dict(ckpt.tensors)
    model.eval()
    model.metadata = ckpt.metadata
    return model

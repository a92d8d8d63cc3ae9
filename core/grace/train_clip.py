"""Train the small CLIP from scratch on seeded scenes and clips (a library: the command is ship's).

    python -m core.grace.ship clip 1200     # writes assets/grace/clip; 1,200 steps: about 30 minutes
                                            # on one core of a busy machine

Captions name a random subset of the main object's attributes, its texture and its clutter ("a red
object", "a large striped circle on the left with a tiny blue square"), so one caption is true of many
images in a batch. The world is the harder one of ``scenes.py`` (correlated colour and shape, two to
four objects, striped or solid); its held-out zero-shot accuracies, below the ceiling, are written
into the checkpoint's metadata. The loss is
CLIP's symmetric cross-entropy with multi-positive targets: each row's target spreads uniformly over
the batch entries its caption is true of, instead of pretending the one paired entry is the only match.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.nn import functional as F

from core.common.config import check_range
from core.common.progress import report
from core.common.seeding import check_seed, make_rng, torch_seeded
from core.grace.clip import TinyCLIP, embed_images, embed_texts, tokenize
from core.grace.metrics import zero_shot_accuracy, zero_shot_prompts
from core.grace.scenes import caption, make_scenes

SEED = 0


def partial_caption(attrs: dict, clutter: list, texture: str, rng) -> tuple[str, set]:
    """A caption naming a random subset of attributes; returns (text, the attributes it names).

    "texture" and "clutter" are mentionable too: a caption that mentions texture says "striped" for a
    striped object and nothing for a solid one (so it is true only of objects of that texture).
    """
    if rng.random() < 0.25:
        mention = set(attrs) | {"texture", "clutter"}
    else:
        mention = {k for k in attrs if rng.random() < 0.5}
        if rng.random() < 0.3:
            mention.add("texture")
        if clutter and rng.random() < 0.3:
            mention.add("clutter")
        if not mention & set(attrs):
            mention.add(str(rng.choice(list(attrs))))
    if rng.random() < 0.1:   # a bare attribute word
        name = str(rng.choice(list(attrs)))
        return attrs[name], {name}
    return caption(attrs, clutter, mention, texture), mention


def _objects(clutter) -> list:
    return sorted((c["shape"], c["colour"]) for c in clutter)


def true_of(mention: set, attrs: dict, clutter, texture, other_attrs: dict, other_clutter, other_texture) -> bool:
    if any(attrs[k] != other_attrs[k] for k in mention if k in attrs):
        return False
    if "texture" in mention and texture != other_texture:
        return False
    return "clutter" not in mention or _objects(other_clutter) == _objects(clutter)


def multi_positive_loss(image_emb, text_emb, scale, positives):
    logits = scale * F.normalize(image_emb, dim=-1) @ F.normalize(text_emb, dim=-1).T   # [images, texts]
    t = positives.float()
    loss_i = -(t / t.sum(1, keepdim=True) * logits.log_softmax(1)).sum(1).mean()
    loss_t = -(t.T / t.T.sum(1, keepdim=True) * logits.T.log_softmax(1)).sum(1).mean()
    return (loss_i + loss_t) / 2


def batch_loss(model, scenes, rng, video: bool):
    textures = [h["texture"] for h in scenes.hidden]
    texts, mentions = zip(*(partial_caption(a, c, t, rng) for a, c, t in zip(scenes.attributes, scenes.clutter,
                                                                              textures)))
    n = len(texts)
    positives = torch.tensor([[true_of(mentions[i], scenes.attributes[i], scenes.clutter[i], textures[i],
                                       scenes.attributes[j], scenes.clutter[j], textures[j]) for i in range(n)]
                              for j in range(n)])
    images = torch.as_tensor(scenes.images)
    image_emb = model.video_features(images) if video else model.image_features(images)
    text_emb = model.text_features(tokenize(texts))
    return multi_positive_loss(image_emb, text_emb, model.clip.logit_scale.exp(), positives)


def train_clip(steps: int = 3000, batch: int = 192, video_batch: int = 32, lr: float = 2e-3, seed: int = SEED,
               progress=None) -> TinyCLIP:
    """Train a fresh :class:`TinyCLIP` with the multi-positive contrastive loss of the module docstring.

    Every argument is checked before anything is built: ``steps`` 1..1,000,000, ``batch`` 2..4,096,
    ``video_batch`` 2..1,024, ``lr`` in (0, 1], ``seed`` 0..2**32 - 1. ``progress(step, steps, metrics)``
    returning False stops training and returns the model as it stands (in eval mode).
    """
    steps = check_range("steps", steps, 1, 1_000_000, integer=True)
    batch = check_range("batch", batch, 2, 4096, integer=True)
    video_batch = check_range("video_batch", video_batch, 2, 1024, integer=True)
    lr = check_range("lr", lr, 0.0, 1.0, low_open=True)
    seed = check_seed(seed)
    rng = make_rng(seed)
    with torch_seeded(seed):
        model = TinyCLIP()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.05)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.05)
    model.train()
    for step in range(1, steps + 1):
        images = make_scenes(batch, int(rng.integers(2**31)))
        loss = batch_loss(model, images, rng, video=False)
        if step % 2 == 0:
            clips = make_scenes(video_batch, int(rng.integers(2**31)), video=True)
            loss = loss + batch_loss(model, clips, rng, video=True)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        schedule.step()
        with torch.no_grad():
            model.clip.logit_scale.clamp_(0, np.log(100))
        if not report(progress, step, steps, {"loss": float(loss.detach())}):
            break
    model.eval()
    return model


def evaluate(model, n: int = 1000, seed: int = 12345) -> dict:
    """Zero-shot accuracy per attribute on held-out images and clips (seeds never used in training)."""
    out = {}
    for video in (False, True):
        scenes = make_scenes(n if not video else n // 4, seed, video=video)
        emb = embed_images(model, scenes.images)
        prompts = zero_shot_prompts(video)
        text = {name: embed_texts(model, p) for name, p in prompts.items()}
        for name, acc in zero_shot_accuracy(emb, scenes.attributes, text).items():
            out[f"{'video' if video else 'image'}/{name}"] = acc
    return out

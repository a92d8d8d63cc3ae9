"""GRACE: global concept decompositions of vision-language embeddings, on a small CLIP trained here.

The paper's claim: one concept map learned over the whole feature space, with an objective that
preserves the geometric relations of samples in concept space, gives decompositions aligned with
human perception while preserving most of the model's performance. Here: ``fit_grace`` (our reading
of that objective, see ``core.grace.grace``), the baselines ``fit_splice``/``splice``, ``fit_textspan``
and ``fit_sae``, a seeded synthetic world whose true concepts are known (``make_scene``,
``make_scenes``, ``default_vocabulary``) and the small CLIP that embeds it. Assets:
``python -m core.grace.ship clip`` then ``python -m core.grace.ship``.

The small CLIP's functions (``embed_images``, ``embed_texts``, ``load_model``) import torch and
transformers; they are loaded on first use, so ``import core.grace`` (the page's first view) needs neither.
"""

from core.grace.baselines import fit_sae, fit_splice, fit_textspan, splice
from core.grace.grace import fit_grace
from core.grace.scenes import make_scene, make_scenes
from core.grace.vocabulary import default_vocabulary

from core.grace.claims import CLAIMS  # noqa: E402

_FROM_CLIP = ("embed_images", "embed_texts", "load_model")

__all__ = ["CLAIMS", "default_vocabulary", "embed_images", "embed_texts", "fit_grace", "fit_sae", "fit_splice",
           "fit_textspan", "load_model", "make_scene", "make_scenes", "splice"]


def __getattr__(name: str):
    if name in _FROM_CLIP:
        from core.grace import clip

        return getattr(clip, name)
    raise AttributeError(f"module 'core.grace' has no attribute {name!r}")

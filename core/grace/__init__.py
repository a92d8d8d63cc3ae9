"""GRACE: global concept decompositions of vision-language embeddings, on a small CLIP trained here."""

from core.grace.baselines import fit_sae, fit_splice, fit_textspan, splice
from core.grace.clip import default_vocabulary, embed_images, embed_texts, load_model
from core.grace.grace import fit_grace
from core.grace.scenes import make_scene, make_scenes

from core.grace.claims import CLAIMS  # noqa: E402

__all__ = ["CLAIMS", "default_vocabulary", "embed_images", "embed_texts", "fit_grace", "fit_sae", "fit_splice",
           "fit_textspan", "load_model", "make_scene", "make_scenes", "splice"]

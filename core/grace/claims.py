"""The GRACE paper's headline claims, checked by ``bench/grace.py``."""

from core.common.claims import Claim

CLAIMS = (
    Claim("human_aligned",
          "GRACE's concept decompositions are aligned with human perception.",
          "Concept-attribute agreement: the share of a scene's true attributes among its top concepts, on held-out "
          "images and videos of the synthetic world.",
          "SpLiCE, TextSpan and an SAE; controls: the no-fitting ReLU(z·Dᵀ) decomposition and a dictionary with "
          "shuffled concept labels."),
    Claim("geometry_preserving",
          "GRACE's objective preserves the geometric relations of samples in concept space.",
          "Trustworthiness of the concept codes' neighbourhoods, at matched sparsity, against SpLiCE and against "
          "GRACE without its geometry term.",
          "GRACE without the geometry term (ablation) and SpLiCE."),
    Claim("global_structure",
          "Learning concepts globally over the feature space captures structure that per-sample decompositions miss.",
          "Triplet agreement of concept-space distances with embedding distances, GRACE minus SpLiCE, with a paired "
          "bootstrap interval.",
          "SpLiCE (per-sample sparse decomposition) on the same triplets."),
    Claim("preserves_performance",
          "GRACE preserves most of the model's original performance.",
          "Zero-shot accuracy from the reconstructed embeddings against the raw embeddings.",
          "The raw embeddings' zero-shot accuracy, which must be below ceiling to tell."),
)

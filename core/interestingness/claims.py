"""The interestingness paper's headline claims, checked by ``bench/interestingness.py`` on a real study."""

from core.common.claims import Claim

CLAIMS = (
    Claim("broad_agreement",
          "Many LLMs broadly agree with human notions of interestingness.",
          "Spearman correlation of an LLM rater's mean ratings with each population's mean ratings, with a "
          "bootstrap 95% interval, on a real study's problems.",
          "The human split-half reliability ceiling; a rater with shuffled problem labels as the control."),
    Claim("misses_distribution",
          "LLMs largely fail to match the distribution of human judgments.",
          "Mean per-problem Wasserstein-1 between the LLM's rating distribution and each population's, against "
          "the distance between two random halves of the same population.",
          "Human split halves (the floor an exact match would reach)."),
    Claim("weak_rationales",
          "LLMs align only weakly with why humans find problems interesting.",
          "Correlation of the LLM's rationale probabilities with the rationales participants selected.",
          "Human split-half rationale agreement."),
    Claim("generates_engaging",
          "After filtering for validity, LLMs generate problems that people find engaging.",
          "Mean human interestingness of kept generated problems against the bank's problems in the same study.",
          "The study's own bank problems rated by the same participants."),
)

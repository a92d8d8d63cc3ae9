"""The demo models by name, the estimator-error curve, and the functions a live page run calls.

Models (``MODELS``): two synthetic linear-Gaussian cases with closed forms (a shared input with
diagonal noise; a random dense model), the linear-Gaussian macrodata forecaster, and the torch
forecaster on the same series with a full or a diagonal covariance head (shipped checkpoints).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from core.common.assets import asset_dir
from core.common.config import check_choice, check_range
from core.common.progress import report
from core.common.seeding import derive_seed
from core.uncertainty_shapley.games import ESTIMATORS, Attribution, AttributionConfig, EntropyGame, attribute
from core.uncertainty_shapley.models import LinearGaussian, linear_gaussian, random_linear_gaussian
from core.uncertainty_shapley.shapley import all_coalitions, shapley_from_table

if TYPE_CHECKING:
    from core.uncertainty_shapley.forecaster import GaussianForecaster

ASSETS = asset_dir("uncertainty_shapley")
MODELS = ("macro_linear", "macro_torch_full", "macro_torch_diagonal", "shared_input", "random_linear")
MODEL_LABELS = {
    "macro_linear": "Macrodata: linear-Gaussian forecaster",
    "macro_torch_full": "Macrodata: torch forecaster, full covariance",
    "macro_torch_diagonal": "Macrodata: torch forecaster, diagonal covariance",
    "shared_input": "Synthetic: shared input, diagonal noise",
    "random_linear": "Synthetic: random linear-Gaussian (d = 8, D = 3)",
}
CLOSED_FORM = ("macro_linear", "shared_input", "random_linear")


def shared_input_model(noise: float = 0.5, seed: int = 0) -> LinearGaussian:
    r"""The shared-input case: Y1 = X1 + X2 + e1, Y2 = X1 + X3 + e2, independent unit features, diagonal noise.

    All the outputs' dependence comes from X1, so its cross-component term is negative; in closed
    form :math:`c_1 = -I(Y_1; Y_2)` (the bench checks it).

    Parameters
    ----------
    noise : float
        The variance of each of e1 and e2, in (0, 100].
    seed : int
        Seeds the 64 background rows.

    Returns
    -------
    LinearGaussian

    Examples
    --------
    >>> m = shared_input_model()
    >>> m.feature_names, m.noise_cov.tolist()
    (['X1 (shared)', 'X2', 'X3'], [[0.5, 0.0], [0.0, 0.5]])
    """
    noise = check_range("noise", noise, 0.0, 100.0, low_open=True)
    coef = np.array([[1.0, 1.0, 0.0], [1.0, 0.0, 1.0]])
    return linear_gaussian(coef, noise * np.eye(2), np.eye(3), seed=seed, feature_names=["X1 (shared)", "X2", "X3"],
                           output_names=["Y1", "Y2"], name="shared input, diagonal noise")


def load_model(key: str) -> LinearGaussian | GaussianForecaster:
    """The demo model named ``key``; the torch forecasters come from their shipped checkpoints.

    Parameters
    ----------
    key : str
        One of :data:`MODELS`.

    Returns
    -------
    LinearGaussian or GaussianForecaster
        The linear-Gaussian models are rebuilt (the macrodata one fitted again, deterministic); the
        torch ones read from ``assets/uncertainty_shapley/forecaster_<head>/``.

    Raises
    ------
    FileNotFoundError
        If a torch forecaster's checkpoint has not been shipped.

    Examples
    --------
    >>> load_model("random_linear").n_features, load_model("macro_torch_full").n_outputs
    (8, 4)
    """
    check_choice("model", key, MODELS)
    if key == "macro_linear":
        from core.uncertainty_shapley.data import fit_linear_forecaster, macro_forecast

        return fit_linear_forecaster(macro_forecast())
    if key == "shared_input":
        return shared_input_model()
    if key == "random_linear":
        return random_linear_gaussian(8, 3, seed=0)
    from core.uncertainty_shapley.forecaster import load_forecaster

    head = key.rsplit("_", 1)[1]
    path = ASSETS / f"forecaster_{head}"
    if not (path / "weights.safetensors").is_file():
        raise FileNotFoundError(f"model: {path} is missing; run python -m core.uncertainty_shapley.ship")
    return load_forecaster(path).model


def default_estimator(key: str) -> str:
    """The closed form for the linear-Gaussian models, moment matching for the networks."""
    return "closed_form" if key in CLOSED_FORM else "moment_matching"


def view_config(model: str, estimator: str = "default", method: str = "exact", chain_lag: int = 1,
                n_permutations: int = 200) -> AttributionConfig:
    """The attribution config a page's controls ask for, refused before any work if the model cannot take it.

    Parameters
    ----------
    model : str
        One of :data:`MODELS`.
    estimator : str
        ``"default"`` (:func:`default_estimator` of the model) or one of
        :data:`~core.uncertainty_shapley.games.ESTIMATORS`.
    method : str
        ``"exact"``, ``"permutation"`` or ``"auto"``.
    chain_lag : int
        L of the chain game.
    n_permutations : int
        Orderings for permutation sampling.

    Returns
    -------
    AttributionConfig

    Raises
    ------
    ValueError
        ``estimator: 'closed_form' needs a linear-Gaussian model, ...`` for a torch forecaster, or
        any :class:`AttributionConfig` field error.

    Examples
    --------
    >>> view_config("macro_torch_full").estimator
    'moment_matching'
    """
    check_choice("model", model, MODELS)
    est = default_estimator(model) if estimator == "default" else estimator
    config = AttributionConfig(estimator=est, method=method, chain_lag=chain_lag, n_permutations=n_permutations)
    if est == "closed_form" and model not in CLOSED_FORM:
        raise ValueError(f"estimator: 'closed_form' needs a linear-Gaussian model, not {MODEL_LABELS[model]}; "
                         "allowed moment_matching, knn, mean_imputation")
    return config


def attribution_view(model: str = "macro_linear", config: AttributionConfig | None = None, seed: int = 0,
                     progress=None) -> Attribution | None:
    """:func:`~core.uncertainty_shapley.games.attribute` on the demo model named ``model`` (the page's live run).

    Parameters
    ----------
    model : str
        One of :data:`MODELS`.
    config : AttributionConfig, optional
        Defaults to the model's default estimator (closed form or moment matching), exact values.
    seed : int
        Seeds the background rows, inner samples and orderings.
    progress : callable, optional
        As in :func:`~core.uncertainty_shapley.games.attribute`.

    Returns
    -------
    Attribution or None
        None only when ``progress`` stopped an exact enumeration.

    Examples
    --------
    >>> a = attribution_view("shared_input")
    >>> a.feature_names[0], a.estimator, bool(a.cross[0] < 0)
    ('X1 (shared)', 'closed_form', True)
    """
    return attribute(load_model(model), config or AttributionConfig(estimator=default_estimator(model)), seed, progress)


def train_and_attribute(head: str = "full", seed: int = 0, config: AttributionConfig | None = None,
                        progress=None) -> TrainedAttribution:
    """Train a torch forecaster (default :class:`ForecasterConfig`) with ``seed`` and attribute its games.

    Parameters
    ----------
    head : str
        The Gaussian head, ``"full"`` or ``"diagonal"``.
    seed : int
        Seeds the initialisation and the attribution.
    config : AttributionConfig, optional
        Defaults to moment matching, exact values.
    progress : callable, optional
        One step per 10 training epochs, then one for the attribution; False stops (during training:
        the attribution is skipped).

    Returns
    -------
    TrainedAttribution
        The training curves, the held-out NLL and the attribution (None if stopped during training).

    Examples
    --------
    A run stopped at its first report trains 10 epochs and skips the attribution:

    >>> run = train_and_attribute("diagonal", seed=0, progress=lambda step, total, metrics: False)
    >>> run.epochs, run.attribution is None
    (array([10]), True)
    """
    from core.uncertainty_shapley.forecaster import ForecasterConfig, train_forecaster

    fcfg = ForecasterConfig(head=head)
    steps = fcfg.epochs // 10

    stopped = []

    def train_progress(step, total, metrics):
        go_on = report(progress, step // 10, steps + 1, metrics)
        if not go_on:
            stopped.append(step)
        return go_on

    trained = train_forecaster(fcfg, seed, progress=train_progress)
    attr = None   # a stopped run skips the attribution
    if not stopped:
        attr = attribute(trained.model, config or AttributionConfig(estimator="moment_matching"), seed)
        report(progress, steps + 1, steps + 1, {"test_nll": trained.test_nll})
    return TrainedAttribution(trained.epochs, trained.train_nll, trained.val_nll, trained.test_nll, attr)


@dataclass
class TrainedAttribution:
    """A freshly trained forecaster's curves and its attribution (what :func:`train_and_attribute` returns).

    Attributes
    ----------
    epochs : ndarray of int
        The epochs at which the curves were recorded.
    train_nll : ndarray
        Training NLL at those epochs (standardised units).
    val_nll : ndarray
        Validation NLL at those epochs (early stopping keeps its best weights).
    test_nll : float
        NLL of the kept weights on the held-out quarters, in the data's units.
    attribution : Attribution or None
        The games' attribution, None when the run was stopped during training.

    Examples
    --------
    >>> TrainedAttribution(np.array([10]), np.array([1.2]), np.array([1.4]), 11.0, None).attribution is None
    True
    """

    epochs: np.ndarray
    train_nll: np.ndarray
    val_nll: np.ndarray
    test_nll: float
    attribution: Attribution | None


@dataclass
class EstimatorError:
    """Sample-based estimators against the closed form, as the number of inner samples grows.

    Attributes
    ----------
    model : str
        The demo model's key (one with a closed form).
    estimators : list of str
        The estimators compared.
    n_inner : ndarray of int
        The inner sample sizes.
    value_error : ndarray, shape (n_estimators, n_sizes)
        ``value_error[e, k]``: mean over coalitions of |v̂(S) − v(S)| (nats, the three games summed per
        coalition) for ``estimators[e]`` at ``n_inner[k]``, averaged over seeds; NaN where a stopped
        run did not reach.
    phi_error : ndarray, shape (n_estimators, n_sizes)
        The same cells' max over features of |φ̂ − φ|.
    n_outer : int
        Background rows per estimate.
    n_seeds : int
        Independent repetitions averaged.

    Examples
    --------
    >>> e = estimator_error("shared_input", n_inner=(8, 64), estimators=("mean_imputation",))
    >>> e.value_error.shape, bool(e.value_error[0, 0] == e.value_error[0, 1])    # the control does not converge
    ((1, 2), True)
    """

    model: str
    estimators: list
    n_inner: np.ndarray
    value_error: np.ndarray
    phi_error: np.ndarray
    n_outer: int
    n_seeds: int


def estimator_error(model: str = "macro_linear", n_inner=(16, 64, 256, 1024), estimators=("moment_matching", "knn",
                    "mean_imputation"), n_outer: int = 4, n_seeds: int = 1, seed: int = 0, progress=None) -> EstimatorError:
    """The error of each sample-based estimator against the closed form of a linear-Gaussian model.

    Parameters
    ----------
    model : str
        One of :data:`CLOSED_FORM`.
    n_inner : sequence of int
        Inner sample sizes (samples of the left-out features, and of Y, per background row), each
        in [2, 20000].
    estimators : sequence of str
        Any of :data:`~core.uncertainty_shapley.games.ESTIMATORS` but ``closed_form``.
    n_outer : int
        Background rows averaged over, in [1, 2000].
    n_seeds : int
        Independent repetitions averaged, in [1, 100].
    seed : int
        The parent of each repetition's seed.
    progress : callable, optional
        Once per (estimator, size); False stops with NaN for the cells not reached.

    Returns
    -------
    EstimatorError
        The error tables, estimators by sizes.

    Examples
    --------
    >>> e = estimator_error("shared_input", n_inner=(8, 256), estimators=("moment_matching",))
    >>> bool(e.value_error[0, 1] < e.value_error[0, 0])
    True
    """
    check_choice("model", model, CLOSED_FORM)
    for e in estimators:
        check_choice("estimators", e, tuple(x for x in ESTIMATORS if x != "closed_form"))
    for n in n_inner:
        check_range("n_inner", n, 2, 20000, integer=True)
    n_outer = check_range("n_outer", n_outer, 1, 2000, integer=True)
    n_seeds = check_range("n_seeds", n_seeds, 1, 100, integer=True)
    m = load_model(model)
    masks = all_coalitions(m.n_features)
    exact_table = EntropyGame(m, AttributionConfig())(masks)
    exact_v, exact_phi = exact_table.sum(-1), shapley_from_table(exact_table.sum(-1))
    sizes = np.asarray(n_inner, dtype=int)
    verr = np.full((len(estimators), len(sizes)), np.nan)
    perr = np.full_like(verr, np.nan)
    total, step = len(estimators) * len(sizes), 0
    for e, est in enumerate(estimators):
        for k, n in enumerate(sizes):
            vs, ps = [], []
            for r in range(n_seeds):
                cfg = AttributionConfig(estimator=est, n_inner=int(n), n_outer=n_outer, knn_k=min(3, int(n) - 1))
                v = EntropyGame(m, cfg, derive_seed(seed, "estimator_error", r))(masks).sum(-1)
                vs.append(np.abs(v - exact_v).mean())
                ps.append(np.abs(shapley_from_table(v) - exact_phi).max())
            verr[e, k], perr[e, k] = np.mean(vs), np.mean(ps)
            step += 1
            if not report(progress, step, total, {"value_error": float(verr[e, k])}):
                return EstimatorError(model, list(estimators), sizes, verr, perr, n_outer, n_seeds)
    return EstimatorError(model, list(estimators), sizes, verr, perr, n_outer, n_seeds)

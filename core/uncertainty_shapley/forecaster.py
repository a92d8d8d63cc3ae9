"""A small probabilistic torch forecaster, standing in for the paper's zero-shot time-series foundation model.

No hub weights can be used here (nothing is downloaded), so a one-hidden-layer network with a
Gaussian head is trained on the same macrodata series: its mean is a linear map plus a tanh
layer, and its head is either a full covariance (a Cholesky factor per input: it can learn the
dependence between horizons and how it moves with x) or a diagonal one (independent horizons
given x: every cross-horizon dependence left must come from the features it does not see).
The issue allowed a quantile head instead; we chose the Gaussian one because a quantile head
gives only each horizon's marginal, and the joint and chain games need a joint law (a quantile
head would need a copula on top, a further choice of ours).
Training is full-batch Adam on the Gaussian negative log-likelihood of standardised data, with
early stopping on the last 20% of the training quarters (the network overfits 126 quarters
badly otherwise: held-out NLL in the hundreds), and a floor on the predictive scale.
Inference is numpy (:class:`GaussianForecaster`), so attributions need no torch; torch is imported
only to train. Checkpoints are safetensors + JSON, read back without torch.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.common.config import Config, choice, param
from core.common.progress import report
from core.common.seeding import torch_seeded
from core.uncertainty_shapley.data import ForecastData, macro_forecast
from core.uncertainty_shapley.models import FeatureLaw

HEADS = ("full", "diagonal")
HEAD_LABELS = {"full": "full covariance", "diagonal": "diagonal covariance"}
MIN_SCALE = 0.05   # floor on each Cholesky diagonal entry, in standardised units: no collapsing variance


@dataclass(frozen=True)
class ForecasterConfig(Config):
    """The torch forecaster's architecture and training (full-batch Adam on the Gaussian NLL).

    Examples
    --------
    >>> ForecasterConfig(head="diagonal").hidden
    8
    >>> ForecasterConfig(epochs=0)
    Traceback (most recent call last):
    ...
    ValueError: epochs: 0 is out of range; allowed integers in [1, 20000]
    """

    head: str = choice("full", HEADS, doc="Gaussian head: a full or a diagonal covariance")
    hidden: int = param(8, low=2, high=256, integer=True, doc="tanh units")
    epochs: int = param(400, low=1, high=20000, integer=True, doc="full-batch Adam steps (at most: early "
                        "stopping keeps the best validation weights)")
    lr: float = param(0.01, low=0.0, high=1.0, low_open=True, doc="Adam's learning rate")
    weight_decay: float = param(0.01, low=0.0, high=1.0, doc="Adam's (L2) weight decay")
    horizon: int = param(4, low=2, high=8, integer=True, doc="output dimension D: quarters ahead")
    val_fraction: float = param(0.2, low=0.0, high=0.5, doc="last share of the training quarters held out for "
                                "early stopping (0: no early stopping)")


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, x)


@dataclass
class GaussianForecaster:
    r"""The trained network in numpy: ``predict(X) -> (mean, cov)`` in the data's units.

    With :math:`z = (x - \bar x)/s_x` and :math:`h = \tanh(W_h z + b_h)`, the standardised mean is
    :math:`W_l z + W_m h + b_m` and the Cholesky factor of the standardised covariance is filled
    from :math:`W_s h + b_s` (its diagonal through softplus, plus ``MIN_SCALE``; only the diagonal
    for the diagonal head); both are mapped back by :math:`\bar y` and :math:`s_y`.

    Attributes
    ----------
    config : ForecasterConfig
        The architecture it was trained with.
    weights : dict of str to ndarray
        The network's tensors by name (``hidden.weight``, ``linear.weight``, ``mean.*``, ``scale.*``).
    x_mean : ndarray, shape (d,)
        The features' training mean.
    x_scale : ndarray, shape (d,)
        Their training standard deviation.
    y_mean : ndarray, shape (D,)
        The outcomes' training mean.
    y_scale : ndarray, shape (D,)
        Their training standard deviation.
    law : FeatureLaw
        The training features' Gaussian law (fills in left-out features).
    background : ndarray, shape (n, d)
        The training features, the rows a global attribution averages over.
    feature_names : list of str
        One per feature.
    output_names : list of str
        One per output component.
    name : str
        A label for results and figures.

    Examples
    --------
    >>> from core.common import asset_dir
    >>> m = load_forecaster(asset_dir("uncertainty_shapley") / "forecaster_diagonal").model
    >>> mean, cov = m.predict(m.background[:3])
    >>> mean.shape, cov.shape, float(np.abs(cov[0] - np.diag(np.diag(cov[0]))).max())
    ((3, 4), (3, 4, 4), 0.0)
    """

    config: ForecasterConfig
    weights: dict
    x_mean: np.ndarray
    x_scale: np.ndarray
    y_mean: np.ndarray
    y_scale: np.ndarray
    law: FeatureLaw
    background: np.ndarray
    feature_names: list = field(default_factory=list)
    output_names: list = field(default_factory=list)
    name: str = "torch forecaster"

    @property
    def n_features(self) -> int:
        return len(self.x_mean)

    @property
    def n_outputs(self) -> int:
        return len(self.y_mean)

    def predict(self, X) -> tuple[np.ndarray, np.ndarray]:
        w = self.weights
        z = (np.asarray(X, dtype=float) - self.x_mean) / self.x_scale
        h = np.tanh(z @ w["hidden.weight"].T + w["hidden.bias"])
        mean = z @ w["linear.weight"].T + h @ w["mean.weight"].T + w["mean.bias"]
        raw = h @ w["scale.weight"].T + w["scale.bias"]
        D = self.n_outputs
        L = np.zeros((len(z), D, D))
        if self.config.head == "full":
            rows, cols = np.tril_indices(D)
            L[:, rows, cols] = raw
            diag = np.arange(D)
            L[:, diag, diag] = _softplus(L[:, diag, diag]) + MIN_SCALE
        else:
            L[:, np.arange(D), np.arange(D)] = _softplus(raw) + MIN_SCALE
        S = L * self.y_scale[None, :, None]
        return self.y_mean + mean * self.y_scale, S @ S.transpose(0, 2, 1)


def _net(d: int, D: int, config: ForecasterConfig):
    import torch

    n_scale = D * (D + 1) // 2 if config.head == "full" else D
    return torch.nn.ModuleDict({"hidden": torch.nn.Linear(d, config.hidden), "linear": torch.nn.Linear(d, D, bias=False),
                                "mean": torch.nn.Linear(config.hidden, D), "scale": torch.nn.Linear(config.hidden, n_scale)})


@dataclass
class TrainedForecaster:
    """A trained forecaster, its training curve and its held-out negative log-likelihood.

    Attributes
    ----------
    model : GaussianForecaster
        The network with the best validation weights, in numpy.
    epochs : ndarray of int
        The epochs at which the curve was recorded (every 10th and the last).
    train_nll : ndarray
        Training NLL (standardised units, nats per quarter) at those epochs.
    val_nll : ndarray
        NLL on the held-out end of the training quarters (early stopping keeps its best).
    test_nll : float
        NLL on the test quarters, in the data's units (:func:`~core.uncertainty_shapley.data.gaussian_nll`).
    seed : int
        The initialisation's seed.

    Examples
    --------
    >>> t = train_forecaster(ForecasterConfig(epochs=20), seed=0)
    >>> t.epochs, t.model.n_outputs, bool(np.isfinite(t.test_nll))
    (array([10, 20]), 4, True)
    """

    model: GaussianForecaster
    epochs: np.ndarray
    train_nll: np.ndarray
    val_nll: np.ndarray
    test_nll: float
    seed: int


@dataclass
class LoadedForecaster:
    """A forecaster read back from its checkpoint, with the checkpoint's metadata.

    Attributes
    ----------
    model : GaussianForecaster
        The network, in numpy.
    metadata : dict
        What :func:`save_forecaster` recorded: ``seed``, ``test_nll``, ``final_train_nll``, names,
        ``made_by``.

    Examples
    --------
    >>> from core.common import asset_dir
    >>> loaded = load_forecaster(asset_dir("uncertainty_shapley") / "forecaster_full")
    >>> loaded.model.n_features, loaded.metadata["seed"]
    (6, 0)
    """

    model: GaussianForecaster
    metadata: dict


def train_forecaster(config: ForecasterConfig | None = None, seed: int = 0, data: ForecastData | None = None,
                     progress=None) -> TrainedForecaster:
    """Fit the Gaussian-head network by full-batch Adam on the Gaussian NLL (standardised data).

    Parameters
    ----------
    config : ForecasterConfig, optional
        Architecture and training (defaults if None).
    seed : int
        Seeds the initialisation.
    data : ForecastData, optional
        Defaults to :func:`~core.uncertainty_shapley.data.macro_forecast` at ``config.horizon``.
    progress : callable, optional
        Called every 10 epochs with the training and validation NLL; False stops, keeping the best
        weights so far.

    Returns
    -------
    TrainedForecaster
        The numpy model (best validation weights), its curves and its held-out NLL.

    Examples
    --------
    >>> t = train_forecaster(ForecasterConfig(head="diagonal", epochs=20), seed=0)
    >>> len(t.train_nll), t.model.predict(t.model.background[:2])[1].shape
    (2, (2, 4, 4))
    """
    import torch

    from core.uncertainty_shapley.data import gaussian_nll

    config = config or ForecasterConfig()
    data = data or macro_forecast(config.horizon)
    X, Y = data.X_train, data.Y_train
    xm, xs, ym, ys = X.mean(0), X.std(0), Y.mean(0), Y.std(0)
    d, D = X.shape[1], Y.shape[1]
    with torch_seeded(seed):
        net = _net(d, D, config).double()
    n_fit = len(X) - int(round(config.val_fraction * len(X)))
    xt = torch.as_tensor((X - xm) / xs)
    yt = torch.as_tensor((Y - ym) / ys)
    opt = torch.optim.Adam(net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    rows, cols = torch.tril_indices(D, D)

    def nll_of(x, y):
        h = torch.tanh(net["hidden"](x))
        mean = net["linear"](x) + net["mean"](h)
        raw = net["scale"](h)
        if config.head == "full":
            L = torch.zeros(len(x), D, D, dtype=x.dtype)
            L[:, rows, cols] = raw
            diag = torch.arange(D)
            L[:, diag, diag] = torch.nn.functional.softplus(L[:, diag, diag]) + MIN_SCALE
        else:
            L = torch.diag_embed(torch.nn.functional.softplus(raw) + MIN_SCALE)
        return -torch.distributions.MultivariateNormal(mean, scale_tril=L).log_prob(y).mean()

    epochs, curve, val_curve = [], [], []
    best, best_state = np.inf, None
    for epoch in range(1, config.epochs + 1):
        nll = nll_of(xt[:n_fit], yt[:n_fit])
        opt.zero_grad()
        nll.backward()
        opt.step()
        if epoch % 10 == 0 or epoch == config.epochs:
            with torch.no_grad():
                val = float(nll_of(xt[n_fit:], yt[n_fit:])) if n_fit < len(X) else float(nll.detach())
            epochs.append(epoch)
            curve.append(float(nll.detach()))
            val_curve.append(val)
            if val < best:
                best, best_state = val, {k: v.detach().clone() for k, v in net.state_dict().items()}
            if not report(progress, epoch, config.epochs, {"train_nll": curve[-1], "val_nll": val}):
                break
    if best_state is not None:
        net.load_state_dict(best_state)
    weights = {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}
    model = GaussianForecaster(config, weights, xm, xs, ym, ys, FeatureLaw.fit(X), X.copy(), data.feature_names,
                               data.output_names, name=f"torch forecaster ({HEAD_LABELS[config.head]})")
    return TrainedForecaster(model, np.array(epochs), np.array(curve), np.array(val_curve),
                             gaussian_nll(model, data.X_test, data.Y_test), seed)


def save_forecaster(directory: str | Path, trained: TrainedForecaster) -> Path:
    """Write a checkpoint: ``weights.safetensors`` (network, standardisation, law) + ``config.json`` (config, metrics).

    Parameters
    ----------
    directory : str or Path
        The checkpoint folder (created if missing).
    trained : TrainedForecaster
        The forecaster and its metrics (seed, held-out and final training NLL go to the metadata).

    Returns
    -------
    Path
        The checkpoint folder.

    Examples
    --------
    >>> import tempfile
    >>> from core.common import asset_dir
    >>> m = load_forecaster(asset_dir("uncertainty_shapley") / "forecaster_full").model
    >>> trained = TrainedForecaster(m, np.array([10]), np.array([1.0]), np.array([1.0]), 2.0, 7)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     back = load_forecaster(save_forecaster(tmp, trained))
    >>> back.metadata["seed"], bool(np.array_equal(back.model.weights["hidden.weight"], m.weights["hidden.weight"]))
    (7, True)
    """
    from core.common.checkpoint import save_checkpoint

    m = trained.model
    tensors = dict(m.weights)
    tensors.update({"x_mean": m.x_mean, "x_scale": m.x_scale, "y_mean": m.y_mean, "y_scale": m.y_scale,
                    "law_mean": m.law.mean, "law_cov": m.law.cov, "background": m.background})
    meta = {"seed": trained.seed, "test_nll": trained.test_nll, "final_train_nll": float(trained.train_nll[-1]),
            "feature_names": m.feature_names, "output_names": m.output_names, "name": m.name,
            "made_by": "python -m core.uncertainty_shapley.ship"}
    return save_checkpoint(directory, {k: np.ascontiguousarray(v, dtype=np.float64) for k, v in tensors.items()},
                           m.config, meta)


def load_forecaster(directory: str | Path) -> LoadedForecaster:
    """Read a checkpoint of :func:`save_forecaster` with safetensors' numpy reader (no torch, nothing unpickled).

    Parameters
    ----------
    directory : str or Path
        A folder holding ``weights.safetensors`` and ``config.json``.

    Returns
    -------
    LoadedForecaster
        The model (its config re-validated) and the checkpoint's metadata.

    Examples
    --------
    >>> from core.common import asset_dir
    >>> loaded = load_forecaster(asset_dir("uncertainty_shapley") / "forecaster_full")
    >>> loaded.model.config.head, loaded.model.n_outputs
    ('full', 4)
    """
    from safetensors.numpy import load_file

    directory = Path(directory)
    doc = json.loads((directory / "config.json").read_text())
    config = ForecasterConfig.from_dict(doc["config"])
    t = load_file(directory / "weights.safetensors")
    meta = doc.get("metadata", {})
    names = ("hidden.weight", "hidden.bias", "linear.weight", "mean.weight", "mean.bias", "scale.weight", "scale.bias")
    model = GaussianForecaster(config, {k: t[k] for k in names}, t["x_mean"], t["x_scale"], t["y_mean"], t["y_scale"],
                               FeatureLaw(t["law_mean"], t["law_cov"]), t["background"], meta.get("feature_names", []),
                               meta.get("output_names", []), meta.get("name", "torch forecaster"))
    return LoadedForecaster(model, meta)

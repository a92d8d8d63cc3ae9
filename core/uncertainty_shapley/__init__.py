"""Entropy Shapley games for multivariate predictive uncertainty: marginal, chain and joint.

The paper's claim: to attribute the uncertainty of a multivariate prediction to input features one
must choose how the dependence between output components is treated; a hierarchy of entropy
Shapley games, from per-component marginal entropy v_marg(S) = Σ_j H(Y_j | X_S) to the joint
entropy v_joint(S) = H(Y | X_S), makes the choice explicit for ordered outcomes and isolates a
cross-component term c_i = φ_i^marg − φ_i^joint, the Shapley value of the conditional total
correlation S ↦ TC(Y | X_S); the joint attribution decomposes by the chain rule into per-component
terms H(Y_j | Y_<j, X_S); the games have closed-form and sample-based estimators; the framework
shows differences in learned joint structure across models, up to a time-series foundation model.

What is ours (only the abstract was available), each documented where it lives:

- the intermediate game: a chain of lag L, Σ_j H(Y_j | Y_{j−L..j−1}, X_S), L = 1 by default
  (L = 0 is the marginal game and L >= D − 1 the joint one, since the chain with the full past is
  the joint entropy by the chain rule) (:mod:`.games`);
- the sign convention: games are entropies, so a feature that reduces uncertainty has φ < 0, and
  Σ_i c_i = TC(Y | X) − TC(Y) (efficiency of the TC game). A shared input that explains the outputs'
  dependence away has c_i < 0; the issue's "Σ c = TC(Y) − TC(Y | X)" and "c_1 > 0" describe −c, the
  dependence a feature accounts for. Both are tested (:mod:`.games`);
- the global, observational game: H(Y | X_S) averaged over background rows, the left-out features
  drawn from their Gaussian law given the kept ones (:class:`.models.FeatureLaw`), not the
  interventional (marginal) imputation of SHAP's defaults;
- the estimators: the Gaussian closed form for linear-Gaussian models, moment matching of the
  mixture over left-out features (the "ensemble" estimator), Kozachenko–Leonenko k-NN with k = 3,
  and mean imputation as the control that ignores the left-out features' spread (:mod:`.entropy`);
- Shapley values: exact enumeration up to 12 features, antithetic permutation sampling with
  standard errors beyond (:mod:`.shapley`);
- the data: inflation 1..4 quarters ahead from six indicators of statsmodels' macrodata, split in
  time (:mod:`.data`); the models: a direct linear-Gaussian forecaster, and a small torch network
  with a full or diagonal Gaussian head standing in for the foundation model, which cannot be
  used here (no hub weights) (:mod:`.forecaster`).
"""

from core.uncertainty_shapley.data import FEATURES, ForecastData, fit_linear_forecaster, gaussian_nll, macro_forecast
from core.uncertainty_shapley.entropy import (gaussian_entropy, gaussian_total_correlation, knn_entropy,
                                              knn_total_correlation, moment_matched_cov)
from core.uncertainty_shapley.forecaster import (HEADS, ForecasterConfig, GaussianForecaster, LoadedForecaster,
                                                 TrainedForecaster, load_forecaster, save_forecaster, train_forecaster)
from core.uncertainty_shapley.games import (ESTIMATOR_LABELS, ESTIMATORS, GAMES, Attribution, AttributionConfig,
                                            EntropyGame, attribute, coalition_values, conditional_total_correlation,
                                            entropy_terms_from_cov,
                                            entropy_terms_from_samples)
from core.uncertainty_shapley.models import FeatureLaw, LinearGaussian, linear_gaussian, random_linear_gaussian
from core.uncertainty_shapley.shapley import (MAX_EXACT_PLAYERS, ShapleyValues, all_coalitions, exact_shapley,
                                              permutation_shapley, shapley_from_table)
from core.uncertainty_shapley.views import (MODEL_LABELS, MODELS, EstimatorError, TrainedAttribution, attribution_view,
                                            estimator_error, load_model, shared_input_model, train_and_attribute)

from core.uncertainty_shapley.claims import CLAIMS  # noqa: E402

__all__ = [
    "CLAIMS", "GAMES", "ESTIMATORS", "ESTIMATOR_LABELS", "AttributionConfig", "Attribution", "EntropyGame", "attribute",
    "coalition_values", "conditional_total_correlation", "entropy_terms_from_cov", "entropy_terms_from_samples", "gaussian_entropy",
    "gaussian_total_correlation", "knn_entropy", "knn_total_correlation", "moment_matched_cov", "FeatureLaw",
    "LinearGaussian", "linear_gaussian", "random_linear_gaussian", "MAX_EXACT_PLAYERS", "ShapleyValues",
    "all_coalitions", "exact_shapley", "permutation_shapley", "shapley_from_table", "FEATURES", "ForecastData",
    "macro_forecast", "fit_linear_forecaster", "gaussian_nll", "HEADS", "ForecasterConfig", "GaussianForecaster",
    "TrainedForecaster", "LoadedForecaster", "train_forecaster", "save_forecaster", "load_forecaster", "MODELS",
    "MODEL_LABELS", "load_model", "shared_input_model", "attribution_view", "train_and_attribute", "TrainedAttribution",
    "estimator_error", "EstimatorError",
]

"""The contextual setting: contexts x, states s = f(x) + noise, a learned predictor, and policies.

Our choices (the abstract leaves them open):

- Contexts x ~ U[0, 1]^d; f is linear, mapping the cube onto the problem's typical state range
  (pricing and house flipping: [2, 8] with R = 10; ski rental: [0.2 b, 1.8 b]); states are clipped
  to the problem's domain. The predictor is a scikit-learn regressor fit on a training split.
- eta is the predictor's RMSE on held-out data (a validation split for the policies that need it,
  and the test split for reporting). It is an RMSE, not an MSE: with an MSE the same bound would
  read eta^(1/3).
- Error laws with RMSE ``noise`` (:mod:`.laws`): Gaussian, Student-t, the three-point law built
  from eps*(noise) (delta = (1 + margin)·eps*(noise), just outside the ball eps*(noise) defends),
  and the worst case found by search over two- and three-point laws, which is searched against
  the theory policy robust_action(., eps*(noise)) on the training split's f(x), once per setting.
- Ski rental's tie-break (``tie_break``, see :class:`.problems.SkiRental`) decides both what
  "follow the prediction" does for a predicted season shorter than b and the robust policy's
  "rent through" action; the other problems ignore it (their optimal action is unique).
- Policies: follow the prediction; robust with a chosen eps; robust with the theory eps*(eta) of
  :meth:`DecisionProblem.theory_eps`; robust with eps tuned on the validation split; and, for
  pricing, Medina & Vassilvitskii's clustered reserves (RIC-h, see :mod:`.ric`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import Config, choice, param
from core.common.seeding import make_rng
from core.robust_decisions.laws import ERROR_LAWS, RADIUS_SPREAD, DiscreteLaw, student_t_errors, three_point_law, worst_case_law
from core.robust_decisions.problems import PROBLEMS, TIE_BREAKS, DecisionProblem, problem_for
from core.robust_decisions.ric import RicH

MODELS = ("linear", "gradient_boosting")
POLICIES = ("follow", "robust", "robust_theory", "robust_tuned", "ric_h")
POLICY_LABELS = {"follow": "follow the prediction", "robust": "robust, chosen ε", "robust_theory": "robust, ε*(η)",
                 "robust_tuned": "robust, ε tuned on held-out data", "ric_h": "RIC-h (Medina & Vassilvitskii)"}


@dataclass(frozen=True)
class SettingConfig(Config):
    """One contextual setting: the problem, the noise and its law, the predictor and the split sizes.

    Examples
    --------
    >>> SettingConfig(problem="ski_rental", noise=0.1).error_law
    'gaussian'
    """

    problem: str = choice("posted_pricing", tuple(PROBLEMS), doc="which decision problem")
    noise: float = param(0.3, low=0.0, high=3.0, doc="RMSE of the state noise around f(x)")
    error_law: str = choice("gaussian", ERROR_LAWS, doc="law of the noise")
    model: str = choice("linear", MODELS, doc="the scikit-learn predictor")
    n_features: int = param(4, low=1, high=20, integer=True, doc="dimension d of the contexts x ~ U[0, 1]^d")
    n_train: int = param(2000, low=50, high=200_000, integer=True, doc="contexts the predictor is fit on")
    n_val: int = param(2000, low=50, high=200_000, integer=True, doc="held-out contexts for eta_val and tuning")
    n_test: int = param(20_000, low=100, high=1_000_000, integer=True, doc="contexts the policies are scored on")
    margin: float = param(0.25, low=0.0, high=5.0, doc="three-point law: delta = (1 + margin) eps*(noise)")
    tie_break: str = choice("earliest_buy", TIE_BREAKS, doc="ski rental: the optimal action for a season < b")


@dataclass
class Setting:
    """A drawn dataset with a fitted predictor: predictions and true states on each split.

    Attributes
    ----------
    config : SettingConfig
        What was drawn.
    problem : DecisionProblem
        The problem instance (with its tie-break).
    state_max : float
        The largest state the bound's B allows for (at least the largest drawn training state).
    pred_train, s_train : ndarray
        Predictions and true states on the training split.
    pred_val, s_val : ndarray
        The same on the validation split.
    pred_test, s_test : ndarray
        The same on the test split.
    eta_val : float
        The predictor's RMSE on the validation split (what the theory policy uses).
    eta_test : float
        Its RMSE on the test split (what is reported).
    law : DiscreteLaw or None
        The searched law under ``error_law="worst_case"``, else None.

    Examples
    --------
    >>> setting = make_setting(SettingConfig(n_train=100, n_val=100, n_test=500), seed=0)
    >>> setting.pred_test.shape, round(setting.bound, 1) >= 8.0
    ((500,), True)
    """

    config: SettingConfig
    problem: DecisionProblem
    state_max: float
    pred_train: np.ndarray
    s_train: np.ndarray
    pred_val: np.ndarray
    s_val: np.ndarray
    pred_test: np.ndarray
    s_test: np.ndarray
    eta_val: float
    eta_test: float
    law: DiscreteLaw | None = None

    @property
    def bound(self) -> float:
        """B, the bound's excess loss when the state leaves the ball (``problem.loss_bound(state_max)``)."""
        return self.problem.loss_bound(self.state_max)


def typical_range(problem: DecisionProblem) -> tuple[float, float]:
    if problem.key == "ski_rental":
        return 0.2 * problem.buy_cost, 1.8 * problem.buy_cost
    if problem.key == "house_flipping":
        return 0.2 * problem.resale_value, 0.8 * problem.resale_value
    return 2.0, 8.0


def draw_errors(n: int, noise: float, law: str, problem: DecisionProblem, state_max: float, margin: float,
                rng: np.random.Generator, states: np.ndarray | None = None) -> np.ndarray:
    """``n`` errors of RMSE ``noise`` from ``law``; "worst_case" searches its law on ``states``."""
    if law == "gaussian":
        return noise * rng.standard_normal(n)
    if law == "student_t":
        return student_t_errors(n, noise, rng)
    eps_star = float(problem.theory_eps(noise, problem.loss_bound(state_max)))
    if law == "three_point":
        return three_point_law(noise, max(noise, (1.0 + margin) * eps_star)).sample(n, rng)
    if law == "worst_case":
        return searched_law(problem, noise, state_max, states).sample(n, rng)
    raise ValueError(f"error_law: {law!r} is not an option; allowed {', '.join(ERROR_LAWS)}")


def searched_law(problem: DecisionProblem, noise: float, state_max: float, states: np.ndarray):
    """The worst-case law for the theory policy at RMSE ``noise`` (see :func:`.laws.worst_case_law`),
    whose radius eps*(eta_val) is eps*(rho·noise) for rho spread over ``RADIUS_SPREAD``."""
    lo, hi = typical_range(problem)
    radii = problem.theory_eps(RADIUS_SPREAD * noise, problem.loss_bound(state_max))
    return worst_case_law(problem, noise, np.asarray(states, dtype=float), radii, width=(hi - lo) / 2)


def _regressor(model: str, seed: int):
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.linear_model import LinearRegression

    if model == "linear":
        return LinearRegression()
    return GradientBoostingRegressor(n_estimators=200, max_depth=3, random_state=seed)


def make_setting(config: SettingConfig, seed: int = 0, problem: DecisionProblem | None = None) -> Setting:
    """Draw contexts and states, fit the predictor on the training split, predict the others.

    Contexts x ~ U[0, 1]^d, states s = f(x) + e with f linear onto the problem's typical range and e
    of RMSE ``noise`` from ``error_law``, clipped to the state domain; predictions are clipped too.

    Parameters
    ----------
    config : SettingConfig
        The setting.
    seed : int
        Seeds the draw (and the gradient-boosting model).
    problem : DecisionProblem, optional
        The instance to use (default: ``problem_for(config.problem, config.tie_break)``).

    Returns
    -------
    Setting
        Predictions and states on every split, and the RMSEs eta_val and eta_test.

    Examples
    --------
    >>> setting = make_setting(SettingConfig(noise=0.2, n_train=200, n_val=200, n_test=2000), seed=1)
    >>> round(setting.eta_test, 1)
    0.2
    """
    from core.common.seeding import check_seed

    seed = check_seed(seed)
    problem = problem or problem_for(config.problem, config.tie_break)
    rng = make_rng(seed)
    lo, hi = typical_range(problem)
    d = config.n_features
    weights = rng.dirichlet(np.ones(d))
    low, high = problem.state_domain()
    state_max = min(high, hi + 4.0 * config.noise)  # B before drawing; raised to the largest drawn state below

    searched: list = []  # the worst-case law, searched once on the training split's f(x)

    def draw(n):
        x = rng.random((n, d))
        f = lo + (hi - lo) * (x @ weights)
        if config.error_law == "worst_case":
            if not searched:
                searched.append(searched_law(problem, config.noise, state_max, f[:4000]))
            e = searched[0].sample(n, rng)
        else:
            e = draw_errors(n, config.noise, config.error_law, problem, state_max, config.margin, rng)
        return x, np.clip(f + e, low, high)

    (x_tr, s_tr), (x_va, s_va), (x_te, s_te) = draw(config.n_train), draw(config.n_val), draw(config.n_test)
    model = _regressor(config.model, seed).fit(x_tr, s_tr)
    clip = lambda p: np.clip(p, low, high)  # noqa: E731  (predictions must lie in the domain)
    p_tr, p_va, p_te = clip(model.predict(x_tr)), clip(model.predict(x_va)), clip(model.predict(x_te))
    rmse = lambda p, s: float(np.sqrt(np.mean((p - s) ** 2)))  # noqa: E731
    return Setting(config, problem, float(max(s_tr.max(), state_max)), p_tr, s_tr, p_va, s_va, p_te, s_te,
                   rmse(p_va, s_va), rmse(p_te, s_te), searched[0] if searched else None)


def eps_grid(setting: Setting, n: int = 48) -> np.ndarray:
    """Candidate radii from 0 to a quarter of the state range, denser near 0."""
    lo, hi = typical_range(setting.problem)
    return np.concatenate([[0.0], np.geomspace(1e-4 * (hi - lo), 0.5 * (hi - lo), n - 1)])


def tune_eps(setting: Setting, grid: np.ndarray | None = None) -> float:
    """The radius with the smallest average excess loss of the robust policy on the validation split.

    Parameters
    ----------
    setting : Setting
        The drawn setting.
    grid : array_like, optional
        Candidate radii, each >= 0 (default: 0 and 47 geometric radii up to half the typical range).

    Returns
    -------
    float
        The chosen radius (the first minimiser on the grid).

    Examples
    --------
    >>> setting = make_setting(SettingConfig(n_train=100, n_val=100, n_test=500), seed=0)
    >>> tune_eps(setting, [0.0, 0.5, 1.0]) in (0.0, 0.5, 1.0)
    True
    """
    grid = eps_grid(setting) if grid is None else grid
    losses = [setting.problem.excess_loss(setting.problem.robust_action(setting.pred_val, e), setting.s_val).mean()
              for e in grid]
    return float(grid[int(np.argmin(losses))])


def policy_actions(setting: Setting, policy: str, eps: float = 0.0) -> np.ndarray:
    """Each policy's actions on the test split.

    Parameters
    ----------
    setting : Setting
        The drawn setting.
    policy : str
        ``follow`` (the optimal action for the prediction), ``robust`` (radius ``eps``),
        ``robust_theory`` (radius eps*(eta_val)), ``robust_tuned`` (radius from :func:`tune_eps`) or
        ``ric_h`` (posted pricing only, :class:`RicH`).
    eps : float
        The radius of ``robust``, >= 0 (ignored by the others).

    Returns
    -------
    ndarray
        One action per test context.

    Examples
    --------
    >>> setting = make_setting(SettingConfig(n_train=100, n_val=100, n_test=500), seed=0)
    >>> bool(np.all(policy_actions(setting, "robust", 0.5) <= policy_actions(setting, "follow")))  # hedged prices
    True
    """
    problem, pred = setting.problem, setting.pred_test
    if policy == "follow":
        return problem.follow_prediction(pred)
    if policy == "robust":
        return problem.robust_action(pred, eps)
    if policy == "robust_theory":
        return problem.robust_action(pred, float(problem.theory_eps(setting.eta_val, setting.bound)))
    if policy == "robust_tuned":
        return problem.robust_action(pred, tune_eps(setting))
    if policy == "ric_h":
        if problem.key != "posted_pricing":
            raise ValueError(f"policy: 'ric_h' is for posted pricing only; allowed for {problem.key}: "
                             f"{', '.join(p for p in POLICIES if p != 'ric_h')}")
        return fit_ric(setting).predict(pred)
    raise ValueError(f"policy: {policy!r} is not an option; allowed {', '.join(POLICIES)}")


def fit_ric(setting: Setting) -> RicH:
    """RIC-h fitted on the setting's training split, its k chosen on the validation split (pricing).

    Parameters
    ----------
    setting : Setting
        A posted-pricing setting.

    Returns
    -------
    RicH
        The fitted model (deterministic: KMeans is seeded), as the ``ric_h`` policy uses it.

    Examples
    --------
    >>> setting = make_setting(SettingConfig(n_train=200, n_val=200, n_test=500), seed=0)
    >>> ric = fit_ric(setting)
    >>> ric.bound(setting.pred_test, setting.s_test) > 0
    True
    """
    if setting.problem.key != "posted_pricing":
        raise ValueError(f"setting: RIC-h is for posted pricing only; allowed a posted_pricing setting, not "
                         f"{setting.problem.key}")
    return RicH().fit(setting.pred_train, setting.s_train, setting.pred_val, setting.s_val)


def policies_for(problem: DecisionProblem) -> list[str]:
    """The policies that apply to ``problem`` (RIC-h is for posted pricing only).

    Parameters
    ----------
    problem : DecisionProblem
        The problem.

    Returns
    -------
    list of str
        Keys of :data:`POLICIES`, in their order.

    Examples
    --------
    >>> policies_for(problem_for("ski_rental"))
    ['follow', 'robust', 'robust_theory', 'robust_tuned']
    """
    return list(POLICIES if problem.key == "posted_pricing" else POLICIES[:-1])


@dataclass
class ExcessLoss:
    """A policy's average excess loss on the test split.

    Attributes
    ----------
    mean : float
        The mean of excess_loss(action, s) over the test contexts.
    sem : float
        Its standard error, std / sqrt(n_test).
    """

    mean: float
    sem: float


def average_excess(setting: Setting, policy: str, eps: float = 0.0) -> ExcessLoss:
    """Mean excess loss of a policy on the test split and its standard error.

    Parameters
    ----------
    setting : Setting
        The drawn setting.
    policy : str
        One of :data:`POLICIES` (see :func:`policy_actions`).
    eps : float
        The radius of ``robust``, >= 0.

    Returns
    -------
    ExcessLoss
        The mean and its standard error.

    References
    ----------
    .. [1] Robust decisions around predictions (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> setting = make_setting(SettingConfig(noise=0.05, n_train=200, n_val=200, n_test=2000), seed=0)
    >>> follow, robust = average_excess(setting, "follow"), average_excess(setting, "robust_theory")
    >>> robust.mean < follow.mean       # following a good prediction still falls off the cliff
    True
    """
    losses = setting.problem.excess_loss(policy_actions(setting, policy, eps), setting.s_test)
    return ExcessLoss(mean=float(losses.mean()), sem=float(losses.std(ddof=1) / np.sqrt(losses.size)))


@dataclass
class EpsCurve:
    """The robust policy's average test excess loss against its radius.

    Attributes
    ----------
    eps : ndarray
        The radii.
    loss : ndarray
        The average test excess loss at each.
    """

    eps: np.ndarray
    loss: np.ndarray


def loss_against_eps(setting: Setting, grid: np.ndarray | None = None) -> EpsCurve:
    """Average test excess loss of the robust policy for each radius in ``grid``.

    Parameters
    ----------
    setting : Setting
        The drawn setting.
    grid : array_like, optional
        Radii, each >= 0 (default: 0 and 47 geometric radii up to half the typical range).

    Returns
    -------
    EpsCurve
        The radii and the losses.

    Examples
    --------
    >>> setting = make_setting(SettingConfig(n_train=100, n_val=100, n_test=500), seed=0)
    >>> curve = loss_against_eps(setting, [0.0, 0.3])
    >>> curve.eps.tolist(), curve.loss.shape
    ([0.0, 0.3], (2,))
    """
    grid = eps_grid(setting) if grid is None else np.asarray(grid, dtype=float)
    problem = setting.problem
    return EpsCurve(eps=grid, loss=np.array([problem.excess_loss(problem.robust_action(setting.pred_test, e),
                                                                 setting.s_test).mean() for e in grid]))

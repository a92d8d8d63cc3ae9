"""Three decision problems with a scalar action and a scalar unknown state, and their robust policies.

Every problem exposes ``excess_loss(a, s)``, ``follow_prediction(s_hat)``, ``robust_action(s_hat, eps)``
and ``robust_gap(s_hat, eps)``; all are vectorised (NumPy broadcasting). The robust policy solves

    a*(s_hat, eps) = argmin_a  sup_{s in B}  excess_loss(a, s),   B = [s_hat - eps, s_hat + eps] ∩ domain,

and ``robust_gap`` is that minimax value. The supremum matters: at a threshold the worst state is
approached but not attained (a buyer valuing the item just below the price). Where several
actions attain the minimax value, we return the one named in each class docstring, and
``follow_prediction`` is the robust action with ``eps = 0``, i.e. the optimal action for the
predicted state under the same tie-break.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import check_choice, check_range

TIE_BREAKS = ("earliest_buy", "never_buy")


def _as_float(name: str, value) -> np.ndarray:
    array = np.asarray(value, dtype=float)
    if np.isnan(array).any():
        raise ValueError(f"{name}: NaN is not allowed; allowed finite numbers")
    return array


class DecisionProblem:
    """A decision problem with a scalar action and a scalar unknown state; subclasses define the loss,
    the optimal action and the interval minimax in closed form.

    Examples
    --------
    >>> problem = PostedPricing()
    >>> float(problem.excess_loss(5.0, 4.9))           # a price just above the value loses the sale
    4.9
    """

    key = ""
    title = ""
    state_name = "state"
    action_name = "action"
    gap_slope = 1.0  # c with robust_gap(s_hat, eps) <= c * eps for every s_hat

    def state_domain(self) -> tuple[float, float]:
        return 0.0, np.inf

    # -- the problem -------------------------------------------------------------------------
    def loss(self, a, s):
        raise NotImplementedError

    def best_action(self, s):
        raise NotImplementedError

    def excess_loss(self, a, s) -> np.ndarray:
        """loss(a, s) minus the loss of the best action knowing s; never negative."""
        a = _as_float("action", a)
        s = self.check_states(s, "state")
        return self.loss(a, s) - self.loss(self.best_action(s), s)

    # -- policies ----------------------------------------------------------------------------
    def follow_prediction(self, s_hat) -> np.ndarray:
        """The action optimal for the predicted state (the brittle baseline)."""
        return self.robust_action(s_hat, 0.0)

    def ball(self, s_hat, eps) -> tuple[np.ndarray, np.ndarray]:
        """The uncertainty interval [s_hat - eps, s_hat + eps] clipped to the state domain."""
        s_hat = self.check_states(s_hat, "prediction")
        eps = _as_float("eps", eps)
        if (eps < 0).any() or np.isinf(eps).any():
            raise ValueError(f"eps: {float(np.min(eps)) if (eps < 0).any() else float(np.max(eps)):g} is "
                             "out of range; allowed finite numbers >= 0")
        low, high = self.state_domain()
        return np.maximum(low, s_hat - eps), np.minimum(high, s_hat + eps)

    def robust_action(self, s_hat, eps) -> np.ndarray:
        return self._interval_minimax(*self.ball(s_hat, eps))[0]

    def robust_gap(self, s_hat, eps) -> np.ndarray:
        """min over actions of the worst excess loss over the eps-ball: the price of hedging."""
        return self._interval_minimax(*self.ball(s_hat, eps))[1]

    def _interval_minimax(self, low, high):
        raise NotImplementedError

    # -- what the bounds need ----------------------------------------------------------------
    def loss_bound(self, state_max: float) -> float:
        """An upper bound B on the robust policy's excess loss when the state leaves the ball."""
        raise NotImplementedError

    def theory_eps(self, eta, bound: float):
        """eps*(eta) minimising c*eps + B*eta^2/eps^2, the bound of ``core.robust_decisions``."""
        eta = _as_float("eta", eta)
        if (eta < 0).any():
            raise ValueError(f"eta: {float(np.min(eta)):g} is out of range; allowed >= 0")
        return (2.0 * bound * eta**2 / self.gap_slope) ** (1.0 / 3.0)

    def bound_value(self, eta, bound: float):
        """The value of that bound at eps*(eta): 1.5 c^(2/3) (2B)^(1/3) eta^(2/3)."""
        return 1.5 * self.gap_slope * self.theory_eps(eta, bound)

    def action_grid_range(self, low: float, high: float) -> tuple[float, float]:
        """Actions a brute-force search must cover to contain a minimiser for states in [low, high]."""
        raise NotImplementedError

    def check_states(self, s, name: str = "state") -> np.ndarray:
        s = _as_float(name, s)
        low, high = self.state_domain()
        bad = (s < low) | (s > high)
        if bad.any():
            raise ValueError(f"{name}: {float(s[bad].flat[0]):g} is outside the {self.state_name} domain; "
                             f"allowed [{low:g}, {high:g}]")
        return s


class PostedPricing(DecisionProblem):
    """Post a price p to a buyer whose value is v >= 0; the buyer buys iff v >= p.

    Revenue p*1[v >= p]; the best price knowing v is v, so excess_loss(p, v) = v - p*1[v >= p]:
    a price a hair above the value loses the whole sale (the cliff). On B = [L, U]:

    - a price p <= L always sells; the worst case is U - p, best at p = L: value U - L;
    - a price p in (L, U] risks v just below p (loss -> p) or v = U (loss U - p): the worst is
      max(p, U - p), best at p = U/2, which lies in (L, U] iff U > 2L: value U/2.

    So p* = U/2 with gap U/2 if U > 2L, else p* = L with gap U - L. With L = v_hat - eps >= 0 this is
    p* = v_hat - eps, gap 2 eps for eps <= v_hat/3, and p* = (v_hat + eps)/2 otherwise.
    At U = 2L both give the same value and we post L, the price that always sells.
    """

    key = "posted_pricing"
    title = "Posted pricing"
    state_name = "buyer's value"
    action_name = "price"
    gap_slope = 2.0

    def loss(self, a, s):
        return -np.where(s >= a, a, 0.0)

    def best_action(self, s):
        return np.asarray(s, dtype=float)

    def _interval_minimax(self, low, high):
        low, high = np.broadcast_arrays(low, high)
        split = high > 2.0 * low
        return np.where(split, high / 2.0, low), np.where(split, high / 2.0, high - low)

    def loss_bound(self, state_max: float) -> float:
        return float(state_max)  # a lost sale costs the value, at most the largest value

    def action_grid_range(self, low, high):
        return 0.0, float(high)


class SkiRental(DecisionProblem):
    """Rent skis at 1 per day or buy them for ``buy_cost``; the season lasts s days (unknown).

    The action is the day a on which to buy if still skiing (continuous time; a = inf is never):
    the cost is s if s <= a, else a + buy_cost. OPT(s) = min(s, b). For a known s < b every a >= s
    is optimal, so "the optimal action for the prediction" needs a tie-break, and the brittleness
    of following the prediction depends on it (issue 23). ``tie_break`` names ours:

    - ``"earliest_buy"`` (the default, the worst case for following): the earliest optimal day,
      a = s for s < b ("rent for the season, buy if it runs over"). A season just longer than
      predicted buys on its last day and pays ~b extra, whatever the RMSE: brittle;
    - ``"never_buy"``: a = inf for s < b. A season longer than predicted costs only the days past
      b, so following is 1-Lipschitz in the error and its average excess falls like eta^2.

    For s >= b the only optimal action is a = 0 (ties at s = b go to a = 0 under both).

    On B = [L, U] an action a >= U never buys inside B (worst max(0, U - b)); a = 0 buys at once
    (worst max(0, b - L)); any a in (0, U) is dominated, since a season ending just after a costs
    a + b - min(a, b) >= b - L. So a* = 0 with gap max(0, b - L) when that is <= max(0, U - b),
    else a* = "rent through B" with gap max(0, U - b): a = U under ``"earliest_buy"`` (the earliest
    day that never buys inside B), a = inf under ``"never_buy"``. The gap is the same for both.
    """

    key = "ski_rental"
    title = "Ski rental"
    state_name = "season length (days)"
    action_name = "buy day"
    gap_slope = 1.0

    def __init__(self, buy_cost: float = 10.0, tie_break: str = "earliest_buy"):
        self.buy_cost = check_range("buy_cost", buy_cost, low=0.0, low_open=True)
        self.tie_break = check_choice("tie_break", tie_break, TIE_BREAKS)

    def loss(self, a, s):
        return np.where(s <= a, s, a + self.buy_cost)

    def _rent_through(self, high):
        return high if self.tie_break == "earliest_buy" else np.full_like(high, np.inf)

    def best_action(self, s):
        s = np.asarray(s, dtype=float)
        return np.where(s < self.buy_cost, self._rent_through(s), 0.0)

    def _interval_minimax(self, low, high):
        b = self.buy_cost
        low, high = np.broadcast_arrays(low, high)
        buy_now, rent_through = np.maximum(0.0, b - low), np.maximum(0.0, high - b)
        buy = buy_now <= rent_through
        return np.where(buy, 0.0, self._rent_through(high)), np.where(buy, buy_now, rent_through)

    def loss_bound(self, state_max: float) -> float:
        # Buying at 0 loses at most b; buying at U < 2b loses at most max(b, U) on a longer season.
        return float(max(2.0 * self.buy_cost, state_max))

    def action_grid_range(self, low, high):
        return 0.0, float(high) + 1.0


class HouseFlipping(DecisionProblem):
    """Bid for a house to flip: resale value R is known, the seller's reserve price s is not.

    Our definition (the abstract only names the problem): the seller accepts a bid a iff a >= s;
    the flipper then resells at R, earning R - a, else earns nothing. States and sensible bids lie
    in [0, R]. The best bid knowing s is a = s (profit R - s), so excess_loss(a, s) = a - s when the
    bid wins (overpaying) and R - s when it loses (the missed margin): bidding a hair under the
    reserve forfeits the whole margin, the same cliff as posted pricing, mirrored. Indeed with
    t = R - s and c = R - a it is posted pricing in (c, t); the domain is bounded on both sides.

    On B = [L, U]: a bid a >= U always wins (worst a - L, best at a = U: value U - L); a bid in
    [L, U) risks a reserve just above a (loss -> R - a) or s = L (loss a - L), best at
    a = (R + L)/2: value (R - L)/2, available iff (R + L)/2 < U. On ties we bid U, which always wins.
    """

    key = "house_flipping"
    title = "House flipping"
    state_name = "seller's reserve price"
    action_name = "bid"
    gap_slope = 2.0

    def __init__(self, resale_value: float = 10.0):
        self.resale_value = check_range("resale_value", resale_value, low=0.0, low_open=True)

    def state_domain(self):
        return 0.0, self.resale_value

    def loss(self, a, s):
        return -np.where(a >= s, self.resale_value - a, 0.0)

    def best_action(self, s):
        return np.asarray(s, dtype=float)

    def _interval_minimax(self, low, high):
        low, high = np.broadcast_arrays(low, high)
        middle = (self.resale_value + low) / 2.0
        split = middle < high
        return np.where(split, middle, high), np.where(split, (self.resale_value - low) / 2.0, high - low)

    def loss_bound(self, state_max: float) -> float:
        return self.resale_value  # a missed margin R - s, or an overpayment a - s, is at most R

    def action_grid_range(self, low, high):
        return 0.0, self.resale_value


def make_problem(key: str, **params) -> DecisionProblem:
    """A fresh problem instance by key, with its own parameters.

    Parameters
    ----------
    key : str
        ``posted_pricing``, ``ski_rental`` or ``house_flipping``.
    **params
        The class's arguments: ``buy_cost`` and ``tie_break`` for ski rental, ``resale_value`` for
        house flipping, none for pricing.

    Returns
    -------
    DecisionProblem
        A :class:`PostedPricing`, :class:`SkiRental` or :class:`HouseFlipping`.

    Examples
    --------
    >>> make_problem("ski_rental", buy_cost=5.0).buy_cost
    5.0
    """
    classes = {"posted_pricing": PostedPricing, "ski_rental": SkiRental, "house_flipping": HouseFlipping}
    if key not in classes:
        raise ValueError(f"problem: {key!r} is not an option; allowed {', '.join(repr(k) for k in classes)}")
    return classes[key](**params)


def problem_for(key: str, tie_break: str = "earliest_buy") -> DecisionProblem:
    """The shared instance of ``key`` (default parameters); ski rental with the given tie-break.

    Parameters
    ----------
    key : str
        ``posted_pricing``, ``ski_rental`` or ``house_flipping``.
    tie_break : str
        Ski rental's optimal action for a known season shorter than b: ``earliest_buy`` or
        ``never_buy`` (ignored by the others, whose optimal action for a known state is unique).

    Returns
    -------
    DecisionProblem
        The instance the page, tests and bench share (buy cost 10, resale value 10).

    Examples
    --------
    >>> problem_for("ski_rental", "never_buy").tie_break, problem_for("posted_pricing").title
    ('never_buy', 'Posted pricing')
    """
    check_choice("tie_break", tie_break, TIE_BREAKS)
    if key == "ski_rental" and tie_break != "earliest_buy":
        return _SKI_NEVER_BUY
    return PROBLEMS[key] if key in PROBLEMS else make_problem(key)


PROBLEMS = {"posted_pricing": PostedPricing(), "ski_rental": SkiRental(buy_cost=10.0),
            "house_flipping": HouseFlipping()}
_SKI_NEVER_BUY = SkiRental(buy_cost=10.0, tie_break="never_buy")


@dataclass
class Minimax:
    """The brute-force minimax over a grid: the best grid action and its worst excess loss.

    Attributes
    ----------
    action : float
        The grid action with the smallest worst-case excess loss over the ball.
    worst : float
        That worst case: the grid's estimate of ``robust_gap``.
    """

    action: float
    worst: float


def grid_minimax(problem: DecisionProblem, s_hat: float, eps: float, n_actions: int = 2001,
                 n_states: int = 2001) -> Minimax:
    """Brute-force minimax over a grid of actions and states: an oracle for the closed forms.

    .. math:: \\min_{a \\in A_{grid}} \\max_{s \\in B_{grid}} \\mathrm{excess\\_loss}(a, s),
              \\quad B = [\\hat s - \\epsilon, \\hat s + \\epsilon] \\cap \\text{domain}

    Uses only ``excess_loss``. Suprema approached at a threshold are reached to within one
    state-grid step.

    Parameters
    ----------
    problem : DecisionProblem
        The problem.
    s_hat : float
        The prediction, inside the state domain.
    eps : float
        The ball's radius, >= 0.
    n_actions : int
        Grid points over ``problem.action_grid_range``, in [2, 10^6].
    n_states : int
        Grid points over the ball, in [2, 10^6].

    Returns
    -------
    Minimax
        The best grid action and its worst excess loss.

    Examples
    --------
    >>> problem = PostedPricing()
    >>> m = grid_minimax(problem, 5.0, 1.0, n_actions=601, n_states=401)
    >>> round(m.action, 2), round(m.worst, 2), float(problem.robust_gap(5.0, 1.0))
    (4.0, 2.0, 2.0)
    """
    n_actions = check_range("n_actions", n_actions, 2, 10**6, integer=True)
    n_states = check_range("n_states", n_states, 2, 10**6, integer=True)
    low, high = (float(x) for x in problem.ball(s_hat, eps))
    states = np.linspace(low, high, n_states)
    actions = np.linspace(*problem.action_grid_range(low, high), n_actions)
    worst = problem.excess_loss(actions[:, None], states[None, :]).max(axis=1)
    best = int(np.argmin(worst))
    return Minimax(action=float(actions[best]), worst=float(worst[best]))

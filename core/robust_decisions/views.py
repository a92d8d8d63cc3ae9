"""What the page draws, computed here: excess loss across true states around one prediction."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.robust_decisions.problems import DecisionProblem


@dataclass
class StateCurves:
    """Excess loss of following the prediction and of the robust action, against the true state.

    Attributes
    ----------
    states : ndarray
        The true states (a window around the prediction, plus the ball's ends and both sides of each
        action's threshold, so the cliffs show).
    follow : ndarray
        Following the prediction's excess loss at each state.
    robust : ndarray
        The robust action's excess loss at each state.
    s_hat : float
        The prediction.
    eps : float
        The ball's radius.
    ball_low, ball_high : float
        The ball, clipped to the state domain.
    follow_action : float
        The action optimal for the prediction.
    robust_action : float
        The robust action.
    robust_gap : float
        The minimax value over the ball, the price of hedging.
    follow_worst_in_ball : float
        Following's worst excess loss over the ball's states in ``states``.
    """

    states: np.ndarray
    follow: np.ndarray
    robust: np.ndarray
    s_hat: float
    eps: float
    ball_low: float
    ball_high: float
    follow_action: float
    robust_action: float
    robust_gap: float
    follow_worst_in_ball: float


def state_curves(problem: DecisionProblem, s_hat: float, eps: float, n: int = 801, width: float | None = None) -> StateCurves:
    """Both policies' excess loss over a window of true states centred on the prediction.

    Parameters
    ----------
    problem : DecisionProblem
        The problem.
    s_hat : float
        The prediction, inside the state domain.
    eps : float
        The robust action's radius, >= 0.
    n : int
        Evenly spaced states in the window, in [2, 10^6] (a few are added at the thresholds).
    width : float, optional
        Half the window (default max(3 eps, max(|s_hat|, 1) / 2)), > 0.

    Returns
    -------
    StateCurves
        Both policies' excess losses, the actions, the ball and the gap.

    References
    ----------
    .. [1] Robust decisions around predictions (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> from core.robust_decisions import PostedPricing
    >>> c = state_curves(PostedPricing(), 5.0, 0.5, n=101)
    >>> c.follow_action, c.robust_action, c.robust_gap, round(c.follow_worst_in_ball, 2)
    (5.0, 4.5, 1.0, 5.0)
    """
    from core.common.config import check_range

    n = check_range("n", n, 2, 10**6, integer=True)
    if width is not None:
        width = check_range("width", width, 0.0, None, low_open=True)
    low, high = (float(x) for x in problem.ball(s_hat, eps))
    dom_low, dom_high = problem.state_domain()
    width = width if width is not None else max(3.0 * eps, 0.5 * max(abs(s_hat), 1.0))
    states = np.linspace(max(dom_low, s_hat - width), min(dom_high, s_hat + width), n)
    # Put states exactly at the ball's ends and just below each threshold so the cliffs show.
    follow_a, robust_a = float(problem.follow_prediction(s_hat)), float(problem.robust_action(s_hat, eps))
    extra = [low, high, follow_a, robust_a, np.nextafter(follow_a, -np.inf), np.nextafter(robust_a, -np.inf),
             np.nextafter(follow_a, np.inf), np.nextafter(robust_a, np.inf)]
    extra = [x for x in extra if states[0] <= x <= states[-1]]
    states = np.unique(np.concatenate([states, extra]))
    follow = problem.excess_loss(follow_a, states)
    inside = (states >= low) & (states <= high)
    return StateCurves(states, follow, problem.excess_loss(robust_a, states), float(s_hat), float(eps), low, high,
                       follow_a, robust_a, float(problem.robust_gap(s_hat, eps)), float(follow[inside].max()))

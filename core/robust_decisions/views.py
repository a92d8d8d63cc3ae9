"""What the page draws, computed here: excess loss across true states around one prediction."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.robust_decisions.problems import DecisionProblem


@dataclass
class StateCurves:
    """Excess loss of following the prediction and of the robust action, against the true state."""

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
    """Both policies' excess loss over a window of true states centred on the prediction."""
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

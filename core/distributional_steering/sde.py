"""The variance-preserving diffusion every base model here shares, and its reverse-time kernel.

Forward: x_t = alpha_t x_0 + sigma_t eps with beta(t) = b_min + t (b_max - b_min), t in [0, 1],
alpha_t = exp(-1/2 int_0^t beta), sigma_t^2 = 1 - alpha_t^2. Reverse steps are Euler-Maruyama on the
reverse SDE, from t to s < t with h = t - s:

    x_s = x_t + h beta(t) (x_t / 2 + score(x_t, t)) + sqrt(h beta(t)) eps

so each step is a Gaussian kernel with a known mean and variance (what guidance corrects against).
Tweedie's prediction x0_hat = (x_t + sigma_t^2 score) / alpha_t is where rewards are read at time t.
"""

from __future__ import annotations

import numpy as np

B_MIN, B_MAX = 0.1, 20.0
T_MIN = 1e-3


def beta(t: float) -> float:
    return B_MIN + t * (B_MAX - B_MIN)


def alpha(t: float) -> float:
    return float(np.exp(-0.5 * (B_MIN * t + 0.5 * (B_MAX - B_MIN) * t * t)))


def sigma2(t: float) -> float:
    return 1.0 - alpha(t) ** 2


def time_grid(n_steps: int) -> np.ndarray:
    """n_steps + 1 times from 1 down to T_MIN."""
    return np.linspace(1.0, T_MIN, n_steps + 1)


def reverse_mean(x: np.ndarray, score: np.ndarray, t: float, s: float) -> tuple[np.ndarray, float]:
    """Mean and (scalar) variance of the Euler-Maruyama reverse kernel from t to s."""
    h, b = t - s, beta(t)
    return x + h * b * (0.5 * x + score), h * b


def tweedie(x: np.ndarray, score: np.ndarray, t: float) -> np.ndarray:
    return (x + sigma2(t) * score) / alpha(t)

r"""Flow matching for action chunks: the interpolation, the loss target and the Euler sampler.

We use the rectified-flow convention of π0: with noise :math:`\varepsilon \sim N(0, I)` and data
:math:`a`, :math:`a_\tau = \tau a + (1 - \tau)\varepsilon`, and the network regresses
:math:`v(a_\tau, \tau) \approx a - \varepsilon`; sampling integrates
:math:`\dot x = v(x, \tau)` from :math:`\tau = 0` (noise) to 1 (data) with Euler steps. The
functions work on numpy arrays and torch tensors alike (only arithmetic).

For Gaussian data :math:`a \sim N(\mu, \Sigma)` the marginal velocity field is known in closed form,
:math:`v(x, \tau) = \mu + (\tau\Sigma - (1 - \tau) I)(\tau^2\Sigma + (1 - \tau)^2 I)^{-1}(x - \tau\mu)`,
which the tests integrate to check the sampler against the target's moments.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from core.common.config import check_range


def euler_sample(velocity: Callable, noise, steps: int = 10) -> "np.ndarray":
    """Integrate ``dx/dτ = velocity(x, τ)`` from τ = 0 (``noise``) to τ = 1 with ``steps`` Euler steps.

    Parameters
    ----------
    velocity : callable
        ``velocity(x, tau) -> same shape as x``; ``tau`` is a float in [0, 1).
    noise : ndarray or torch.Tensor
        The starting points, drawn from N(0, I).
    steps : int
        Euler steps (1 to 1000).

    Returns
    -------
    ndarray or torch.Tensor
        The samples at τ = 1, of the type of ``noise``.

    Examples
    --------
    >>> x = euler_sample(lambda x, t: 3.0 - x * 0, np.zeros(2), steps=4)   # constant field: a shift
    >>> x.tolist()
    [3.0, 3.0]
    """
    steps = check_range("steps", steps, low=1, high=1000, integer=True)
    x, dt = noise, 1.0 / steps
    for i in range(steps):
        x = x + dt * velocity(x, i * dt)
    return x


def gaussian_velocity(mean, cov) -> Callable:
    r"""The exact marginal velocity field that transports N(0, I) to N(mean, cov) under our convention.

    Parameters
    ----------
    mean : array_like, shape (d,)
        The target mean μ.
    cov : array_like, shape (d, d)
        The target covariance Σ (symmetric positive semi-definite).

    Returns
    -------
    callable
        ``v(x, tau)`` for x of shape (n, d): :math:`\mu + (\tau\Sigma - (1-\tau)I)(\tau^2\Sigma + (1-\tau)^2 I)^{-1}(x - \tau\mu)`.

    Examples
    --------
    >>> v = gaussian_velocity(np.array([1.0, -1.0]), np.eye(2) * 0.25)
    >>> x = euler_sample(v, np.random.default_rng(0).standard_normal((20000, 2)), steps=200)
    >>> np.round(x.mean(0), 1).tolist(), np.round(x.std(0), 1).tolist()
    ([1.0, -1.0], [0.5, 0.5])
    """
    mean = np.asarray(mean, dtype=float)
    cov = np.asarray(cov, dtype=float)
    d = len(mean)
    if mean.ndim != 1 or cov.shape != (d, d):
        raise ValueError(f"cov: shape {cov.shape} does not match mean of length {len(mean)}; allowed (d, d)")
    eye = np.eye(d)

    def v(x, tau):
        gain = (tau * cov - (1 - tau) * eye) @ np.linalg.inv(tau ** 2 * cov + (1 - tau) ** 2 * eye)
        return mean + (x - tau * mean) @ gain.T

    return v


def interpolate(actions, noise, tau):
    """``(a_τ, target)``: the noisy point τ a + (1 − τ) ε and the regression target a − ε."""
    return tau * actions + (1 - tau) * noise, actions - noise

"""The locality-aware quantum natural gradient paper's headline claims, checked by ``bench/quantum_ng.py``."""

from core.common.claims import Claim

CLAIMS = (
    Claim("per_shot_convergence",
          "On VQE with local ansätze for Heisenberg and Ising chains, up to 16 qubits, the surrogate converges "
          "better per cumulative shot than SGD, Adam, block-diagonal QNG and RNG.",
          "Median (over seeds) area of log10 energy error against cumulative shots, per chain and size, every "
          "optimiser on one shot budget with step sizes tuned on separate seeds.",
          "The four baselines on the same budget; the surrogate must rank first."),
    Claim("targets_qfim",
          "The surrogate targets the QFIM through its covariance representation in propagated generators.",
          "Relative error of the surrogate at full weight k = n, unmasked, exact expectations, against the exact "
          "metric.",
          "PennyLane's qml.adjoint_metric_tensor / qml.metric_tensor."),
    Claim("k_bias_variance",
          "The truncation weight k trades bias for variance: larger k captures more structure but costs more to "
          "estimate.",
          "Truncation error (bias) against k; the shadow estimator's variance against k at a fixed shot count.",
          "The exact metric (bias); the empirical variance over seeds (variance)."),
    Claim("practical_estimation",
          "The surrogate is practical to estimate under finite-shot budgets, far cheaper than the full QFIM.",
          "Time to build the 16-qubit surrogate against qml.adjoint_metric_tensor, and its metric error.",
          "PennyLane's adjoint metric tensor on lightning.qubit."),
    Claim("concentration_bound",
          "Finite-shot concentration bounds hold for the shadow-estimated surrogate.",
          "Empirical deviation of the shadow estimate against the stated bound over many seeds.",
          "The bound evaluated at the stated confidence."),
    Claim("stationary_convergence",
          "Surrogate QNG converges to a stationary neighbourhood under standard smoothness assumptions.",
          "Gradient norm along long runs against the neighbourhood radius the guarantee gives.",
          "The guarantee's radius."),
)

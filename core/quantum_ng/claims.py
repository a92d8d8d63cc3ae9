"""The locality-aware quantum natural gradient paper's headline claims, checked by ``bench/quantum_ng.py``."""

from core.common.claims import Claim

CLAIMS = (
    Claim("per_shot_convergence",
          "On VQE with local ansätze for Heisenberg and Ising chains, up to 16 qubits, the surrogate converges "
          "better per cumulative shot than SGD, Adam, block-diagonal QNG and RNG.",
          "Median (over seeds) area of log10 energy error against cumulative shots, per chain and size, on the "
          "local brickwork ansatz, every shot each optimiser spends counted against one budget, step sizes tuned "
          "on separate seeds.",
          "The four baselines on the same budget; the surrogate must rank first."),
    Claim("targets_qfim",
          "The surrogate targets the QFIM through its covariance representation in propagated generators.",
          "Relative error of the surrogate at full weight k = n, unmasked, exact expectations, against the exact "
          "metric.",
          "PennyLane's qml.adjoint_metric_tensor / qml.metric_tensor."),
    Claim("k_bias_variance",
          "The truncation weight k trades bias for variance: larger k captures more structure but costs more to "
          "estimate.",
          "Bias² (truncation error) and the shadow estimator's variance against k at a fixed shot count T, their "
          "sum (the MSE) and the best k; the one-dataset variance estimate against the empirical one.",
          "The exact metric (bias); the empirical variance over independent shadows (variance)."),
    Claim("practical_estimation",
          "The surrogate is practical to estimate under finite-shot budgets, far cheaper than the full QFIM.",
          "Time to build the surrogate, state and shadow production counted, and its metric error, against every "
          "other path in one run: the error-versus-cost frontier.",
          "Our exact metric, qml.adjoint_metric_tensor and qml.metric_tensor(approx='block-diag') on lightning.qubit."),
    Claim("concentration_bound",
          "Finite-shot concentration bounds hold for the shadow-estimated surrogate.",
          "Share of 200 seeded shadow estimates whose Frobenius deviation from the truncated metric stays under our "
          "derived bound (the abstract gives none) at delta = 0.05, and how loose it is.",
          "The bound at the stated confidence; measured against the exact metric instead (misspecified target) it "
          "must fail once T is large."),
    Claim("stationary_convergence",
          "Surrogate QNG converges to a stationary neighbourhood under standard smoothness assumptions.",
          "Gradient norm along long runs against the neighbourhood radius the guarantee gives.",
          "The guarantee's radius."),
)

"""Simulated participants, for demos, load tests and the admin page's preview; never mixed with real
data silently: their external ids start with ``sim-``.

Each simulated rater sees problem p's latent interestingness mu_p (seeded, 1..7 scale), adds their
own bias and noise, and rounds to 1..7; attention checks are answered correctly with probability
``attentive``.
"""

from __future__ import annotations

import numpy as np

from core.interestingness.problems import RATIONALES


def latent_interest(problem_ids, seed: int = 0) -> dict:
    """A seeded latent interestingness per problem on the 1..7 scale."""
    rng = np.random.default_rng(seed)
    return {pid: float(1 + 6 * rng.beta(2, 2)) for pid in problem_ids}


def simulate_participants(store, study_id: int, n: int, seed: int = 0, attentive: float = 0.95,
                          populations=None, latent: dict | None = None, rationale_probs: dict | None = None
                          ) -> list[str]:
    """``rationale_probs``: per problem, the chance a rater ticks each rationale (default: none or up to
    two at random)."""
    rng = np.random.default_rng(seed)
    populations = list(populations or store.study(study_id)["populations"])
    latent = latent or latent_interest([p["id"] for p in store.study_problems(study_id)], seed)
    ids = []
    for i in range(n):
        population = populations[i % len(populations)]
        pid = store.enroll(study_id, f"sim-{seed}-{i}", population)
        bias = rng.normal(0, 0.6) + (0.5 if population == "olympiad" else 0.0)
        while (item := store.next_item(pid)) is not None:
            if item.kind == "attention":
                right = rng.random() < attentive
                values = item.expected if right else {"interestingness": int(rng.integers(1, 8)),
                                                      "difficulty": int(rng.integers(1, 8))}
                store.record_response(pid, item.id, values["interestingness"], values["difficulty"])
                continue
            score = int(np.clip(np.rint(latent[item.id] + bias + rng.normal(0, 0.8)), 1, 7))
            if rationale_probs is not None:
                reasons = [r for r, p in zip(RATIONALES, rationale_probs[item.id]) if rng.random() < p]
            else:
                reasons = list(rng.choice(RATIONALES[:-1], size=int(rng.integers(0, 3)), replace=False))
            store.record_response(pid, item.id, score, int(rng.integers(1, 8)), reasons)
        store.complete(pid)
        ids.append(pid)
    return ids

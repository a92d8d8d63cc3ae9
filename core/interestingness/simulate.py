"""Simulated participants, for demos, load tests and the admin page's preview; never mixed with real
data silently: their external ids start with ``sim-``.

Each simulated rater sees problem p's latent interestingness mu_p (seeded, 1..7 scale), adds their
own bias and noise, and rounds to 1..7; attention checks are answered correctly with probability
``attentive``.
Each answer is given a reading time (log-normal, median 15 s, from its own seeded stream) through
``shown_at``, so that the exclusion rule's "too fast" test sees plausible times.
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np

from core.common.seeding import derive_rng
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
    reading = derive_rng(seed, "reading time")
    clock = getattr(store, "clock", None)
    populations = list(populations or store.study(study_id)["populations"])
    latent = latent or latent_interest([p["id"] for p in store.study_problems(study_id)], seed)
    ids = []
    for i in range(n):
        population = populations[i % len(populations)]
        pid = store.enroll(study_id, f"sim-{seed}-{i}", population)
        bias = rng.normal(0, 0.6) + (0.5 if population == "olympiad" else 0.0)
        while (item := store.next_item(pid)) is not None:
            shown = None if clock is None else clock() - timedelta(seconds=float(reading.lognormal(np.log(15), 0.5)))
            if item.kind == "attention":
                right = rng.random() < attentive
                values = item.expected if right else {"interestingness": int(rng.integers(1, 8)),
                                                      "difficulty": int(rng.integers(1, 8))}
                store.record_response(pid, item.id, values["interestingness"], values["difficulty"], shown_at=shown)
                continue
            score = int(np.clip(np.rint(latent[item.id] + bias + rng.normal(0, 0.8)), 1, 7))
            if rationale_probs is not None:
                reasons = [r for r, p in zip(RATIONALES, rationale_probs[item.id]) if rng.random() < p]
            else:
                reasons = list(rng.choice(RATIONALES[:-1], size=int(rng.integers(0, 3)), replace=False))
            store.record_response(pid, item.id, score, int(rng.integers(1, 8)), reasons, shown_at=shown)
        store.complete(pid)
        ids.append(pid)
    return ids

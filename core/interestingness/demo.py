"""The shipped demo study for the analysis page: SIMULATED raters only, labelled so everywhere.

    python -m core.interestingness.ship     # writes assets/interestingness/demo_study.json

40 simulated participants (20 per population) rate 20 of the 66 shipped problems each around a
seeded latent interestingness; olympiad raters sit half a point higher. Their rationale choices
follow per-problem preferences. A "simulated LLM" is built to show the paper's pattern by
construction: its mean tracks the latent up to noise of sd 0.5 (broad agreement) but its distribution is narrower than the
humans' (it misses their spread), and its rationale probabilities are only half informed by the
human preferences (weak rationale alignment).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np

from core.interestingness.embedding_rater import binned_normal
from core.interestingness.problems import BANK, RATIONALES, load_problem_bank
from core.interestingness.simulate import latent_interest, simulate_participants
from core.interestingness.store import StudyStore

DEMO = BANK.parent / "demo_study.json"
LABEL = "Simulated demo study (simulated raters, simulated LLM)"


def build(seed: int = 0) -> dict:
    bank = load_problem_bank()
    rng = np.random.default_rng(seed)
    latent = latent_interest([p.id for p in bank], seed)
    prefs = {p.id: np.append(rng.uniform(0.05, 0.7, len(RATIONALES) - 1), 0.02) for p in bank}
    with tempfile.TemporaryDirectory() as tmp:
        store = StudyStore(f"sqlite:///{Path(tmp) / 'demo.sqlite'}")
        sid = store.create_study("demo", [p.id for p in bank], items_per_participant=20, problems=bank)
        simulate_participants(store, sid, 40, seed=seed, latent=latent, rationale_probs=prefs)
        rows = store.rows(sid)
        store.close()
    llm = {"interestingness": {pid: binned_normal(mu + 0.2 + rng.normal(0, 0.5), 0.5).round(6).tolist()
                               for pid, mu in latent.items()},
           "rationales": {pid: dict(zip(RATIONALES, (0.5 * p + 0.5 * rng.uniform(0, 0.7, len(p))).round(4).tolist()))
                          for pid, p in prefs.items()}}
    return {"label": LABEL, "seed": seed, "made_by": "python -m core.interestingness.ship", "rows": rows,
            "llm": {"simulated LLM": llm}}


def load_demo() -> dict:
    return json.loads(DEMO.read_text())

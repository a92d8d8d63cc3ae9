"""Participants who take a study through the store API, run as a separate process (the bulk of the
scale-out test): ``python -m tests.deploy.participants <url> <study> <prefix> <n> <seed>``.

Each participant enrolls, answers every item (attention checks as instructed) and completes. Prints
one JSON line: every response the store acknowledged (returned without error), so the test can
check that none was lost.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from core.interestingness import StudyStore


def take_study(store: StudyStore, study: int, external_id: str, rng: np.random.Generator) -> list[list]:
    pid = store.enroll(study, external_id, "college")
    acknowledged = []
    while (item := store.next_item(pid)) is not None:
        if item.kind == "attention":
            rating = (item.expected["interestingness"], item.expected["difficulty"])
        else:
            rating = (int(rng.integers(1, 8)), int(rng.integers(1, 8)))
        store.record_response(pid, item.id, rating[0], rating[1])
        acknowledged.append([pid, item.id, *rating])
    store.complete(pid)
    return acknowledged


def main(url: str, study: int, prefix: str, n: int, seed: int) -> None:
    store = StudyStore(url)
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]
    with ThreadPoolExecutor(4) as pool:
        done = list(pool.map(lambda i: take_study(store, study, f"{prefix}-{i}", rngs[i]), range(n)))
    store.close()
    print(json.dumps([row for rows in done for row in rows]))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
